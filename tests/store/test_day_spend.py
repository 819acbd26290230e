"""The day's spend ledger under --max-cost-per-day: reservations from several connections at
once never pass the cap together, settles are committed one by one, days are apart."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

from judgekit.judging.day_budget import DayBudget
from judgekit.store import open_store
from judgekit.store.day_spend import DaySpend, DaySpendLedger


def test_writers_on_separate_connections_never_reserve_past_the_cap(store_url: str) -> None:
    accepted: list[float] = []
    start = threading.Barrier(4)

    def writer() -> None:
        with open_store(store_url) as store:  # its own engine and connections
            ledger = DaySpendLedger(store.engine)
            start.wait()
            for _ in range(25):
                if ledger.reserve("2026-12-03", 0.25, cap=3.0):
                    accepted.append(0.25)

    threads = [threading.Thread(target=writer) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # 100 attempts at $0.25 against $3: exactly 12 fit, whoever got them.
    assert len(accepted) == 12
    with open_store(store_url) as store:
        assert DaySpendLedger(store.engine).spend("2026-12-03") == DaySpend("2026-12-03", 0.0, 3.0)


def test_a_settle_is_committed_at_once_and_frees_what_was_not_spent(store_url: str) -> None:
    with open_store(store_url) as store:
        ledger = DaySpendLedger(store.engine)
        assert ledger.reserve("2026-12-03", 1.5, cap=2.0)
        assert not ledger.reserve("2026-12-03", 1.0, cap=2.0)
        ledger.settle("2026-12-03", reserved=1.5, spent=0.5)
    with open_store(store_url) as other:  # another process's view
        assert DaySpendLedger(other.engine).spend("2026-12-03") == DaySpend("2026-12-03", 0.5, 0.0)
        assert DaySpendLedger(other.engine).reserve("2026-12-03", 1.0, cap=2.0)


def test_the_next_utc_day_starts_fresh(store_url: str) -> None:
    now = [datetime(2026, 12, 3, 23, 59, 30, tzinfo=UTC)]
    with open_store(store_url) as store:
        day = DayBudget(1.0, DaySpendLedger(store.engine), clock=lambda: now[0])
        held = day.reserve(0.8)
        assert held == ("2026-12-03", 0.8)
        now[0] = datetime(2026, 12, 4, 0, 0, 10, tzinfo=UTC)
        day.settle(held, 0.8)  # counted on the day it was reserved on
        assert day.reserve(0.8) == ("2026-12-04", 0.8)
        assert day.reserve(0.8) is None
        now[0] = datetime(2026, 12, 3, 23, 59, 50, tzinfo=UTC)
        assert day.reserve(0.3) is None  # $0.80 spent on the 3rd: $0.30 more would pass $1
        ledger = DaySpendLedger(store.engine)
        assert ledger.spend("2026-12-03") == DaySpend("2026-12-03", 0.8, 0.0)
        assert ledger.spend("2026-12-04") == DaySpend("2026-12-04", 0.0, 0.8)
        assert day.stop_message() == (
            "the --max-cost-per-day cap of $1.0000 is reached: $0.8000 spent today (UTC "
            "2026-12-03); it resets at 2026-12-04 00:00 UTC (in 0 h 1 min)"
        )
