"""What a report says about the test labels it counted as assigned: those relabelled since
their run was assigned (counted as they were) and those whose labellers tied (counted
against the judge). Run ids are data, shown through ``visible`` on one line."""

from __future__ import annotations

from judgekit._util.terminal_text import visible
from judgekit.calibration.split import SplitSummary

__all__ = ["assignment_lines"]

_LISTED = 10  # run ids named on a line; the rest are counted


def assignment_lines(split: SplitSummary | None) -> list[str]:
    """``2 test labels changed after their runs were assigned: counted as assigned (r1,
    r2)`` and ``1 test run whose labellers tied counts against the judge (r3)``."""
    if split is None:
        return []
    lines = []
    if split.relabelled:
        count = len(split.relabelled)
        lines.append(
            f"{count} test {'label' if count == 1 else 'labels'} changed after "
            f"{'its run was' if count == 1 else 'their runs were'} assigned: counted as "
            f"assigned ({_runs(split.relabelled)})"
        )
    if split.tied:
        count = len(split.tied)
        lines.append(
            f"{count} test {'run whose labellers tied counts' if count == 1 else 'runs whose labellers tied count'} "
            f"against the judge ({_runs(split.tied)})"
        )
    return lines


def _runs(runs: tuple[str, ...]) -> str:
    named = ", ".join(visible(run, one_line=True) for run in runs[:_LISTED])
    more = len(runs) - _LISTED
    return named + (f" and {more} more" if more > 0 else "")
