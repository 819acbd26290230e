"""The rule that puts a labelled run on the dev or test side, and its replay.

A run goes to the side its class (its majority label) is short on against the policy's
``test_share``; on an exact tie, the sha256 of the rubric id, a NUL and the run id decides.
Runs assigned together go in hash order. The rule is deterministic given the lines before,
so a split file can be replayed against it: a hand edit that moves a run shows.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from judgekit.calibration.selection import majority
from judgekit.errors import DataError
from judgekit.formats.label import Label
from judgekit.formats.split_file import Side, SplitAssignment, SplitLog

__all__ = ["assign_new_runs", "check_split_rule", "run_hash"]


def run_hash(rubric_id: str, run_id: str) -> bytes:
    """The sha256 that orders runs and breaks ties: of ``rubric_id``, a NUL, ``run_id``."""
    return hashlib.sha256(f"{rubric_id}\0{run_id}".encode()).digest()


def assign_new_runs(
    rubric_id: str, share: float, log: SplitLog, by_run: Mapping[str, Mapping[str, Label]]
) -> list[SplitAssignment]:
    """The assignments of the runs of ``by_run`` (run → labeller → label) that ``log`` has
    not assigned, in run-hash order, each with its labels as they are now."""
    counts: Counter[tuple[str, Side]] = Counter(
        (_stratum(line.label), line.side) for line in log.assignments.values()
    )
    new = sorted(
        (run for run in by_run if run not in log.assignments),
        key=lambda run: run_hash(rubric_id, run),
    )
    now = datetime.now(UTC)
    made: list[SplitAssignment] = []
    for run in new:
        labels = {who: label.label for who, label in by_run[run].items()}
        label = majority(list(labels.values()))
        stratum = _stratum(label)
        n_test, n_dev = counts[(stratum, "test")], counts[(stratum, "dev")]
        side = _short_side(n_test, n_dev, share, run_hash(rubric_id, run))
        counts[(stratum, side)] += 1
        made.append(
            SplitAssignment(
                run_id=run, side=side, label=label, labels=labels, test_share=share, at=now
            )
        )
    return made


def check_split_rule(rubric_id: str, share: float, log: SplitLog) -> None:
    """Replay ``log``'s assignments in file order against the rule that made them (each run
    to the side its class is short on, under the test share it records, else ``share``,
    the policy's now): a side the rule would not have given is a DataError naming the line.
    A run moved from test to dev by hand is caught here, whatever the promotion record
    says (the record's digests catch what this cannot: an edit that also forges the
    share or the labels)."""
    counts: Counter[tuple[str, Side]] = Counter()
    for run, line in log.assignments.items():
        held_out = share if line.test_share is None else line.test_share
        stratum = _stratum(line.label)
        n_test, n_dev = counts[(stratum, "test")], counts[(stratum, "dev")]
        expected = _short_side(n_test, n_dev, held_out, run_hash(rubric_id, run))
        if line.side != expected:
            raise DataError(
                f"run {run!r} is on {line.side}, but the split's rule puts it on {expected} "
                "after the lines before it: the file was edited by hand; restore it from "
                "version control (a run never changes side)",
                path=log.path,
                line=log.line_numbers.get(run),
                field="side",
            )
        counts[(stratum, line.side)] += 1


def _short_side(n_test: int, n_dev: int, share: float, hashed: bytes) -> Side:
    """The side short of ``share`` for a class with these counts; the hash breaks a tie."""
    if n_test + n_dev:
        held_out = n_test / (n_test + n_dev)
        if held_out < share:
            return "test"
        if held_out > share:
            return "dev"
    return "test" if hashed[0] < 256 * share else "dev"


def _stratum(label: Any) -> str:
    # A label's JSON-ish spelling: the scale's values are strings or small integers, so
    # "3" and 3 never meet on one scale; None is the stratum of runs whose labellers tie.
    return repr(label)
