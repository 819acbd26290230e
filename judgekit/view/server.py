"""The view's HTTP server: the standard library's threading server on 127.0.0.1, each
request parsed (bounded) and handed to :class:`~judgekit.view.app.ViewApp`.

    with serve(data, port=0) as running:
        print(running.url)      # http://127.0.0.1:PORT/?token=...
        running.wait(threading.Event())
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Final
from urllib.parse import parse_qsl, urlsplit

from judgekit.errors import ConfigError
from judgekit.view.app import Request, Response, ViewApp
from judgekit.view.data import ViewData
from judgekit.view.security import HEADERS, Access

__all__ = ["URL_LINE", "RunningView", "serve"]

HOST = "127.0.0.1"
URL_LINE: Final = re.compile(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+\n")
MAX_FORM = 64 * 1024  # a form is a few fields and a note


@dataclass
class RunningView:
    """A started view: its address (with the token) and how to stop it."""

    server: _Server
    app: ViewApp
    thread: threading.Thread

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://{HOST}:{self.port}/?token={self.app.access.token}"

    def wait(self, stop: threading.Event) -> None:
        """Until ``stop`` is set (SIGTERM) or Ctrl-C in the terminal that started it."""
        while self.thread.is_alive() and not stop.wait(0.2):
            pass


@contextmanager
def serve(data: ViewData, *, port: int = 0) -> Iterator[RunningView]:
    """Serve ``data`` on 127.0.0.1 (``port`` 0: a free one) until the block ends."""
    try:
        server = _Server((HOST, port), _Handler)
    except OSError as exc:
        raise ConfigError(f"cannot listen on {HOST}:{port}: {exc.strerror or exc}") from None
    app = ViewApp(data, Access(port=int(server.server_address[1])))
    server.app = app
    thread = threading.Thread(target=server.serve_forever, name="judgekit-view", daemon=True)
    thread.start()
    try:
        yield RunningView(server, app, thread)
    finally:
        server.shutdown()
        server.server_close()
        app.labelling.close()


class _Server(ThreadingHTTPServer):
    """The threading server, holding the app each request's handler answers with."""

    daemon_threads = True
    app: ViewApp


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    server_version = "judgekit-view"
    sys_version = ""

    def do_GET(self) -> None:
        self._answer("GET", {})

    def do_POST(self) -> None:
        length = self.headers.get("Content-Length", "")
        if not length.isdigit() or int(length) > MAX_FORM:
            self._send(Response(413, b"a form is at most 64 KiB\n"))
            return
        kind = self.headers.get("Content-Type", "")
        if not kind.startswith("application/x-www-form-urlencoded"):
            self._send(Response(415, b"forms only\n"))
            return
        body = self.rfile.read(int(length)).decode("utf-8", errors="replace")
        self._answer("POST", dict(parse_qsl(body, keep_blank_values=True)))

    def _answer(self, method: str, form: dict[str, str]) -> None:
        parts = urlsplit(self.path)
        request = Request(
            method=method,
            path=parts.path,
            query=dict(parse_qsl(parts.query, keep_blank_values=True)),
            form=form,
            headers={name.lower(): value for name, value in self.headers.items()},
        )
        self._send(self.server.app.handle(request))

    def _send(self, response: Response) -> None:
        self.send_response(response.status)
        for name, value in {**HEADERS, **response.headers}.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        self.wfile.write(response.body)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: request lines would carry the token and the runs' ids to the terminal."""
