"""``--sample``: which runs of a window are judged, chosen by a seeded hash of the rubric id,
the run id and the seed — never by anything a judge said.

Each run gets a number in [0, 1) from ``sha256(rubric_id, run_id, seed)``. A *share* judges
every run whose number falls under it; ``N/task`` judges the N runs with the lowest numbers
in each task (runs without a task form one group). A run's number is its own, so a rerun
over an overlapping window picks the same runs again: the nights a run appears in agree on
whether it is judged, and its verdict comes from the cache.

>>> share = parse_sample("10%")
>>> share.describe(), share.share
('10%', 0.1)
>>> per_task = parse_sample("2/task")
>>> per_task.describe(), per_task.per_task
('2/task', 2)
>>> runs = [("a", "refund"), ("b", "refund"), ("c", "refund"), ("d", None)]
>>> per_task.select("goal_completion", runs)
['b', 'c', 'd']
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from judgekit._util.number_format import percent
from judgekit.errors import ConfigError

__all__ = [
    "RunSample",
    "parse_sample",
    "parse_share",
    "sample_number",
    "sampled_ids",
    "share_text",
]

_PER_TASK = re.compile(r"^(?P<n>[^/]*)/task$")
_VALID = "a share such as 10% or 0.1 (above 0, at most 100%), or N/task such as 20/task"


def sample_number(rubric_id: str, run_id: str, seed: str = "") -> float:
    """The run's place in [0, 1) for this rubric and seed: the first 8 bytes of a SHA-256.

    >>> round(sample_number("goal_completion", "shop/refund_full/3"), 6)
    0.573864
    """
    digest = hashlib.sha256(f"{rubric_id}\0{run_id}\0{seed}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


@dataclass(frozen=True)
class RunSample:
    """A share of the runs (``share``) or N per task (``per_task``), and the seed."""

    share: float | None = None
    per_task: int | None = None
    seed: str = ""

    def describe(self) -> str:
        """``10%`` or ``20/task``, as the summary says it."""
        if self.per_task is not None:
            return f"{self.per_task}/task"
        assert self.share is not None
        return share_text(self.share)

    def select(self, rubric_id: str, runs: Iterable[tuple[str, str | None]]) -> list[str]:
        """The ids of ``runs`` (``(run_id, task_id)`` pairs) to judge, in their order.

        A share takes each run whose number falls under it, not exactly round(share·n) of
        them: a fixed count would make a run's choice depend on which other runs the window
        holds, and overlapping windows would disagree about it.
        """
        pairs = list(runs)
        number = {run_id: sample_number(rubric_id, run_id, self.seed) for run_id, _ in pairs}
        if self.per_task is None:
            assert self.share is not None
            share = self.share
            return [run_id for run_id, _ in pairs if number[run_id] < share]
        groups: dict[str | None, list[str]] = {}
        for run_id, task_id in pairs:
            groups.setdefault(task_id, []).append(run_id)
        chosen = {
            run_id
            for members in groups.values()
            for run_id in sorted(members, key=lambda run: (number[run], run))[: self.per_task]
        }
        return [run_id for run_id, _ in pairs if run_id in chosen]


def share_text(share: float) -> str:
    """A share as the options spell it: ``10%``, ``2.50%``.

    >>> share_text(0.1), share_text(0.025), share_text(0.0)
    ('10%', '2.50%', '0%')
    """
    whole = abs(share * 100 - round(share * 100)) < 1e-9
    return percent(share, decimals=0 if whole else 2)


def parse_sample(text: str, seed: str = "") -> RunSample:
    """``10%``, ``0.1`` or ``20/task`` as a :class:`RunSample`; :class:`ConfigError` naming
    what would be valid otherwise.

    >>> parse_sample("150%")
    Traceback (most recent call last):
    ...
    judgekit.errors.ConfigError: --sample 150%: a share is at most 100%; expected a share such as 10% or 0.1 (above 0, at most 100%), or N/task such as 20/task
    """
    raw = text.strip()
    per_task = _PER_TASK.match(raw)
    if per_task is not None:
        count = per_task.group("n").strip()
        if not count.isdecimal() or int(count) < 1:
            raise _invalid(text, f"{count!r} is not a whole number of runs above 0")
        return RunSample(per_task=int(count), seed=seed)
    return RunSample(share=_share(text, "--sample", zero=False), seed=seed)


def parse_share(text: str, option: str) -> float:
    """``10%`` or ``0.1`` as a share in [0, 1] (``--review``: 0 sends only the abstained).

    >>> parse_share("2.5%", "--review"), parse_share("0", "--review")
    (0.025, 0.0)
    """
    return _share(text, option, zero=True)


def _share(text: str, option: str, *, zero: bool) -> float:
    raw = text.strip()
    number_text, percent_sign = (raw[:-1], True) if raw.endswith("%") else (raw, False)
    valid = _VALID if option == "--sample" else "a share such as 10% or 0.1 (0 to 100%)"
    try:
        value = float(number_text)
    except ValueError:
        what = "not a share or N/task" if option == "--sample" else "not a share"
        raise _invalid(text, what, option, valid) from None
    if not math.isfinite(value):
        raise _invalid(text, "not a finite number", option, valid)
    share = value / 100 if percent_sign else value
    if share < 0 and zero:
        raise _invalid(text, "a share is at least 0", option, valid)
    if share <= 0 and not zero:
        raise _invalid(text, "a share above 0 judges at least some runs", option, valid)
    if share > 1:
        reason = "a share is at most 100%" if percent_sign else "a share is at most 1"
        raise _invalid(text, reason, option, valid)
    return share


def _invalid(text: str, reason: str, option: str = "--sample", valid: str = _VALID) -> ConfigError:
    return ConfigError(f"{option} {text}: {reason}; expected {valid}")


def sampled_ids(
    sample: RunSample | None, rubric_id: str, runs: Sequence[tuple[str, str | None]]
) -> list[str]:
    """Every run id without a sample, else the sample's choice."""
    if sample is None:
        return [run_id for run_id, _ in runs]
    return sample.select(rubric_id, runs)
