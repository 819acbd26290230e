"""Prices per model, in US dollars per million tokens, for the cost of every verdict.

The table holds list prices as published by the providers; a team overrides or extends it
with a YAML file (``JUDGEKIT_HOME/prices.yaml`` or ``--prices FILE``)::

    openai/gpt-4o-mini: {input: 0.15, output: 0.60}
    local/llama3: {input: 0, output: 0}

A model the table does not know costs ``None`` (unknown), never 0: an unknown price is not
a free model.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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


DEFAULT_PRICES: dict[str, Price] = {
    "openai/gpt-4o-mini": Price(input=0.15, output=0.60),
    "openai/gpt-4o": Price(input=2.50, output=10.00),
    "openai/gpt-4.1-mini": Price(input=0.40, output=1.60),
    "openai/gpt-4.1": Price(input=2.00, output=8.00),
    "anthropic/claude-3-5-haiku-latest": Price(input=0.80, output=4.00),
    "anthropic/claude-3-5-sonnet-latest": Price(input=3.00, output=15.00),
}


class PriceTable:
    """Model name (``provider/model``) → price; overrides win over the defaults."""

    def __init__(self, overrides: dict[str, Price] | None = None) -> None:
        self.prices = {**DEFAULT_PRICES, **(overrides or {})}

    def cost(self, model: str, input_tokens: int, output_tokens: int) -> float | None:
        price = self.prices.get(model)
        return None if price is None else price.cost(input_tokens, output_tokens)

    @classmethod
    def from_home(cls) -> PriceTable:
        """The defaults, overridden by ``JUDGEKIT_HOME/prices.yaml`` when there is one (no
        file there is the usual case, and fine)."""
        path = judgekit_home() / PRICES_FILE
        return cls.from_file(path) if exists(path) else cls()

    @classmethod
    def from_file(cls, path: str | Path | None) -> PriceTable:
        """The defaults, overridden by the YAML mapping in ``path`` (None: the defaults).

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
        return cls(overrides)
