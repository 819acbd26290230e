"""The fake server's rate limit, read back through the real openai and anthropic SDKs."""

from __future__ import annotations

import re
from datetime import datetime

import anthropic
import openai
import pytest

from judgekit.testing import FakeLLMServer, RateLimit
from judgekit.testing.rate_window import RateWindow

DURATION = re.compile(r"[0-9]+ms|[0-9.]+s")


def test_openai_answers_carry_the_window_and_429s_retry_after() -> None:
    limit = RateLimit(requests_per_minute=120, tokens_per_minute=6000, window_s=30.0)
    with (
        FakeLLMServer(rate_limit=limit) as server,
        openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=0) as client,
    ):
        answers = []
        for _ in range(60):
            answer = client.chat.completions.with_raw_response.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "two words"}]
            )
            answers.append(answer.headers)
        with pytest.raises(openai.RateLimitError) as refused:
            client.chat.completions.create(
                model="gpt-4o-mini", messages=[{"role": "user", "content": "two words"}]
            )
        assert server.status_counts == {200: 60, 429: 1}
        assert server.rate_window is not None
        assert server.rate_window.admitted_per_window == [60]
    first, last = answers[0], answers[-1]
    # 120 a minute in 30-second windows: 60 a window; tokens 2 of input a request.
    assert first["x-ratelimit-limit-requests"] == "60"
    assert first["x-ratelimit-remaining-requests"] == "59"
    assert last["x-ratelimit-remaining-requests"] == "0"
    assert first["x-ratelimit-limit-tokens"] == "3000"
    assert first["x-ratelimit-remaining-tokens"] == "2998"
    assert last["x-ratelimit-remaining-tokens"] == str(3000 - 60 * 2)
    assert DURATION.fullmatch(first["x-ratelimit-reset-requests"])
    headers = refused.value.response.headers
    assert headers["x-ratelimit-remaining-requests"] == "0"
    assert 1 <= int(headers["retry-after"]) <= 30
    assert 1 <= int(headers["retry-after-ms"]) <= 30000


def test_anthropic_answers_carry_the_window_in_rfc_3339() -> None:
    limit = RateLimit(requests_per_minute=6, window_s=20.0)  # 2 a window
    with (
        FakeLLMServer(rate_limit=limit) as server,
        anthropic.Anthropic(
            base_url=server.anthropic_base_url, api_key="test", max_retries=0
        ) as client,
    ):
        ask = dict(
            model="claude-haiku-4-5", max_tokens=10, messages=[{"role": "user", "content": "hi"}]
        )
        first = client.messages.with_raw_response.create(**ask)  # type: ignore[call-overload]
        second = client.messages.with_raw_response.create(**ask)  # type: ignore[call-overload]
        with pytest.raises(anthropic.RateLimitError) as refused:
            client.messages.create(**ask)  # type: ignore[call-overload]
        assert server.status_counts == {200: 2, 429: 1}
    assert first.headers["anthropic-ratelimit-requests-limit"] == "2"
    assert first.headers["anthropic-ratelimit-requests-remaining"] == "1"
    assert second.headers["anthropic-ratelimit-requests-remaining"] == "0"
    reset = datetime.fromisoformat(first.headers["anthropic-ratelimit-requests-reset"])
    assert reset.tzinfo is not None
    assert "x-ratelimit-limit-requests" not in first.headers
    headers = refused.value.response.headers
    assert headers["anthropic-ratelimit-requests-remaining"] == "0"
    assert 1 <= int(headers["retry-after"]) <= 20
    assert "retry-after-ms" not in headers


def test_tokens_count_the_input_and_the_most_output_asked_for() -> None:
    limit = RateLimit(tokens_per_minute=60, window_s=60.0)
    with (
        FakeLLMServer(rate_limit=limit) as server,
        openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=0) as client,
    ):
        answer = client.chat.completions.with_raw_response.create(
            model="m", max_tokens=40, messages=[{"role": "user", "content": "three small words"}]
        )
        assert answer.headers["x-ratelimit-remaining-tokens"] == "17"  # 60 - 3 - 40
        with pytest.raises(openai.RateLimitError):
            client.chat.completions.create(
                model="m", max_tokens=40, messages=[{"role": "user", "content": "again"}]
            )
        assert server.status_counts == {200: 1, 429: 1}


def test_windows_turn_and_count_what_each_let_through() -> None:
    now = [0.0]
    window = RateWindow(RateLimit(requests_per_minute=120, window_s=1.0), clock=lambda: now[0])
    outcomes = []
    for moment in (0.0, 0.1, 0.2, 1.5, 3.2, 3.3, 3.4):
        now[0] = moment
        outcomes.append(window.admit("openai", 1).admitted)
    assert outcomes == [True, True, False, True, True, True, False]
    assert window.admitted_per_window == [2, 1, 0, 2]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"requests_per_minute": 0}, "requests_per_minute must be at least 1, got 0"),
        ({"tokens_per_minute": -5}, "tokens_per_minute must be at least 1, got -5"),
        ({"window_s": 0.0}, "window_s must be a positive number of seconds, got 0.0"),
        ({"window_s": float("nan")}, "window_s must be a positive number of seconds, got nan"),
    ],
)
def test_bad_limits_are_refused(options: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        RateLimit(**options)  # type: ignore[arg-type]
