"""Prices per model, in US dollars per million tokens, for the cost of every verdict.

Prices come from the `genai-prices` package (Pydantic's maintained table of every major
provider's models, read offline from the snapshot it ships), imported the first time a cost
is asked. A team overrides or extends it with a YAML file (``JUDGEKIT_HOME/prices.yaml`` or
``--prices FILE``), which wins over the package::

    openai/gpt-4o-mini: {input: 0.15, output: 0.60}
    local/llama3: {input: 0, output: 0}

A model neither knows costs ``None`` (unknown), never 0: an unknown price is not a free
model. :meth:`PriceTable.quote` also says where a price came from.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgekit._util.close_names import close_names
from judgekit._util.home import judgekit_home
from judgekit._util.input_paths import exists, reading
from judgekit._util.yamlfile import load_yaml
from judgekit.errors import DataError
from judgekit.formats.numbers import NonNegativeFloat

PRICES_FILE = "prices.yaml"


class Price(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    input: NonNegativeFloat = Field(description="USD per million input tokens")
    output: NonNegativeFloat = Field(description="USD per million output tokens")

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return (input_tokens * self.input + output_tokens * self.output) / 1_000_000


# Where a price came from when no price file names the model.
LIBRARY = "genai-prices"
# A model the library prices, named in the hint for a model it does not.
PRICED_EXAMPLE = "openai/gpt-4o-mini"


@dataclass(frozen=True)
class Quote:
    """What some tokens cost on a model, and where the price came from (a price file's
    path, or ``genai-prices``)."""

    usd: float
    source: str


def library_cost(model: str, input_tokens: int, output_tokens: int) -> float | None:
    """What genai-prices charges for the tokens on ``provider/model``; None when it does not
    know the provider or the model (a ``local/…`` model never has a list price)."""
    provider, _, name = model.partition("/")
    if not name:
        return None
    from genai_prices import Usage, calc_price

    try:
        priced = calc_price(
            Usage(input_tokens=input_tokens, output_tokens=output_tokens),
            name,
            provider_id=provider,
        )
    except LookupError:
        return None
    return float(priced.total_price)


def library_models(provider: str) -> list[str]:
    """``provider/model`` for each model genai-prices lists under ``provider`` (none for a
    provider it does not know)."""
    from genai_prices.data_snapshot import get_snapshot

    return [
        f"{found.id}/{listed.id}"
        for found in get_snapshot().providers
        if found.id == provider
        for listed in found.models
    ]


@functools.lru_cache(maxsize=256)
def library_knows(model: str) -> bool:
    return library_cost(model, 0, 0) is not None


def _library_quote(model: str, input_tokens: int, output_tokens: int) -> Quote | None:
    if not library_knows(model):
        return None
    usd = library_cost(model, input_tokens, output_tokens)
    return None if usd is None else Quote(usd, LIBRARY)


_QUOTES_KEPT = 4096  # distinct token counts remembered per table


def unknown_price_hint(model: str) -> str:
    """Why ``model`` has no cost and how to give it one, naming a model that is priced."""
    return (
        f"neither genai-prices nor a price file prices {model} (it prices e.g. "
        f"{PRICED_EXAMPLE}): add `{model}: {{input: USD per million tokens, output: USD "
        "per million tokens}` to --prices FILE or JUDGEKIT_HOME/prices.yaml"
    )


class PriceTable:
    """Model name (``provider/model``) → price: a price file's entries, then genai-prices."""

    def __init__(
        self, overrides: dict[str, Price] | None = None, *, overrides_from: str = PRICES_FILE
    ) -> None:
        self.overrides = dict(overrides or {})
        self.overrides_from = overrides_from
        # A quote from genai-prices is slow beside a lookup; verdicts of the same tokens
        # (every cached one has none) are priced once.
        self._library_quotes: dict[tuple[str, int, int], Quote | None] = {}

    def quote(self, model: str, input_tokens: int, output_tokens: int) -> Quote | None:
        """The cost of the tokens and its source; None when no price is known."""
        price = self.overrides.get(model)
        if price is not None:
            return Quote(price.cost(input_tokens, output_tokens), self.overrides_from)
        key = (model, input_tokens, output_tokens)
        if key not in self._library_quotes:
            if len(self._library_quotes) >= _QUOTES_KEPT:
                self._library_quotes.clear()
            self._library_quotes[key] = _library_quote(model, input_tokens, output_tokens)
        return self._library_quotes[key]

    def cost(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        quote = self.quote(model, input_tokens, output_tokens)
        return None if quote is None else quote.usd

    def source(self, model: str) -> str | None:
        """Where the price of ``model`` comes from, or None when it has none."""
        quote = self.quote(model, 0, 0)
        return None if quote is None else quote.source

    def unknown_hint(self, model: str) -> str:
        return unknown_price_hint(model)

    def close_models(self, model: str) -> list[str]:
        """The priced models whose names are close to ``model`` (a typo's likely meaning):
        the price file's, and genai-prices' of the same provider."""
        provider, _, _ = model.partition("/")
        names = [*self.overrides, *library_models(provider)]
        return [name for name in close_names(model, names) if self.cost(name, 0, 0) is not None]

    @classmethod
    def from_home(cls) -> PriceTable:
        """genai-prices, overridden by ``JUDGEKIT_HOME/prices.yaml`` when there is one (no
        file there is the usual case, and fine)."""
        path = judgekit_home() / PRICES_FILE
        return cls.from_file(path) if exists(path) else cls()

    @classmethod
    def from_file(cls, path: str | Path | None) -> PriceTable:
        """genai-prices, overridden by the YAML mapping in ``path`` (None: genai-prices alone).

        A missing file is a :class:`DataError` (``prices.yaml: no such file``): prices
        someone named are never silently left out (see :meth:`from_home` for the optional
        default file).
        """
        if path is None:
            return cls()
        with reading(path):
            data, lines = load_yaml(path)
        if not isinstance(data, dict):
            raise DataError("a price file maps provider/model to {input, output}", path=path)
        overrides = {}
        for model, entry in data.items():
            try:
                overrides[str(model)] = Price.model_validate(entry)
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                field = ".".join([str(model), *map(str, first["loc"])])
                raise DataError(
                    f"{first['msg']} (USD per million tokens, e.g. {{input: 0.15, output: 0.6}})",
                    path=path,
                    line=lines.line_of((model,)),
                    field=field,
                ) from None
        return cls(overrides, overrides_from=str(path))
