"""Where a series starts: ``--since`` as a day or a number of days back."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from judgekit.errors import ConfigError

__all__ = ["parse_since"]

_DAYS = re.compile(r"^(\d+)d$")


def parse_since(text: str, *, now: datetime | None = None) -> datetime:
    """``2026-09-01`` (a UTC day) or ``90d`` (that many days back from now); anything else
    raises :class:`~judgekit.errors.ConfigError`.

    >>> parse_since("30d", now=datetime(2026, 11, 29, 12, tzinfo=UTC)).isoformat()
    '2026-10-30T12:00:00+00:00'
    >>> parse_since("2026-09-01").isoformat()
    '2026-09-01T00:00:00+00:00'
    >>> parse_since("99999999d")
    Traceback (most recent call last):
    judgekit.errors.ConfigError: '99999999d' goes back before 0001-01-01; expected YYYY-MM-DD or a number of days such as 90d
    """
    days = _DAYS.match(text.strip())
    if days:
        try:
            return (now or datetime.now(UTC)) - timedelta(days=int(days.group(1)))
        except (OverflowError, ValueError):  # before year 1, or past what a day count holds
            raise ConfigError(
                f"{text!r} goes back before 0001-01-01; expected YYYY-MM-DD or a number of "
                "days such as 90d"
            ) from None
    try:
        day = datetime.strptime(text.strip(), "%Y-%m-%d")
    except ValueError:
        raise ConfigError(
            f"{text!r} is not a date; expected YYYY-MM-DD or a number of days such as 90d"
        ) from None
    return day.replace(tzinfo=UTC)
