"""Batch prices: half the list price, as both OpenAI's Batch API and Anthropic's Message
Batches charge."""

from __future__ import annotations

from judgekit.judging.pricing import PriceTable, Quote

__all__ = ["BATCH_DISCOUNT", "BatchPrices"]

BATCH_DISCOUNT = 0.5


class BatchPrices(PriceTable):
    """``prices`` at the batch discount; the source says so."""

    def __init__(self, prices: PriceTable) -> None:
        super().__init__(prices.overrides, overrides_from=prices.overrides_from)
        self._list = prices

    def quote(self, model: str, input_tokens: int, output_tokens: int) -> Quote | None:
        quote = self._list.quote(model, input_tokens, output_tokens)
        if quote is None:
            return None
        return Quote(quote.usd * BATCH_DISCOUNT, f"{quote.source}, batch price (half)")
