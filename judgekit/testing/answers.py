"""What the fake server sends back, in the shape each API gives it: a completion or an error."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

from judgekit._util.number_format import setting
from judgekit.testing.fake_request import Api, FakeRequest
from judgekit.testing.logprobs import Reply, token_logprobs

__all__ = [
    "Response",
    "completion_response",
    "count_tokens",
    "error_response",
    "not_json_response",
    "request_tokens",
]


@dataclass(frozen=True)
class Response:
    """An HTTP answer, ready to send."""

    status: int
    body: bytes
    headers: dict[str, str]
    replied: bool = False  # a well-formed 200 carrying the reply function's text


def count_tokens(text: str) -> int:
    """The fake tokenizer: one token per whitespace-separated word.

    >>> count_tokens("two words")
    2
    """
    return len(text.split())


def request_tokens(request: FakeRequest) -> int:
    """What a request counts against a tokens-a-minute limit, as OpenAI counts it: its input
    tokens plus the most output it asks for (``max_tokens`` or ``max_completion_tokens``)."""
    asked = request.body.get("max_tokens", request.body.get("max_completion_tokens"))
    most_output = asked if isinstance(asked, int) and not isinstance(asked, bool) else 0
    return _input_tokens(request) + max(most_output, 0)


def _input_tokens(request: FakeRequest) -> int:
    return sum(count_tokens(message["content"]) for message in request.messages)


def completion_response(request: FakeRequest, reply: str | Reply) -> Response:
    """A 200 answering ``request`` with the assistant's text; an OpenAI request asking for
    ``logprobs`` gets them (from the :class:`Reply`'s probabilities; certain for plain text)."""
    reply = reply if isinstance(reply, Reply) else Reply(reply)
    body = _completion_body(request, reply.text)
    _add_tool_blocks(request, reply, body)
    if request.api == "openai" and request.body.get("logprobs") is True:
        top = request.body.get("top_logprobs")
        content = token_logprobs(reply, top=top if isinstance(top, int) else 0)
        body["choices"][0]["logprobs"] = {"content": content, "refusal": None}
    return Response(200, json.dumps(body).encode(), {}, replied=True)


def _add_tool_blocks(request: FakeRequest, reply: Reply, body: dict[str, Any]) -> None:
    if request.api == "openai" and reply.tool_calls:
        choice = body["choices"][0]
        choice["message"]["tool_calls"] = [dict(call) for call in reply.tool_calls]
        choice["message"]["content"] = reply.text or None
        choice["finish_reason"] = "tool_calls"
    elif request.api == "anthropic" and reply.content_blocks:
        blocks = [dict(block) for block in reply.content_blocks]
        body["content"] = (body["content"] if reply.text else []) + blocks
        if any(block.get("type") == "tool_use" for block in blocks):
            body["stop_reason"] = "tool_use"


def not_json_response() -> Response:
    """A 200 whose body is cut short, so it is not JSON."""
    return Response(200, b'{"id": "truncated', {})


def error_response(
    api: Api, status: int, message: str | None, *, retry_after: float | None = None
) -> Response:
    """An HTTP error in ``api``'s format (a ``Retry-After`` header when ``retry_after`` is
    given)."""
    headers = {} if retry_after is None else {"Retry-After": setting(retry_after)}
    body = _error_body(api, status, message or f"HTTP {status} injected by FakeLLMServer")
    return Response(status, json.dumps(body).encode(), headers)


def _completion_body(request: FakeRequest, text: str) -> dict[str, Any]:
    input_tokens = _input_tokens(request)
    output_tokens = count_tokens(text)
    if request.api == "openai":
        return {
            "id": f"chatcmpl-fake-{time.monotonic_ns()}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": input_tokens,
                "completion_tokens": output_tokens,
                "total_tokens": input_tokens + output_tokens,
            },
        }
    return {
        "id": f"msg_fake_{time.monotonic_ns()}",
        "type": "message",
        "role": "assistant",
        "model": request.model,
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": input_tokens, "output_tokens": output_tokens},
    }


# What each API calls an error of a given status (its `type`, and for OpenAI its `code`).
_OPENAI_ERRORS: dict[int, tuple[str, str | None]] = {
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", "unsupported_country_region_territory"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
}
_ANTHROPIC_ERRORS: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    529: "overloaded_error",
}


def _error_body(api: Api, status: int, message: str) -> dict[str, Any]:
    if api == "openai":
        default = ("server_error", None) if status >= 500 else ("invalid_request_error", None)
        kind, code = _OPENAI_ERRORS.get(status, default)
        return {"error": {"message": message, "type": kind, "param": None, "code": code}}
    default_kind = "api_error" if status >= 500 else "invalid_request_error"
    return {
        "type": "error",
        "error": {"type": _ANTHROPIC_ERRORS.get(status, default_kind), "message": message},
    }
