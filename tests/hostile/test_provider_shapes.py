"""A server that answers in another shape than its provider's API is a ProviderError naming
the URL that answered and what is wrong, never a traceback.

``anthropic/<model>`` pointed at an OpenAI-compatible server used to end judging in
``TypeError: 'NoneType' object is not iterable``, and ``openai/<model>`` facing arbitrary
JSON in AttributeErrors, pydantic errors about ChatResponse, or a negative token count
taken as it came; a body nested 100,000 deep or holding a 5,000-digit number ended in a
RecursionError or ValueError from inside the SDK.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from judgekit.errors import ProviderError
from judgekit.providers.anthropic_provider import AnthropicProvider
from judgekit.providers.chat import ChatMessage, ChatProvider, ChatRequest, ChatResponse
from judgekit.providers.openai_provider import OpenAIProvider
from tests.conftest import REPO
from tests.processes import env

VERDICT = '{"reason": "ok", "score": "pass"}'
OPENAI_BODY = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "model": "m",
    "choices": [{"index": 0, "message": {"role": "assistant", "content": VERDICT}}],
    "usage": {"prompt_tokens": 3, "completion_tokens": 4},
}
ANTHROPIC_BODY = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "model": "m",
    "content": [{"type": "text", "text": VERDICT}],
    "usage": {"input_tokens": 3, "output_tokens": 4},
}
REQUEST = ChatRequest(model="m", messages=(ChatMessage(role="user", content="Answer in JSON."),))


class RawServer:
    """Answers every POST with one fixed body, whatever the path."""

    def __init__(self, body: str) -> None:
        data = body.encode()

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", "0")))
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(ConnectionError):  # a client that hung up early
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> RawServer:
        self.thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def serve() -> Iterator[list[RawServer]]:
    started: list[RawServer] = []
    yield started
    for server in started:
        server.__exit__()


def provider_for(api: str, server: RawServer) -> tuple[ChatProvider, str]:
    """The provider of ``api`` at ``server``, and the URL it posts to."""
    if api == "openai":
        return OpenAIProvider(
            api_key="test", base_url=f"{server.url}/v1"
        ), f"{server.url}/v1/chat/completions"
    return AnthropicProvider(api_key="test", base_url=server.url), f"{server.url}/v1/messages"


def ask(provider: ChatProvider) -> ChatResponse:
    async def once() -> ChatResponse:
        try:
            return await provider.complete(REQUEST)
        finally:
            await provider.aclose()

    return asyncio.run(once())


def refusal(api: str, body: str) -> tuple[ProviderError, str]:
    with RawServer(body) as server:
        provider, url = provider_for(api, server)
        with pytest.raises(ProviderError) as caught:
            ask(provider)
    return caught.value, url


def test_each_provider_reads_its_own_shape() -> None:
    for api, body in (("openai", OPENAI_BODY), ("anthropic", ANTHROPIC_BODY)):
        with RawServer(json.dumps(body)) as server:
            answer = ask(provider_for(api, server)[0])
        assert (answer.text, answer.model, answer.input_tokens, answer.output_tokens) == (
            VERDICT,
            "m",
            3,
            4,
        )


def test_the_other_providers_shape_names_the_url_and_the_fix() -> None:
    error, url = refusal("anthropic", json.dumps(OPENAI_BODY))
    assert str(error) == (
        f"Anthropic answered {url} with JSON that is not a Messages API response (content: "
        "Field required): check that --base-url is an Anthropic-compatible server"
    )
    assert not error.retryable
    error, url = refusal("openai", json.dumps(ANTHROPIC_BODY))
    assert str(error) == (
        f"OpenAI answered {url} with JSON that is not a chat completion (choices: Field "
        "required): check that --base-url is an OpenAI-compatible server"
    )
    assert not error.retryable


WRONG_SHAPES = {
    "an empty object": ("{}", "choices: Field required", "content: Field required"),
    "a list": ("[]", "expected an object, got a list", "expected an object, got a list"),
    "null": ("null", "expected an object, got null", "expected an object, got null"),
    "a string": ('"ok"', "expected an object, got a string", "expected an object, got a string"),
    "choices of the wrong kind": (
        '{"choices": [{"message": null}], "content": "x"}',
        "choices.0.message: expected an object, got null",
        "content: Input should be a valid list",
    ),
    "answer text that is a number": (
        '{"choices": [{"message": {"content": 5}}],'
        ' "content": [{"type": "text", "text": 5}], "usage": {"input_tokens": 1, "output_tokens": 1}}',
        "choices.0.message.content: Input should be a valid string",
        "content.0: a text block needs a string `text`",
    ),
    "negative token counts": (
        '{"choices": [{"message": {"content": "x"}}], "content": [],'
        ' "usage": {"prompt_tokens": -1, "input_tokens": -5, "output_tokens": 1}}',
        "usage.prompt_tokens: Input should be greater than or equal to 0",
        "usage.input_tokens: Input should be greater than or equal to 0",
    ),
}


@pytest.mark.parametrize("api", ["openai", "anthropic"])
@pytest.mark.parametrize("shape", WRONG_SHAPES)
def test_json_of_the_wrong_shape_is_one_provider_error(api: str, shape: str) -> None:
    body, openai_problem, anthropic_problem = WRONG_SHAPES[shape]
    error, url = refusal(api, body)
    problem = openai_problem if api == "openai" else anthropic_problem
    assert f" answered {url} with JSON that is not " in str(error)
    assert f"({problem})" in str(error)
    assert not error.retryable and error.__cause__ is None


@pytest.mark.parametrize("api", ["openai", "anthropic"])
def test_a_body_too_deep_or_with_a_number_too_long_is_a_malformed_response(api: str) -> None:
    for body, problem in (
        ("[" * 100_000 + "]" * 100_000, "nested 100000 levels deep, too deep to read"),
        ('{"choices": [], "n": ' + "9" * 5000 + "}", "a number of 5000 digits"),
        ("<html>bad gateway</html>", "Expecting value"),
    ):
        error, url = refusal(api, body)
        label = "OpenAI" if api == "openai" else "Anthropic"
        assert str(error).startswith(
            f"{label} sent a malformed response from {url}: the body is not JSON ({problem}"
        )
        assert error.retryable  # a garbled answer may come out whole next time
        assert isinstance(error.__cause__, json.JSONDecodeError)


@pytest.mark.parametrize(
    ("model", "body", "expected"),
    [
        (
            "anthropic/m",
            OPENAI_BODY,
            "Anthropic answered {url}/v1/messages with JSON that is not a Messages API "
            "response (content: Field required): check that --base-url is an "
            "Anthropic-compatible server (anthropic/m at {url})",
        ),
        (
            "openai/m",
            ANTHROPIC_BODY,
            "OpenAI answered {url}/v1/chat/completions with JSON that is not a chat "
            "completion (choices: Field required): check that --base-url is an "
            "OpenAI-compatible server (openai/m at {url}/v1/)",
        ),
    ],
)
def test_judge_against_a_server_of_the_other_shape_stops_in_one_line(
    tmp_path: Path, model: str, body: dict[str, object], expected: str
) -> None:
    out = tmp_path / "out"
    with RawServer(json.dumps(body)) as server:
        base_url = server.url + ("/v1" if model.startswith("openai/") else "")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "judgekit",
                "judge",
                REPO / "examples" / "runs" / "shop.jsonl",
                "--rubric",
                "goal_completion",
                "--tasks",
                REPO / "tasks" / "shop.yaml",
                "--model",
                model,
                "--base-url",
                base_url,
                "--out",
                out,
                "--no-store",
            ],
            cwd=REPO,
            env={**env(tmp_path / "home"), "NO_COLOR": "1"},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 2, done.stderr
    # The judge's progress bar leaves a blank line on a stderr that is not a terminal.
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1
    assert lines[0].startswith(f"judgekit: error: {expected.format(url=server.url)}; ")
    assert not (out / "verdicts.jsonl").exists()
