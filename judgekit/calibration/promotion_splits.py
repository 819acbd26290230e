"""A promotion record's test runs against the split file as it was at promotion: each must
have been on the test side, not spent, and assigned with the label the record counts.

The split file is append-only and the first line of a run wins, so the bytes the record
was computed from (its first ``sources.split.length`` bytes, already checked against their
sha256) still say what the split was then, whatever was appended since. An assignment line
that records no label (written by hand, or by a tool that kept none) has no label to
compare."""

from __future__ import annotations

from pathlib import Path

from judgekit.formats.promotion import PromotionRecord
from judgekit.formats.split_file import SplitLog
from judgekit.formats.split_file import _parse as parse_split_lines

__all__ = ["split_log_of", "split_problems"]

_SHOWN = 3  # runs named in one problem


def split_log_of(path: Path, data: bytes) -> SplitLog:
    """The split that the bytes ``data`` of the split file at ``path`` record, read as
    :func:`judgekit.formats.split_file.read_split_file` reads the whole file."""
    return parse_split_lines(path, data)


def split_problems(record: PromotionRecord, split: tuple[Path, bytes]) -> list[str]:
    """Each way the record's test runs were not fresh test runs in the split it names."""
    path, data = split
    log = split_log_of(path, data)
    unassigned, dev, spent, relabelled = [], [], [], []
    for pair in record.evidence or []:
        line = log.assignments.get(pair.run_id)
        if line is None:
            unassigned.append(pair.run_id)
        elif line.side != "test":
            dev.append(pair.run_id)
        elif pair.run_id in log.spent:
            spent.append(pair.run_id)
        elif line.label is not None and line.label != pair.human:
            relabelled.append(f"{pair.run_id} ({line.label!r}, the record {pair.human!r})")
    where = f"in {path} as promoted on"
    found = [
        (unassigned, f"not assigned {where}"),
        (dev, f"on the dev side {where}"),
        (spent, f"spent {where}"),
        (relabelled, f"assigned with another label than the record counts {where}"),
    ]
    return [f"{_runs(runs)} {what}" for runs, what in found if runs]


def _runs(runs: list[str]) -> str:
    """``test run t3``, ``3 test runs (t1, t2, t3)``, ``5 test runs (t1, t2, t3, …)``."""
    if len(runs) == 1:
        return f"test run {runs[0]} of the record is"
    named = ", ".join(runs[:_SHOWN]) + (", …" if len(runs) > _SHOWN else "")
    return f"{len(runs)} test runs of the record ({named}) are"
