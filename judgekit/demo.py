"""``judgekit demo``: the whole flow offline — trials, a judge, hand labels, calibration and
promotion — with no API key and no network.

1. The shop suite (``tasks/shop.yaml``) runs with the seeded stub agent ``examples.shop:agent``
   for :data:`TRIALS` trials per task, each in a fresh world, graded deterministically.
2. Two *simulated* judges answer the real judging code (the openai SDK against a
   :class:`~judgekit.testing.FakeLLMServer` on 127.0.0.1, model ``local/<name>``). Each finds
   the run a prompt is about by the ticket number in its final answer and answers from the
   truth (the run's deterministic grade) flipped at set error rates, seeded by the run id.
3. Hand labels: the truth for a stratified sample of :data:`LABELS` runs, written with the
   real label store.
4. Calibration and promotion through the same functions ``judgekit calibrate`` and
   ``judgekit promote`` use: the careful judge is promoted, the sloppy one refused.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.markup import escape
from rich.table import Table

import judgekit
from judgekit.errors import ConfigError
from judgekit.formats.label import Label
from judgekit.formats.run import Run, load_runs
from judgekit.formats.task import TaskSet, load_tasks
from judgekit.formats.verdict import Verdict
from judgekit.jsonl import atomic_writer
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge import Judge
from judgekit.judging.pricing import PriceTable
from judgekit.judging.rubrics import load_rubric, rubric_version
from judgekit.judging.status import promotion_record_path
from judgekit.labelling.plan import items_for
from judgekit.labelling.store import LabelWriter, labels_path
from judgekit.providers.client import ChatClient
from judgekit.providers.registry import make_provider
from judgekit.report.grade_table import print_grade_table
from judgekit.trials.runner import TrialLimits, in_process_trials, load_agent, run_trials

if TYPE_CHECKING:
    from judgekit.calibration_report import CalibrationReport
    from judgekit.testing import FakeRequest

__all__ = [
    "CAREFUL",
    "JUDGES",
    "SLOPPY",
    "DemoResult",
    "JudgeOutcome",
    "SimulatedJudge",
    "repo_root",
    "run_demo",
]

TRIALS = 40
LABELS = 80
LABELER = "demo-truth"
AGENT = "examples.shop:agent"
BASE_RUBRIC = "goal_completion"
_TICKET = re.compile(r"\(ticket (\d+)\)")


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

    def score(self, run_id: str, passed: bool) -> str:
        """The verdict on one run: the truth, flipped with the set error rate."""
        draw = random.Random(f"{self.name}:{run_id}").random()
        right = draw < (self.true_pass_rate if passed else self.true_fail_rate)
        return "pass" if passed == right else "fail"


CAREFUL = SimulatedJudge("careful-judge", BASE_RUBRIC, true_pass_rate=0.95, true_fail_rate=0.90)
SLOPPY = SimulatedJudge(
    "sloppy-judge", f"{BASE_RUBRIC}_sloppy", true_pass_rate=0.95, true_fail_rate=0.40
)
JUDGES = (CAREFUL, SLOPPY)


@dataclass
class JudgeOutcome:
    """One simulated judge after calibration and promotion."""

    judge: SimulatedJudge
    report: CalibrationReport
    record: Path | None
    failed: list[str] = field(default_factory=list)


@dataclass
class DemoResult:
    out: Path
    truth: dict[str, bool]
    labelled: list[str]
    outcomes: list[JudgeOutcome]


def repo_root() -> Path:
    """The repository judgekit runs from (its ``tasks/`` and ``rubrics/``), or a
    :class:`ConfigError` when judgekit was installed from a wheel without them."""
    root = Path(judgekit.__file__).resolve().parents[1]
    needed = [root / "tasks" / "shop.yaml", root / "rubrics" / f"{BASE_RUBRIC}.yaml"]
    needed.append(root / "examples" / "shop.py")
    missing = [str(path) for path in needed if not path.is_file()]
    if missing:
        raise ConfigError(
            "the demo needs the judgekit repository's tasks/, rubrics/ and examples/, not "
            f"found ({', '.join(missing)}): judgekit seems installed from a wheel; clone the "
            "repository and `pip install -e .` to run the demo"
        )
    return root


def run_demo(out: Path, console: Console) -> DemoResult:
    """Run the five steps, printing each, writing everything under ``out``."""
    root = repo_root()
    if (out / "runs.jsonl").exists():
        raise ConfigError(f"{out} already holds a demo: choose another --out or remove it")
    if str(root) not in sys.path:  # examples.shop, wherever the demo is started from
        sys.path.insert(0, str(root))
    tasks_file = root / "tasks" / "shop.yaml"
    tasks = load_tasks(tasks_file)

    _heading(console, 1, f"Run the shop suite: {AGENT}, {TRIALS} trials per task")
    truth = _run_suite(tasks, out, console)
    runs = list(load_runs(out / "runs.jsonl"))

    _heading(console, 2, "Judge the final answers with two SIMULATED judges")
    rubric_files = _write_rubrics(root / "rubrics" / f"{BASE_RUBRIC}.yaml", out / "rubrics")
    _judge(runs, truth, rubric_files, tasks, out, console)

    _heading(console, 3, f"Hand labels: the truth for a stratified sample of {LABELS} runs")
    labelled = _write_labels(runs, truth, tasks, out, console)

    _heading(console, 4, "Calibrate against the labels, then promote")
    outcomes = _calibrate_and_promote(rubric_files, out, tasks_file, console)

    _heading(console, 5, "The same with a real model")
    _print_next_steps(out, tasks_file, console)
    return DemoResult(out=out, truth=truth, labelled=labelled, outcomes=outcomes)


def _heading(console: Console, number: int, title: str) -> None:
    console.print()
    console.rule(f"[bold]{number}. {escape(title)}", align="left")


def _say(console: Console, text: str) -> None:
    console.print(text, highlight=False, soft_wrap=True)


# -- 1. trials -------------------------------------------------------------------------------


def _run_suite(tasks: TaskSet, out: Path, console: Console) -> dict[str, bool]:
    truth: dict[str, bool] = {}
    trial = in_process_trials(tasks, load_agent(AGENT), TrialLimits())
    summary = run_trials(
        tasks,
        trial,
        trials=TRIALS,
        out_dir=out,
        on_trial=lambda run, grade: truth.__setitem__(run.run_id, grade.passed),
    )
    _say(
        console,
        "Each trial runs in a fresh world; Truth, Path and State grade what the agent did, "
        "not what it said.",
    )
    print_grade_table(summary, console, show_reasons=False, k=5)
    _say(console, f"wrote {out / 'runs.jsonl'}, {out / 'results.jsonl'}, {out / 'results.csv'}")
    return truth


# -- 2. simulated judges ---------------------------------------------------------------------


def _write_rubrics(source: Path, folder: Path) -> dict[SimulatedJudge, Path]:
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
            return "the simulated judge does not know this run"  # read as unscored
        run_id = by_ticket[found[-1]]
        score = judge.score(run_id, truth[run_id])
        return json.dumps({"reason": f"simulated {judge.name} on {run_id}", "score": score})

    return reply


def _judge(
    runs: Sequence[Run],
    truth: Mapping[str, bool],
    rubric_files: Mapping[SimulatedJudge, Path],
    tasks: TaskSet,
    out: Path,
    console: Console,
) -> None:
    from judgekit.home import judgekit_home
    from judgekit.store import open_store
    from judgekit.testing import FakeLLMServer

    _say(
        console,
        "[bold yellow]simulated judge[/]: no model is asked. A FakeLLMServer on 127.0.0.1 "
        "answers the real judging code (openai SDK, model local/<name>); it finds the run a "
        "prompt is about by the ticket number in the answer and replies with the truth (the "
        "run's deterministic grade), flipped at these set rates, seeded by the run id:",
    )
    rates = Table(box=None, pad_edge=False)
    for column in ("judge", "rubric", "says pass | passed", "says fail | failed", "false-pass"):
        rates.add_column(column, justify="left" if column in ("judge", "rubric") else "right")
    for judge in JUDGES:
        rates.add_row(
            judge.model,
            judge.rubric_id,
            f"{judge.true_pass_rate:.2f}",
            f"{judge.true_fail_rate:.2f}",
            f"{judge.false_pass_rate:.2f}",
        )
    console.print(rates)
    verdicts_dir = out / "verdicts"
    verdicts_dir.mkdir(parents=True, exist_ok=True)
    prices = PriceTable.from_file(judgekit_home() / "prices.yaml")
    with (
        FakeLLMServer(reply=_reply_function(runs, truth)) as server,
        open_store() as store,
        JudgeCache() as cache,
    ):
        for judge in JUDGES:
            rubric = load_rubric(rubric_files[judge])
            path = verdicts_dir / f"{judge.rubric_id}.jsonl"
            verdicts = asyncio.run(
                _judge_runs(runs, rubric_files[judge], tasks, server.openai_base_url, cache, prices)
            )
            with atomic_writer(path) as fh:
                fh.writelines(verdict.model_dump_json() + "\n" for verdict in verdicts)
            store.record_verdicts(verdicts)
            _print_judged(console, judge, rubric_version(rubric), verdicts, path)
        _say(console, f"verdicts recorded in the store: {store.url}")


async def _judge_runs(
    runs: Sequence[Run],
    rubric_file: Path,
    tasks: TaskSet,
    base_url: str,
    cache: JudgeCache,
    prices: PriceTable,
) -> list[Verdict]:
    rubric = load_rubric(rubric_file)
    provider = make_provider("local", base_url=base_url)
    client = ChatClient(provider, concurrency=8, max_attempts=3)
    judge = Judge(rubric, client, model=rubric.judge.model, cache=cache, prices=prices, tasks=tasks)
    verdicts: list[Verdict] = []
    try:
        await judge.judge_many(runs, concurrency=8, on_verdict=verdicts.append)
    finally:
        await provider.aclose()
    order = {run.run_id: number for number, run in enumerate(runs)}
    return sorted(verdicts, key=lambda verdict: order.get(verdict.run_id, len(order)))


def _print_judged(
    console: Console, judge: SimulatedJudge, version: str, verdicts: Sequence[Verdict], path: Path
) -> None:
    scores = [verdict.score for verdict in verdicts]
    unscored = sum(score is None for score in scores)
    _say(
        console,
        f"{judge.rubric_id} (version {version}, {judge.model}): {len(verdicts)} verdicts, "
        f"pass {scores.count('pass')}, fail {scores.count('fail')}, unscored {unscored}; "
        f"wrote {path}",
    )


# -- 3. labels -------------------------------------------------------------------------------


def _write_labels(
    runs: Sequence[Run], truth: Mapping[str, bool], tasks: TaskSet, out: Path, console: Console
) -> list[str]:
    """The truth for a stratified sample: half passing runs, half failing (as far as there
    are), the same runs for both rubrics."""
    rng = random.Random(20240601)
    passed = sorted(run_id for run_id, ok in truth.items() if ok)
    failed = sorted(run_id for run_id, ok in truth.items() if not ok)
    n_failed = min(len(failed), LABELS // 2)
    n_passed = min(len(passed), LABELS - n_failed)
    chosen = set(rng.sample(failed, n_failed) + rng.sample(passed, n_passed))
    items = [item for item in items_for(runs, tasks) if item.run.run_id in chosen]
    at = datetime.now(UTC)
    _say(
        console,
        f"Labeller [bold]{LABELER}[/]: labels a careful person would give, taken here from the "
        "world state so the figures can be checked. In real use: `judgekit label RUNS --rubric "
        "goal_completion --labeler NAME --strategy stratified`.",
    )
    for judge in JUDGES:
        path = labels_path(out / "labels", judge.rubric_id)
        with LabelWriter(path) as writer:
            writer.append_many(
                Label(
                    run_id=item.run.run_id,
                    rubric_id=judge.rubric_id,
                    label="pass" if truth[item.run.run_id] else "fail",
                    labeler=LABELER,
                    at=at,
                    item_hash=item.hash,
                )
                for item in items
            )
        _say(console, f"wrote {len(items)} labels ({n_passed} pass, {n_failed} fail) to {path}")
    return sorted(chosen)


# -- 4. calibration and promotion ------------------------------------------------------------


def _calibrate_and_promote(
    rubric_files: Mapping[SimulatedJudge, Path], out: Path, tasks_file: Path, console: Console
) -> list[JudgeOutcome]:
    from judgekit.calibration_report import failure_lines, promotion_record
    from judgekit.cli.calibrate_cmd import load_report

    outcomes: list[JudgeOutcome] = []
    for judge in JUDGES:
        rubric = load_rubric(rubric_files[judge])
        report = load_report(
            rubric,
            verdicts_file=None,  # from the store, as `judgekit calibrate` reads them
            labels_file=labels_path(out / "labels", rubric.id),
            runs_files=(out / "runs.jsonl",),
            tasks_path=tasks_file,
            interval_method="analytic",
        )
        record: Path | None = None
        failed: list[str] = []
        if report.promotable:
            folder = rubric.source.parent if rubric.source is not None else out / "rubrics"
            record = promotion_record_path(rubric, folder)
            with atomic_writer(record) as fh:
                fh.write(json.dumps(promotion_record(report), indent=2, ensure_ascii=False) + "\n")
        else:
            failed = failure_lines(report)
        outcomes.append(JudgeOutcome(judge=judge, report=report, record=record, failed=failed))
    _print_calibration(outcomes, console)
    return outcomes


def _interval(bounds: Sequence[float | None] | None) -> str:
    if bounds is None or bounds[0] is None or bounds[1] is None:
        return "—"
    return f"{bounds[0]:.3f}–{bounds[1]:.3f}"


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _print_calibration(outcomes: Sequence[JudgeOutcome], console: Console) -> None:
    table = Table(title="Judge against the labels (95% intervals)", title_justify="left")
    for column in ("judge", "n", "agreement", "kappa", "kappa CI", "false-pass set", "measured"):
        table.add_column(column, justify="left" if column == "judge" else "right")
    table.add_column("false-fail set", justify="right")
    table.add_column("measured", justify="right")
    for outcome in outcomes:
        report, judge = outcome.report, outcome.judge
        table.add_row(
            judge.name,
            str(report.n),
            _number(report.agreement),
            _number(report.kappa),
            _interval(report.kappa_ci),
            f"{judge.false_pass_rate:.2f}",
            _number(report.false_pass_rate),
            f"{judge.false_fail_rate:.2f}",
            _number(report.false_fail_rate),
        )
    console.print(table)
    for outcome in outcomes:
        report, judge = outcome.report, outcome.judge
        _say(
            console,
            f"{judge.name}: false-pass rate set {judge.false_pass_rate:.2f}, measured "
            f"{_number(report.false_pass_rate)} (95% CI {_interval(report.false_pass_ci)}); "
            f"false-fail rate set {judge.false_fail_rate:.2f}, measured "
            f"{_number(report.false_fail_rate)} (95% CI {_interval(report.false_fail_ci)})",
        )
    policy = outcomes[0].report.policy
    _say(
        console,
        f"promotion policy: at least {policy.min_labels} labels, {policy.min_per_class} per "
        f"class, lower bound of the kappa interval at least {policy.min_kappa}",
    )
    for outcome in outcomes:
        report = outcome.report
        if outcome.record is not None:
            _say(
                console,
                f"[green]promoted[/] {report.rubric_id} (version {report.rubric_version}, judge "
                f"{report.model}): kappa {_number(report.kappa)} "
                f"(95% CI {_interval(report.kappa_ci)}); wrote {outcome.record}",
            )
        else:
            _say(
                console,
                f"[red]refused[/] {report.rubric_id} (version {report.rubric_version}, judge "
                f"{report.model}): {len(outcome.failed)} of {len(report.criteria)} criteria "
                "not met",
            )
            for line in outcome.failed:
                _say(console, f"  {escape(line)}")


# -- 5. next steps ---------------------------------------------------------------------------


def _print_next_steps(out: Path, tasks_file: Path, console: Console) -> None:
    runs = out / "runs.jsonl"
    tasks = tasks_file.parent  # absolute paths: the commands work from any folder
    rubric = tasks.parent / "rubrics" / f"{BASE_RUBRIC}.yaml"
    _say(console, "Judge these runs with a real model (the rubric's default judge):")
    _say(
        console,
        f"  OPENAI_API_KEY=… judgekit judge {runs} --rubric {rubric} --tasks {tasks} "
        "--model openai/gpt-4o-mini",
    )
    _say(console, "or a local OpenAI-compatible server (Ollama, vLLM, llama.cpp):")
    _say(
        console,
        f"  judgekit judge {runs} --rubric {rubric} --tasks {tasks} --model local/<model> "
        "--base-url http://localhost:11434/v1",
    )
    _say(
        console,
        "then label with `judgekit label`, and `judgekit calibrate` / `judgekit promote` "
        "--rubric goal_completion.",
    )
