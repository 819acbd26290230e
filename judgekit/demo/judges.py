"""Step 2: two *simulated* judges answer the real judging code.

No model is asked: the openai SDK talks to a :class:`~judgekit.testing.FakeLLMServer` on
127.0.0.1 (model ``local/<name>``). The server finds the run a prompt is about by the
ticket number in its final answer and answers from the truth (the run's deterministic
grade), flipped at set error rates, seeded by the run id (the draw ``judgekit fake-judge``
makes too: :func:`judgekit.judging.fake_judge.erring_score`). Only the shop's stub agent
ends its answers with a ticket, so only the shop runs are judged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from rich.console import Console
from rich.table import Table

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.number_format import rate
from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import BASE_RUBRIC, say
from judgekit.errors import ConfigError
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.run import Run
from judgekit.formats.task import TaskSet
from judgekit.formats.verdict import Verdict
from judgekit.judging.cache import JudgeCache
from judgekit.judging.fake_judge import UNKNOWN_RUN, Score, erring_score, verdict_answer
from judgekit.judging.judge_session import JudgeSession
from judgekit.judging.pricing import PriceTable
from judgekit.providers.registry import make_provider

if TYPE_CHECKING:
    from judgekit.store import Store
    from judgekit.testing import FakeRequest

_TICKET: Final = re.compile(r"\(ticket (\d+)\)")


@dataclass(frozen=True)
class SimulatedJudge:
    """A judge that knows the truth and errs at set rates, deterministically per run."""

    name: str
    rubric_id: str
    true_pass_rate: float  # P(says pass | the run passed)
    true_fail_rate: float  # P(says fail | the run failed)

    @property
    def model(self) -> str:
        return f"local/{self.name}"

    @property
    def false_pass_rate(self) -> float:
        return 1.0 - self.true_fail_rate

    @property
    def false_fail_rate(self) -> float:
        return 1.0 - self.true_pass_rate

    def score(self, run_id: str, passed: bool) -> Score:
        """The verdict on one run: the truth, flipped with the set error rate."""
        return erring_score(
            self.name,
            run_id,
            passed,
            true_pass_rate=self.true_pass_rate,
            true_fail_rate=self.true_fail_rate,
        )


CAREFUL: Final = SimulatedJudge(
    "careful-judge", BASE_RUBRIC, true_pass_rate=0.95, true_fail_rate=0.90
)
SLOPPY: Final = SimulatedJudge(
    "sloppy-judge", f"{BASE_RUBRIC}_sloppy", true_pass_rate=0.95, true_fail_rate=0.40
)
JUDGES: Final = (CAREFUL, SLOPPY)


def write_rubrics(source: Path, folder: Path) -> dict[SimulatedJudge, Path]:
    """Copies of the rubric, one per simulated judge: its own id, model and version."""
    text = source.read_text(encoding="utf-8")
    base = load_rubric(source)
    folder.mkdir(parents=True, exist_ok=True)
    files: dict[SimulatedJudge, Path] = {}
    for judge in JUDGES:
        copy = re.sub(r"(?m)^id: .*$", f"id: {judge.rubric_id}", text, count=1)
        copy = copy.replace(f"model: {base.judge.model}", f"model: {judge.model}", 1)
        path = folder / f"{judge.rubric_id}.yaml"
        with atomic_writer(path) as fh:
            fh.write(copy)
        rubric = load_rubric(path)
        if rubric.id != judge.rubric_id or rubric.judge.model != judge.model:
            raise ConfigError(f"could not set the judge of {path} to {judge.model}")
        files[judge] = path
    return files


def judge_runs(
    runs: Sequence[Run],
    truth: Mapping[str, bool],
    rubric_files: Mapping[SimulatedJudge, Path],
    tasks: TaskSet,
    *,
    folder: Path,
    store: Store,
    batch_id: int,
    console: Console,
) -> None:
    """Judge ``runs`` with every simulated judge; write and record (in the runs' batch)
    each judge's verdicts."""
    from judgekit.testing import FakeLLMServer

    print_rates(console)
    folder.mkdir(parents=True, exist_ok=True)
    prices = PriceTable.from_home()
    with FakeLLMServer(reply=_reply_function(runs, truth)) as server, JudgeCache() as cache:
        for judge in JUDGES:
            verdicts = _judge_all(
                runs, rubric_files[judge], tasks, server.openai_base_url, cache, prices
            )
            path = folder / f"{judge.rubric_id}.jsonl"
            with atomic_writer(path) as fh:
                fh.writelines(verdict.model_dump_json() + "\n" for verdict in verdicts)
            store.record_verdicts(verdicts, batch_id)
            version = rubric_version(load_rubric(rubric_files[judge]))
            _print_judged(console, judge, version, verdicts, path)
    say(console, f"verdicts recorded in the store, in the shop runs' batch {batch_id}")


def print_rates(console: Console) -> None:
    say(
        console,
        "[bold yellow]simulated judges[/]: no model is asked. A FakeLLMServer on 127.0.0.1 "
        "answers the real judging code (openai SDK, model local/<name>); it finds the run a "
        "prompt is about by the ticket number in the answer and replies with the truth (the "
        "run's deterministic grade), flipped at these set rates, seeded by the run id. Only "
        "the shop's answers carry a ticket, so the shop runs are judged:",
    )
    # Two-line headers keep the table within 80 columns.
    rates = Table(box=None, pad_edge=False)
    rates.add_column("judge", overflow="fold")
    rates.add_column("rubric", overflow="fold")
    for column in ("says pass\nif passed", "says fail\nif failed", "says pass\nif failed"):
        rates.add_column(column, justify="right", no_wrap=True)
    for judge in JUDGES:
        rates.add_row(
            judge.name,
            judge.rubric_id,
            rate(judge.true_pass_rate),
            rate(judge.true_fail_rate),
            rate(judge.false_pass_rate),
        )
    console.print(rates)


def _reply_function(runs: Sequence[Run], truth: Mapping[str, bool]) -> Callable[[FakeRequest], str]:
    """The server's answer: which run the prompt is about (by its ticket), then the truth
    flipped at the asking judge's error rates."""
    by_ticket: dict[str, str] = {}
    for run in runs:
        found = _TICKET.findall(run.final_answer or "")
        if found:
            by_ticket.setdefault(found[-1], run.run_id)
    by_model = {judge.model.partition("/")[2]: judge for judge in JUDGES}

    def reply(request: FakeRequest) -> str:
        judge = by_model.get(request.model)
        found = [t for t in _TICKET.findall(request.text) if t in by_ticket]
        if judge is None or not found:
            return UNKNOWN_RUN  # read as unscored
        run_id = by_ticket[found[-1]]
        score = judge.score(run_id, truth[run_id])
        return verdict_answer(score, f"simulated {judge.name} on {run_id}")

    return reply


def _judge_all(
    runs: Sequence[Run],
    rubric_file: Path,
    tasks: TaskSet,
    base_url: str,
    cache: JudgeCache,
    prices: PriceTable,
) -> list[Verdict]:
    rubric = load_rubric(rubric_file)
    session = JudgeSession(
        make_provider("local", base_url=base_url),
        concurrency=8,
        max_attempts=3,
        cache=cache,
        prices=prices,
        tasks=tasks,
    )
    judge = session.judge(rubric)
    verdicts: list[Verdict] = []
    session.run(lambda: judge.judge_many(runs, concurrency=8, on_verdict=verdicts.append))
    order = {run.run_id: number for number, run in enumerate(runs)}
    return sorted(verdicts, key=lambda verdict: order.get(verdict.run_id, len(order)))


def _print_judged(
    console: Console, judge: SimulatedJudge, version: str, verdicts: Sequence[Verdict], path: Path
) -> None:
    scores = [verdict.score for verdict in verdicts]
    unscored = sum(score is None for score in scores)
    say(
        console,
        f"{judge.rubric_id} (version {version}, {judge.model}): {len(verdicts)} verdicts, "
        f"pass {scores.count('pass')}, fail {scores.count('fail')}, unscored {unscored}; "
        f"wrote {visible_markup(str(path))}",
    )
