"""A local server standing in for LangSmith's API: it records each request the real
LangSmith SDK sends (the ``langsmith_server`` fixture serves it)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

from langsmith import Client
from langsmith.schemas import FeedbackCreate


class FeedbackRecorder(BaseHTTPRequestHandler):
    """Answers the SDK's requests and keeps each POST's path and JSON body."""

    bodies: ClassVar[list[dict[str, Any]]] = []

    def do_GET(self) -> None:  # the SDK asks for /info first
        self._answer({})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", "0"))
        FeedbackRecorder.bodies.append(
            {"path": self.path, "body": json.loads(self.rfile.read(length))}
        )
        self._answer({"id": "x"})

    def _answer(self, body: dict[str, str]) -> None:
        payload = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: object) -> None:
        pass


@contextmanager
def serving() -> Iterator[str]:
    """The recorder listening on 127.0.0.1, its bodies cleared; yields its URL."""
    FeedbackRecorder.bodies = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), FeedbackRecorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def sent_feedback(records: list[dict[str, Any]], url: str) -> list[FeedbackCreate]:
    """Each record handed to the real SDK's ``Client.create_feedback`` against the recorder
    at ``url``, and each request it sent read back by the SDK's ``FeedbackCreate``."""
    client = Client(api_url=url, api_key="test-key", auto_batch_tracing=False)
    for record in records:
        client.create_feedback(**record)
    sent = [e["body"] for e in FeedbackRecorder.bodies if e["path"].endswith("/feedback")]
    return [FeedbackCreate.model_validate(body) for body in sent]
