"""What ``judgekit align`` reads: the request, and every input read and checked before
anything is asked or written (:func:`prepare_alignment`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judgekit._util.input_paths import is_file
from judgekit.alignment.dev_set import DevSet, dev_set
from judgekit.alignment.shared_values import refuse_shared_values
from judgekit.calibration.selection import select_verdicts
from judgekit.calibration.split import Split, load_split
from judgekit.errors import CalibrationError, DataError
from judgekit.formats.label import labels_path, read_labels
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, one_judge, rubric_version
from judgekit.formats.run import iter_unique_runs
from judgekit.formats.suite import TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.formats.verdict import Verdict, load_verdicts
from judgekit.formats.verdict_scores import ScaleCheck
from judgekit.judging.pricing import PriceTable
from judgekit.providers.rate_limits import RateLimits
from judgekit.providers.registry import parse_model_name

__all__ = ["AlignRequest", "PreparedAlignment", "prepare_alignment"]


@dataclass(frozen=True)
class AlignRequest:
    """The options of ``judgekit align``."""

    rubric_ref: str
    runs: Path
    verdicts_file: Path | None = None
    labels_file: Path | None = None
    tasks_path: Path | None = None
    optimizer_model: str | None = None
    base_url: str | None = None
    api_key_env: str | None = None
    folds: int = 5
    seed: int = 0
    out: Path | None = None  # None: the rubric's own file
    max_cost: float | None = None
    prices_path: Path | None = None  # None: the price table in JUDGEKIT_HOME, else built in
    use_cache: bool = True
    concurrency: int = 8
    max_attempts: int = 6
    rate_limits: RateLimits | None = None  # --rpm, --tpm


@dataclass(frozen=True)
class PreparedAlignment:
    """Every input read and checked; nothing asked or written yet."""

    request: AlignRequest
    rubric: Rubric
    split: Split
    dev: DevSet
    n_test: int
    current: dict[str, Verdict]  # the current rubric's verdicts read from --verdicts
    tasks: TaskSet | None
    target: Path
    prices: PriceTable


def prepare_alignment(request: AlignRequest) -> PreparedAlignment:
    """Read and check the rubric, labels, split, runs, suites and verdicts, in that order."""
    rubric = one_judge(load_rubric(request.rubric_ref), "align")
    if rubric.source is not None:
        refuse_shared_values(rubric.source)
    if request.optimizer_model is not None:
        parse_model_name(request.optimizer_model)
    path = request.labels_file or labels_path("labels", rubric.id)
    if not is_file(path):
        raise DataError(
            f"no labels for {rubric.id}; give some with `judgekit label RUNS --rubric "
            f"{rubric.id} --labeler NAME`, or pass --labels FILE",
            path=path,
        )
    labels = read_labels(path, rubric).current
    prices = (
        PriceTable.from_file(request.prices_path) if request.prices_path else PriceTable.from_home()
    )
    # The split is recorded only once every input has been read and checked.
    split = load_split(rubric, path, labels, record=False)
    # Read once, the whole file checked before any of it is used.
    runs = {run.run_id: run for _, run in iter_unique_runs(request.runs)}
    dev = dev_set(labels, split.dev, runs)
    tasks = load_task_files(request.tasks_path, resolve_code=False) if request.tasks_path else None
    current = _current_verdicts(rubric, request.verdicts_file)
    if len(dev.items) < 2 * request.folds:
        raise CalibrationError(
            f"align needs at least {2 * request.folds} labelled dev runs of {rubric.id} for "
            f"{request.folds} folds, with a run in {request.runs}; it has {len(dev.items)} "
            f"(of {dev.n_dev_labelled} labelled on dev): label more runs, or pass fewer --folds"
        )
    target = request.out or rubric.source or Path("rubrics") / f"{rubric.id}.yaml"
    split = load_split(rubric, path, labels)
    n_test = len(split.test & {key[0] for key in labels})
    return PreparedAlignment(request, rubric, split, dev, n_test, current, tasks, target, prices)


def _current_verdicts(rubric: Rubric, verdicts_file: Path | None) -> dict[str, Verdict]:
    if verdicts_file is None:
        return {}
    verdicts = load_verdicts(verdicts_file, check=ScaleCheck([rubric]))
    version = rubric_version(rubric)
    return select_verdicts(verdicts, rubric.id, version=version, model=rubric.judge.model).current
