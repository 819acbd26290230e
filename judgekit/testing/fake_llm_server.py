"""A loopback server that speaks enough of the OpenAI and Anthropic APIs for their real SDKs.

Point the real ``openai`` or ``anthropic`` client (or a judgekit provider) at it to test judge
plumbing offline: what was sent, what comes back, and what happens when the API fails. It
answers ``POST /v1/chat/completions`` (OpenAI) and ``POST /v1/messages`` (Anthropic), counts one
token per whitespace-separated word, and injects faults on request: HTTP 500, HTTP 429 with
``Retry-After``, a 200 whose body is not JSON, or any status scripted for the next calls.

    >>> import openai
    >>> from judgekit.testing import FakeLLMServer
    >>> with FakeLLMServer(reply=lambda request: "pong") as server:
    ...     server.fail_next(status=429, retry_after=0.01)
    ...     with openai.OpenAI(base_url=server.openai_base_url, api_key="test") as client:
    ...         answer = client.chat.completions.create(
    ...             model="gpt-4o-mini", messages=[{"role": "user", "content": "ping"}]
    ...         )
    >>> answer.choices[0].message.content, answer.usage.prompt_tokens
    ('pong', 1)
    >>> server.calls, server.status_counts
    (2, {429: 1, 200: 1})
    >>> server.requests[-1].messages
    [{'role': 'user', 'content': 'ping'}]

(The SDK retried the 429 by itself there; judgekit's providers turn SDK retries off and retry
in :class:`judgekit.providers.client.ChatClient`.)

Faults are deterministic: scripted faults (:meth:`FakeLLMServer.fail_next`) are served first, in
order; then each request draws once from a :class:`FaultPlan`'s seeded generator, so a run sees
the same sequence of faults whatever the timing (which request meets which fault depends on
arrival order when requests run concurrently).
"""

from __future__ import annotations

import contextlib
import json
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Literal, Self, cast

__all__ = ["DEFAULT_VERDICT", "FakeLLMServer", "FakeRequest", "FaultPlan"]

Api = Literal["openai", "anthropic"]

DEFAULT_VERDICT = '{"reason": "ok", "score": "pass"}'
"""What the server answers when no ``reply`` function is given: a passing judge verdict."""

_PATHS: dict[str, Api] = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}


@dataclass(frozen=True)
class FakeRequest:
    """One API request as the server received it.

    ``messages`` holds ``{"role", "content"}`` pairs with content flattened to text; Anthropic's
    top-level ``system`` prompt comes first with role ``"system"``, so one ``reply`` function
    serves both APIs. ``body`` is the raw JSON body; ``headers`` have lower-case names.
    """

    api: Api
    model: str
    messages: list[dict[str, str]]
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def text(self) -> str:
        """Every message's content, one per line (handy for finding a marker in a prompt)."""
        return "\n".join(message["content"] for message in self.messages)


@dataclass(frozen=True)
class FaultPlan:
    """Random faults, drawn once per request from a generator seeded with ``seed``.

    Rates are probabilities per request; they may not add up to more than 1.

    >>> FaultPlan(http_500_rate=0.1, http_429_rate=0.05, retry_after_s=0.01).http_429_rate
    0.05
    """

    http_500_rate: float = 0.0
    http_429_rate: float = 0.0
    retry_after_s: float = 0.0
    malformed_json_rate: float = 0.0
    seed: int = 0

    def __post_init__(self) -> None:
        rates = (self.http_500_rate, self.http_429_rate, self.malformed_json_rate)
        if any(not 0.0 <= rate <= 1.0 for rate in rates) or sum(rates) > 1.0:
            raise ValueError(f"fault rates must lie in [0, 1] and add up to at most 1, got {rates}")
        if self.retry_after_s < 0:
            raise ValueError(f"retry_after_s must be >= 0, got {self.retry_after_s}")


@dataclass(frozen=True)
class _Fault:
    status: int  # 200 means "a 200 whose body is not JSON"
    retry_after_s: float | None = None
    message: str | None = None


def count_tokens(text: str) -> int:
    """The fake tokenizer: one token per whitespace-separated word.

    >>> count_tokens("two words")
    2
    """
    return len(text.split())


class FakeLLMServer:
    """An OpenAI- and Anthropic-speaking HTTP server on 127.0.0.1, for tests.

    ``reply`` turns each :class:`FakeRequest` into the assistant's text (default: a passing
    verdict). ``latency_s`` delays every answer. ``faults`` injects random failures.
    ``expect_api_key``, when set, makes every request with another key (``x-api-key`` or
    ``Authorization: Bearer``) fail with HTTP 401 — and, like some real APIs, the error
    message quotes the key it was sent. :meth:`hold_after` holds requests until
    :meth:`release`, so a test can act while a client is known to be waiting.
    Use it as a context manager; see the module docstring for an example.
    """

    def __init__(
        self,
        reply: Callable[[FakeRequest], str] | None = None,
        *,
        latency_s: float = 0.0,
        faults: FaultPlan | None = None,
        expect_api_key: str | None = None,
    ) -> None:
        if latency_s < 0:
            raise ValueError(f"latency_s must be >= 0, got {latency_s}")
        self.reply = reply or (lambda request: DEFAULT_VERDICT)
        self.latency_s = latency_s
        self.faults = faults or FaultPlan()
        self.expect_api_key = expect_api_key
        self._lock = threading.Lock()
        self._rng = random.Random(self.faults.seed)
        self._scripted: deque[_Fault] = deque()
        self._requests: list[FakeRequest] = []
        self._replied: list[FakeRequest] = []
        self._reply_errors: list[Exception] = []
        self._status_counts: Counter[int] = Counter()
        self._in_flight = 0
        self._max_in_flight = 0
        self._answers_before_hold: int | None = None
        self._released = threading.Event()
        self._released.set()
        self._held = 0
        self._http: _HTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind a free port and serve from a daemon thread; :meth:`stop` undoes it."""
        if self._http is not None:
            raise RuntimeError("FakeLLMServer is already running")
        self._http = _HTTPServer(("127.0.0.1", 0), _Handler, fake=self)
        # A short poll interval: stop() waits up to one interval, and tests start many servers.
        self._thread = threading.Thread(
            target=self._http.serve_forever,
            kwargs={"poll_interval": 0.01},
            name="FakeLLMServer",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and release the port."""
        if self._http is None:
            return
        self.release()  # a held handler thread must finish for the server to stop
        self._http.shutdown()
        self._http.server_close()
        if self._thread is not None:
            self._thread.join()
        self._http = self._thread = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @property
    def port(self) -> int:
        if self._http is None:
            raise RuntimeError("FakeLLMServer is not running: use it in a `with` block")
        return int(self._http.server_address[1])

    @property
    def openai_base_url(self) -> str:
        """The ``base_url`` for ``openai.OpenAI``: ``http://127.0.0.1:PORT/v1``."""
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def anthropic_base_url(self) -> str:
        """The ``base_url`` for ``anthropic.Anthropic``: ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    # -- scripting -------------------------------------------------------------------------

    def fail_next(
        self,
        status: int = 500,
        *,
        times: int = 1,
        retry_after: float | None = None,
        message: str | None = None,
    ) -> None:
        """Answer the next ``times`` requests with HTTP ``status`` (before any random fault).

        ``retry_after`` (seconds) is sent as a ``Retry-After`` header when given.
        """
        if not 400 <= status <= 599:
            raise ValueError(f"status must be an HTTP error (400-599), got {status}")
        if times < 1:
            raise ValueError(f"times must be >= 1, got {times}")
        with self._lock:
            self._scripted.extend([_Fault(status, retry_after, message)] * times)

    def hold_after(self, answers: int) -> None:
        """Answer the next ``answers`` requests as usual, then hold every later one, without
        answering, until :meth:`release` (or :meth:`stop`)."""
        if answers < 0:
            raise ValueError(f"answers must be >= 0, got {answers}")
        with self._lock:
            self._answers_before_hold = answers
            self._released.clear()

    def release(self) -> None:
        """Answer the held requests, and stop holding."""
        with self._lock:
            self._answers_before_hold = None
            self._released.set()

    # -- what happened ---------------------------------------------------------------------

    @property
    def requests(self) -> list[FakeRequest]:
        """Every API request received, in arrival order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def replied(self) -> list[FakeRequest]:
        """The requests answered with a well-formed 200, in answer order (a copy)."""
        with self._lock:
            return list(self._replied)

    @property
    def calls(self) -> int:
        """How many API requests arrived, whatever their fate."""
        with self._lock:
            return len(self._requests)

    @property
    def status_counts(self) -> dict[int, int]:
        """Responses sent per HTTP status (a malformed 200 counts as 200)."""
        with self._lock:
            return dict(self._status_counts)

    @property
    def max_in_flight(self) -> int:
        """The most API requests that were being handled at the same moment."""
        with self._lock:
            return self._max_in_flight

    @property
    def held(self) -> int:
        """How many requests are being held right now (see :meth:`hold_after`)."""
        with self._lock:
            return self._held

    @property
    def reply_errors(self) -> list[Exception]:
        """Exceptions raised by the ``reply`` function (each was answered with HTTP 500)."""
        with self._lock:
            return list(self._reply_errors)

    # -- called by the handler threads -----------------------------------------------------

    def _arrived(self, request: FakeRequest) -> None:
        with self._lock:
            self._requests.append(request)
            self._in_flight += 1
            self._max_in_flight = max(self._max_in_flight, self._in_flight)

    def _answered(self, status: int, request: FakeRequest | None, *, replied: bool) -> None:
        # Called before the response's bytes go out, so a client holding its answer always
        # finds it counted, and the in-flight count never includes a request already answered.
        with self._lock:
            self._status_counts[status] += 1
            if request is not None:
                self._in_flight -= 1
            if request is not None and replied:
                self._replied.append(request)

    def _wait_if_held(self) -> None:
        with self._lock:
            if self._answers_before_hold is None:
                return
            if self._answers_before_hold > 0:
                self._answers_before_hold -= 1
                return
            self._held += 1
        self._released.wait()
        with self._lock:
            self._held -= 1

    def _reply_failed(self, error: Exception) -> None:
        with self._lock:
            self._reply_errors.append(error)

    def _next_fault(self) -> _Fault | None:
        # One lock for the queue and the generator: the sequence of faults must not depend on
        # how handler threads interleave.
        with self._lock:
            if self._scripted:
                return self._scripted.popleft()
            plan = self.faults
            draw = self._rng.random()
        if draw < plan.http_500_rate:
            return _Fault(500)
        if draw < plan.http_500_rate + plan.http_429_rate:
            return _Fault(429, plan.retry_after_s)
        if draw < plan.http_500_rate + plan.http_429_rate + plan.malformed_json_rate:
            return _Fault(200)
        return None


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    # The listen backlog; socketserver's default of 5 refuses bursts of concurrent clients.
    request_queue_size = 256

    def __init__(
        self,
        address: tuple[str, int],
        handler: type[BaseHTTPRequestHandler],
        *,
        fake: FakeLLMServer,
    ) -> None:
        self.fake = fake
        super().__init__(address, handler)


@dataclass(frozen=True)
class _Response:
    status: int
    body: bytes
    headers: dict[str, str]
    replied: bool = False  # a well-formed 200 carrying the reply function's text


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 keeps connections alive, as the SDKs' connection pools expect.
    protocol_version = "HTTP/1.1"
    # Headers and body leave in separate writes; with Nagle's algorithm on, the body would wait
    # for the client's delayed ACK, some 40 ms per response.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: test output is no place for an access log."""

    def handle(self) -> None:
        # A client that hangs up (interrupted, gave up, closed its pool) is not the server's
        # failure: no traceback on the test's stderr.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def do_POST(self) -> None:
        fake = cast(_HTTPServer, self.server).fake
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        api = _PATHS.get(self.path.split("?", 1)[0])
        if api is None:
            response = _error("openai", 404, f"no route for POST {self.path}")
            fake._answered(response.status, None, replied=False)
            return self._send(response)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            response = _error(api, 400, "the request body is not a JSON object")
            fake._answered(response.status, None, replied=False)
            return self._send(response)
        request = FakeRequest(
            api=api,
            model=str(body.get("model", "")),
            messages=_flatten_messages(api, body),
            body=body,
            headers={name.lower(): value for name, value in self.headers.items()},
        )
        fake._arrived(request)
        try:
            response = _answer(fake, request)
        except BaseException:  # a bug in the fake itself: keep the in-flight count true
            fake._answered(500, request, replied=False)
            raise
        fake._answered(response.status, request, replied=response.replied)
        self._send(response)

    def _send(self, response: _Response) -> None:
        self.send_response(response.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        # A client that gave up waiting (timed out, interrupted) has nothing to be told.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(response.body)


def _key_refused(api: Api, key: str | None) -> _Response:
    return _error(api, 401, f"Incorrect API key provided: {key}.")


def _answer(fake: FakeLLMServer, request: FakeRequest) -> _Response:
    fake._wait_if_held()
    if fake.latency_s:
        time.sleep(fake.latency_s)
    api = request.api
    if fake.expect_api_key is not None and _api_key(request) != fake.expect_api_key:
        return _key_refused(api, _api_key(request))
    if not request.model or not isinstance(request.body.get("messages"), list):
        return _error(api, 400, "`model` and `messages` are required.")
    if request.body.get("stream"):
        return _error(api, 400, "FakeLLMServer does not support streaming.")
    fault = fake._next_fault()
    if fault is not None and fault.status == 200:
        return _Response(200, b'{"id": "truncated', {})
    if fault is not None:
        return _error(api, fault.status, fault.message, retry_after=fault.retry_after_s)
    try:
        text = fake.reply(request)
    except Exception as error:  # a bug in the test's reply function: answer 500 and keep it
        fake._reply_failed(error)
        return _error(api, 500, f"reply function raised {error!r}")
    return _Response(200, json.dumps(_completion(request, text)).encode(), {}, replied=True)


def _error(
    api: Api, status: int, message: str | None, *, retry_after: float | None = None
) -> _Response:
    headers = {} if retry_after is None else {"Retry-After": f"{retry_after:g}"}
    body = _error_body(api, status, message or f"HTTP {status} injected by FakeLLMServer")
    return _Response(status, json.dumps(body).encode(), headers)


def _api_key(request: FakeRequest) -> str | None:
    # Anthropic's SDK sends `x-api-key` or, in recent versions, `Authorization: Bearer`.
    if "x-api-key" in request.headers:
        return request.headers["x-api-key"]
    authorization = request.headers.get("authorization", "")
    return authorization.removeprefix("Bearer ") if authorization.startswith("Bearer ") else None


def _text_of(content: object) -> str:
    """A message's content as text: a string, or the text of its content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def _flatten_messages(api: Api, body: dict[str, Any]) -> list[dict[str, str]]:
    messages = body.get("messages")
    flat = [
        {"role": str(message.get("role", "")), "content": _text_of(message.get("content"))}
        for message in (messages if isinstance(messages, list) else [])
        if isinstance(message, dict)
    ]
    if api == "anthropic" and body.get("system"):
        flat.insert(0, {"role": "system", "content": _text_of(body["system"])})
    return flat


def _completion(request: FakeRequest, text: str) -> dict[str, Any]:
    input_tokens = sum(count_tokens(message["content"]) for message in request.messages)
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
