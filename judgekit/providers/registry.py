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

More providers plug in without changing judgekit: a :class:`ChatProvider` subclass whose
constructor takes ``base_url`` and ``api_key`` keywords, registered in-process with
:func:`register_provider` or, for the command line, declared by an installed package as an
entry point in the ``judgekit.providers`` group::

    [project.entry-points."judgekit.providers"]
    gemini = "my_package.gemini:GeminiProvider"

>>> parse_model_name("openai/gpt-4o-mini")
('openai', 'gpt-4o-mini')
>>> parse_model_name("local/meta-llama/Llama-3.1-8B-Instruct")
('local', 'meta-llama/Llama-3.1-8B-Instruct')
"""

from __future__ import annotations

import os
from collections.abc import Callable
from importlib.metadata import entry_points

from judgekit._util.redaction import add_secret
from judgekit.errors import ConfigError
from judgekit.providers.anthropic_provider import AnthropicProvider
from judgekit.providers.chat import ChatProvider
from judgekit.providers.openai_provider import OpenAICompatibleProvider, OpenAIProvider

__all__ = [
    "ENTRY_POINT_GROUP",
    "PROVIDER_NAMES",
    "make_provider",
    "parse_model_name",
    "provider_names",
    "register_provider",
]

# The built-in providers; their modules import their SDKs only when a provider is made.
_BUILT_IN: dict[str, type[OpenAIProvider | AnthropicProvider]] = {
    provider.name: provider
    for provider in (AnthropicProvider, OpenAICompatibleProvider, OpenAIProvider)
}
PROVIDER_NAMES = tuple(_BUILT_IN)
ENTRY_POINT_GROUP = "judgekit.providers"
# The variables the built-in providers read their keys from, as each declares.
KEY_VARIABLES = tuple(
    provider.key_variable for provider in _BUILT_IN.values() if provider.key_variable
)

# Called with base_url= and api_key= keywords (either may be None).
ProviderFactory = Callable[..., ChatProvider]
_registered: dict[str, ProviderFactory] = {}


def register_provider(name: str, factory: ProviderFactory) -> None:
    """Make ``name/<model>`` reach the provider ``factory(base_url=…, api_key=…)`` builds."""
    if not name or "/" in name or name != name.strip():
        raise ValueError(f"a provider name is one word without a slash, got {name!r}")
    if name in PROVIDER_NAMES:
        raise ValueError(f"{name!r} is a built-in provider and cannot be replaced")
    _registered[name] = factory


def provider_names() -> tuple[str, ...]:
    """Built-in, registered and installed (entry point) providers, sorted."""
    installed = {point.name for point in entry_points(group=ENTRY_POINT_GROUP)}
    return tuple(sorted({*PROVIDER_NAMES, *_registered, *installed}))


def _plugged_in(name: str) -> ProviderFactory | None:
    if name in _registered:
        return _registered[name]
    for point in entry_points(group=ENTRY_POINT_GROUP, name=name):
        try:
            factory = point.load()
        except Exception as exc:  # a broken plugin: say which, not a traceback
            raise ConfigError(
                f"provider {name!r} from entry point {point.value!r} failed to load: {exc}"
            ) from exc
        if not callable(factory):
            raise ConfigError(f"provider {name!r}: entry point {point.value!r} is not callable")
        return factory  # type: ignore[no-any-return]
    return None


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
    if provider not in PROVIDER_NAMES and provider not in provider_names():
        raise ConfigError(
            f"model {name!r}: unknown provider {provider!r}; "
            f"known: {', '.join(provider_names())} ({_EXAMPLES})"
        )
    if not model:
        raise ConfigError(f"model {name!r} has no model name after the slash ({_EXAMPLES})")
    return provider, model


def make_provider(
    provider_name: str, *, base_url: str | None = None, api_key: str | None = None
) -> ChatProvider:
    """The provider called ``provider_name``; its SDK is imported only now.

    ``api_key`` overrides the provider's environment variable (the command line's
    ``--api-key-env`` reads the variable it names and passes the key here). Every key it
    may send is registered for redaction first, so no error text can carry one.
    """
    add_secret(api_key)
    for variable in KEY_VARIABLES:
        add_secret(os.environ.get(variable))
    built_in = _BUILT_IN.get(provider_name)
    if built_in is not None:
        return built_in(api_key=api_key, base_url=base_url)
    factory = _plugged_in(provider_name)
    if factory is not None:
        provider = factory(base_url=base_url, api_key=api_key)
        if not isinstance(provider, ChatProvider):
            raise ConfigError(
                f"provider {provider_name!r} built a {type(provider).__name__}, not a ChatProvider"
            )
        return provider
    raise ConfigError(
        f"unknown provider {provider_name!r}; known: {', '.join(provider_names())} ({_EXAMPLES})"
    )
