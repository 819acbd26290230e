"""A verdict as the tuple of its row in SQLite, built in one pass (no row dict, no per-column
conversion): what the store's SQLite writes and judging's sqlite3 recorder both write.

The values are exactly those of the general path (:func:`judgekit.store.rows.verdict_row`
through :mod:`judgekit.store.bulk`'s converters); a test holds the two equal verdict by
verdict. No SQLAlchemy here.
"""

from __future__ import annotations

import math
from datetime import UTC
from json.encoder import encode_basestring_ascii
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
    fields = verdict.__dict__
    at = fields["at"]
    # UtcDateTime's text (isoformat() gives the microseconds when they are not 0, and is
    # quicker without the keyword); its first ten characters are the UTC day.
    if at.tzinfo is not UTC:
        at_text = utc_text(at)
    elif at.microsecond:
        at_text = at.isoformat()
    else:
        at_text = at.isoformat(timespec="microseconds")
    assert at_text is not None
    score, status, samples = fields["score"], fields["status"], fields["samples"]
    if type(score) is str:  # most scores: "pass", "fail", a label
        score_text: str | None = encode_basestring_ascii(score)
        value = _STRING_VALUES.get(score) if status == "scored" else None
    else:
        score_text = json_text(score if _is_json_value(score) else _json_score(verdict))
        value = score_value(score) if status == "scored" else None
    return (
        fields["run_id"],
        fields["rubric_id"],
        fields["rubric_version"],
        fields["model"],
        status,
        score_text,
        value,
        fields["reason"],
        None if samples is None else json_text([s.model_dump(mode="json") for s in samples]),
        fields["agreement"],
        fields["position_bias"],
        fields["unscored_reason"],
        fields["input_tokens"],
        fields["output_tokens"],
        fields["cost_usd"],
        fields["latency_s"],
        fields["cached"],
        at_text,
        at_text[:10],
        batch_id,
        fields["confidence"],
    )


# score_value of a str score: pass 1, fail 0, any other text none.
_STRING_VALUES: Final = {"pass": score_value("pass"), "fail": score_value("fail")}


def _is_json_value(score: Any) -> bool:
    """A score JSON holds as it is (a float only when finite: JSON mode makes others null)."""
    return isinstance(score, str | int | None) or (
        isinstance(score, float) and math.isfinite(score)
    )


def _json_score(verdict: Verdict) -> Any:
    return verdict.model_dump(mode="json", include={"score"})["score"]
