"""A promotion record against the store it was recorded in (``judgekit promote`` records
it there unless ``--no-store``): when that store is the one configured here and exists,
the store's record of the promotion must be the file's. A store is never created to check.

A recheck that found the judge drifted adds a ``stale`` mark to the file and records the
mark as a second event; the promotion itself is compared without it."""

from __future__ import annotations

from typing import Any

from judgekit.errors import StoreError
from judgekit.formats.promotion import PromotionRecord, record_digest

__all__ = ["store_problems"]


def store_problems(record: PromotionRecord) -> list[str]:
    """How the record differs from the promotion recorded in the store it names."""
    if record.stored_in is None:
        return []
    from judgekit.store.database import configured_store_url, existing_store, masked_url

    try:
        url = configured_store_url()
    except StoreError:
        return []  # JUDGEKIT_DB names no store this record could be in
    if masked_url(url) != record.stored_in:
        return []  # recorded in another store (another machine's, or CI's)
    store = existing_store(url)
    if store is None:
        return []
    with store:
        events = store.promotions(record.rubric_id or "")
    return _differences(record, events, record.stored_in)


def _differences(record: PromotionRecord, events: list[dict[str, Any]], url: str) -> list[str]:
    ours = [e for e in events if _data(e).get("promoted_at") == record.promoted_at]
    promoted = [e for e in ours if e["status"] == "promoted"]
    if not promoted:
        return [f"the store {url} it was recorded in holds no promotion of {record.promoted_at}"]
    content = record_digest(record.as_json(), leave_out=("stale",))
    if record_digest(_data(promoted[-1]), leave_out=("stale",)) != content:
        return [f"it is not the promotion of {record.promoted_at} recorded in the store {url}"]
    if record.stale is None and any(e["status"] == "stale" for e in ours):
        return [f"the store {url} says a recheck marked it stale; the record has no stale mark"]
    return []


def _data(event: dict[str, Any]) -> dict[str, Any]:
    data = event.get("data")
    return data if isinstance(data, dict) else {}
