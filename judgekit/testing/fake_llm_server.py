"""A loopback server that speaks enough of the OpenAI and Anthropic APIs for their real SDKs.

Point the real ``openai`` or ``anthropic`` client (or a judgekit provider) at it to test judge
plumbing offline: what was sent, what comes back, and what happens when the API fails. It
answers ``POST /v1/chat/completions`` (OpenAI) and ``POST /v1/messages`` (Anthropic), counts one
token per whitespace-separated word, and injects faults on request: HTTP 500, HTTP 429 with
``Retry-After``, a 200 whose body is not JSON, or any status scripted for the next calls.
It also serves the batch APIs (OpenAI's files and batches, Anthropic's message batches), each
request answered by the same reply function: see :mod:`judgekit.testing.batches` and
:attr:`FakeLLMServer.batches`.

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

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from types import TracebackType
from typing import Self

from judgekit.testing.answers import (
    Response,
    completion_response,
    error_response,
    not_json_response,
    request_tokens,
)
from judgekit.testing.batches import FakeBatches
from judgekit.testing.fake_request import FakeRequest, api_key_of
from judgekit.testing.faults import Fault, FaultPlan, FaultQueue
from judgekit.testing.hold import Hold
from judgekit.testing.http_handler import LoopbackServer
from judgekit.testing.logprobs import Reply
from judgekit.testing.rate_window import RateLimit, RateWindow
from judgekit.testing.traffic import Traffic

__all__ = ["DEFAULT_VERDICT", "FakeLLMServer", "FakeRequest", "FaultPlan", "RateLimit", "Reply"]

DEFAULT_VERDICT = '{"reason": "ok", "score": "pass"}'
"""What the server answers when no ``reply`` function is given: a passing judge verdict."""


class FakeLLMServer:
    """An OpenAI- and Anthropic-speaking HTTP server on 127.0.0.1, for tests.

    ``reply`` turns each :class:`FakeRequest` into the assistant's text (default: a passing
    verdict), or into a :class:`~judgekit.testing.logprobs.Reply` giving the score token's
    probabilities too, sent to OpenAI requests that ask for ``logprobs``. ``latency_s`` delays every answer. ``faults`` injects random failures.
    ``expect_api_key``, when set, makes every request with another key (``x-api-key`` or
    ``Authorization: Bearer``) fail with HTTP 401 — and, like some real APIs, the error
    message quotes the key it was sent. ``port`` is the port to bind (0: any free one; an
    ``OSError`` when it is taken). ``rate_limit`` answers 429 past a number of requests or
    tokens a minute, and tells every answer where the window stands in the provider's own
    headers (:mod:`judgekit.testing.rate_window`; :attr:`rate_window` counts what each
    window let through). :meth:`hold_after` holds requests until
    :meth:`release`, so a test can act while a client is known to be waiting.
    Use it as a context manager; see the module docstring for an example.
    """

    def __init__(
        self,
        reply: Callable[[FakeRequest], str | Reply] | None = None,
        *,
        latency_s: float = 0.0,
        faults: FaultPlan | None = None,
        expect_api_key: str | None = None,
        port: int = 0,
        rate_limit: RateLimit | None = None,
    ) -> None:
        if latency_s < 0:
            raise ValueError(f"latency_s must be >= 0, got {latency_s}")
        self.reply: Callable[[FakeRequest], str | Reply] = reply or (
            lambda request: DEFAULT_VERDICT
        )
        self.latency_s = latency_s
        self.faults = faults or FaultPlan()
        self.expect_api_key = expect_api_key
        self._port = port
        self.rate_window = RateWindow(rate_limit) if rate_limit is not None else None
        self._fault_queue = FaultQueue(self.faults.seed)
        self._traffic = Traffic()
        self._hold = Hold()
        # The files and batches endpoints, answering each request with the same reply function.
        self.batches = FakeBatches(lambda request: self.reply(request))
        self._http: LoopbackServer | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle -------------------------------------------------------------------------

    def start(self) -> Self:
        """Bind the port (a free one by default) and serve from a daemon thread; :meth:`stop` undoes it."""
        if self._http is not None:
            raise RuntimeError("FakeLLMServer is already running")
        self._http = LoopbackServer(
            ("127.0.0.1", self._port),
            answer=self._answer,
            traffic=self._traffic,
            batches=self.batches.route,
        )
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
        self.batches.release_creates()
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
        self._fault_queue.script(Fault(status, retry_after, message), times)

    def hold_after(self, answers: int) -> None:
        """Answer the next ``answers`` requests as usual, then hold every later one, without
        answering, until :meth:`release` (or :meth:`stop`)."""
        if answers < 0:
            raise ValueError(f"answers must be >= 0, got {answers}")
        self._hold.after(answers)

    def release(self) -> None:
        """Answer the held requests, and stop holding."""
        self._hold.release()

    # -- what happened ---------------------------------------------------------------------

    @property
    def requests(self) -> list[FakeRequest]:
        """Every API request received, in arrival order (a copy)."""
        return self._traffic.requests

    @property
    def replied(self) -> list[FakeRequest]:
        """The requests answered with a well-formed 200, in answer order (a copy)."""
        return self._traffic.replied

    @property
    def calls(self) -> int:
        """How many API requests arrived, whatever their fate."""
        return self._traffic.calls

    @property
    def status_counts(self) -> dict[int, int]:
        """Responses sent per HTTP status (a malformed 200 counts as 200)."""
        return self._traffic.status_counts

    @property
    def max_in_flight(self) -> int:
        """The most API requests that were being handled at the same moment."""
        return self._traffic.max_in_flight

    @property
    def held(self) -> int:
        """How many requests are being held right now (see :meth:`hold_after`)."""
        return self._hold.held

    @property
    def reply_errors(self) -> list[Exception]:
        """Exceptions raised by the ``reply`` function (each was answered with HTTP 500)."""
        return self._traffic.reply_errors

    # -- called by the handler threads -----------------------------------------------------

    def _answer(self, request: FakeRequest) -> Response:
        """The answer to an API request, with the rate limit's headers when there is one."""
        if self.rate_window is None:
            return self._answer_as_set_up(request)
        admission = self.rate_window.admit(request.api, request_tokens(request))
        if not admission.admitted:
            message = "Rate limit reached for requests or tokens per minute (FakeLLMServer)."
            refused = error_response(request.api, 429, message)
            return replace(refused, headers={**refused.headers, **admission.headers})
        response = self._answer_as_set_up(request)
        return replace(response, headers={**response.headers, **admission.headers})

    def _answer_as_set_up(self, request: FakeRequest) -> Response:
        """The answer to an API request: held, delayed, refused or faulty as set up."""
        self._hold.wait()
        if self.latency_s:
            time.sleep(self.latency_s)
        api = request.api
        if self.expect_api_key is not None and api_key_of(request) != self.expect_api_key:
            return error_response(api, 401, f"Incorrect API key provided: {api_key_of(request)}.")
        if not request.model or not isinstance(request.body.get("messages"), list):
            return error_response(api, 400, "`model` and `messages` are required.")
        if request.body.get("stream"):
            return error_response(api, 400, "FakeLLMServer does not support streaming.")
        fault = self._fault_queue.next(self.faults)
        if fault is not None and fault.status == 200:
            return not_json_response()
        if fault is not None:
            return error_response(api, fault.status, fault.message, retry_after=fault.retry_after_s)
        try:
            return completion_response(request, self.reply(request))
        except Exception as error:  # a bug in the test's reply function: answer 500 and keep it
            self._traffic.reply_failed(error)
            return error_response(api, 500, f"reply function raised {error!r}")
