"""The fake server on its own, over plain HTTP: wire formats, faults, records, concurrency."""

from __future__ import annotations

import http.client
import json
import math
import threading
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from judgekit.testing import DEFAULT_VERDICT, FakeLLMServer, FakeRequest, FaultPlan, Reply

OPENAI_BODY = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "two words"}]}
ANTHROPIC_BODY = {
    "model": "claude-haiku-4-5",
    "max_tokens": 10,
    "system": [{"type": "text", "text": "be brief"}],
    "messages": [{"role": "user", "content": [{"type": "text", "text": "three little words"}]}],
}


def post(
    url: str, body: object, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", **(headers or {})},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def openai_post(server: FakeLLMServer, **headers: str) -> tuple[int, dict[str, str], Any]:
    status, response_headers, raw = post(
        f"{server.openai_base_url}/chat/completions", OPENAI_BODY, headers
    )
    return status, response_headers, json.loads(raw)


def anthropic_post(server: FakeLLMServer, **headers: str) -> tuple[int, dict[str, str], Any]:
    status, response_headers, raw = post(
        f"{server.anthropic_base_url}/v1/messages", ANTHROPIC_BODY, headers
    )
    return status, response_headers, json.loads(raw)


def test_openai_reply_has_the_chat_completion_shape(server: FakeLLMServer) -> None:
    status, _, body = openai_post(server)
    assert status == 200
    assert body["object"] == "chat.completion"
    assert body["model"] == "gpt-4o-mini"
    assert body["choices"] == [
        {
            "index": 0,
            "message": {"role": "assistant", "content": DEFAULT_VERDICT},
            "finish_reason": "stop",
        }
    ]
    assert body["usage"] == {"prompt_tokens": 2, "completion_tokens": 4, "total_tokens": 6}
    assert {"id", "created"} <= body.keys()


def test_anthropic_reply_has_the_message_shape(server: FakeLLMServer) -> None:
    status, _, body = anthropic_post(server)
    assert status == 200
    assert body["type"] == "message"
    assert body["role"] == "assistant"
    assert body["content"] == [{"type": "text", "text": DEFAULT_VERDICT}]
    assert body["stop_reason"] == "end_turn"
    assert body["stop_sequence"] is None
    # "be brief" + "three little words" in; the verdict's four words out.
    assert body["usage"] == {"input_tokens": 5, "output_tokens": 4}


def test_requests_are_recorded_with_flattened_messages(server: FakeLLMServer) -> None:
    openai_post(server, Authorization="Bearer k1")
    anthropic_post(server, **{"x-api-key": "k2"})
    first, second = server.requests
    assert first == FakeRequest(
        api="openai",
        model="gpt-4o-mini",
        messages=[{"role": "user", "content": "two words"}],
        body=OPENAI_BODY,
        headers=first.headers,
    )
    assert first.headers["authorization"] == "Bearer k1"
    assert second.api == "anthropic"
    assert second.messages == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "three little words"},
    ]
    assert second.text == "be brief\nthree little words"
    assert second.headers["x-api-key"] == "k2"
    assert server.calls == 2
    assert server.replied == [first, second]


def test_reply_function_sees_the_request() -> None:
    with FakeLLMServer(reply=lambda request: f"{request.api}:{request.model}") as server:
        assert openai_post(server)[2]["choices"][0]["message"]["content"] == "openai:gpt-4o-mini"
        assert anthropic_post(server)[2]["content"][0]["text"] == "anthropic:claude-haiku-4-5"


def test_scripted_429_has_error_bodies_and_retry_after(server: FakeLLMServer) -> None:
    server.fail_next(status=429, times=2, retry_after=0.05)
    status, headers, body = openai_post(server)
    assert (status, headers["Retry-After"]) == (429, "0.05")
    assert body["error"]["type"] == "requests"
    assert body["error"]["code"] == "rate_limit_exceeded"
    assert body["error"]["message"]
    status, headers, body = anthropic_post(server)
    assert (status, headers["Retry-After"]) == (429, "0.05")
    assert body["type"] == "error"
    assert body["error"]["type"] == "rate_limit_error"
    assert openai_post(server)[0] == 200
    assert server.status_counts == {429: 2, 200: 1}


@pytest.mark.parametrize(
    ("status", "openai_type", "anthropic_type"),
    [
        (400, "invalid_request_error", "invalid_request_error"),
        (404, "invalid_request_error", "not_found_error"),
        (500, "server_error", "api_error"),
        (529, "server_error", "overloaded_error"),
    ],
)
def test_error_bodies_name_the_error_type_of_each_api(
    server: FakeLLMServer, status: int, openai_type: str, anthropic_type: str
) -> None:
    server.fail_next(status=status, times=2, message="injected")
    openai_code = "model_not_found" if status == 404 else None
    assert openai_post(server)[::2] == (
        status,
        {"error": {"message": "injected", "type": openai_type, "param": None, "code": openai_code}},
    )
    assert anthropic_post(server)[::2] == (
        status,
        {"type": "error", "error": {"type": anthropic_type, "message": "injected"}},
    )


def test_wrong_or_missing_key_gets_401_in_each_apis_format() -> None:
    with FakeLLMServer(expect_api_key="right") as server:
        assert openai_post(server, Authorization="Bearer right")[0] == 200
        status, _, body = openai_post(server, Authorization="Bearer wrong")
        assert (status, body["error"]["code"]) == (401, "invalid_api_key")
        assert anthropic_post(server, **{"x-api-key": "right"})[0] == 200
        status, _, body = anthropic_post(server)
        assert (status, body["error"]["type"]) == (401, "authentication_error")
        assert server.status_counts == {200: 2, 401: 2}


def test_malformed_json_is_a_200_whose_body_is_not_json() -> None:
    with FakeLLMServer(faults=FaultPlan(malformed_json_rate=1.0)) as server:
        status, headers, raw = post(f"{server.openai_base_url}/chat/completions", OPENAI_BODY)
        assert (status, headers["Content-Type"]) == (200, "application/json")
        with pytest.raises(ValueError):
            json.loads(raw)
        assert server.replied == []
        assert server.status_counts == {200: 1}


def test_bad_requests_get_400_and_unknown_paths_404(server: FakeLLMServer) -> None:
    assert post(f"{server.openai_base_url}/chat/completions", ["not", "an", "object"])[0] == 400
    assert post(f"{server.openai_base_url}/chat/completions", {"model": "m"})[0] == 400
    assert (
        post(f"{server.openai_base_url}/chat/completions", {**OPENAI_BODY, "stream": True})[0]
        == 400
    )
    assert post(f"{server.openai_base_url}/embeddings", {"model": "m"})[0] == 404
    assert server.status_counts == {400: 3, 404: 1}


def test_a_failing_reply_function_is_a_500_and_is_kept() -> None:
    def reply(request: FakeRequest) -> str:
        raise KeyError("oops")

    with FakeLLMServer(reply=reply) as server:
        status, _, body = openai_post(server)
        assert status == 500
        assert "KeyError" in body["error"]["message"]
        assert [type(error) for error in server.reply_errors] == [KeyError]


def _statuses(plan: FaultPlan, count: int) -> list[int]:
    """Statuses of ``count`` requests in a row over one kept-alive connection."""
    payload = json.dumps(OPENAI_BODY)
    with FakeLLMServer(faults=plan) as server:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        statuses = []
        for _ in range(count):
            connection.request("POST", "/v1/chat/completions", payload)
            response = connection.getresponse()
            response.read()
            statuses.append(response.status)
        connection.close()
    return statuses


def test_fault_plan_is_deterministic_for_a_seed_and_near_its_rates() -> None:
    plan = FaultPlan(http_500_rate=0.2, http_429_rate=0.1, seed=7)
    first = _statuses(plan, 200)
    assert first == _statuses(plan, 200)
    assert first != _statuses(FaultPlan(http_500_rate=0.2, http_429_rate=0.1, seed=8), 200)
    assert 20 <= first.count(500) <= 60
    assert 5 <= first.count(429) <= 35


def test_scripted_faults_come_before_random_ones() -> None:
    with FakeLLMServer(faults=FaultPlan(http_500_rate=1.0)) as server:
        server.fail_next(status=503)
        server.fail_next(status=429, retry_after=0)
        statuses = [openai_post(server)[0] for _ in range(3)]
    assert statuses == [503, 429, 500]


def test_serves_64_concurrent_requests_at_once() -> None:
    # Each reply waits until all 64 requests are being handled at once: a server that could
    # not hold 64 would break the barrier and answer 500.
    barrier = threading.Barrier(64)

    def reply(request: FakeRequest) -> str:
        barrier.wait(timeout=10)
        return "together"

    with FakeLLMServer(reply=reply) as server, ThreadPoolExecutor(max_workers=64) as pool:
        statuses = list(pool.map(lambda _: openai_post(server)[0], range(64)))
    assert statuses == [200] * 64
    assert server.max_in_flight == 64


def test_invalid_settings_are_refused() -> None:
    with pytest.raises(ValueError, match="add up to at most 1"):
        FaultPlan(http_500_rate=0.7, http_429_rate=0.5)
    with pytest.raises(ValueError, match="retry_after_s"):
        FaultPlan(retry_after_s=-1)
    with pytest.raises(ValueError, match="latency_s"):
        FakeLLMServer(latency_s=-0.1)
    server = FakeLLMServer()
    with pytest.raises(ValueError, match="HTTP error"):
        server.fail_next(status=200)
    with pytest.raises(ValueError, match="times"):
        server.fail_next(times=0)
    with pytest.raises(RuntimeError, match="not running"):
        server.openai_base_url  # noqa: B018


def test_a_reply_with_probabilities_gives_openai_logprobs_when_asked() -> None:
    import openai

    def sure(request: FakeRequest) -> Reply:
        return Reply('{"score": "pass"}', {"pass": 0.75, "fail": 0.2, "Pass": 0.05})

    with (
        FakeLLMServer(reply=sure) as server,
        openai.OpenAI(base_url=server.openai_base_url, api_key="test") as client,
    ):
        asked = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=[{"role": "user", "content": "Grade it as JSON."}],
            logprobs=True,
            top_logprobs=2,
        )
        plain = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "Grade it as JSON."}]
        )
    assert asked.choices[0].logprobs is not None
    content = asked.choices[0].logprobs.content
    assert content is not None
    assert "".join(token.token for token in content) == '{"score": "pass"}'
    (score,) = [token for token in content if token.token == "pass"]
    assert math.exp(score.logprob) == pytest.approx(0.75)
    assert [(t.token, round(math.exp(t.logprob), 9)) for t in score.top_logprobs] == [
        ("pass", 0.75),
        ("fail", 0.2),
    ]
    assert {token.logprob for token in content if token.token != "pass"} == {0.0}
    assert plain.choices[0].logprobs is None
    assert plain.choices[0].message.content == '{"score": "pass"}'


def test_probabilities_must_be_probabilities() -> None:
    with pytest.raises(ValueError, match=r"probs\['pass'\] must be in \(0, 1\], got 1.5"):
        Reply("x", {"pass": 1.5})
    with pytest.raises(ValueError, match=r"^probs must sum to at most 1, got 1\.2$"):
        Reply("x", {"pass": 0.6, "fail": 0.6})
