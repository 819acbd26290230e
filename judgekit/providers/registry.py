"""From a ``provider/model`` name to a provider.

================  ================================================================
provider          reaches
================  ================================================================
``openai``        OpenAI; with ``--base-url``, any OpenAI-compatible server
``anthropic``     Anthropic; with ``--base-url``, an Anthropic-compatible gateway
``local``         an OpenAI-compatible server at the required ``--base-url``
================  ================================================================

Everything after the first slash is the provider's own model name, slashes included
(``local/meta-llama/Llama-3.1-8B-Instruct``).

>>> parse_model_name("openai/gpt-4o-mini")
('openai', 'gpt-4o-mini')
>>> parse_model_name("local/meta-llama/Llama-3.1-8B-Instruct")
('local', 'meta-llama/Llama-3.1-8B-Instruct')
"""

from __future__ import annotations

from judgekit.errors import ConfigError
from judgekit.providers.chat import ChatProvider

__all__ = ["PROVIDER_NAMES", "make_provider", "parse_model_name"]

PROVIDER_NAMES = ("anthropic", "local", "openai")

_EXAMPLES = "e.g. openai/gpt-4o-mini, anthropic/claude-haiku-4-5 or local/llama3.1 with --base-url"


def parse_model_name(name: str) -> tuple[str, str]:
    """Split ``provider/model`` into the provider's name and its own model name.

    >>> parse_model_name("gpt-4o")
    Traceback (most recent call last):
    ...
    judgekit.errors.ConfigError: model 'gpt-4o' names no provider: write provider/model, e.g. openai/gpt-4o-mini, anthropic/claude-haiku-4-5 or local/llama3.1 with --base-url
    """
    provider, slash, model = name.partition("/")
    if not slash:
        raise ConfigError(f"model {name!r} names no provider: write provider/model, {_EXAMPLES}")
    if provider not in PROVIDER_NAMES:
        raise ConfigError(
            f"model {name!r}: unknown provider {provider!r}; "
            f"known: {', '.join(PROVIDER_NAMES)} ({_EXAMPLES})"
        )
    if not model:
        raise ConfigError(f"model {name!r} has no model name after the slash ({_EXAMPLES})")
    return provider, model


def make_provider(
    provider_name: str, *, base_url: str | None = None, api_key: str | None = None
) -> ChatProvider:
    """The provider called ``provider_name``; its SDK is imported only now.

    ``api_key`` overrides the provider's environment variable (the command line's
    ``--api-key-env`` reads the variable it names and passes the key here).
    """
    if provider_name == "openai":
        from judgekit.providers.openai_provider import OpenAIProvider

        return OpenAIProvider(api_key=api_key, base_url=base_url)
    if provider_name == "local":
        from judgekit.providers.openai_provider import OpenAICompatibleProvider

        return OpenAICompatibleProvider(api_key=api_key, base_url=base_url)
    if provider_name == "anthropic":
        from judgekit.providers.anthropic_provider import AnthropicProvider

        return AnthropicProvider(api_key=api_key, base_url=base_url)
    raise ConfigError(
        f"unknown provider {provider_name!r}; known: {', '.join(PROVIDER_NAMES)} ({_EXAMPLES})"
    )
