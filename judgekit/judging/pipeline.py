"""A runs file judged into a folder and, optionally, the store: the wiring under ``judgekit judge``.

:func:`prepare_judging` reads and checks every input (rubric, suites, price table, runs
file, API key) before anything is written or asked; :func:`judging_session` then locks the
output folder and opens the store, which records the runs with the first verdict so their
verdicts join the runs' batch; :meth:`JudgingSession.judge` judges the runs with
:func:`~judgekit.judging.judge_file.judge_runs_file`.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit._util.folder_lock import output_folder_lock
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import effective_rubric, load_rubric, rubric_version
from judgekit.formats.run import Run
from judgekit.formats.runs_input import iter_given_runs, runs_file_of
from judgekit.formats.verdict import Verdict
from judgekit.judging.abstention import RecordCheck, promoted_threshold
from judgekit.judging.api_key import api_key_from_env
from judgekit.judging.budget import Budget
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge import JudgeTally
from judgekit.judging.judge_file import JudgeSettings, judge_runs_file
from judgekit.judging.pricing import PriceTable
from judgekit.judging.verdicts_file import EARLIER_VERDICTS_FILE, VERDICTS_FILE
from judgekit.providers.chat import ChatProvider
from judgekit.providers.registry import make_provider, parse_model_name

if TYPE_CHECKING:
    from judgekit.formats.task import TaskSet
    from judgekit.judging.batch.options import BatchOptions
    from judgekit.providers.rate_limits import RateLimits
    from judgekit.store.provenance import Provenance
    from judgekit.store.runs_file_batch import Recorded
    from judgekit.store.verdict_sink import VerdictSink

__all__ = [
    "JudgeRequest",
    "JudgingInputs",
    "JudgingSession",
    "PreparedJudging",
    "judging_session",
    "prepare_judging",
    "read_judging_inputs",
]


@dataclass(frozen=True)
class JudgeRequest:
    """What to judge and how: the options of ``judgekit judge``."""

    runs: Path  # a runs file (JSONL), an answers CSV, or a folder holding runs.jsonl
    rubric_ref: str
    model: str | None = None  # None: the rubric's judge model
    base_url: str | None = None
    api_key_env: str | None = None  # the variable holding the key, never the key itself
    tasks_path: Path | None = None
    prices_path: Path | None = None  # None: the price table in JUDGEKIT_HOME, else built in
    max_cost: float | None = None
    use_cache: bool = True
    concurrency: int = 8
    max_attempts: int = 6
    samples: int | None = None  # None: the rubric's judge.samples
    limit: int | None = None  # only the first N runs of the file (--limit)
    batch: BatchOptions | None = None  # --batch: through the provider's batch API
    rate_limits: RateLimits | None = None  # --rpm, --tpm
    # How a selective promotion's record is checked before its threshold abstains (the
    # calibration layer's check); None: no record is trusted, nothing abstains.
    check_promotion: RecordCheck | None = None


@dataclass(frozen=True)
class JudgingInputs:
    """The files of a judging read and checked: what a dry run needs (no provider, no key)."""

    runs: Path
    rubric: Rubric
    run_ids: Collection[str]  # in file order; the first --limit of them
    prices: PriceTable
    tasks: TaskSet | None
    file_runs: Sequence[Run]  # every run of the file, in order: the file is read once

    @property
    def judged_runs(self) -> Sequence[Run]:
        """The runs to judge: the file's first ``len(run_ids)``."""
        return self.file_runs[: len(self.run_ids)]


def read_judging_inputs(request: JudgeRequest) -> JudgingInputs:
    """Read and check the rubric, suites, price table and runs file, in the order their
    errors are reported."""
    rubric = effective_rubric(load_rubric(request.rubric_ref), request.model)
    parse_model_name(rubric.judge.model)  # a malformed model name is reported before the files
    # Judging reads a suite for its references: as data, importing nothing.
    tasks = None
    if request.tasks_path:
        from judgekit.formats.task_files import load_task_files

        tasks = load_task_files(request.tasks_path, resolve_code=False)
    prices = (
        PriceTable.from_file(request.prices_path) if request.prices_path else PriceTable.from_home()
    )
    # The whole file is read and checked, --limit or not: a bad line further on is reported
    # now, not by the run that reaches it. Judging, its resume and the store use these runs.
    # A folder stands for its runs.jsonl, named from here on (the store's batch is its file's).
    runs = runs_file_of(request.runs)
    file_runs = [run for _, run in iter_given_runs(runs)]
    judged = file_runs if request.limit is None else file_runs[: request.limit]
    return JudgingInputs(
        runs=runs,
        rubric=rubric,
        run_ids=dict.fromkeys(run.run_id for run in judged),
        prices=prices,
        tasks=tasks,
        file_runs=file_runs,
    )


@dataclass(frozen=True)
class PreparedJudging:
    """Every input read and checked, and the judge's provider built; nothing written yet."""

    runs: Path
    rubric: Rubric
    run_ids: Collection[str]  # in file order
    provider: ChatProvider
    settings: JudgeSettings
    prices: PriceTable
    tasks: TaskSet | None
    use_cache: bool
    file_runs: Sequence[Run]  # every run of the file, in order, as read once
    batch: BatchOptions | None = None

    @property
    def judged_runs(self) -> Sequence[Run]:
        """The runs to judge: the file's first ``len(run_ids)``."""
        return self.file_runs[: len(self.run_ids)]

    @property
    def version(self) -> str:
        """The rubric's version, as recorded on every verdict."""
        return rubric_version(self.rubric)


def prepare_judging(request: JudgeRequest) -> PreparedJudging:
    """Read and check every input, in the order their errors are reported."""
    inputs = read_judging_inputs(request)
    rubric, prices = inputs.rubric, inputs.prices
    provider_name, _ = parse_model_name(rubric.judge.model)
    provider = make_provider(
        provider_name, base_url=request.base_url, api_key=api_key_from_env(request.api_key_env)
    )
    if request.batch is not None:
        from judgekit.judging.batch.setup import check_batch_api

        check_batch_api(provider)
    budget = None
    if request.max_cost is not None:
        budget = Budget(request.max_cost, prices=prices, model=rubric.judge.model)
    settings = JudgeSettings(
        concurrency=request.concurrency,
        max_attempts=request.max_attempts,
        samples=request.samples,
        budget=budget,
        abstain_below=promoted_threshold(rubric, check=request.check_promotion),
        rate_limits=request.rate_limits,
    )
    return PreparedJudging(
        runs=inputs.runs,
        rubric=rubric,
        run_ids=inputs.run_ids,
        provider=provider,
        settings=settings,
        prices=prices,
        tasks=inputs.tasks,
        use_cache=request.use_cache,
        batch=request.batch,
        file_runs=inputs.file_runs,
    )


class JudgingSession:
    """The output folder locked and, when recording, the runs recorded in the store."""

    def __init__(self, prepared: PreparedJudging, folder: Path, sink: VerdictSink | None) -> None:
        self.prepared = prepared
        self.folder = folder
        self._sink = sink

    @property
    def verdicts_file(self) -> Path:
        return self.folder / VERDICTS_FILE

    @property
    def earlier_verdicts_file(self) -> Path:
        """Where earlier verdicts that are not reused are kept apart."""
        return self.folder / EARLIER_VERDICTS_FILE

    def judge(
        self,
        on_verdict: Callable[[Verdict], None] | None = None,
        on_batch_event: Callable[[str], None] | None = None,
    ) -> JudgeTally:
        """Judge the runs not judged yet; every verdict, kept ones included, goes to the
        store and then to ``on_verdict``. What reached the store is flushed however it ends.
        With ``--batch``, ``on_batch_event`` hears each batch submitted, resumed and ended."""
        prepared = self.prepared
        settings, prices, client = prepared.settings, prepared.prices, None
        if prepared.batch is not None:
            from judgekit.judging.batch.setup import batch_setup

            setup = batch_setup(
                prepared.provider,
                settings,
                prices,
                runs=len(prepared.run_ids),
                options=prepared.batch,
                on_event=on_batch_event,
            )
            settings, prices, client = setup.settings, setup.prices, setup.client
        try:
            return judge_runs_file(
                prepared.judged_runs,
                prepared.rubric,
                provider=prepared.provider,
                folder=self.folder,
                run_ids=prepared.run_ids,
                settings=settings,
                cache=JudgeCache() if prepared.use_cache else None,
                prices=prices,
                tasks=prepared.tasks,
                on_verdict=lambda verdict: self._keep(verdict, on_verdict),
                client=client,
            )
        finally:
            if self._sink is not None:
                self._sink.flush()

    def recorded(self) -> Recorded | None:
        """What the store holds of this session; None when not recording."""
        return self._sink.recorded() if self._sink is not None else None

    def _keep(self, verdict: Verdict, on_verdict: Callable[[Verdict], None] | None) -> None:
        if on_verdict is not None:
            on_verdict(verdict)
        if self._sink is not None:
            self._sink.add(verdict)


@contextmanager
def judging_session(
    prepared: PreparedJudging, folder: Path, *, provenance: Provenance | None
) -> Iterator[JudgingSession]:
    """Lock ``folder`` and, with a ``provenance``, open the store; the runs are recorded with
    the first verdict, which joins their batch (``judgekit monitor --recheck`` can later ask
    a judge about the same runs), so a judging without a verdict records nothing. Without
    one nothing is recorded."""
    with ExitStack() as stack:
        stack.enter_context(output_folder_lock(folder))
        sink = _open_sink(prepared, provenance, stack) if provenance is not None else None
        yield JudgingSession(prepared, folder, sink)


def _open_sink(prepared: PreparedJudging, provenance: Provenance, stack: ExitStack) -> VerdictSink:
    """The store opened now, created or migrated (a store it cannot use stops the judging
    before any request); the file's runs, as read, are recorded with the first verdict."""
    from judgekit.store import open_store
    from judgekit.store.runs_file_batch import record_runs_file
    from judgekit.store.verdict_sink import VerdictSink

    store = stack.enter_context(open_store())
    return VerdictSink(
        store,
        lambda: record_runs_file(
            store,
            prepared.runs,
            source="judge",
            provenance=provenance,
            runs=prepared.file_runs,
        ),
    )
