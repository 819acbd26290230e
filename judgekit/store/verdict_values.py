"""A verdict as the tuple of its row in SQLite, built in one pass (no row dict, no per-column
conversion): what the store's SQLite writes and judging's sqlite3 recorder both write.

The values are exactly those of the general path (:func:`judgekit.store.rows.verdict_row`
through :mod:`judgekit.store.bulk`'s converters); a test holds the two equal verdict by
verdict. No SQLAlchemy here.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta
from json.encoder import encode_basestring_ascii
from operator import itemgetter
from typing import Any, Final

from judgekit.formats.verdict import Verdict
from judgekit.store.score_value import score_value
from judgekit.store.sqlite_values import Values, json_text, utc_text

__all__ = ["COLUMNS", "Values", "verdict_values"]

# The order verdict_values builds; checked against the table's before any row is written.
COLUMNS: Final = (
    "run_id",
    "rubric_id",
    "rubric_version",
    "model",
    "status",
    "score",
    "score_value",
    "reason",
    "samples",
    "agreement",
    "position_bias",
    "unscored_reason",
    "input_tokens",
    "output_tokens",
    "cost_usd",
    "latency_s",
    "cached",
    "at",
    "day",
    "batch_id",
    "confidence",
)


def verdict_values(verdict: Verdict, batch_id: int) -> Values:
    """A verdict as the values of :data:`COLUMNS`, as SQLite stores them."""
    (
        run_id,
        rubric_id,
        rubric_version,
        model,
        status,
        score,
        reason,
        samples,
        agreement,
        position_bias,
        unscored_reason,
        input_tokens,
        output_tokens,
        cost_usd,
        latency_s,
        cached,
        at,
        confidence,
    ) = _FIELDS(verdict.__dict__)
    at_text = _utc_text(at)  # its first ten characters are the UTC day
    score_text: str | None
    value: float | None
    if type(score) is str:  # most scores: "pass", "fail", a label
        known = _STRING_SCORES.get(score)
        score_text, value = (encode_basestring_ascii(score), None) if known is None else known
        if status != "scored":
            value = None
    else:
        score_text = json_text(score if _is_json_value(score) else _json_score(verdict))
        value = score_value(score) if status == "scored" else None
    return (
        run_id,
        rubric_id,
        rubric_version,
        model,
        status,
        score_text,
        value,
        reason,
        None if samples is None else json_text([s.model_dump(mode="json") for s in samples]),
        agreement,
        position_bias,
        unscored_reason,
        input_tokens,
        output_tokens,
        cost_usd,
        latency_s,
        cached,
        at_text,
        at_text[:10],
        batch_id,
        confidence,
    )


# The fields verdict_values reads, in the order it unpacks them.
_FIELDS: Final = itemgetter(
    *(name for name in COLUMNS if name not in ("score_value", "day", "batch_id"))
)
# An offset that leaves a time's fields those of UTC (None: a naive time).
_UTC_OFFSETS: Final = (None, timedelta(0))
_TWO_DIGITS: Final = tuple(f"{n:02d}" for n in range(60))

# A str score's JSON text and score_value (pass 1, fail 0, any other text none).
_STRING_SCORES: Final = {
    text: (encode_basestring_ascii(text), score_value(text)) for text in ("pass", "fail")
}


def _utc_text(at: datetime) -> str:
    """UtcDateTime's text, isoformat(timespec="microseconds") of the instant in UTC, written
    out here (three times sooner) whenever the fields are already UTC's: an aware time at
    offset 0 or a naive one (taken as UTC)."""
    if type(at) is datetime and (at.tzinfo is UTC or at.utcoffset() in _UTC_OFFSETS):
        two = _TWO_DIGITS
        return (
            f"{at.year:04d}-{two[at.month]}-{two[at.day]}T{two[at.hour]}:{two[at.minute]}:"
            f"{two[at.second]}.{at.microsecond:06d}+00:00"
        )
    text = utc_text(at)
    assert text is not None
    return text


def _is_json_value(score: Any) -> bool:
    """A score JSON holds as it is (a float only when finite: JSON mode makes others null)."""
    return isinstance(score, str | int | None) or (
        isinstance(score, float) and math.isfinite(score)
    )


def _json_score(verdict: Verdict) -> Any:
    return verdict.model_dump(mode="json", include={"score"})["score"]
