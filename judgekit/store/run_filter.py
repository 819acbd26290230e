"""Which recorded runs a monitor, report or gate looks at: one suite, one branch, some tags,
one agent version. Plain data (no SQLAlchemy), so the command line builds it at no cost;
:mod:`judgekit.store.filter_sql` turns it into SQL conditions.

A run's suite is the first part of its run id: ``judgekit run`` names runs
``SUITE/TASK/TRIAL`` (``shop/refund_full/3``), so a run is in suite ``shop`` when its id
starts with ``shop/`` followed by its own task id — or when its task id itself is qualified
(``shop/refund_full``). A verdict is in the suite of its run
(the run recorded in the store under the same run id). Branch, tags and agent version are
recorded with each batch (:mod:`judgekit.store.provenance`); a verdict or grade has those of
its batch.

Whatever the filter, a monitor, report or gate reads production's verdicts only: those of a
recheck's batch (source :data:`RECHECK_SOURCE`) judged old labelled runs again to test the
judge, and are left out (:mod:`judgekit.store.filter_sql`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

RECHECK_SOURCE: Final = "recheck"
"""The source of the batch a judge recheck records its verdicts in."""


@dataclass(frozen=True)
class RunFilter:
    """Every field that is set must match; an empty filter matches everything.

    >>> RunFilter(suite="shop", branch="main", tags=(("model", "x"),)).describe()
    '--suite shop --branch main --tag model=x'
    >>> RunFilter().is_empty
    True
    """

    suite: str | None = None
    branch: str | None = None
    tags: tuple[tuple[str, str], ...] = ()
    agent_version: str | None = None

    @property
    def is_empty(self) -> bool:
        return not (self.suite or self.branch or self.tags or self.agent_version)

    @property
    def filters_batches(self) -> bool:
        """Whether the filter reads the batches' provenance (all but the suite)."""
        return bool(self.branch or self.tags or self.agent_version)

    def describe(self) -> str:
        """The filter as the command-line options that make it."""
        parts = []
        if self.suite is not None:
            parts.append(f"--suite {self.suite}")
        if self.branch is not None:
            parts.append(f"--branch {self.branch}")
        parts += [f"--tag {key}={value}" for key, value in self.tags]
        if self.agent_version is not None:
            parts.append(f"--agent-version {self.agent_version}")
        return " ".join(parts)

    def as_dict(self) -> dict[str, object]:
        """The filter in a command's ``--json`` output."""
        return {
            "suite": self.suite,
            "branch": self.branch,
            "tags": dict(self.tags),
            "agent_version": self.agent_version,
        }


EVERYTHING = RunFilter()


def run_suite(run_id: str, task_id: str) -> str | None:
    """The suite of a run named ``SUITE/TASK/...``, or None for a run named otherwise.

    >>> run_suite("shop/refund_full/3", "refund_full"), run_suite("simple_0", "simple_0")
    ('shop', None)
    >>> run_suite("shop/refund_full/3", "shop/refund_full")
    'shop'
    """
    if "/" in task_id:
        return task_id.partition("/")[0] or None
    suite, found, _ = run_id.partition(f"/{task_id}/")
    return suite if found and suite and "/" not in suite else None
