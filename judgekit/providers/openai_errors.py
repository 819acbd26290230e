"""The openai SDK's exceptions, read into the :class:`~judgekit.providers.failures.Failure`
the shared rules decide on (:mod:`judgekit.providers.failures`).

The table names the SDK's classes, so it is built the first time a provider asks, after
the SDK is imported; nothing here imports it before.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING

from judgekit.providers.failures import (
    Failure,
    FailureTable,
    api_message,
    connection_detail,
    describe,
)

if TYPE_CHECKING:
    import openai

__all__ = ["openai_failures"]


def _status(exc: openai.APIStatusError) -> Failure:
    detail = api_message(exc.body, exc.message)
    return Failure("status", detail, exc.status_code, exc.response.headers, exc.code)


def _timeout(exc: openai.APITimeoutError) -> Failure:
    return Failure("timeout", f"{exc.message} ({exc.request.url})")


def _connection(exc: BaseException) -> Failure:
    return Failure("connection", connection_detail(exc))


@cache
def openai_failures() -> FailureTable:
    """openai's exception classes and how each reads; the nearest class's row wins (a
    timeout is a connection error in the SDK's tree, a status error an API error)."""
    import openai

    return {
        openai.APIStatusError: _status,
        openai.APITimeoutError: _timeout,
        openai.APIConnectionError: _connection,
        openai.WebSocketConnectionClosedError: _connection,
        openai.APIResponseValidationError: lambda exc: Failure("malformed", exc.message),
        openai.OpenAIError: lambda exc: Failure("other", describe(exc)),
    }
