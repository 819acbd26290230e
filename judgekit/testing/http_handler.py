"""The HTTP side of the fake server: routes, request bodies, sending answers."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, cast

from judgekit.testing.answers import Response, error_response
from judgekit.testing.fake_request import PATHS, FakeRequest, read_request
from judgekit.testing.traffic import Traffic

__all__ = ["BatchRoute", "LoopbackServer"]

# (method, path, lower-case headers, body) -> the answer, or None for no such route.
BatchRoute = Callable[[str, str, dict[str, str], bytes], Response | None]


class LoopbackServer(ThreadingHTTPServer):
    """A threaded HTTP server answering each API request with ``answer``, every answer
    counted in ``traffic``."""

    daemon_threads = True
    # The listen backlog; socketserver's default of 5 refuses bursts of concurrent clients.
    request_queue_size = 256

    def __init__(
        self,
        address: tuple[str, int],
        *,
        answer: Callable[[FakeRequest], Response],
        traffic: Traffic,
        batches: BatchRoute | None = None,
    ) -> None:
        self.answer = answer
        self.traffic = traffic
        self.batches = batches
        super().__init__(address, _Handler)


class _Handler(BaseHTTPRequestHandler):
    # HTTP/1.1 keeps connections alive, as the SDKs' connection pools expect.
    protocol_version = "HTTP/1.1"
    # Headers and body leave in separate writes; with Nagle's algorithm on, the body would wait
    # for the client's delayed ACK on every response.
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:
        """Stay quiet: test output is no place for an access log."""

    def handle(self) -> None:
        # A client that hangs up (interrupted, gave up, closed its pool) is not the server's
        # failure: no traceback on the test's stderr.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle()

    def do_POST(self) -> None:
        server = cast(LoopbackServer, self.server)
        traffic = server.traffic
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        api = PATHS.get(self.path.split("?", 1)[0])
        if api is None and self._batch_route("POST", raw):
            return None
        if api is None:
            response = error_response("openai", 404, f"no route for POST {self.path}")
            traffic.answered(response.status, None, replied=False)
            return self._send(response)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            response = error_response(api, 400, "the request body is not a JSON object")
            traffic.answered(response.status, None, replied=False)
            return self._send(response)
        request = read_request(api, body, self.headers.items())
        traffic.arrived(request)
        try:
            response = server.answer(request)
        except BaseException:  # a bug in the fake itself: keep the in-flight count true
            traffic.answered(500, request, replied=False)
            raise
        traffic.answered(response.status, request, replied=response.replied)
        self._send(response)

    def do_GET(self) -> None:
        if not self._batch_route("GET", b""):
            response = error_response("openai", 404, f"no route for GET {self.path}")
            cast(LoopbackServer, self.server).traffic.answered(response.status, None, replied=False)
            self._send(response)

    def _batch_route(self, method: str, raw: bytes) -> bool:
        """Answer a files or batches request; False when the path is none of theirs."""
        server = cast(LoopbackServer, self.server)
        if server.batches is None:
            return False
        headers = {name.lower(): value for name, value in self.headers.items()}
        response = server.batches(method, self.path, headers, raw)
        if response is None:
            return False
        server.traffic.answered(response.status, None, replied=False)
        self._send(response)
        return True

    def _send(self, response: Response) -> None:
        self.send_response(response.status)
        if "Content-Type" not in response.headers:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(response.body)))
        for name, value in response.headers.items():
            self.send_header(name, value)
        self.end_headers()
        # A client that gave up waiting (timed out, interrupted) has nothing to be told.
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            self.wfile.write(response.body)
