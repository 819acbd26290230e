"""The store: verdicts and batches in SQLite (default) or PostgreSQL, for calibration and
monitoring over time.

::

    from judgekit.store import open_store

    with open_store() as store:          # $JUDGEKIT_DB, else JUDGEKIT_HOME/judgekit.sqlite
        batch = store.new_batch(git_sha="abc123", tags={"branch": "main"})
        store.record_verdicts(verdicts, batch_id=batch)
        history = store.verdicts("goal_completion", model="openai/gpt-4o-mini")
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgekit._util.lazy_exports import lazy_exports

if TYPE_CHECKING:
    from judgekit.store.batches import Batch
    from judgekit.store.database import open_store
    from judgekit.store.store import Store

__all__ = ["Batch", "Store", "open_store"]

# Loaded on first use: they import SQLAlchemy, and importing a light module of this package
# (the judge cache's file) must not pay for it at start-up.
_LAZY = {
    "Batch": "judgekit.store.batches",
    "open_store": "judgekit.store.database",
    "Store": "judgekit.store.store",
}


__getattr__ = lazy_exports(__name__, _LAZY)
