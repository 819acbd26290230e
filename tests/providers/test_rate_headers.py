"""Rate-limit headers: every format the providers write, and hostile values ignored."""

from __future__ import annotations

import pytest

from judgekit.providers.rate_headers import (
    MAX_RESET_S,
    Quota,
    RateHeaders,
    parse_duration,
    parse_reset,
    rate_limit_headers,
    read_rate_headers,
)

NOW = 1796320800.0  # 2026-12-03T18:00:00Z


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("6m0s", 360.0),
        ("1.5s", 1.5),
        ("250ms", 0.25),
        ("1s", 1.0),
        ("1h2m3s", 3723.0),
        ("12ms", 0.012),
        ("20us", 0.00002),
        ("2", 2.0),
        ("0.5", 0.5),
    ],
)
def test_durations_read_as_openai_writes_them(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "soon", "-1s", "1x", "nan", "inf", "-3", "1e30", "s", "1.s"])
def test_unreadable_durations_are_none(text: str) -> None:
    assert parse_duration(text) is None


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("2026-12-03T18:00:30Z", 30.0),
        ("2026-12-03T18:00:01.500Z", 1.5),
        ("2026-12-03T19:00:30+01:00", 30.0),
        ("2026-12-03T17:59:00Z", 0.0),  # in the past: no wait
        ("2027-12-03T18:00:00Z", MAX_RESET_S),  # a year away: the longest wait
        ("6m0s", MAX_RESET_S),
        ("1.5s", 1.5),
    ],
)
def test_resets_are_seconds_from_now_capped(text: str, seconds: float) -> None:
    assert parse_reset(text, now=NOW) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["2026-12-03T18:00:30", "tomorrow", "2026-13-45T00:00:00Z", ""])
def test_unreadable_or_zoneless_resets_are_none(text: str) -> None:
    assert parse_reset(text, now=NOW) is None


def test_openai_headers_read_into_quotas() -> None:
    reading = read_rate_headers(
        {
            "X-RateLimit-Limit-Requests": "5000",
            "x-ratelimit-remaining-requests": "4999",
            "x-ratelimit-reset-requests": "12ms",
            "x-ratelimit-limit-tokens": "160000",
            "x-ratelimit-remaining-tokens": "159976",
            "x-ratelimit-reset-tokens": "6m0s",
            "content-type": "application/json",
        },
        now=NOW,
    )
    assert reading == RateHeaders(
        requests=Quota(limit=5000, remaining=4999, reset_s=0.012),
        tokens=(Quota(limit=160000, remaining=159976, reset_s=MAX_RESET_S),),
    )


def test_anthropic_headers_read_into_quotas() -> None:
    reading = read_rate_headers(
        {
            "anthropic-ratelimit-requests-limit": "50",
            "anthropic-ratelimit-requests-remaining": "0",
            "anthropic-ratelimit-requests-reset": "2026-12-03T18:00:20Z",
            "anthropic-ratelimit-tokens-limit": "80000",
            "anthropic-ratelimit-tokens-remaining": "100",
            "anthropic-ratelimit-tokens-reset": "2026-12-03T18:00:05Z",
            "anthropic-ratelimit-input-tokens-limit": "40000",
            "anthropic-ratelimit-input-tokens-remaining": "40000",
            "anthropic-ratelimit-input-tokens-reset": "2026-12-03T18:00:00Z",
            "anthropic-ratelimit-output-tokens-remaining": "7",
        },
        now=NOW,
    )
    assert reading == RateHeaders(
        requests=Quota(limit=50, remaining=0, reset_s=20.0),
        tokens=(
            Quota(limit=80000, remaining=100, reset_s=5.0),
            Quota(limit=40000, remaining=40000, reset_s=0.0),
            Quota(limit=None, remaining=7, reset_s=None),
        ),
    )


@pytest.mark.parametrize(
    "value", ["-1", "nan", "NaN", "inf", "1e400", "10" * 20, "garbage", "", "3.5", "0x10", "٣"]
)
def test_hostile_counts_are_ignored(value: str) -> None:
    reading = read_rate_headers(
        {
            "x-ratelimit-limit-requests": value,
            "x-ratelimit-remaining-requests": value,
            "x-ratelimit-reset-requests": value,
        },
        now=NOW,
    )
    assert reading.requests is not None
    assert (reading.requests.limit, reading.requests.remaining) == (None, None)
    reset = reading.requests.reset_s
    assert reset is None or 0.0 <= reset <= MAX_RESET_S


def test_no_headers_read_as_no_quotas() -> None:
    assert read_rate_headers({"content-type": "application/json"}, now=NOW) == RateHeaders()


def test_only_the_rate_limit_headers_are_kept() -> None:
    kept = rate_limit_headers(
        {
            "Retry-After": "2",
            "retry-after-ms": "1500",
            "X-RateLimit-Remaining-Requests": "3",
            "anthropic-ratelimit-tokens-reset": "2026-12-03T18:00:05Z",
            "set-cookie": "session=abc",
            "authorization": "Bearer sk-secret",
        }
    )
    assert kept == {
        "retry-after": "2",
        "retry-after-ms": "1500",
        "x-ratelimit-remaining-requests": "3",
        "anthropic-ratelimit-tokens-reset": "2026-12-03T18:00:05Z",
    }
