"""The fake server's batch endpoints, driven by the real openai and anthropic SDKs."""

from __future__ import annotations

import io
import json

import anthropic
import openai

from judgekit.testing import FakeLLMServer, FakeRequest


def _reply(request: FakeRequest) -> str:
    return f"echo {request.messages[-1]['content']}"


def _openai_lines(count: int) -> bytes:
    lines = [
        {
            "custom_id": f"req-{index}",
            "method": "POST",
            "url": "/v1/chat/completions",
            "body": {
                "model": "gpt-4o-mini",
                "messages": [{"role": "user", "content": f"q{index}"}],
            },
        }
        for index in range(count)
    ]
    return "".join(json.dumps(line) + "\n" for line in lines).encode()


def test_openai_batch_goes_validating_in_progress_completed_with_failures() -> None:
    with FakeLLMServer(reply=_reply) as server:
        server.batches.fail_when = lambda request: request.text == "q2"
        with openai.OpenAI(base_url=server.openai_base_url, api_key="test") as client:
            uploaded = client.files.create(
                file=("in.jsonl", io.BytesIO(_openai_lines(4))), purpose="batch"
            )
            batch = client.batches.create(
                input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
            )
            statuses = [batch.status]
            while batch.status not in ("completed", "expired", "failed", "cancelled"):
                batch = client.batches.retrieve(batch.id)
                statuses.append(batch.status)
            assert batch.output_file_id is not None and batch.error_file_id is not None
            output = client.files.content(batch.output_file_id).text.splitlines()
            errors = client.files.content(batch.error_file_id).text.splitlines()
    assert statuses == ["validating", "in_progress", "completed"]
    assert batch.request_counts is not None
    assert (
        batch.request_counts.total,
        batch.request_counts.completed,
        batch.request_counts.failed,
    ) == (4, 3, 1)
    answered = {json.loads(line)["custom_id"]: json.loads(line)["response"] for line in output}
    assert sorted(answered) == ["req-0", "req-1", "req-3"]
    assert answered["req-3"]["body"]["choices"][0]["message"]["content"] == "echo q3"
    assert answered["req-3"]["body"]["usage"] == {
        "prompt_tokens": 1,
        "completion_tokens": 2,
        "total_tokens": 3,
    }
    failed = json.loads(errors[0])
    assert failed["custom_id"] == "req-2"
    assert failed["response"]["status_code"] == 500
    assert server.batches.creates == [("openai", batch.id, 4)]
    assert server.calls == 0  # no chat request: the batch answered them all


def test_openai_batch_expires_after_answering_its_first_requests() -> None:
    with FakeLLMServer(reply=_reply) as server:
        server.batches.expire_after = 1
        with openai.OpenAI(base_url=server.openai_base_url, api_key="test") as client:
            uploaded = client.files.create(
                file=("in.jsonl", io.BytesIO(_openai_lines(3))), purpose="batch"
            )
            batch = client.batches.create(
                input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
            )
            client.batches.retrieve(batch.id)
            batch = client.batches.retrieve(batch.id)
            assert batch.error_file_id is not None
            errors = [
                json.loads(line)
                for line in client.files.content(batch.error_file_id).text.splitlines()
            ]
    assert batch.status == "expired"
    assert [(line["custom_id"], line["error"]["code"]) for line in errors] == [
        ("req-1", "batch_expired"),
        ("req-2", "batch_expired"),
    ]


def test_openai_batch_cancel() -> None:
    with (
        FakeLLMServer(reply=_reply) as server,
        openai.OpenAI(base_url=server.openai_base_url, api_key="test") as client,
    ):
        uploaded = client.files.create(
            file=("in.jsonl", io.BytesIO(_openai_lines(2))), purpose="batch"
        )
        batch = client.batches.create(
            input_file_id=uploaded.id, endpoint="/v1/chat/completions", completion_window="24h"
        )
        cancelled = client.batches.cancel(batch.id)
    assert cancelled.status == "cancelled"
    assert cancelled.output_file_id is None
    assert server.batches.answered == []


def test_anthropic_message_batch_with_failure_and_expiry() -> None:
    with FakeLLMServer(reply=_reply) as server:
        server.batches.fail_when = lambda request: request.text == "system\nq0"
        server.batches.expire_after = 2
        with anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test") as client:
            batch = client.messages.batches.create(
                requests=[
                    {
                        "custom_id": f"req-{index}",
                        "params": {
                            "model": "claude-haiku-4-5",
                            "max_tokens": 100,
                            "system": "system",
                            "messages": [{"role": "user", "content": f"q{index}"}],
                        },
                    }
                    for index in range(3)
                ]
            )
            first_status = batch.processing_status
            batch = client.messages.batches.retrieve(batch.id)
            results = list(client.messages.batches.results(batch.id))
    assert first_status == "in_progress"
    assert batch.processing_status == "ended"
    counts = batch.request_counts
    assert (counts.succeeded, counts.errored, counts.expired, counts.processing) == (1, 1, 1, 0)
    kinds = {result.custom_id: result.result.type for result in results}
    assert kinds == {"req-0": "errored", "req-1": "succeeded", "req-2": "expired"}
    succeeded = results[1].result
    assert succeeded.type == "succeeded"
    assert succeeded.message.content[0].type == "text"
    assert succeeded.message.content[0].text == "echo q1"
    assert succeeded.message.usage.input_tokens == 2
    assert server.batches.creates == [("anthropic", batch.id, 3)]


def test_a_batch_with_a_turnaround_stays_in_progress_until_it_is_past() -> None:
    with FakeLLMServer(reply=_reply) as server:
        server.batches.turnaround_s = 3600.0
        with anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test") as client:
            request = {
                "custom_id": "req-0",
                "params": {
                    "model": "claude-haiku-4-5",
                    "max_tokens": 100,
                    "messages": [{"role": "user", "content": "q0"}],
                },
            }
            batch = client.messages.batches.create(requests=[request])  # type: ignore[list-item]
            polled = [client.messages.batches.retrieve(batch.id).processing_status for _ in "ab"]
            server.batches.turnaround_s = 0.0  # the hour has passed
            ended = client.messages.batches.retrieve(batch.id)
    assert polled == ["in_progress", "in_progress"]
    assert ended.processing_status == "ended"
    assert ended.request_counts.succeeded == 1
    assert server.batches.answered[0].text == "q0"
