"""Each provider's SDK failures: no SDK exception escapes unmapped, and each maps to the right
verdict by the shared rules."""

from __future__ import annotations

import email.utils
import inspect
import json
import time
from collections.abc import Iterator
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from judgekit.errors import ProviderError
from judgekit.providers.anthropic_errors import anthropic_failures
from judgekit.providers.anthropic_provider import AnthropicProvider
from judgekit.providers.chat import ChatProvider
from judgekit.providers.failures import provider_error
from judgekit.providers.openai_errors import openai_failures
from judgekit.providers.openai_provider import OpenAICompatibleProvider, OpenAIProvider

PROVIDERS: dict[str, tuple[type[ChatProvider], Any]] = {
    "openai": (OpenAIProvider, openai_failures),
    "local": (OpenAICompatibleProvider, openai_failures),
    "anthropic": (AnthropicProvider, anthropic_failures),
}


def map_provider_error(exc: BaseException, *, provider: str) -> ProviderError:
    """What the provider called ``provider`` makes of ``exc``: its SDK's table, its key."""
    cls, failures = PROVIDERS[provider]
    return provider_error(exc, failures(), provider=cls.name, key_variable=cls.key_variable)


REQUEST = httpx2.Request("POST", "http://127.0.0.1:9/v1/chat/completions")


def _subclasses(cls: type[BaseException]) -> Iterator[type[BaseException]]:
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def sdk_exception_classes(module: Any, base: type[BaseException]) -> list[type[BaseException]]:
    """Every exception class the module exports, and every loaded subclass of its base
    that the SDK itself defines (another library's subclass, such as inspect_ai's, loaded by
    an earlier test, is that library's to raise and to describe)."""
    # dir() and getattr, not vars(): the SDKs load some attributes lazily on first access.
    # type(v), not isinstance(v, type): openai's module-level proxies (openai.chat, ...) would
    # answer isinstance by building a client and importing every resource module.
    values = [getattr(module, name) for name in dir(module)]
    exported = {v for v in values if issubclass(type(v), type) and issubclass(v, BaseException)}
    own = {c for c in _subclasses(base) if c.__module__.split(".")[0] == module.__name__}
    return sorted(exported | {base, *own}, key=lambda c: c.__qualname__)


def _status_of(cls: type[BaseException]) -> int:
    status = getattr(cls, "status_code", None)
    if isinstance(status, int):
        return status
    internal = (openai.InternalServerError, anthropic.InternalServerError)
    return 500 if issubclass(cls, internal) else 400


def instantiate(cls: type[BaseException]) -> BaseException:
    """An instance of ``cls``, whatever its constructor wants."""
    response = httpx2.Response(_status_of(cls), request=REQUEST, headers={"retry-after": "1"})
    completion = openai.types.chat.ChatCompletion.model_construct(
        id="c", choices=[], created=0, model="m", object="chat.completion", usage=None
    )
    known: dict[str, Any] = {
        "message": "boom",
        "request": REQUEST,
        "response": response,
        "body": None,
        "completion": completion,
        "unsent_messages": [],
        "path": None,
        "status_code": None,
        "request_id": None,
    }
    known |= {"symbol": "x", "uploaded_file_id": "f", "library": "x", "extra": "x"}
    known |= {"action": "add", "toolset_name": "t"}
    signature = inspect.signature(cls.__init__)
    arguments = {}
    for name, parameter in signature.parameters.items():
        if name == "self" or parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if name in known:
            arguments[name] = known[name]
        elif parameter.default is parameter.empty:
            # A helper's error built from objects too elaborate to fake (agent turns, file
            # bundles): make it without its constructor; the mapping reads only type and text.
            exc = cls.__new__(cls)
            BaseException.__init__(exc, "boom")
            return exc
    takes_args = any(p.kind is p.VAR_POSITIONAL for p in signature.parameters.values())
    return cls("boom", **arguments) if takes_args and not arguments else cls(**arguments)


def expected_retryable(exc: BaseException) -> bool:
    """The policy, restated: transient failures are retryable, everything else is not."""
    spent = (anthropic.ContractSpendLimitReachedError, anthropic.EnforcedSpendLimitReachedError)
    if isinstance(exc, spent):  # a 429 that waiting does not cure
        return False
    status_errors = (openai.APIStatusError, anthropic.APIStatusError)
    if isinstance(exc, status_errors):
        return exc.status_code in (408, 409, 429) or exc.status_code >= 500
    transient = (
        openai.APIConnectionError,  # includes timeouts
        openai.APIResponseValidationError,
        openai.WebSocketConnectionClosedError,
        anthropic.APIConnectionError,
        anthropic.APIResponseValidationError,
        anthropic.RetryableError,
    )
    return isinstance(exc, transient)


@pytest.mark.parametrize(
    ("module", "base", "provider", "label"),
    [
        (openai, openai.OpenAIError, "openai", "OpenAI"),
        (anthropic, anthropic.AnthropicError, "anthropic", "Anthropic"),
    ],
)
def test_no_sdk_exception_escapes_unmapped(
    module: Any, base: type[BaseException], provider: str, label: str
) -> None:
    classes = sdk_exception_classes(module, base)
    assert len(classes) > 15, "the enumeration found suspiciously few exception classes"
    for cls in classes:
        exc = instantiate(cls)
        mapped = map_provider_error(exc, provider=provider)
        assert type(mapped) is ProviderError, cls
        assert label in str(mapped), (cls, str(mapped))
        if issubclass(cls, base):
            assert mapped.retryable is expected_retryable(exc), (cls, str(mapped))
        if isinstance(exc, openai.APIStatusError | anthropic.APIStatusError):
            assert f"HTTP {exc.status_code}" in str(mapped), cls
            assert mapped.retry_after_s == 1.0, cls


def _openai_status_error(
    status: int, body: dict[str, Any] | None = None, headers: dict[str, str] | None = None
) -> openai.APIStatusError:
    response = httpx2.Response(status, request=REQUEST, headers=headers or {}, json=body or {})
    client = openai.OpenAI(api_key="test", base_url="http://127.0.0.1:9/v1")
    # The SDK's own factory: the right subclass, body unwrapped as the SDK does it.
    return client._make_status_error_from_response(response)


def _anthropic_status_error(
    status: int, body: dict[str, Any] | None = None, headers: dict[str, str] | None = None
) -> anthropic.APIStatusError:
    response = httpx2.Response(status, request=REQUEST, headers=headers or {}, json=body or {})
    client = anthropic.Anthropic(api_key="test", base_url="http://127.0.0.1:9")
    return client._make_status_error_from_response(response)


def test_authentication_errors_say_which_variable_to_set() -> None:
    body = {"error": {"message": "Incorrect API key provided", "code": "invalid_api_key"}}
    mapped = map_provider_error(_openai_status_error(401, body), provider="openai")
    assert not mapped.retryable
    assert str(mapped) == (
        "OpenAI rejected the API key (HTTP 401: Incorrect API key provided): set OPENAI_API_KEY "
        "(or pass --api-key-env) or --base-url for a local server"
    )
    error = {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}
    mapped = map_provider_error(_anthropic_status_error(401, error), provider="anthropic")
    assert "HTTP 401: bad key" in str(mapped)
    assert "set ANTHROPIC_API_KEY (or pass --api-key-env)" in str(mapped)
    mapped = map_provider_error(_openai_status_error(401), provider="local")
    assert "pass --api-key-env naming the variable" in str(mapped)
    credentials = anthropic.CredentialsError("no credentials found")
    assert "set ANTHROPIC_API_KEY" in str(map_provider_error(credentials, provider="anthropic"))


def test_not_found_points_at_the_model_name() -> None:
    body = {"error": {"message": "The model `gpt-5o` does not exist", "code": "model_not_found"}}
    mapped = map_provider_error(_openai_status_error(404, body), provider="openai")
    assert not mapped.retryable
    assert "The model `gpt-5o` does not exist" in str(mapped)
    assert "check the model name" in str(mapped)


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after": "3"}, 3.0),
        ({"retry-after": "0.05"}, 0.05),
        ({"retry-after-ms": "1500", "retry-after": "9"}, 1.5),
        ({"retry-after": "soon"}, None),
        ({"retry-after": "-4"}, 0.0),
        ({}, None),
    ],
)
def test_retry_after_is_read_from_the_response(
    headers: dict[str, str], expected: float | None
) -> None:
    mapped = map_provider_error(_openai_status_error(429, headers=headers), provider="openai")
    assert mapped.retryable
    assert mapped.retry_after_s == expected


def test_retry_after_may_be_an_http_date() -> None:
    later = email.utils.formatdate(time.time() + 30, usegmt=True)
    mapped = map_provider_error(
        _anthropic_status_error(429, headers={"retry-after": later}), provider="anthropic"
    )
    assert mapped.retry_after_s is not None
    assert 25 <= mapped.retry_after_s <= 31


def test_an_exhausted_quota_is_not_worth_retrying() -> None:
    body = {"error": {"message": "You exceeded your current quota", "code": "insufficient_quota"}}
    assert not map_provider_error(_openai_status_error(429, body), provider="openai").retryable
    spend = {
        "type": "error",
        "error": {
            "type": "rate_limit_error",
            "message": "spend limit reached",
            "details": {"error_code": "enforced_spend_limit_reached"},
        },
    }
    exc = _anthropic_status_error(429, spend)
    assert isinstance(exc, anthropic.EnforcedSpendLimitReachedError)
    mapped = map_provider_error(exc, provider="anthropic")
    assert not mapped.retryable
    assert "out of quota" in str(mapped)


def test_the_servers_x_should_retry_header_wins() -> None:
    no = _openai_status_error(503, headers={"x-should-retry": "false"})
    assert not map_provider_error(no, provider="openai").retryable
    yes = _anthropic_status_error(400, headers={"x-should-retry": "true"})
    assert map_provider_error(yes, provider="anthropic").retryable


@pytest.mark.parametrize(
    ("exc", "retryable", "words"),
    [
        (TimeoutError("read timed out"), True, "OpenAI timed out: read timed out"),
        (ConnectionRefusedError(111, "refused"), True, "could not reach OpenAI"),
        (httpx2.ReadTimeout("slow", request=REQUEST), True, "timed out"),
        (httpx2.ConnectError("refused", request=REQUEST), True, "could not reach"),
        (httpx2.RemoteProtocolError("peer closed", request=REQUEST), True, "could not reach"),
        (json.JSONDecodeError("Expecting value", "{", 1), True, "malformed response"),
        (KeyError("surprise"), False, "OpenAI request failed: KeyError"),
    ],
)
def test_transport_and_unknown_errors(exc: BaseException, retryable: bool, words: str) -> None:
    mapped = map_provider_error(exc, provider="openai")
    assert mapped.retryable is retryable
    assert words in str(mapped)


def test_a_provider_error_passes_through_unchanged() -> None:
    error = ProviderError("already mapped", retryable=True, retry_after_s=2.0)
    assert map_provider_error(error, provider="openai") is error
