"""provider/model names, and providers made from them."""

from __future__ import annotations

import pytest

import judgekit.testing
from judgekit.errors import ConfigError
from judgekit.providers.anthropic_provider import AnthropicProvider
from judgekit.providers.keys import PLACEHOLDER_API_KEY, api_key
from judgekit.providers.openai_provider import OpenAICompatibleProvider, OpenAIProvider
from judgekit.providers.registry import (
    KEY_VARIABLES,
    PROVIDER_NAMES,
    make_provider,
    parse_model_name,
)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("openai/gpt-4o-mini", ("openai", "gpt-4o-mini")),
        ("anthropic/claude-haiku-4-5", ("anthropic", "claude-haiku-4-5")),
        ("local/meta-llama/Llama-3.1-8B-Instruct", ("local", "meta-llama/Llama-3.1-8B-Instruct")),
    ],
)
def test_names_split_at_the_first_slash(name: str, expected: tuple[str, str]) -> None:
    assert parse_model_name(name) == expected


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("gpt-4o-mini", "names no provider: write provider/model, e.g. openai/gpt-4o-mini"),
        ("gemini/gemini-2.0", "unknown provider 'gemini'; known: anthropic, local, openai"),
        ("openai/", "has no model name after the slash"),
        ("/gpt-4o", "unknown provider ''"),
    ],
)
def test_bad_names_are_config_errors_that_show_the_form(name: str, message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_model_name(name)
    assert message in str(raised.value)


def test_make_provider_picks_the_class_and_passes_the_base_url() -> None:
    openai_provider = make_provider("openai")
    assert type(openai_provider) is OpenAIProvider
    assert openai_provider.name == "openai"
    compatible = make_provider("openai", base_url="http://127.0.0.1:9/v1")
    assert isinstance(compatible, OpenAIProvider)
    assert compatible.base_url == "http://127.0.0.1:9/v1"
    local = make_provider("local", base_url="http://127.0.0.1:9/v1")
    assert type(local) is OpenAICompatibleProvider
    assert local.name == "local"
    anthropic_provider = make_provider("anthropic", base_url="http://127.0.0.1:9")
    assert type(anthropic_provider) is AnthropicProvider
    assert anthropic_provider.name == "anthropic"
    assert {p.name for p in (openai_provider, local, anthropic_provider)} == set(PROVIDER_NAMES)


def test_make_provider_refuses_what_it_cannot_make() -> None:
    with pytest.raises(ConfigError, match="local/<model> needs --base-url"):
        make_provider("local")
    with pytest.raises(ConfigError, match="unknown provider 'gemini'"):
        make_provider("gemini")


def test_testing_exports_exist_and_are_sorted() -> None:
    assert judgekit.testing.__all__ == sorted(judgekit.testing.__all__)
    for name in judgekit.testing.__all__:
        assert hasattr(judgekit.testing, name), name


def test_each_provider_class_declares_the_variable_its_key_is_read_from() -> None:
    declared = {
        cls.name: cls.key_variable
        for cls in (OpenAIProvider, OpenAICompatibleProvider, AnthropicProvider)
    }
    assert declared == {"openai": "OPENAI_API_KEY", "local": None, "anthropic": "ANTHROPIC_API_KEY"}
    assert KEY_VARIABLES == ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")


@pytest.mark.parametrize(
    ("provider", "variable"), [("openai", "OPENAI_API_KEY"), ("anthropic", "ANTHROPIC_API_KEY")]
)
def test_a_missing_key_names_the_variable_the_class_declares(
    provider: str, variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(variable)
    with pytest.raises(ConfigError) as raised:
        make_provider(provider)
    assert str(raised.value) == (
        f"{variable} is not set: set {variable} (or pass --api-key-env) "
        "or --base-url for a local server"
    )


def test_a_server_that_needs_no_key_gets_the_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert api_key(None, key_variable="OPENAI_API_KEY", base_url="http://127.0.0.1:9") == (
        PLACEHOLDER_API_KEY
    )
    assert PLACEHOLDER_API_KEY == "not-needed"
    assert api_key("mine", key_variable=None, base_url=None) == "mine"
