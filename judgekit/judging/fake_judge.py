"""A simulated judge: no model, verdicts that follow each run's deterministic grade, wrong at
a set rate — for trying the judge step offline and for testing a project's CI.

It answers on :class:`judgekit.testing.FakeLLMServer` (OpenAI- and Anthropic-compatible, on
127.0.0.1), so the real judging code runs as it would against a provider. For each prompt
it finds the run the prompt quotes (:class:`~judgekit.judging.prompt_runs.PromptRuns`),
takes that run's grade (``passed`` in ``results.jsonl``) as the truth, and answers a binary
verdict: the truth, or its opposite with the set probability, drawn from a generator seeded
by the seed and the run id, so the same run gets the same verdict in every session.

A model given its own error rate (``model_error_rates``, ``--error-rate-for openai/b=0.15``)
errs at that rate, drawn from a generator seeded by the seed, the model's name and the run
id: several simulated judges on one server err independently of each other, as a jury's
jurors would. A request names its model without the provider (the API says which), so
``openai/b`` matches model ``b`` asked through the OpenAI API, and ``local/b`` (an
OpenAI-compatible server) matches model ``b`` through either API when no exact name does::

    judge = FakeJudge.from_results("results", error_rate=0.05, seed=0)
    with FakeLLMServer(reply=judge.reply) as server:
        ...  # judge with OPENAI_BASE_URL=server.openai_base_url
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, Literal

from judgekit._util.input_paths import is_dir, is_file
from judgekit._util.url_file import check_url_file, written_url_file
from judgekit.errors import ConfigError, DataError
from judgekit.formats.grade import RESULTS_FILE, load_results
from judgekit.formats.run import iter_unique_runs
from judgekit.judging.prompt_runs import PromptRuns

if TYPE_CHECKING:
    from judgekit.testing import FakeLLMServer, FakeRequest, RateLimit

__all__ = [
    "UNKNOWN_RUN",
    "FakeJudge",
    "Score",
    "erring_score",
    "serve_fake_judge",
    "verdict_answer",
]

RUNS_FILE = "runs.jsonl"
_URL_LINE: Final = re.compile(r"http://127\.0\.0\.1:\d+/v1\n")
UNKNOWN_RUN = "the simulated judge does not know this run"  # read as unscored: not JSON
Score = Literal["pass", "fail"]


def erring_score(
    key: str, run_id: str, passed: bool, *, true_pass_rate: float, true_fail_rate: float
) -> Score:
    """The truth (``passed``) as a verdict, right with probability ``true_pass_rate`` when
    the run passed and ``true_fail_rate`` when it failed; the draw is seeded by ``key`` and
    ``run_id``, so one run always gets the same verdict from one judge.

    >>> erring_score("j", "r/1", True, true_pass_rate=1.0, true_fail_rate=1.0)
    'pass'
    >>> erring_score("j", "r/1", True, true_pass_rate=0.0, true_fail_rate=1.0)
    'fail'
    """
    draw = random.Random(f"{key}:{run_id}").random()
    right = draw < (true_pass_rate if passed else true_fail_rate)
    return "pass" if passed == right else "fail"


def verdict_answer(score: Score, reason: str) -> str:
    """A judge's answer as judgekit asks for one: a JSON object, the reason first."""
    return json.dumps({"reason": reason, "score": score})


@dataclass
class FakeJudge:
    """Verdicts on ``truth``'s runs (run id → passed), found in prompts by ``finder``,
    wrong with probability ``error_rate`` whichever way the run went."""

    truth: dict[str, bool]
    finder: PromptRuns
    error_rate: float = 0.0
    seed: int = 0
    model_error_rates: dict[str, float] = field(default_factory=dict)  # provider/model → rate
    answered: Counter[str] = field(default_factory=Counter)  # pass, fail, wrong, unknown
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if not 0.0 <= self.error_rate <= 1.0:
            raise ConfigError(f"the error rate must be between 0 and 1, got {self.error_rate}")
        for model, rate in self.model_error_rates.items():
            provider, slash, name = model.partition("/")
            if not (provider and slash and name):
                raise ConfigError(f"an error rate is for a provider/model, got {model!r}")
            if not 0.0 <= rate <= 1.0:
                raise ConfigError(f"the error rate of {model} must be between 0 and 1, got {rate}")

    @classmethod
    def from_results(
        cls,
        results: str | Path,
        *,
        error_rate: float = 0.0,
        seed: int = 0,
        model_error_rates: dict[str, float] | None = None,
    ) -> FakeJudge:
        """The judge of the runs in ``results``: a folder as ``judgekit run --out`` writes it
        (``runs.jsonl`` and ``results.jsonl``), or its ``results.jsonl``. A missing or
        malformed file raises :class:`~judgekit.errors.DataError` naming it."""
        folder = Path(results)
        if not folder.exists():
            raise DataError(
                "no such folder: give the folder `judgekit run --out` wrote", path=folder
            )
        if not is_dir(folder):
            if folder.name != RESULTS_FILE:
                raise DataError(
                    f"not a results folder or a {RESULTS_FILE}: give the folder `judgekit run "
                    "--out` wrote (it holds runs.jsonl and results.jsonl)",
                    path=folder,
                )
            folder = folder.parent
        runs_file = folder / RUNS_FILE
        if not is_file(runs_file):
            raise DataError(
                f"no {RUNS_FILE} in this folder: the judge reads the runs' text there", path=folder
            )
        truth = {grade.run_id: grade.passed for grade in load_results(folder)}
        runs = [run for _, run in iter_unique_runs(runs_file) if run.run_id in truth]
        if not runs:
            raise DataError(f"no run of {RUNS_FILE} has a grade in {RESULTS_FILE}", path=folder)
        return cls(
            truth,
            PromptRuns(runs),
            error_rate=error_rate,
            seed=seed,
            model_error_rates=dict(model_error_rates or {}),
        )

    def model_of(self, api: str, model: str) -> str | None:
        """The name of ``model_error_rates`` a request for ``model`` through ``api`` is
        for: ``api/model`` exactly, else the one name whose model part is ``model``."""
        exact = f"{api}/{model}"
        if exact in self.model_error_rates:
            return exact
        named = [name for name in self.model_error_rates if name.partition("/")[2] == model]
        return named[0] if len(named) == 1 else None

    def score(self, run_id: str, model: str | None = None) -> Score:
        """The verdict on one run: its grade, flipped at the error rate (``model``'s own,
        drawn for that model alone, when it has one)."""
        if model is not None and model in self.model_error_rates:
            right = 1.0 - self.model_error_rates[model]
            key = f"fake-judge:{self.seed}:{model}"
        else:
            right, key = 1.0 - self.error_rate, f"fake-judge:{self.seed}"
        return erring_score(
            key,
            run_id,
            self.truth[run_id],
            true_pass_rate=right,
            true_fail_rate=right,
        )

    def reply(self, request: FakeRequest) -> str:
        """The answer to one judge prompt (the server's reply function)."""
        found = self.finder.runs_of(request.text)
        if not found:
            self._count("unknown")
            return UNKNOWN_RUN
        # Runs whose quoted text is the same get the verdict most of them earned: the
        # prompt cannot say which of them it is about.
        grades = Counter(self.truth[run_id] for run_id in found)
        passed = grades[True] > grades[False]
        run_id = next(run_id for run_id in found if self.truth[run_id] == passed)
        score = self.score(run_id, self.model_of(request.api, request.model))
        wrong = (score == "pass") != passed
        self._count(score, *(("wrong",) if wrong else ()))
        graded = "passed" if passed else "failed"
        note = f"; answered {score}, a set error" if wrong else ""
        return verdict_answer(
            score, f"simulated judge, not a model: run {run_id} {graded} its grade{note}"
        )

    def _count(self, *what: str) -> None:
        with self._lock:  # the server answers from several threads
            self.answered.update(what)


def serve_fake_judge(
    judge: FakeJudge,
    *,
    port: int = 0,
    url_file: Path | None = None,
    on_ready: Callable[[FakeLLMServer], None],
    stop: threading.Event,
    rate_limit: RateLimit | None = None,
    batch_turnaround_s: float = 0.0,
) -> None:
    """Serve ``judge`` on 127.0.0.1:``port`` (0: any free port) until ``stop`` is set or
    Ctrl-C. Once it listens, ``url_file`` (if given) holds the OpenAI base URL, written
    atomically, and ``on_ready`` is called; on the way out the file is removed, so a
    script waiting for it never reads the address of a server that is gone. ``rate_limit``
    answers 429 past so many requests or tokens a minute, as a provider does; a batch ends
    no sooner than ``batch_turnaround_s`` after it was created."""
    from judgekit.testing import FakeLLMServer

    if url_file is not None:
        check_url_file(url_file, _URL_LINE, "a fake judge")
    server = FakeLLMServer(reply=judge.reply, port=port, rate_limit=rate_limit)
    server.batches.turnaround_s = batch_turnaround_s or None
    try:
        server.start()
    except OSError as exc:
        raise ConfigError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    try:
        with written_url_file(url_file, server.openai_base_url):
            on_ready(server)
            while not stop.wait(0.2):
                pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
