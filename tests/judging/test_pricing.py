"""Prices: genai-prices for any model it knows, a price file overriding it, unknown otherwise."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from genai_prices import Usage, calc_price

from judgekit.judging.pricing import LIBRARY, PRICED_EXAMPLE, Price, PriceTable, Quote


def test_a_model_only_genai_prices_knows_is_priced_by_it() -> None:
    # gpt-5-mini was never in judgekit's own table: its price is genai-prices' own figure.
    table = PriceTable()
    expected = calc_price(
        Usage(input_tokens=123_456, output_tokens=7_890), "gpt-5-mini", provider_id="openai"
    ).total_price
    quote = table.quote("openai/gpt-5-mini", 123_456, 7_890)
    assert quote == Quote(float(expected), "genai-prices")
    # and that figure is the list price, $0.25 in and $2 out per million tokens
    assert expected == Decimal("0.25") * Decimal("0.123456") + Decimal("2") * Decimal("0.00789")
    assert table.cost("anthropic/claude-haiku-4-5", 1_000_000, 1_000_000) == 6.0
    assert table.source("anthropic/claude-haiku-4-5") == LIBRARY


def test_a_price_file_overrides_genai_prices(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai/gpt-5-mini: {input: 1, output: 10}\n", encoding="utf-8")
    table = PriceTable.from_file(prices)
    assert table.quote("openai/gpt-5-mini", 1_000_000, 100_000) == Quote(2.0, str(prices))
    # a model the file does not name still gets genai-prices' price
    assert table.quote("openai/gpt-4o-mini", 1_000_000, 0) == Quote(0.15, LIBRARY)


def test_the_home_price_file_overrides_and_is_named_as_the_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_HOME", str(tmp_path))
    (tmp_path / "prices.yaml").write_text("openai/gpt-4o-mini: {input: 0, output: 0}\n")
    table = PriceTable.from_home()
    assert table.quote("openai/gpt-4o-mini", 5_000, 5_000) == Quote(
        0.0, str(tmp_path / "prices.yaml")
    )


@pytest.mark.parametrize(
    "model", ["local/llama3.1", "openai/no-such-model-7", "nobody/gpt-4o-mini", "gpt-4o-mini"]
)
def test_an_unknown_model_has_no_cost_and_a_hint_naming_a_priced_model(model: str) -> None:
    table = PriceTable()
    assert table.cost(model, 1_000, 1_000) is None
    assert table.quote(model, 1_000, 1_000) is None
    assert table.source(model) is None
    assert table.unknown_hint(model) == (
        f"neither genai-prices nor a price file prices {model} (it prices e.g. "
        "openai/gpt-4o-mini): add `" + model + ": {input: USD per million tokens, output: "
        "USD per million tokens}` to --prices FILE or JUDGEKIT_HOME/prices.yaml"
    )
    # the model the hint names is priced
    assert table.cost(PRICED_EXAMPLE, 1_000_000, 1_000_000) == 0.75


def test_the_six_models_judgekit_used_to_keep_by_hand_cost_the_same() -> None:
    table = PriceTable()
    kept_by_hand = {
        "openai/gpt-4o-mini": Price(input=0.15, output=0.60),
        "openai/gpt-4o": Price(input=2.50, output=10.00),
        "openai/gpt-4.1-mini": Price(input=0.40, output=1.60),
        "openai/gpt-4.1": Price(input=2.00, output=8.00),
        "anthropic/claude-3-5-haiku-latest": Price(input=0.80, output=4.00),
        "anthropic/claude-3-5-sonnet-latest": Price(input=3.00, output=15.00),
    }
    for model, price in kept_by_hand.items():
        assert table.cost(model, 43_620, 480) == pytest.approx(
            price.cost(43_620, 480), rel=1e-12
        ), model
