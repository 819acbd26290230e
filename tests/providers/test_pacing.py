"""The pace controller on sequences of answers: halve on 429s and low quotas, grow back by
one a round of successes, hold until a spent quota's reset, never below 1 nor above the max."""

from __future__ import annotations

import pytest

from judgekit.providers.pacing import PaceController
from judgekit.providers.rate_headers import MAX_RESET_S, RateHeaders, read_rate_headers

NOW = 1796320800.0


def openai(remaining: int, limit: int = 100, reset: str = "10s") -> RateHeaders:
    return read_rate_headers(
        {
            "x-ratelimit-limit-requests": str(limit),
            "x-ratelimit-remaining-requests": str(remaining),
            "x-ratelimit-reset-requests": reset,
        },
        now=NOW,
    )


def test_a_429_halves_and_retry_after_holds_new_requests() -> None:
    pace = PaceController(32)
    ticket = pace.started(now=0.0, tokens=10)
    pace.rate_limited(ticket, retry_after_s=3.0, headers=None, now=1.0)
    assert pace.limit == 16
    assert pace.admission_wait(now=1.0, tokens=10) == 3.0
    assert pace.admission_wait(now=3.5, tokens=10) == 0.5
    assert pace.admission_wait(now=4.0, tokens=10) == 0.0


def test_one_burst_of_429s_halves_once() -> None:
    pace = PaceController(32)
    tickets = [pace.started(now=0.0, tokens=1) for _ in range(20)]
    for ticket in tickets:
        pace.rate_limited(ticket, retry_after_s=None, headers=None, now=0.1)
    assert (pace.limit, pace.decreases, pace.in_flight) == (16, 1, 0)
    # A request started after the decrease meets a 429 again: a new episode, halve again.
    later = pace.started(now=0.2, tokens=1)
    pace.rate_limited(later, retry_after_s=None, headers=None, now=0.3)
    assert (pace.limit, pace.decreases) == (8, 2)


def test_never_below_one() -> None:
    pace = PaceController(4)
    for _ in range(10):
        pace.rate_limited(pace.started(now=0.0, tokens=1), retry_after_s=None, headers=None, now=0)
    assert pace.limit == 1


def test_a_round_of_successes_adds_one_up_to_the_maximum() -> None:
    pace = PaceController(6)
    pace.rate_limited(pace.started(now=0.0, tokens=1), retry_after_s=None, headers=None, now=0)
    assert pace.limit == 3
    limits = []
    for _ in range(20):
        pace.succeeded(pace.started(now=1.0, tokens=1), None, now=1.0)
        limits.append(pace.limit)
    # 3 successes to reach 4, 4 more to reach 5, 5 more to reach 6, then never above 6.
    assert limits == [3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 6, 6]


def test_remaining_running_low_halves() -> None:
    pace = PaceController(16)
    pace.succeeded(pace.started(now=0.0, tokens=1), openai(remaining=50), now=0.0)
    assert pace.limit == 16
    pace.succeeded(pace.started(now=0.0, tokens=1), openai(remaining=10), now=0.0)
    assert pace.limit == 8  # 10 left of 100 is the low share


def test_spent_requests_hold_until_the_reset_instead_of_colliding() -> None:
    pace = PaceController(8)
    first = pace.started(now=0.0, tokens=1)
    pace.succeeded(first, openai(remaining=2, reset="4s"), now=0.0)
    # Two left: two more may start, the third waits for the reset, 4 s after the answer.
    assert pace.admission_wait(now=0.0, tokens=1) == 0.0
    pace.started(now=0.0, tokens=1)
    assert pace.admission_wait(now=0.0, tokens=1) == 0.0
    pace.started(now=0.0, tokens=1)
    assert pace.admission_wait(now=0.0, tokens=1) == 4.0
    assert pace.admission_wait(now=3.0, tokens=1) == 1.0
    assert pace.admission_wait(now=4.0, tokens=1) == 0.0  # refilled


def test_later_requests_in_flight_count_against_what_was_left() -> None:
    pace = PaceController(8)
    answered = pace.started(now=0.0, tokens=1)
    pace.started(now=0.0, tokens=1)  # started after it, may not be counted yet
    pace.started(now=0.0, tokens=1)
    pace.succeeded(answered, openai(remaining=2, reset="1s"), now=0.0)
    assert pace.admission_wait(now=0.0, tokens=1) == 1.0


def test_a_zero_remaining_429_holds_until_its_reset() -> None:
    pace = PaceController(8)
    ticket = pace.started(now=0.0, tokens=1)
    headers = read_rate_headers(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "2026-12-03T18:00:07Z",
        },
        now=NOW,
    )
    pace.rate_limited(ticket, retry_after_s=None, headers=headers, now=10.0)
    assert pace.admission_wait(now=10.0, tokens=1) == 7.0


def test_tokens_hold_a_request_larger_than_what_is_left() -> None:
    pace = PaceController(8)
    ticket = pace.started(now=0.0, tokens=100)
    headers = read_rate_headers(
        {
            "x-ratelimit-limit-tokens": "10000",
            "x-ratelimit-remaining-tokens": "5000",
            "x-ratelimit-reset-tokens": "2s",
        },
        now=NOW,
    )
    pace.succeeded(ticket, headers, now=0.0)
    assert pace.admission_wait(now=0.0, tokens=4000) == 0.0
    pace.started(now=0.0, tokens=4000)
    assert pace.admission_wait(now=0.0, tokens=1000) == 0.0
    assert pace.admission_wait(now=0.0, tokens=1001) == 2.0


@pytest.mark.parametrize(
    "reset", ["-5s", "nan", "garbage", "99999999h", "2999-01-01T00:00:00Z", "1e9"]
)
def test_hostile_resets_never_hold_past_the_cap(reset: str) -> None:
    pace = PaceController(8, max_hold_s=30.0)
    ticket = pace.started(now=0.0, tokens=1)
    pace.succeeded(ticket, openai(remaining=0, reset=reset), now=0.0)
    assert 0.0 <= pace.admission_wait(now=0.0, tokens=1) <= 30.0
    ticket = pace.started(now=0.0, tokens=1)
    pace.rate_limited(ticket, retry_after_s=1e12, headers=None, now=0.0)
    assert pace.admission_wait(now=0.0, tokens=1) == 30.0
    assert pace.admission_wait(now=30.0, tokens=1) == 0.0


def test_the_hold_never_exceeds_the_documented_maximum() -> None:
    pace = PaceController(8, max_hold_s=10**9)
    assert pace.max_hold_s == MAX_RESET_S
    ticket = pace.started(now=0.0, tokens=1)
    pace.rate_limited(ticket, retry_after_s=float("inf"), headers=None, now=0.0)
    assert pace.admission_wait(now=0.0, tokens=1) == MAX_RESET_S


def test_a_maximum_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="maximum must be at least 1, got 0"):
        PaceController(0)


def tokens(remaining: int, reset: str) -> RateHeaders:
    return read_rate_headers(
        {
            "x-ratelimit-limit-tokens": "10000",
            "x-ratelimit-remaining-tokens": str(remaining),
            "x-ratelimit-reset-tokens": reset,
        },
        now=NOW,
    )


def test_a_new_window_replaces_what_was_left_of_the_last() -> None:
    pace = PaceController(8)
    pace.succeeded(pace.started(now=0.0, tokens=10), tokens(2000, "1s"), now=0.0)
    assert pace.admission_wait(now=0.0, tokens=3000) == 1.0
    # An answer of the window after it (its reset well past the first's): 9000 left.
    pace.succeeded(pace.started(now=0.5, tokens=10), tokens(9000, "10s"), now=0.5)
    assert pace.admission_wait(now=0.5, tokens=3000) == 0.0
    # Within one window the lowest count is the newest: a late answer saying more is ignored.
    pace.succeeded(pace.started(now=0.6, tokens=10), tokens(5000, "9.9s"), now=0.6)
    pace.succeeded(pace.started(now=0.7, tokens=10), tokens(8000, "9.8s"), now=0.7)
    assert pace.admission_wait(now=0.7, tokens=5001) == pytest.approx(9.8)  # until 10.5


def test_anthropic_s_scarcest_token_quota_counts() -> None:
    pace = PaceController(8)
    headers = read_rate_headers(
        {
            "anthropic-ratelimit-tokens-remaining": "50000",
            "anthropic-ratelimit-tokens-reset": "2026-12-03T18:00:30Z",
            "anthropic-ratelimit-output-tokens-remaining": "300",
            "anthropic-ratelimit-output-tokens-reset": "2026-12-03T18:00:05Z",
        },
        now=NOW,
    )
    pace.succeeded(pace.started(now=0.0, tokens=10), headers, now=0.0)
    assert pace.admission_wait(now=0.0, tokens=300) == 0.0
    assert pace.admission_wait(now=0.0, tokens=301) == 5.0
