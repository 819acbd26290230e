"""What a promotion record carries to be checked later: the compared test runs (each with
the human label counted, the judge's score and its confidence) and the digests of the
files and verdicts they came from (see :mod:`judgekit.formats.promotion`).

A file is named relative to the rubric's folder, so a record committed beside its rubric
still finds its labels from wherever judgekit is run."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from judgekit._util.canonical_json import json_lines_digest
from judgekit._util.file_prefix import whole_lines_prefix
from judgekit._util.input_paths import read_error
from judgekit.calibration.selective import verdict_confidence
from judgekit.errors import CalibrationError
from judgekit.formats.promotion import ComparedPair, FileDigest, PromotionSources, VerdictsDigest

if TYPE_CHECKING:
    from judgekit.calibration.join import Pairs
    from judgekit.calibration.report import CalibrationReport

__all__ = ["compared_pairs", "promotion_sources", "recorded_path", "resolved_path"]


def compared_pairs(report: CalibrationReport) -> list[ComparedPair]:
    """The runs ``report`` compared, in its order, with their labels, scores and the
    verdicts' confidence."""
    pairs = _pairs(report)
    return [
        ComparedPair(run_id=run, human=human, judge=judge, confidence=verdict_confidence(verdict))
        for run, human, judge, verdict in zip(
            pairs.runs, pairs.human, pairs.judge, pairs.verdicts, strict=True
        )
    ]


def promotion_sources(report: CalibrationReport, rubrics_dir: Path) -> PromotionSources:
    """The labels file and the split file as they are now (their whole lines), and the
    digest of the verdicts compared."""
    pairs = _pairs(report)
    verdicts = [verdict.model_dump(mode="json") for verdict in pairs.verdicts]
    labels = report.sources.get("labels")
    return PromotionSources(
        labels=None if labels is None else _file_digest(Path(labels), rubrics_dir),
        split=None if report.split is None else _file_digest(Path(report.split.file), rubrics_dir),
        verdicts=VerdictsDigest(
            source=report.sources.get("verdicts"),
            n=len(verdicts),
            sha256=json_lines_digest(verdicts),
        ),
    )


def _pairs(report: CalibrationReport) -> Pairs:
    if report.pairs is None:
        raise CalibrationError(f"the report of {report.rubric_id} keeps no compared runs")
    return report.pairs


def _file_digest(path: Path, rubrics_dir: Path) -> FileDigest:
    try:
        prefix = whole_lines_prefix(path)
    except OSError as exc:
        raise read_error(exc, path) from None
    return FileDigest(
        file=recorded_path(path, rubrics_dir), length=prefix.length, sha256=prefix.sha256
    )


def recorded_path(path: Path, rubrics_dir: Path) -> str:
    """``path`` as a record names it: relative to the rubric's folder, with slashes."""
    try:
        return Path(os.path.relpath(path.absolute(), rubrics_dir.absolute())).as_posix()
    except ValueError:  # another drive: no relative path leads there
        return path.absolute().as_posix()


def resolved_path(recorded: str, rubrics_dir: Path) -> Path:
    """The file a record names (:func:`recorded_path`), as a path from here."""
    return Path(os.path.normpath(rubrics_dir / recorded))
