"""The options of a batch judging, importable without loading the judge."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["BatchOptions"]


@dataclass(frozen=True)
class BatchOptions:
    """``--batch``, with ``--poll-interval``: seconds between two looks at a batch."""

    poll_interval_s: float = 30.0
