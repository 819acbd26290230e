"""The anthropic SDK's exceptions, read into the
:class:`~judgekit.providers.failures.Failure` the shared rules decide on
(:mod:`judgekit.providers.failures`).

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
    import anthropic

__all__ = ["anthropic_failures"]


def _status(exc: anthropic.APIStatusError) -> Failure:
    import anthropic

    detail = exc.api_message or api_message(exc.body, exc.message)
    # A 429 that no amount of waiting fixes reads as the quota the rules recognise.
    spent = (anthropic.ContractSpendLimitReachedError, anthropic.EnforcedSpendLimitReachedError)
    code = "spend_limit_reached" if isinstance(exc, spent) else exc.error_code or exc.type
    return Failure("status", detail, exc.status_code, exc.response.headers, code)


def _timeout(exc: anthropic.APITimeoutError) -> Failure:
    return Failure("timeout", f"request timed out ({exc.request.url})")


def _credentials(exc: BaseException) -> Failure:
    return Failure("credentials", describe(exc))


@cache
def anthropic_failures() -> FailureTable:
    """anthropic's exception classes and how each reads; the nearest class's row wins (a
    timeout is a connection error in the SDK's tree, a status error an API error)."""
    import anthropic

    return {
        anthropic.APIStatusError: _status,
        anthropic.APITimeoutError: _timeout,
        anthropic.APIConnectionError: lambda exc: Failure("connection", connection_detail(exc)),
        anthropic.APIResponseValidationError: lambda exc: Failure("malformed", exc.message),
        anthropic.RetryableError: lambda exc: Failure("retryable", describe(exc)),
        anthropic.CredentialsError: _credentials,
        anthropic.WorkloadIdentityError: _credentials,
        anthropic.AnthropicError: lambda exc: Failure("other", describe(exc)),
    }
