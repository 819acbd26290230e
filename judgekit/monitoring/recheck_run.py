"""The judge recheck end to end (``judgekit recheck RUBRIC``): re-judge a promoted rubric's
labelled runs with the current model, compare its kappa with the promotion record (see
:mod:`judgekit.monitoring.recheck`), record it all in the store and, on a drop, mark the
rubric stale."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judgekit.calibration.promotion import (
    default_labels_dir,
    promotion_record_path,
    record_status,
)
from judgekit.calibration.split import mark_spent
from judgekit.errors import DataError, ProviderError
from judgekit.formats.label import labels_path, read_labels
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, one_judge, rubric_version
from judgekit.formats.run import Run, iter_unique_runs
from judgekit.formats.split_file import split_path
from judgekit.formats.task import TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.formats.verdict import Verdict
from judgekit.judging.judge_session import JudgeSession
from judgekit.judging.pricing import PriceTable
from judgekit.monitoring.recheck import (
    RecheckResult,
    compare_kappas,
    labelled_runs,
    mark_stale,
    read_promotion,
    recheck_report,
)
from judgekit.monitoring.selective_recheck import GuaranteeCheck, check_guarantee
from judgekit.providers.rate_limits import RateLimits
from judgekit.providers.registry import make_provider, parse_model_name
from judgekit.store import Store
from judgekit.store.run_filter import RECHECK_SOURCE

__all__ = ["RecheckRun", "run_recheck"]


@dataclass(frozen=True)
class RecheckRun:
    """A recheck's result, the labelled runs it could not find, and the promotion record."""

    result: RecheckResult
    missing: list[str]  # ids of labelled runs neither in the runs files nor in the store
    record_path: Path

    def as_dict(self) -> dict[str, Any]:
        """The ``--json`` object."""
        data = self.result.as_dict()
        data["missing_runs"] = self.missing
        return {"recheck": data}


RECHECK_SPENT = "measured beside the judge's verdicts by monitor --recheck"


def run_recheck(
    store: Store,
    rubric_ref: str,
    *,
    labels_dir: Path | None,
    runs_files: Sequence[Path],
    tasks_path: Path | None,
    base_url: str | None,
    api_key: str | None,
    concurrency: int,
    alpha: float,
    rate_limits: RateLimits | None = None,
) -> RecheckRun:
    """Recheck one promoted rubric and record it in ``store``; on a drop mark it stale.

    Only a rubric promoted at its current version by a record that holds, with labels and
    at least one labelled run found (in ``runs_files``, else in the store), can be
    rechecked; anything else raises :class:`~judgekit.errors.DataError`. A labelled run the judge got no answer for raises
    :class:`~judgekit.errors.ProviderError`: a recheck on fewer runs compares another sample.
    """
    rubric = one_judge(load_rubric(rubric_ref), "monitor --recheck")
    folder = rubric.source.parent if rubric.source is not None else Path("rubrics")
    record_path = promotion_record_path(rubric, folder)
    record = read_promotion(record_path)
    version = rubric_version(rubric)
    if record.rubric_version != version:
        raise DataError(
            f"promoted at version {record.rubric_version}, the rubric is now {version}: it is "
            "stale already; calibrate and promote it again",
            path=record_path,
            field="rubric_version",
        )
    status, why = record_status(record, rubric, folder)
    if status == "invalid":
        raise DataError(
            f"the promotion record does not hold ({why}): only a promoted rubric can be rechecked",
            path=record_path,
        )
    labels_file = labels_path(labels_dir or default_labels_dir(folder), rubric.id)
    labels = read_labels(labels_file, rubric).current
    if not labels:
        raise DataError(f"no labels for {rubric.id}: nothing to recheck against", path=labels_file)
    found: dict[str, Run] = {}
    for path in runs_files:
        found.update((run.run_id, run) for _, run in iter_unique_runs(path))
    if not runs_files:
        found = store.runs({run_id for run_id, _ in labels})
    runs, missing = labelled_runs(labels, found)
    if not runs:
        where = ", ".join(map(str, runs_files)) or f"the store {store.url}"
        raise DataError(
            f"none of the {len(missing)} labelled runs of {rubric.id} is in {where}; "
            "pass the runs with --runs FILE",
            path=labels_file,
        )
    # The judge needs only the reference answers: the suite is read as data, importing nothing.
    tasks = load_task_files(tasks_path, resolve_code=False) if tasks_path is not None else None
    verdicts = _judge(rubric, runs, tasks, base_url, api_key, concurrency, rate_limits)
    report = recheck_report(rubric, verdicts, labels)
    # Its kappa is a figure of the test labels beside the judge's verdicts: every test label
    # it measured is spent, as a look by calibrate --split all would spend it.
    mark_spent(split_path(labels_file), [run.run_id for run in runs], RECHECK_SPENT)
    result = compare_kappas(record, report, alpha=alpha)
    guarantee = check_guarantee(record, rubric, verdicts, labels, alpha=alpha)
    result = with_guarantee(result, guarantee)
    batch = store.batch(
        key=f"recheck:{rubric.id}:{datetime.now(UTC).isoformat()}", source=RECHECK_SOURCE
    )
    store.record_verdicts(verdicts, batch)
    store.record_calibration(report.as_dict())
    if result.drifted:
        updated = mark_stale(record_path, record, result)
        store.record_promotion(updated.as_json(), status="stale", reason=result.message)
    return RecheckRun(result, missing, record_path)


def with_guarantee(result: RecheckResult, check: GuaranteeCheck | None) -> RecheckResult:
    """The recheck's result with the guarantee's test: a broken guarantee drifts it too."""
    if check is None:
        return result
    return dataclasses.replace(
        result,
        guarantee=check,
        drifted=result.drifted or check.broken,
        message=f"{result.message}; {check.message}",
    )


def _judge(
    rubric: Rubric,
    runs: Sequence[Run],
    tasks: TaskSet | None,
    base_url: str | None,
    api_key: str | None,
    concurrency: int,
    rate_limits: RateLimits | None,
) -> list[Verdict]:
    provider_name, _ = parse_model_name(rubric.judge.model)
    session = JudgeSession(
        make_provider(provider_name, base_url=base_url, api_key=api_key),
        concurrency=concurrency,
        # No cache: it would answer with the words of the model as it was at promotion.
        cache=None,
        prices=PriceTable.from_home(),
        tasks=tasks,
        rate_limits=rate_limits,
    )
    judge = session.judge(rubric)
    verdicts: list[Verdict] = []
    tally = session.run(
        lambda: judge.judge_many(runs, concurrency=concurrency, on_verdict=verdicts.append)
    )
    if tally.not_judged:
        # A recheck on fewer runs than were labelled would compare another sample.
        reasons = "; ".join(tally.not_judged_reasons)
        raise ProviderError(
            f"{tally.not_judged} of {len(runs)} labelled runs got no answer from "
            f"{rubric.judge.model} ({reasons}): nothing concluded; rerun the recheck"
        )
    return verdicts
