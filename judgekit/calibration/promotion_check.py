"""Checking a promotion record before it is trusted: ``judgekit rubrics``, the monitor, the
gate, the recheck and abstention read a rubric as promoted only while its record holds.

:func:`verify_promotion_record` lists what does not hold, first what decides:

1. the record carries its evidence, sources and digest (one written by an older judgekit
   or by hand does not: promote again), and every field a promotion has, typed;
2. its figures and criteria, computed again from its evidence with the functions
   ``judgekit promote`` used, are the recorded ones (within 1e-9), every criterion is met
   under the record's policy and under the rubric's policy now;
3. its digest is that of its content (an edit that did not recompute it shows);
4. it is of the rubric's current version and judge model (else it is *stale*, not invalid);
5. the labels file and the split file still begin with the bytes promoted on (both are
   append-only: lines added later keep the record valid);
6. in those bytes of the split file, each test run of the record is on the test side, not
   spent, and assigned with the label the record counts;
7. where it was recorded in the store and that store is here, the store's record is it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from judgekit._util.file_prefix import FilePrefix, prefix_change
from judgekit._util.input_paths import open_regular, os_reason
from judgekit._util.number_format import byte_count
from judgekit.calibration.promotion_evidence import resolved_path
from judgekit.calibration.promotion_figures import Evidence, criteria_problems, figure_problems
from judgekit.calibration.promotion_splits import split_problems
from judgekit.calibration.promotion_store import store_problems
from judgekit.errors import DataError
from judgekit.formats.promotion import FileDigest, PromotionRecord, record_digest
from judgekit.formats.rubric import PromotionPolicy, Rubric
from judgekit.formats.rubric_file import rubric_version

__all__ = ["WITHOUT_EVIDENCE", "RecordProblem", "verify_promotion_record"]

WITHOUT_EVIDENCE = "written without evidence (by an older judgekit, or by hand); promote again"
_REQUIRED = (
    "rubric_id",
    "rubric_version",
    "model",
    "n",
    "agreement",
    "kappa",
    "kappa_ci",
    "interval_method",
    "confusion",
    "class_balance",
    "policy",
    "criteria",
    "split",
    "promoted_at",
)


@dataclass(frozen=True)
class RecordProblem:
    """One thing that does not hold; ``stale`` when the record holds but for another rubric
    version or judge model."""

    text: str
    stale: bool = False


def verify_promotion_record(
    record: PromotionRecord, rubric: Rubric, *, rubrics_dir: Path, check_store: bool = True
) -> list[RecordProblem]:
    """What does not hold in ``record``, the promotion record of ``rubric`` (whose file is
    in ``rubrics_dir``: the files it names are found from there), in the order of the
    module's list; empty when it holds. ``check_store``: compare it with the store's."""
    incomplete = _incomplete(record)
    if incomplete is not None:
        return [RecordProblem(incomplete)]
    try:
        policy = PromotionPolicy.model_validate(record.policy)
    except ValidationError as exc:
        return [RecordProblem(f"its policy is not a promotion policy: {exc.errors()[0]['msg']}")]
    texts = _figure_and_criteria_problems(record, rubric, policy, rubrics_dir)
    if record.digest != record_digest(record.as_json()):
        texts.append("its digest is not that of its content: it was edited after promotion")
    problems = [RecordProblem(text) for text in texts]
    problems += _stale_problems(record, rubric)
    texts = _file_problems(record, rubrics_dir)
    if not texts:
        texts = split_problems(record, _split_file(record, rubrics_dir))
    if not texts and check_store:
        texts = store_problems(record)
    return problems + [RecordProblem(text) for text in texts]


def _incomplete(record: PromotionRecord) -> str | None:
    """Why the record cannot be checked at all: no evidence, or a field missing."""
    sources = record.sources
    if not record.evidence or sources is None or record.digest is None:
        return WITHOUT_EVIDENCE
    missing = [name for name in _REQUIRED if getattr(record, name) is None]
    for name in ("labels", "split"):
        digest: FileDigest | None = getattr(sources, name)
        if digest is None or None in (digest.file, digest.length, digest.sha256):
            missing.append(f"sources.{name}")
    if record.split is not None and record.split.test_runs is None:
        missing.append("split.test_runs")
    if record.kappa_ci is not None and (len(record.kappa_ci) != 2 or None in record.kappa_ci):
        missing.append("kappa_ci (two bounds)")
    if record.interval_method not in (None, "analytic", "bootstrap"):
        missing.append("interval_method (analytic or bootstrap)")
    if missing:
        return f"the record has no {', '.join(missing)}; promote again"
    return None


def _figure_and_criteria_problems(
    record: PromotionRecord, rubric: Rubric, policy: PromotionPolicy, rubrics_dir: Path
) -> list[str]:
    assert record.evidence is not None and record.interval_method is not None  # _incomplete
    if record.rubric_id != rubric.id:
        return [f"it is the record of rubric {record.rubric_id!r}, not of {rubric.id!r}"]
    method: Any = record.interval_method
    evidence = Evidence.of(record.evidence, rubric, method)
    if evidence.off_scale:
        shown = ", ".join(map(repr, evidence.off_scale))
        return [f"its evidence holds {shown}, not on the scale of {rubric.id}"]
    problems = figure_problems(record, evidence, policy)
    problems += criteria_problems(
        record,
        evidence,
        policy=policy,
        current=rubric.promotion,
        rubric=rubric,
        rubrics_dir=rubrics_dir,
    )
    runs = set(record.split.test_runs or []) if record.split is not None else set()
    if runs != set(evidence.runs):
        problems.append("its list of test runs is not the runs of its evidence")
    return problems


def _stale_problems(record: PromotionRecord, rubric: Rubric) -> list[RecordProblem]:
    version = rubric_version(rubric)
    if record.rubric_version != version:
        why = f"promoted at version {record.rubric_version}, now {version}"
        return [RecordProblem(why, stale=True)]
    if record.model != rubric.judge.model:
        why = f"promoted with judge {record.model}, now {rubric.judge.model}"
        return [RecordProblem(why, stale=True)]
    if record.stale is not None:
        return [RecordProblem(record.stale.reason or "a recheck found the judge drifted", True)]
    return []


def _file_problems(record: PromotionRecord, rubrics_dir: Path) -> list[str]:
    """The labels file or the split file no longer as promoted on."""
    assert record.sources is not None  # _incomplete
    problems = []
    for digest in (record.sources.labels, record.sources.split):
        assert digest is not None and digest.file is not None  # _incomplete
        assert digest.length is not None and digest.sha256 is not None
        path = resolved_path(digest.file, rubrics_dir)
        prefix = FilePrefix(digest.length, digest.sha256)
        try:
            change = prefix_change(path, prefix)
        except FileNotFoundError:
            problems.append(
                f"{path} is missing (the promotion was computed from its first "
                f"{byte_count(prefix.length)} bytes); restore it from version control, or "
                "label, calibrate and promote again"
            )
            continue
        except OSError as exc:
            problems.append(f"{path} cannot be read: {os_reason(exc)}")
            continue
        if change == "shorter":
            problems.append(
                f"{path} changed since promotion (it is shorter than the "
                f"{byte_count(prefix.length)} bytes promoted on)"
            )
        elif change == "changed":
            problems.append(
                f"{path} changed since promotion (its first {byte_count(prefix.length)} bytes "
                "no longer match)"
            )
    return problems


def _split_file(record: PromotionRecord, rubrics_dir: Path) -> tuple[Path, bytes]:
    """The split file's path and the bytes promoted on (checked by :func:`_file_problems`)."""
    assert record.sources is not None and record.sources.split is not None
    digest = record.sources.split
    assert digest.file is not None and digest.length is not None
    path = resolved_path(digest.file, rubrics_dir)
    try:
        with open_regular(path) as fh:
            return path, fh.read(digest.length)
    except OSError as exc:
        raise DataError(f"cannot read: {os_reason(exc)}", path=path) from None
