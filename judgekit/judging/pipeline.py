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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit._util.folder_lock import output_folder_lock
from judgekit.errors import ConfigError
from judgekit.formats.jury import Juror
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import effective_rubric, load_rubric, rubric_version
from judgekit.formats.run import Run
from judgekit.formats.runs_input import iter_given_runs, runs_file_of
from judgekit.formats.verdict import Verdict
from judgekit.judging.abstention import RecordCheck, promoted_threshold
from judgekit.judging.api_key import api_key_from_env
from judgekit.judging.budget import Budget, check_priced
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge import JudgeTally
from judgekit.judging.judge_file import JudgeSettings, judge_runs_file
from judgekit.judging.pricing import PriceTable
from judgekit.judging.run_sample import RunSample, sampled_ids
from judgekit.judging.verdicts_file import EARLIER_VERDICTS_FILE, VERDICTS_FILE
from judgekit.providers.chat import ChatProvider
from judgekit.providers.registry import make_provider, parse_model_name

if TYPE_CHECKING:
    from judgekit.formats.task import TaskSet
    from judgekit.judging.batch.options import BatchOptions
    from judgekit.providers.rate_limits import RateLimits
    from judgekit.store import Store
    from judgekit.store.provenance import Provenance
    from judgekit.store.runs_file_batch import Recorded
    from judgekit.store.verdict_sink import VerdictSink

__all__ = [
    "JudgeRequest",
    "JudgingInputs",
    "JudgingSession",
    "PreparedJudging",
    "judge_models",
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
    max_cost_per_day: float | None = None  # shared through the store by every judge
    use_cache: bool = True
    concurrency: int = 8
    max_attempts: int = 6
    samples: int | None = None  # None: the rubric's judge.samples
    limit: int | None = None  # only the first N runs of the file (--limit)
    sample: RunSample | None = None  # --sample: a seeded hash picks the runs judged
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
    run_ids: Collection[str]  # in file order; of the first --limit, those --sample picks
    prices: PriceTable
    tasks: TaskSet | None
    file_runs: Sequence[Run]  # every run of the file, in order: the file is read once
    window: int = 0  # the runs --sample picked from: the file's, or its first --limit
    sample: RunSample | None = None

    @property
    def judged_runs(self) -> Sequence[Run]:
        """The runs to judge, in file order."""
        return _runs_of(self.file_runs, self.run_ids)


def read_judging_inputs(request: JudgeRequest) -> JudgingInputs:
    """Read and check the rubric, suites, price table and runs file, in the order their
    errors are reported."""
    rubric = effective_rubric(load_rubric(request.rubric_ref), request.model)
    for model in judge_models(rubric):
        parse_model_name(model)  # a malformed model name is reported before the files
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
    window = file_runs if request.limit is None else file_runs[: request.limit]
    picked = sampled_ids(request.sample, rubric.id, [(run.run_id, run.task_id) for run in window])
    return JudgingInputs(
        runs=runs,
        rubric=rubric,
        run_ids=dict.fromkeys(picked),
        prices=prices,
        tasks=tasks,
        file_runs=file_runs,
        window=len(window),
        sample=request.sample,
    )


def _runs_of(file_runs: Sequence[Run], run_ids: Collection[str]) -> Sequence[Run]:
    """The runs of ``run_ids`` (a prefix of the file, or a sample of it), in file order."""
    if len(run_ids) == len(file_runs):
        return file_runs
    return [run for run in file_runs if run.run_id in run_ids]


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
    window: int = 0  # the runs --sample picked from
    sample: RunSample | None = None
    max_cost: float | None = None
    max_cost_per_day: float | None = None  # bound to the store when the session opens it
    # A jury's jurors, each with its own provider (``provider`` is then the first's).
    jurors: tuple[tuple[Juror, ChatProvider], ...] = ()

    @property
    def judged_runs(self) -> Sequence[Run]:
        """The runs to judge, in file order."""
        return _runs_of(self.file_runs, self.run_ids)

    @property
    def endpoint(self) -> str:
        """Where the judge is asked; "" for a jury (each juror has its own)."""
        return "" if self.jurors else self.provider.endpoint

    @property
    def version(self) -> str:
        """The rubric's version, as recorded on every verdict."""
        return rubric_version(self.rubric)


def prepare_judging(request: JudgeRequest) -> PreparedJudging:
    """Read and check every input, in the order their errors are reported."""
    inputs = read_judging_inputs(request)
    rubric, prices = inputs.rubric, inputs.prices
    if request.batch is not None and rubric.judge.jury is not None:
        raise ConfigError(
            f"--batch: the rubric {rubric.id} names a jury; judge a jury without --batch "
            "(each juror's batch would finish on its own)"
        )
    jurors = _juror_providers(rubric, request)
    if jurors:
        provider = jurors[0][1]
    else:
        provider_name, _ = parse_model_name(rubric.judge.model)
        provider = make_provider(
            provider_name, base_url=request.base_url, api_key=api_key_from_env(request.api_key_env)
        )
    if request.batch is not None:
        from judgekit.judging.batch.setup import check_batch_api

        check_batch_api(provider)
    budget = None
    if request.max_cost is not None:
        budget = Budget(request.max_cost, prices=prices, model=judge_models(rubric))
    if request.max_cost_per_day is not None:
        for model in judge_models(rubric):
            check_priced(prices, model, "--max-cost-per-day")
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
        window=inputs.window,
        sample=inputs.sample,
        max_cost=request.max_cost,
        max_cost_per_day=request.max_cost_per_day,
        jurors=tuple(jurors),
    )


def judge_models(rubric: Rubric) -> list[str]:
    """The models a rubric's judge asks: its model, or each juror's."""
    if rubric.judge.jury is None:
        return [rubric.judge.model]
    return [juror.model for juror in rubric.judge.jury]


def _juror_providers(rubric: Rubric, request: JudgeRequest) -> list[tuple[Juror, ChatProvider]]:
    """Each juror's provider, reached where the juror says; none for one judge."""
    if rubric.judge.jury is None:
        return []
    given = [name for name, value in _ENDPOINT_OPTIONS.items() if getattr(request, value)]
    if given:
        raise ConfigError(
            f"{' and '.join(given)}: the rubric {rubric.id} names a jury; give each juror its "
            "own base_url or api_key_env in the rubric"
        )
    providers = []
    for juror in rubric.judge.jury:
        provider_name, _ = parse_model_name(juror.model)
        key = api_key_from_env(juror.api_key_env)
        providers.append(
            (juror, make_provider(provider_name, base_url=juror.base_url, api_key=key))
        )
    return providers


_ENDPOINT_OPTIONS = {"--base-url": "base_url", "--api-key-env": "api_key_env"}


class JudgingSession:
    """The output folder locked and, when recording, the runs recorded in the store."""

    def __init__(
        self,
        prepared: PreparedJudging,
        folder: Path,
        sink: VerdictSink | None,
        store: Store | None = None,
    ) -> None:
        if prepared.max_cost_per_day is not None:
            prepared = _with_day_budget(prepared, store)
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
                jurors=prepared.jurors,
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


def _with_day_budget(prepared: PreparedJudging, store: Store | None) -> PreparedJudging:
    """``prepared`` with its budget answering to the day's cap kept in ``store``."""
    from judgekit.errors import ConfigError
    from judgekit.judging.day_budget import DayBudget
    from judgekit.store.day_spend import DaySpendLedger

    if store is None or prepared.max_cost_per_day is None:
        raise ConfigError("--max-cost-per-day needs the store: the day's spend is kept there")
    day = DayBudget(prepared.max_cost_per_day, DaySpendLedger(store.engine))
    models = judge_models(prepared.rubric)
    budget = Budget(prepared.max_cost, prices=prepared.prices, model=models, shared=day)
    return replace(prepared, settings=replace(prepared.settings, budget=budget))


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
        if provenance is None:
            yield JudgingSession(prepared, folder, None)
            return
        from judgekit.store import open_store

        store = stack.enter_context(open_store())
        yield JudgingSession(prepared, folder, _sink(prepared, provenance, store), store)


def _sink(prepared: PreparedJudging, provenance: Provenance, store: Store) -> VerdictSink:
    """The store, opened (created or migrated: a store it cannot use stops the judging before
    any request), takes the verdicts; the file's runs, as read, with the first verdict."""
    from judgekit.store.runs_file_batch import record_runs_file
    from judgekit.store.verdict_sink import VerdictSink

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
