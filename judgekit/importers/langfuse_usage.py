"""A Langfuse trace's token counts and cost: its generations' ``usageDetails`` (or legacy
``usage``) and ``costDetails`` (or ``totalCost``), summed.

Langfuse keeps a generation's ``input`` and ``output`` net of their details: an OpenAI usage
object's cached prompt tokens become ``input_cached_tokens`` and are taken out of ``input``,
its reasoning tokens ``output_reasoning_tokens``, out of ``output``
(``packages/shared/src/server/ingestion/types.ts`` in Langfuse). A run counts them in, as the
provider's usage does.
"""

from __future__ import annotations

from typing import Any

from judgekit.formats.run import Usage
from judgekit.importers.locations import Location, describe_json
from judgekit.importers.trace_records import Record, optional_number, optional_object

__all__ = ["usage_and_cost"]

_TOKEN_NAMES = {"input": "input_tokens", "output": "output_tokens", "total": "total_tokens"}


def usage_and_cost(generations: list[Record]) -> dict[str, Any]:
    """The run's ``usage`` and ``cost_usd`` (None when no generation has any)."""
    totals: dict[str, int] = {}
    cost: float | None = None
    for record in generations:
        for name, count in _token_counts(record).items():
            totals[name] = totals.get(name, 0) + count
        found = _cost(record.data, record.where)
        if found is not None:
            cost = (cost or 0.0) + found
    return {"usage": Usage.model_validate(totals) if totals else None, "cost_usd": cost}


def _token_counts(record: Record) -> dict[str, int]:
    """One generation's token counts under judgekit's names."""
    data, where = record.data, record.where
    key = "usageDetails" if data.get("usageDetails") is not None else "usage"
    counts: dict[str, int] = {}
    for name, count in (optional_object(data, key, where) or {}).items():
        if count is None or name in ("unit", "inputCost", "outputCost", "totalCost"):
            continue
        if not isinstance(count, int) or isinstance(count, bool) or count < 0:
            raise (
                where.key(key)
                .key(name)
                .error(f"expected a whole number of tokens ≥ 0, got {describe_json(count)}")
            )
        counts[name] = count
    ours = {_TOKEN_NAMES.get(name, name): count for name, count in counts.items()}
    # Langfuse's input and output leave out their details (input_cached_tokens,
    # output_reasoning_tokens, ...); a run's counts hold them, as the provider's usage does.
    for side in ("input", "output"):
        if side in counts:
            parts = (
                c for n, c in counts.items() if n.startswith(f"{side}_") and n != f"{side}_tokens"
            )
            ours[f"{side}_tokens"] += sum(parts)
    return ours


def _cost(data: dict[str, Any], where: Location) -> float | None:
    details = optional_object(data, "costDetails", where)
    if details is not None and details.get("total") is not None:
        return optional_number(details, "total", where.key("costDetails"))
    for key in ("totalCost", "calculatedTotalCost"):
        if data.get(key) is not None:
            return optional_number(data, key, where)
    return None
