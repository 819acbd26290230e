"""Every failure of a provider SDK, as one judgekit :class:`~judgekit.errors.ProviderError`.

The openai and anthropic SDKs each raise their own exception tree (and, on a body that is not
JSON, a bare ``json.JSONDecodeError``); :func:`map_provider_error` is the one place that turns
any of them into a ``ProviderError`` saying what went wrong, whether trying again may help and,
when the server said, how long to wait first.

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

>>> error = map_provider_error(TimeoutError("read timed out"), provider="openai")
>>> error.retryable, str(error)
(True, 'OpenAI timed out: read timed out')
"""

from __future__ import annotations

import email.utils
import json
import math
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from judgekit.errors import ProviderError

__all__ = ["map_provider_error", "provider_label"]

_Kind = Literal["status", "timeout", "connection", "credentials", "malformed", "retryable", "other"]

# How a provider is named in messages, and how to give it a key it will accept.
_LABELS = {"openai": "OpenAI", "anthropic": "Anthropic", "local": "the OpenAI-compatible server"}
_KEY_FIXES = {
    "openai": "set OPENAI_API_KEY (or pass --api-key-env) or --base-url for a local server",
    "anthropic": "set ANTHROPIC_API_KEY (or pass --api-key-env) or --base-url for a local server",
    "local": "pass --api-key-env naming the variable that holds the server's key",
}


@dataclass(frozen=True)
class _Failure:
    """What an exception says, whichever SDK raised it."""

    kind: _Kind
    detail: str
    status: int | None = None
    headers: Mapping[str, str] | None = None
    code: str | None = None  # the API's machine-readable cause, e.g. "insufficient_quota"


def map_provider_error(exc: BaseException, *, provider: str) -> ProviderError:
    """The :class:`ProviderError` for an exception raised while calling ``provider``.

    ``provider`` is the name before the slash in ``provider/model`` ("openai", "anthropic",
    "local"); it picks the wording and the environment variable a key error names. A
    ``ProviderError`` is returned as it is. Raise the result ``from exc`` to keep the cause.
    """
    if isinstance(exc, ProviderError):
        return exc
    failure = _openai_failure(exc) or _anthropic_failure(exc) or _transport_failure(exc)
    return _decide(failure or _Failure("other", _describe(exc)), provider)


def provider_label(provider: str) -> str:
    """How ``provider`` begins a message: "OpenAI", "Anthropic", "The OpenAI-compatible server".

    >>> provider_label("local")
    'The OpenAI-compatible server'
    """
    name = _LABELS.get(provider, provider)
    return name[:1].upper() + name[1:]


def _decide(failure: _Failure, provider: str) -> ProviderError:
    name = _LABELS.get(provider, provider)
    label = provider_label(provider)
    key_fix = _KEY_FIXES.get(provider, f"set {provider.upper()}_API_KEY (or pass --api-key-env)")
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


def _status_error(failure: _Failure, label: str, key_fix: str) -> ProviderError:
    status = failure.status or 0
    said = f"HTTP {status}: {failure.detail}"
    retryable = False
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
        message, retryable = f"{label} rate-limited the request ({said})", True
    elif status in (408, 409) or status >= 500:
        message, retryable = f"{label} failed to answer ({said})", True
    else:
        message = f"{label} rejected the request ({said})"
    headers = failure.headers or {}
    # The server may say explicitly; the SDKs obey this header too.
    should_retry = headers.get("x-should-retry")
    if should_retry in ("true", "false"):
        retryable = should_retry == "true"
    return ProviderError(message, retryable=retryable, retry_after_s=_retry_after_s(headers))


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


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _api_message(body: object, fallback: str) -> str:
    """The API's own explanation in an error body (``{"error": {"message": ...}}``)."""
    error = body.get("error", body) if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    return message if isinstance(message, str) and message else fallback


def _openai_failure(exc: BaseException) -> _Failure | None:
    if "openai" not in sys.modules:  # no openai exception can exist before the SDK is imported
        return None
    import openai

    if isinstance(exc, openai.APIStatusError):
        detail = _api_message(exc.body, exc.message)
        return _Failure("status", detail, exc.status_code, exc.response.headers, exc.code)
    if isinstance(exc, openai.APITimeoutError):
        return _Failure("timeout", f"{exc.message} ({exc.request.url})")
    if isinstance(exc, openai.APIConnectionError | openai.WebSocketConnectionClosedError):
        return _Failure("connection", _connection_detail(exc))
    if isinstance(exc, openai.APIResponseValidationError):
        return _Failure("malformed", exc.message)
    if isinstance(exc, openai.OpenAIError):
        return _Failure("other", _describe(exc))
    return None


def _anthropic_failure(exc: BaseException) -> _Failure | None:
    if "anthropic" not in sys.modules:  # as for openai: nothing to recognise yet
        return None
    import anthropic

    if isinstance(exc, anthropic.APIStatusError):
        detail = exc.api_message or _api_message(exc.body, exc.message)
        spent = (anthropic.ContractSpendLimitReachedError, anthropic.EnforcedSpendLimitReachedError)
        code = "spend_limit_reached" if isinstance(exc, spent) else exc.error_code or exc.type
        return _Failure("status", detail, exc.status_code, exc.response.headers, code)
    if isinstance(exc, anthropic.APITimeoutError):
        return _Failure("timeout", f"request timed out ({exc.request.url})")
    if isinstance(exc, anthropic.APIConnectionError):
        return _Failure("connection", _connection_detail(exc))
    if isinstance(exc, anthropic.APIResponseValidationError):
        return _Failure("malformed", exc.message)
    if isinstance(exc, anthropic.RetryableError):
        return _Failure("retryable", _describe(exc))
    if isinstance(exc, anthropic.CredentialsError | anthropic.WorkloadIdentityError):
        return _Failure("credentials", _describe(exc))
    if isinstance(exc, anthropic.AnthropicError):
        return _Failure("other", _describe(exc))
    return None


def _transport_failure(exc: BaseException) -> _Failure | None:
    """Failures below the SDKs: the standard library's, and httpx's if one leaks through."""
    if isinstance(exc, json.JSONDecodeError):
        # Both SDKs let this escape when a 200's body is not JSON (a truncating proxy, say).
        return _Failure("malformed", f"the body is not JSON ({exc})")
    if isinstance(exc, TimeoutError):
        return _Failure("timeout", str(exc) or type(exc).__name__)
    if isinstance(exc, ConnectionError):
        return _Failure("connection", _describe(exc))
    # The SDKs bundle their own httpx (``httpx2`` today, ``httpx`` before) and judgekit depends
    # on neither, so their transport errors are recognised by class name within that package.
    names = {
        cls.__name__
        for cls in type(exc).__mro__
        if cls.__module__.split(".")[0] in ("httpx", "httpx2")
    }
    if "TimeoutException" in names:
        return _Failure("timeout", _describe(exc))
    if names & {"NetworkError", "RemoteProtocolError"}:
        return _Failure("connection", _describe(exc))
    return None


def _connection_detail(exc: BaseException) -> str:
    """The SDK's message, then the URL it tried and the low-level cause (refused, DNS, reset)."""
    request = getattr(exc, "request", None)
    where = [str(request.url)] if request is not None else []
    if exc.__cause__ is not None:
        where.append(_describe(exc.__cause__))
    return f"{exc} ({': '.join(where)})" if where else str(exc)
