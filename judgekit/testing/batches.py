"""The batch endpoints of the fake server: OpenAI's files and batches, Anthropic's message batches.

Each request of a batch is answered by the server's ``reply`` function, as a chat request would
be. A batch moves one status per retrieve (OpenAI ``validating`` → ``in_progress`` →
``completed``; Anthropic ``in_progress`` → ``ended``), so a client must poll. A test can make
some requests fail (:attr:`FakeBatches.fail_when`) or a batch expire with only its first
requests answered (:attr:`FakeBatches.expire_after`), or take a while to end
(:attr:`FakeBatches.turnaround_s`), as a provider's batch does. Batches are listed newest first, as
both APIs do, an OpenAI batch with its ``metadata``; :meth:`FakeBatches.hold_creates` makes
the server accept a batch and hold the reply, as a client killed before hearing it would.
"""

from __future__ import annotations

import email.parser
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from email.message import Message
from typing import Any

from judgekit.testing.answers import Response, completion_response, error_response
from judgekit.testing.fake_request import Api, FakeRequest, read_request
from judgekit.testing.logprobs import Reply

__all__ = ["FakeBatches"]

_OPENAI_BATCH = re.compile(r"^/v1/batches/(?P<id>[\w-]+)(?P<cancel>/cancel)?$")
_OPENAI_CONTENT = re.compile(r"^/v1/files/(?P<id>[\w-]+)/content$")
_ANTHROPIC_BATCH = re.compile(r"^/v1/messages/batches/(?P<id>[\w-]+)(?P<tail>/cancel|/results)?$")
_RETRIEVES_TO_FINISH = {"openai": 2, "anthropic": 1}


@dataclass
class _Batch:
    api: Api
    id: str
    requests: list[tuple[str, dict[str, Any]]]  # (custom_id, request body)
    created_at: int = field(default_factory=lambda: int(time.time()))
    created: float = field(default_factory=time.monotonic)  # for the turnaround
    retrieves: int = 0
    cancelled: bool = False
    results: list[dict[str, Any]] | None = None  # once ended
    expired: bool = False
    metadata: dict[str, str] | None = None  # OpenAI's


class FakeBatches:
    """Batch state of one fake server; ``reply`` answers each request of a batch."""

    def __init__(self, reply: Callable[[FakeRequest], str | Reply]) -> None:
        self.reply = reply
        self.fail_when: Callable[[FakeRequest], bool] | None = None
        """Requests it is true for fail inside the batch (HTTP 500 in their result)."""
        self.expire_after: int | None = None
        """When set, a batch answers its first N requests and the rest expire."""
        self.turnaround_s: float | None = None
        """When set, a batch ends no sooner than this many seconds after it was created
        (and after its polls), as a provider's batch takes minutes to hours."""
        self.creates: list[tuple[Api, str, int]] = []
        """Every batch created: API, batch id, number of requests."""
        self.answered: list[FakeRequest] = []
        """Every batch request answered by ``reply``, in order."""
        self._lock = threading.Lock()
        self._holding = False
        self._held = threading.Event()  # a created batch's reply is being held
        self._released = threading.Event()
        self._ids = itertools.count(1)
        self._files: dict[str, bytes] = {}
        self._batches: dict[str, _Batch] = {}

    def forget(self) -> None:
        """Forget every batch and file, as a provider does with old batches (or another
        account's): retrieving one is then a 404."""
        with self._lock:
            self._batches.clear()
            self._files.clear()

    def hold_creates(self) -> None:
        """Accept each batch created from now on, then hold the reply until
        :meth:`release_creates`; :meth:`wait_held` waits for the first one held."""
        self._released.clear()
        self._holding = True

    def wait_held(self, timeout_s: float) -> bool:
        """Whether a created batch's reply is held, waiting up to ``timeout_s``."""
        return self._held.wait(timeout_s)

    def release_creates(self) -> None:
        """Send the held replies (to whoever still listens), and stop holding."""
        self._holding = False
        self._released.set()

    def route(self, method: str, path: str, headers: dict[str, str], raw: bytes) -> Response | None:
        """The answer to a batch or file request; None when ``path`` is no batch route."""
        response = self._route(method, path, headers, raw)
        creating = method == "POST" and path in ("/v1/batches", "/v1/messages/batches")
        if creating and self._holding and response is not None and response.status == 200:
            self._held.set()
            self._released.wait()
        return response

    def _route(
        self, method: str, path: str, headers: dict[str, str], raw: bytes
    ) -> Response | None:
        path, _, query = path.partition("?")
        with self._lock:
            if method == "GET" and path in ("/v1/batches", "/v1/messages/batches"):
                return self._list("openai" if path == "/v1/batches" else "anthropic", query)
            if method == "POST" and path == "/v1/files":
                return self._upload(headers, raw)
            if method == "POST" and path == "/v1/batches":
                return self._create_openai(raw)
            if method == "POST" and path == "/v1/messages/batches":
                return self._create_anthropic(raw)
            if (found := _OPENAI_CONTENT.match(path)) and method == "GET":
                content = self._files.get(found["id"])
                if content is None:
                    return error_response("openai", 404, f"no file {found['id']}")
                return Response(200, content, {"Content-Type": "application/octet-stream"})
            if found := _OPENAI_BATCH.match(path):
                return self._openai_batch(found["id"], cancel=bool(found["cancel"]))
            if found := _ANTHROPIC_BATCH.match(path):
                return self._anthropic_batch(found["id"], found["tail"] or "")
        return None

    # -- OpenAI ----------------------------------------------------------------------------

    def _upload(self, headers: dict[str, str], raw: bytes) -> Response:
        head = f"Content-Type: {headers.get('content-type', '')}\r\n\r\n".encode()
        message = email.parser.BytesParser().parsebytes(head + raw)
        parts: list[Message] = [p for p in message.get_payload() if isinstance(p, Message)]
        upload = next(
            (p for p in parts if p.get_param("name", header="content-disposition") == "file"), None
        )
        content = upload.get_payload(decode=True) if upload is not None else None
        if upload is None or not isinstance(content, bytes):
            return error_response("openai", 400, "no file in the upload")
        file_id = f"file-{next(self._ids)}"
        self._files[file_id] = content
        body = {
            "id": file_id,
            "object": "file",
            "bytes": len(content),
            "created_at": int(time.time()),
            "filename": upload.get_filename() or "batch.jsonl",
            "purpose": "batch",
            "status": "processed",
        }
        return _json(body)

    def _create_openai(self, raw: bytes) -> Response:
        body = json.loads(raw)
        content = self._files.get(str(body.get("input_file_id")))
        if content is None:
            return error_response("openai", 400, "input_file_id names no uploaded file")
        lines = [json.loads(line) for line in content.decode().splitlines() if line.strip()]
        requests = [(str(line["custom_id"]), line["body"]) for line in lines]
        batch = self._new("openai", f"batch_{next(self._ids)}", requests)
        batch.metadata = body.get("metadata")
        return _json(self._openai_object(batch))

    def _openai_batch(self, batch_id: str, *, cancel: bool) -> Response:
        batch = self._batches.get(batch_id)
        if batch is None or batch.api != "openai":
            return error_response("openai", 404, f"no batch {batch_id}")
        batch.cancelled |= cancel
        batch.retrieves += 1
        return _json(self._openai_object(batch))

    def _openai_object(self, batch: _Batch) -> dict[str, Any]:
        status = "validating" if batch.retrieves == 0 else "in_progress"
        output_id = error_id = None
        done = failed = 0
        if self._ended(batch):
            results = self._finish(batch)
            status = "cancelled" if batch.cancelled else "expired" if batch.expired else "completed"
            ok = [r for r in results if _succeeded(r)]
            output_id = self._store_lines(batch, ok)
            error_id = self._store_lines(batch, [r for r in results if not _succeeded(r)])
            done, failed = len(ok), len(results) - len(ok)
        return {
            "id": batch.id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "input_file_id": "",
            "completion_window": "24h",
            "status": status,
            "created_at": batch.created_at,
            "output_file_id": output_id,
            "error_file_id": error_id,
            "errors": None,
            "metadata": batch.metadata,
            "request_counts": {
                "total": len(batch.requests),
                "completed": done,
                "failed": failed,
            },
        }

    def _store_lines(self, batch: _Batch, lines: list[dict[str, Any]]) -> str | None:
        if not lines:
            return None
        file_id = f"file-{batch.id}-{next(self._ids)}"
        self._files[file_id] = "".join(json.dumps(line) + "\n" for line in lines).encode()
        return file_id

    # -- Anthropic -------------------------------------------------------------------------

    def _create_anthropic(self, raw: bytes) -> Response:
        body = json.loads(raw)
        requests = [(str(item["custom_id"]), item["params"]) for item in body.get("requests", [])]
        if not requests:
            return error_response("anthropic", 400, "`requests` must not be empty")
        batch = self._new("anthropic", f"msgbatch_{next(self._ids)}", requests)
        return _json(self._anthropic_object(batch))

    def _anthropic_batch(self, batch_id: str, tail: str) -> Response:
        batch = self._batches.get(batch_id)
        if batch is None or batch.api != "anthropic":
            return error_response("anthropic", 404, f"no batch {batch_id}")
        if tail == "/results":
            if batch.results is None:
                return error_response("anthropic", 404, f"batch {batch_id} has not ended")
            lines = [_anthropic_result(result) for result in batch.results]
            body = "".join(json.dumps(line) + "\n" for line in lines).encode()
            return Response(200, body, {"Content-Type": "application/binary"})
        batch.cancelled |= tail == "/cancel"
        batch.retrieves += 1
        return _json(self._anthropic_object(batch))

    def _anthropic_object(self, batch: _Batch) -> dict[str, Any]:
        ended = self._ended(batch)
        results = self._finish(batch) if ended else []
        kinds = [_anthropic_result(result)["result"]["type"] for result in results]
        return {
            "id": batch.id,
            "type": "message_batch",
            "processing_status": "ended" if ended else "in_progress",
            "request_counts": {
                "processing": 0 if ended else len(batch.requests),
                "succeeded": kinds.count("succeeded"),
                "errored": kinds.count("errored"),
                "canceled": kinds.count("canceled"),
                "expired": kinds.count("expired"),
            },
            "created_at": _iso(batch.created_at),
            "expires_at": _iso(batch.created_at + 86400),
            "ended_at": _iso(int(time.time())) if ended else None,
            "cancel_initiated_at": None,
            "archived_at": None,
            "results_url": f"/v1/messages/batches/{batch.id}/results" if ended else None,
        }

    # -- both ------------------------------------------------------------------------------

    def _list(self, api: Api, query: str) -> Response:
        """The API's batches, newest first, ``limit`` a page from ``after``/``after_id``."""
        params = dict(part.partition("=")[::2] for part in query.split("&") if part)
        newest = [b for b in reversed(self._batches.values()) if b.api == api]
        after = params.get("after") or params.get("after_id")
        if after is not None:
            ids = [b.id for b in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        page = newest[: int(params.get("limit", "20"))]
        shown = self._openai_object if api == "openai" else self._anthropic_object
        data = [shown(batch) for batch in page]
        body: dict[str, Any] = {
            "data": data,
            "has_more": len(page) < len(newest),
            "first_id": page[0].id if page else None,
            "last_id": page[-1].id if page else None,
        }
        if api == "openai":
            body["object"] = "list"
        return _json(body)

    def _new(self, api: Api, batch_id: str, requests: list[tuple[str, dict[str, Any]]]) -> _Batch:
        batch = _Batch(api, batch_id, requests)
        self._batches[batch_id] = batch
        self.creates.append((api, batch_id, len(requests)))
        return batch

    def _ended(self, batch: _Batch) -> bool:
        """A batch ends when cancelled, or once polled enough and its turnaround is past."""
        if batch.cancelled:
            return True
        if batch.retrieves < _RETRIEVES_TO_FINISH[batch.api]:
            return False
        waited = time.monotonic() - batch.created
        return self.turnaround_s is None or waited >= self.turnaround_s

    def _finish(self, batch: _Batch) -> list[dict[str, Any]]:
        """Answer every request once: OpenAI's result lines (Anthropic's are made from them)."""
        if batch.results is not None:
            return batch.results
        results = []
        for index, (custom_id, body) in enumerate(batch.requests):
            line: dict[str, Any] = {"id": f"batch_req_{index}", "custom_id": custom_id}
            if batch.cancelled or (self.expire_after is not None and index >= self.expire_after):
                batch.expired = not batch.cancelled
                code = "batch_cancelled" if batch.cancelled else "batch_expired"
                line.update(
                    response=None, error={"code": code, "message": f"{code} before an answer"}
                )
            else:
                line.update(response=self._answer(batch.api, body), error=None)
            results.append(line)
        batch.results = results
        return results

    def _answer(self, api: Api, body: dict[str, Any]) -> dict[str, Any]:
        request = read_request(api, body, ())
        if self.fail_when is not None and self.fail_when(request):
            failed = error_response(api, 500, "the server failed on this request")
            return {"status_code": 500, "body": json.loads(failed.body)}
        try:
            answer = completion_response(request, self.reply(request))
        except Exception as error:  # a bug in the test's reply function: that request fails
            failed = error_response(api, 500, f"reply function raised {error!r}")
            return {"status_code": 500, "body": json.loads(failed.body)}
        self.answered.append(request)
        return {"status_code": 200, "request_id": "req_fake", "body": json.loads(answer.body)}


def _anthropic_result(line: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-shaped result line in Anthropic's results format."""
    error: dict[str, Any] | None = line.get("error")
    if error is not None:
        kind = "canceled" if error["code"] == "batch_cancelled" else "expired"
        return {"custom_id": line["custom_id"], "result": {"type": kind}}
    response: dict[str, Any] = line["response"]
    if response["status_code"] != 200:
        return {
            "custom_id": line["custom_id"],
            "result": {"type": "errored", "error": response["body"]},
        }
    return {
        "custom_id": line["custom_id"],
        "result": {"type": "succeeded", "message": response["body"]},
    }


def _succeeded(line: dict[str, Any]) -> bool:
    return line.get("error") is None and line["response"]["status_code"] == 200


def _iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _json(body: dict[str, Any]) -> Response:
    return Response(200, json.dumps(body).encode(), {})
