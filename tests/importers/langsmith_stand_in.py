"""A stand-in for the LangSmith API on 127.0.0.1, enough for the real langsmith client: its
tracer posts runs to it, and its ``list_runs`` reads them back.

It answers ``GET /info`` (batch ingestion through ``/runs/batch``), ``POST /runs/batch``
(``{"post": [...], "patch": [...]}``: a run created, then updated by id), ``GET /sessions``
(the project, by name) and ``POST /runs/query`` (every run of the project, as posted, with its
``session_id``, on one page). Anything else is answered 404 and kept in ``unexpected``.
"""

from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qs, urlparse

# What the client reads of /info: batch limits, and no multipart endpoint.
_INFO = {
    "version": "0.0.0",
    "batch_ingest_config": {
        "use_multipart_endpoint": False,
        "size_limit": 100,
        "size_limit_bytes": 20_971_520,
        "scale_up_qsize_trigger": 1000,
        "scale_up_nthreads_limit": 16,
        "scale_down_nempty_trigger": 4,
    },
}


class LangSmithStandIn:
    """Runs posted by langsmith's tracer, served back to its client's ``list_runs``."""

    def __init__(self, project: str) -> None:
        self.project = project
        self.project_id = str(uuid.UUID(int=1))
        self.runs: dict[str, dict[str, Any]] = {}  # by id, in the order they were posted
        self.paths: list[str] = []
        self.unexpected: list[str] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()

    def answer(self, method: str, url: str, body: bytes) -> tuple[int, Any]:
        parsed = urlparse(url)
        with self._lock:
            self.paths.append(f"{method} {parsed.path}")
            if method == "GET" and parsed.path == "/info":
                return 200, _INFO
            if method == "POST" and parsed.path == "/runs/batch":
                self._ingest(json.loads(body))
                return 200, {}
            if method == "GET" and parsed.path == "/sessions":
                names = parse_qs(parsed.query).get("name", [])
                return 200, [self._session()] if self.project in names else []
            if method == "POST" and parsed.path == "/runs/query":
                runs = [{**run, "session_id": self.project_id} for run in self.runs.values()]
                return 200, {"runs": runs, "cursors": {"next": None}}
            self.unexpected.append(f"{method} {url}")
            return 404, {"detail": "not found"}

    def _ingest(self, batch: dict[str, Any]) -> None:
        for run in batch.get("post") or []:
            self.runs[run["id"]] = dict(run)
        for run in batch.get("patch") or []:
            self.runs.setdefault(run["id"], {}).update(run)

    def _session(self) -> dict[str, Any]:
        return {
            "id": self.project_id,
            "name": self.project,
            "tenant_id": str(uuid.UUID(int=2)),
            "reference_dataset_id": None,
            "start_time": "2026-01-01T00:00:00+00:00",
        }


def _handler(stand_in: LangSmithStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            pass

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            status, answer = stand_in.answer(self.command, self.path, self.rfile.read(length))
            body = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        do_GET = do_POST = do_PATCH = _serve

    return Handler
