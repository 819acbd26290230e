"""Every failure of a provider SDK, as one judgekit :class:`~judgekit.errors.ProviderError`:
the rules that decide what went wrong, whether trying again may help and, when the server
said, how long to wait first.

Each provider reads its own SDK's exceptions into a :class:`Failure` through a table
(:mod:`~judgekit.providers.openai_errors`, :mod:`~judgekit.providers.anthropic_errors`);
:data:`TRANSPORT_FAILURES` reads those from below the SDKs (a body that is not JSON, a
timeout, a refused connection), and :func:`provider_errors` maps a request's exceptions
through both. The rules are the same for every provider:

=====================================================  ==========
failure                                                retryable
=====================================================  ==========
rate limit (429), except an exhausted quota            yes
server error (5xx), request timeout (408), conflict    yes
timeout, connection error, a body that is not JSON     yes
bad API key (401), missing credentials                 no: the message says which variable to set
permission (403), unknown model (404), bad request     no
anything else                                          no
=====================================================  ==========

A server's ``x-should-retry: true|false`` header overrides the table, as it does in the SDKs.

>>> error = provider_error(TimeoutError("read timed out"), {}, provider="openai", key_variable=None)
>>> error.retryable, str(error)
(True, 'OpenAI timed out: read timed out')
"""

from __future__ import annotations

import email.utils
import json
import math
import time
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Literal

from judgekit.errors import ProviderError, map_exceptions, table_row
from judgekit.providers.chat import ChatProvider
from judgekit.providers.keys import key_hint
from judgekit.providers.rate_headers import rate_limit_headers

__all__ = [
    "TRANSPORT_FAILURES",
    "Failure",
    "FailureTable",
    "provider_error",
    "provider_errors",
    "provider_label",
]

_Kind = Literal["status", "timeout", "connection", "credentials", "malformed", "retryable", "other"]

# How a provider is named in messages.
_LABELS = {"openai": "OpenAI", "anthropic": "Anthropic", "local": "the OpenAI-compatible server"}


@dataclass(frozen=True)
class Failure:
    """What an exception says, whichever SDK raised it."""

    kind: _Kind
    detail: str
    status: int | None = None
    headers: Mapping[str, str] | None = None
    code: str | None = None  # the API's machine-readable cause, e.g. "insufficient_quota"


FailureTable = Mapping[type[BaseException], Callable[[Any], Failure]]
"""A provider's table: an exception class of its SDK, and how one of its exceptions reads."""


def provider_error(
    exc: BaseException, sdk_failures: FailureTable, *, provider: str, key_variable: str | None
) -> ProviderError:
    """The :class:`ProviderError` for an exception raised while calling ``provider``.

    ``sdk_failures`` reads the provider's SDK's exceptions (the nearest class's row wins),
    :data:`TRANSPORT_FAILURES` those from below the SDK; anything else is a failure that
    is not retried. ``provider`` is the name before the slash in ``provider/model``; it
    picks the wording, and ``key_variable`` the variable a key error names. A
    ``ProviderError`` is returned as it is. Raise the result ``from exc`` to keep the cause.
    """
    if isinstance(exc, ProviderError):
        return exc
    read = table_row(sdk_failures, exc) or table_row(TRANSPORT_FAILURES, exc)
    failure = read(exc) if read is not None else _httpx_failure(exc)
    return _decide(failure or Failure("other", describe(exc)), provider, key_hint(key_variable))


def provider_errors(
    provider: ChatProvider, sdk_failures: FailureTable
) -> AbstractContextManager[None]:
    """A request's block, where an exception of a class ``sdk_failures`` or
    :data:`TRANSPORT_FAILURES` names becomes :func:`provider_error`'s ProviderError, raised
    from it; any other exception (a bug) passes through."""
    classes = {**TRANSPORT_FAILURES, **sdk_failures}
    return map_exceptions(dict.fromkeys(classes, _decided), (provider, sdk_failures), chain=True)


def _decided(exc: BaseException, at: tuple[ChatProvider, FailureTable]) -> ProviderError:
    provider, sdk_failures = at
    return provider_error(
        exc, sdk_failures, provider=provider.name, key_variable=provider.key_variable
    )


def provider_label(provider: str) -> str:
    """How ``provider`` begins a message: "OpenAI", "Anthropic", "The OpenAI-compatible server".

    >>> provider_label("local")
    'The OpenAI-compatible server'
    """
    name = _LABELS.get(provider, provider)
    return name[:1].upper() + name[1:]


def _decide(failure: Failure, provider: str, key_fix: str) -> ProviderError:
    name = _LABELS.get(provider, provider)
    label = provider_label(provider)
    detail = failure.detail
    if failure.kind == "status" and failure.status is not None:
        return _status_error(failure, label, key_fix)
    if failure.kind == "timeout":
        return ProviderError(f"{label} timed out: {detail}", retryable=True)
    if failure.kind == "connection":
        return ProviderError(f"could not reach {name}: {detail}", retryable=True, unreachable=True)
    if failure.kind == "malformed":
        return ProviderError(f"{label} sent a malformed response: {detail}", retryable=True)
    if failure.kind == "retryable":
        return ProviderError(f"{label} request failed and may be retried: {detail}", retryable=True)
    if failure.kind == "credentials":
        return ProviderError(f"{label} credentials are missing or invalid ({detail}): {key_fix}")
    return ProviderError(f"{label} request failed: {detail}")


def _status_error(failure: Failure, label: str, key_fix: str) -> ProviderError:
    status = failure.status or 0
    said = f"HTTP {status}: {failure.detail}"
    retryable = rate_limited = False
    if status == 401:
        message = f"{label} rejected the API key ({said}): {key_fix}"
    elif status == 403:
        message = f"{label} refused the request ({said}): the key lacks access to it"
    elif status == 404:
        message = (
            f"{label} does not know this model or endpoint ({said}): check the model name "
            "after the slash in provider/model, and --base-url"
        )
    elif status == 429 and _is_exhausted_quota(failure.code):
        message = f"{label} says the account is out of quota or spend limit ({said})"
    elif status == 429:
        message, retryable, rate_limited = f"{label} rate-limited the request ({said})", True, True
    elif status in (408, 409) or status >= 500:
        message, retryable = f"{label} failed to answer ({said})", True
    else:
        message = f"{label} rejected the request ({said})"
    headers = failure.headers or {}
    # The server may say explicitly; the SDKs obey this header too.
    should_retry = headers.get("x-should-retry")
    if should_retry in ("true", "false"):
        retryable = should_retry == "true"
    return ProviderError(
        message,
        retryable=retryable,
        retry_after_s=_retry_after_s(headers),
        rate_limited=rate_limited,
        rate_headers=rate_limit_headers(headers),
    )


def _is_exhausted_quota(code: str | None) -> bool:
    # A 429 that no amount of waiting fixes: OpenAI's "insufficient_quota", Anthropic's
    # "enforced_spend_limit_reached" and "contract_spend_limit_reached".
    return code is not None and ("quota" in code or "spend_limit" in code)


def _retry_after_s(headers: Mapping[str, str]) -> float | None:
    """Seconds to wait, from ``retry-after-ms`` or ``retry-after`` (seconds or an HTTP date).

    >>> _retry_after_s({"retry-after": "2"}), _retry_after_s({"retry-after-ms": "250"})
    (2.0, 0.25)
    """
    milliseconds = _finite_float(headers.get("retry-after-ms"))
    if milliseconds is not None:
        return max(milliseconds / 1000, 0.0)
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = _finite_float(value)
    if seconds is not None:
        return max(seconds, 0.0)
    date = email.utils.parsedate_tz(value)
    if date is None:
        return None
    return max(float(email.utils.mktime_tz(date) - time.time()), 0.0)


def _finite_float(value: str | None) -> float | None:
    try:
        number = float(value) if value is not None else None
    except ValueError:
        return None
    return number if number is not None and math.isfinite(number) else None


def describe(exc: BaseException) -> str:
    """The exception's class and message (``KeyError: 'surprise'``)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def api_message(body: object, fallback: str) -> str:
    """The API's own explanation in an error body (``{"error": {"message": ...}}``)."""
    error = body.get("error", body) if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else fallback


def connection_detail(exc: BaseException) -> str:
    """The SDK's message, then the URL it tried and the low-level cause (refused, DNS, reset)."""
    request = getattr(exc, "request", None)
    where = [str(request.url)] if request is not None else []
    if exc.__cause__ is not None:
        where.append(describe(exc.__cause__))
    return f"{exc} ({': '.join(where)})" if where else str(exc)


TRANSPORT_FAILURES: FailureTable = {
    # Both SDKs let this escape when a 200's body is not JSON (a truncating proxy, say).
    json.JSONDecodeError: lambda exc: Failure("malformed", f"the body is not JSON ({exc})"),
    TimeoutError: lambda exc: Failure("timeout", str(exc) or type(exc).__name__),
    ConnectionError: lambda exc: Failure("connection", describe(exc)),
    OSError: lambda exc: Failure("other", describe(exc)),
}
"""Failures below the SDKs, the standard library's."""


def _httpx_failure(exc: BaseException) -> Failure | None:
    """httpx's failures, should one leak through an SDK. The SDKs bundle their own httpx
    (``httpx2`` today, ``httpx`` before) and judgekit depends on neither, so they are
    recognised by class name within that package."""
    names = {
        cls.__name__
        for cls in type(exc).__mro__
        if cls.__module__.split(".")[0] in ("httpx", "httpx2")
    }
    if "TimeoutException" in names:
        return Failure("timeout", describe(exc))
    if names & {"NetworkError", "RemoteProtocolError"}:
        return Failure("connection", describe(exc))
    return None
