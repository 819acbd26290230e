"""``--max-cost-per-day``: what judges spend per UTC day, across every ``judgekit judge``
recording into one store, kept at most the cap.

The day's spend lives in the store (:class:`~judgekit.store.day_spend.DaySpendLedger`), so
two CI jobs judging at once share it. Each request reserves the most it can cost, in the
same way as ``--max-cost`` (:class:`~judgekit.judging.budget.Budget`, whose shared limit
this is), before it is sent, and settles to its real cost once answered; a cached answer
is never sent and costs nothing. A request is counted on the UTC day it was reserved on.

>>> from datetime import datetime, timezone
>>> from judgekit.store import open_store
>>> from judgekit.store.day_spend import DaySpendLedger
>>> now = datetime(2026, 12, 3, 18, 30, tzinfo=timezone.utc)
>>> with open_store("sqlite://") as store:
...     day = DayBudget(1.0, DaySpendLedger(store.engine), clock=lambda: now)
...     held = day.reserve(0.75)
...     day.settle(held, 0.5)
...     refused = day.reserve(0.75)
...     print(held, refused)
...     print(day.stop_message())
('2026-12-03', 0.75) None
the --max-cost-per-day cap of $1.0000 is reached: $0.5000 spent today (UTC 2026-12-03); it resets at 2026-12-04 00:00 UTC (in 5 h 30 min)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from judgekit._util.number_format import dollars
from judgekit.errors import ConfigError
from judgekit.store.day_spend import DaySpendLedger

__all__ = ["DayBudget", "utc_now"]


def utc_now() -> datetime:
    """Now, in UTC: the clock a day's budget reads unless it is given another."""
    return datetime.now(UTC)


class DayBudget:
    """At most ``cap_usd`` a UTC day, by ``ledger``; ``clock`` says when it is."""

    option = "--max-cost-per-day"

    def __init__(
        self,
        cap_usd: float,
        ledger: DaySpendLedger,
        *,
        clock: Callable[[], datetime] = utc_now,
    ) -> None:
        if not (math.isfinite(cap_usd) and cap_usd > 0):
            raise ConfigError(f"{self.option} must be a positive number of dollars, not {cap_usd}")
        self.cap_usd = cap_usd
        self._ledger = ledger
        self._clock = clock

    def today(self) -> str:
        """The UTC day it is now, as ``YYYY-MM-DD``."""
        return self._clock().astimezone(UTC).date().isoformat()

    def reserve(self, usd: float) -> tuple[str, float] | None:
        """Hold ``usd`` of today's cap: ``(day, usd)`` to settle, None when it could pass."""
        day = self.today()
        return (day, usd) if self._ledger.reserve(day, usd, cap=self.cap_usd) else None

    def settle(self, token: object, spent: float) -> None:
        """The request held by ``token`` (from :meth:`reserve`) cost ``spent``."""
        assert isinstance(token, tuple)
        day, reserved = token
        self._ledger.settle(day, reserved=reserved, spent=spent)

    def stop_message(self) -> str:
        """The cap, what was spent today, and when it resets."""
        now = self._clock().astimezone(UTC)
        spend = self._ledger.spend(now.date().isoformat())
        reset = datetime.combine(now.date() + timedelta(days=1), datetime.min.time(), UTC)
        hours, minutes = divmod(math.ceil((reset - now).total_seconds() / 60), 60)
        reserved = (
            f", {dollars(spend.reserved_usd)} more held by requests not yet settled"
            if spend.reserved_usd > 1e-12
            else ""
        )
        return (
            f"the {self.option} cap of {dollars(self.cap_usd)} is reached: "
            f"{dollars(spend.spent_usd)} spent today (UTC {spend.day}{reserved}); it resets at "
            f"{reset:%Y-%m-%d %H:%M} UTC (in {hours} h {minutes} min)"
        )
