"""Who labelled what, and how well the labellers agree with each other.

Counts are of *current* labels (a superseded line does not count). Agreement is measured
on the runs two or more labellers share: Cohen's kappa for two labellers, Krippendorff's
alpha for more (ordinal for a likert scale, nominal otherwise). Labels known to be stale
are left out of the agreement, since they were given on a text that no longer exists.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from judgekit._util.input_paths import is_file
from judgekit.errors import DataError
from judgekit.formats.label import LabelLog, item_hashes, labels_path, read_labels
from judgekit.formats.rubric import Rubric, Score, scale_values
from judgekit.stats import cohen_kappa_score, krippendorff_alpha

__all__ = ["LabelSummary", "summarise_labels", "summarise_labels_file"]


@dataclass(frozen=True)
class LabelSummary:
    """Counts per labeller and class, stale counts, and inter-labeller agreement."""

    rubric_id: str
    labels_file: str
    labelers: dict[str, dict[str, Any]]
    runs_labelled: int
    shared_runs: int
    agreement_method: str | None
    agreement: float | None
    stale_checked: bool
    warnings: list[str]

    def as_dict(self) -> dict[str, Any]:
        return {
            "rubric_id": self.rubric_id,
            "labels_file": self.labels_file,
            "labelers": self.labelers,
            "runs_labelled": self.runs_labelled,
            "shared_runs": self.shared_runs,
            "agreement": {"method": self.agreement_method, "value": self.agreement},
            "stale_checked": self.stale_checked,
            "warnings": self.warnings,
        }


def summarise_labels_file(
    rubric: Rubric,
    labels_dir: Path,
    *,
    runs_files: Sequence[Path] = (),
    tasks_path: Path | None = None,
) -> LabelSummary:
    """Summarise the rubric's labels file in ``labels_dir``; with ``runs_files`` (and the
    suites their labels were given with), count the labels whose run changed since."""
    path = labels_path(labels_dir, rubric.id)
    if not is_file(path):
        raise DataError(
            f"no labels for {rubric.id} yet; give some with `judgekit label RUNS --rubric "
            f"{rubric.id} --labeler NAME`",
            path=path,
        )
    log = read_labels(path, rubric)
    return summarise_labels(log, rubric, item_hashes=item_hashes(runs_files, tasks_path))


def summarise_labels(
    log: LabelLog, rubric: Rubric, *, item_hashes: Mapping[str, str] | None = None
) -> LabelSummary:
    """Summarise ``log``; ``item_hashes`` (run id → hash of its current text) enables the
    stale counts, which are None without it.

    Example: two labellers agreeing on 3 of 4 binary runs give Cohen's kappa 0.5.
    """
    order = scale_values(rubric.scale)
    current = log.current
    per_labeler: dict[str, dict[str, Any]] = {}
    fresh: dict[str, dict[str, Score]] = {}  # run id -> labeller -> label
    for (run_id, labeler), label in sorted(current.items()):
        if label.settles:  # a settled label is no labeller's own: neither counted nor agreed
            continue
        entry = per_labeler.setdefault(
            labeler, {"labels": 0, "classes": {}, "stale": 0 if item_hashes is not None else None}
        )
        entry["labels"] += 1
        is_stale = (
            item_hashes is not None
            and label.item_hash is not None
            and run_id in item_hashes
            and item_hashes[run_id] != label.item_hash
        )
        if is_stale:
            entry["stale"] += 1
        else:
            fresh.setdefault(run_id, {})[labeler] = label.label
    for labeler, entry in per_labeler.items():
        counts = Counter(
            label.label
            for (_, who), label in current.items()
            if who == labeler and not label.settles
        )
        entry["classes"] = {str(score): counts[score] for score in order if counts[score]}
    names = sorted(per_labeler)
    shared = {run: by for run, by in fresh.items() if len(by) >= 2}
    method, value = _agreement(rubric, names, shared, order)
    return LabelSummary(
        rubric_id=rubric.id,
        labels_file=str(log.path),
        labelers=per_labeler,
        runs_labelled=len({run for run, _ in current}),
        shared_runs=len(shared),
        agreement_method=method,
        agreement=value,
        stale_checked=item_hashes is not None,
        warnings=list(log.warnings),
    )


def _agreement(
    rubric: Rubric,
    names: list[str],
    shared: Mapping[str, Mapping[str, Score]],
    order: tuple[Score, ...],
) -> tuple[str | None, float | None]:
    if len(names) < 2 or not shared:
        return None, None
    # An undefined statistic (everyone used one label) is reported as null, not warned.
    if len(names) == 2:
        first, second = names
        both = [by for by in shared.values() if first in by and second in by]
        value = cohen_kappa_score(
            [by[first] for by in both],
            [by[second] for by in both],
            labels=list(order),
            replace_undefined_by=math.nan,
        )
        method = "cohen_kappa"
    else:
        level: Literal["ordinal", "nominal"] = "ordinal" if rubric.kind == "likert" else "nominal"
        rows = [[by.get(name) for name in names] for by in shared.values()]
        value = krippendorff_alpha(rows, level=level, replace_undefined_by=math.nan)
        method = f"krippendorff_alpha ({level})"
    return method, None if math.isnan(value) else float(value)
