"""The store: what judgekit evaluated, kept over time — batches, runs, grades, verdicts,
calibrations and promotions — in SQLite or PostgreSQL (open it with
:func:`judgekit.store.open_store`).

Its methods live by job: finding and creating batches (:mod:`.batches`), recording
(:mod:`.writes`) and reading back (:mod:`.reads`). Every write is an upsert on a natural key,
so recording the same thing twice never counts it twice: a batch is found again by its key (a
digest of the runs it evaluated), a run, grade or verdict is one per batch, a calibration one
per report digest. Reports' aggregate reads are functions in :mod:`.queries`.
"""

from __future__ import annotations

from judgekit._util.closing import ClosesOnExit
from judgekit.store.reads import StoreReads
from judgekit.store.writes import StoreWrites


class Store(StoreWrites, StoreReads, ClosesOnExit):
    """Reads and writes of the store's tables (:mod:`judgekit.store.schema`).

    >>> from datetime import datetime, timezone
    >>> from judgekit.formats.verdict import Verdict
    >>> from judgekit.store import open_store
    >>> with open_store("sqlite://") as store:
    ...     verdict = Verdict(run_id="shop/refund_full/3", rubric_id="goal_completion",
    ...                       rubric_version="3f2a", model="openai/gpt-4o-mini",
    ...                       status="scored", score="pass",
    ...                       at=datetime(2026, 11, 29, 10, 2, tzinfo=timezone.utc))
    ...     store.record_verdicts([verdict, verdict])
    ...     [v.score for v in store.verdicts("goal_completion")]
    1
    ['pass']
    """

    def close(self) -> None:
        """Close every pooled connection."""
        self._engine.dispose()
