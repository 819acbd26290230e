"""A loopback stand-in for the two parts of Langfuse's public API the langfuse SDK uses here:
OTLP ingestion (``POST /api/public/otel/v1/traces``, where the SDK's tracing sends its spans)
and the observations API v2 (``GET /api/public/v2/observations``, what ``api.observations
.get_many`` reads).

What is recorded: the spans exactly as the SDK exports them (OTLP protobuf). What is derived:
each span's observation, following Langfuse's own ingestion (github:langfuse/langfuse,
``packages/shared/src/server/otel/OtelIngestionProcessor.ts`` ``createObservationEvent``):
ids are the span's hex ids, the type is ``langfuse.observation.type`` upper-cased, the level
``langfuse.observation.level`` (else ERROR when the span's status is an error), input and
output the attributes' raw strings — the v2 API returns them so ("Input/output fields are
always returned as raw strings", ``fern/apis/server/definition/observations.yml``) — usage
the OpenAI usage object turned into Langfuse's ``input``/``output``/``total``
(``packages/shared/src/server/ingestion/types.ts``, ``OpenAICompletionUsageSchema``), cost
computed from Langfuse's default price of the model
(``worker/src/constants/default-model-prices.json``), ``isRootObservation`` true for a span
with no parent or marked the app's root (``packages/shared/src/eventsTable.ts``). Pages are
ordered as Langfuse orders them (newest first, ``events.ts`` ``orderByForObservationsQuery``),
field groups as the API documents them.
"""

from __future__ import annotations

import base64
import gzip
import json
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self
from urllib.parse import parse_qs, urlparse

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2

__all__ = ["PLACEHOLDER_AUTH", "PRICES", "LangfuseStandIn"]

PLACEHOLDER_AUTH = "Basic " + base64.b64encode(b"pk-lf-placeholder:sk-lf-placeholder").decode()
# Langfuse's default prices (USD per token) of the model the agent calls, its "Standard" tier.
PRICES = {"gpt-4o": {"input": 2.5e-06, "input_cached_tokens": 1.25e-06, "output": 1e-05}}
_OPENAI_USAGE = {"prompt_tokens": "input", "completion_tokens": "output", "total_tokens": "total"}
# The v2 API's field groups (fern/apis/server/definition/observations.yml).
_GROUPS = {
    "core": ("id", "traceId", "startTime", "endTime", "projectId", "parentObservationId", "type"),
    "basic": ("name", "level", "statusMessage", "version", "environment", "bookmarked",
              "public", "userId", "sessionId", "isRootObservation"),
    "time": ("completionStartTime", "createdAt", "updatedAt"),
    "io": ("input", "output"),
    "metadata": ("metadata",),
    "model": ("model", "internalModelId", "modelParameters"),
    "usage": ("usageDetails", "costDetails", "totalCost", "usagePricingTierName"),
    "trace_context": ("tags", "release", "traceName"),
}  # fmt: skip


def _value(any_value: common_pb2.AnyValue) -> Any:
    kind = any_value.WhichOneof("value")
    if kind == "array_value":
        return [_value(item) for item in any_value.array_value.values]
    return None if kind is None else getattr(any_value, kind)


def _time(nanos: int) -> str:
    # Langfuse's API gives times to the millisecond, as JavaScript dates.
    moment = datetime.fromtimestamp(nanos / 1e9, tz=UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _usage(raw: str | None) -> dict[str, int]:
    found = json.loads(raw) if raw else {}
    usage = {_OPENAI_USAGE.get(k, k): v for k, v in found.items() if isinstance(v, int)}
    if set(_OPENAI_USAGE) <= found.keys():  # an OpenAI usage object: its details taken out
        for side in ("prompt", "completion"):
            ours = "input" if side == "prompt" else "output"
            for name, count in (found.get(f"{side}_tokens_details") or {}).items():
                if count is not None:
                    usage[f"{ours}_{name}"] = count
                    usage[ours] = max(usage[ours] - count, 0)
    return usage


def _cost(model: str | None, usage: dict[str, int]) -> dict[str, float]:
    prices = PRICES.get(model or "")
    if prices is None or not usage:
        return {}
    cost = {kind: usage[kind] * price for kind, price in prices.items() if kind in usage}
    return {**cost, "total": sum(cost.values())}


def observation_of(span: Any) -> dict[str, Any]:
    """The observation Langfuse makes of one OTLP span of the langfuse SDK."""
    attributes = {a.key: _value(a.value) for a in span.attributes}
    parent = span.parent_span_id.hex() or None
    usage = _usage(attributes.get("langfuse.observation.usage_details"))
    model = attributes.get("langfuse.observation.model.name")
    cost = _cost(model, usage)
    level = attributes.get("langfuse.observation.level") or (
        "ERROR" if span.status.code == 2 else "DEFAULT"
    )
    return {
        "id": span.span_id.hex(),
        "traceId": span.trace_id.hex(),
        "startTime": _time(span.start_time_unix_nano),
        "endTime": _time(span.end_time_unix_nano),
        "projectId": "stand-in-project",
        "parentObservationId": parent,
        "type": str(attributes.get("langfuse.observation.type", "span")).upper(),
        "name": span.name,
        "level": level,
        "statusMessage": attributes.get("langfuse.observation.status_message")
        or span.status.message
        or None,
        "environment": "default",
        "userId": attributes.get("user.id"),
        "sessionId": attributes.get("session.id"),
        "isRootObservation": parent is None
        or attributes.get("langfuse.internal.is_app_root") is True,
        "input": attributes.get("langfuse.observation.input"),
        "output": attributes.get("langfuse.observation.output"),
        "model": model,
        "usageDetails": usage,
        "costDetails": cost,
        "totalCost": cost.get("total", 0.0),
        "tags": list(attributes.get("langfuse.trace.tags") or ()),
        "traceName": attributes.get("langfuse.trace.name"),
    }


class LangfuseStandIn:
    """The stand-in on 127.0.0.1: ``host`` for the SDK, ``spans`` as received (by trace and
    span id)."""

    def __init__(self) -> None:
        self.spans: dict[tuple[bytes, bytes], Any] = {}
        # Observations as Langfuse's API holds them, for times no SDK call can choose.
        self.stored: list[dict[str, Any]] = []
        self.authorizations: set[str] = set()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def host(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def receive(self, body: bytes) -> None:
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        for resource in request.resource_spans:
            for scope in resource.scope_spans:
                for span in scope.spans:  # an export retried is kept once, as Langfuse does
                    self.spans[span.trace_id, span.span_id] = span

    def page(self, query: dict[str, str]) -> dict[str, Any]:
        """One page of ``GET /api/public/v2/observations``: newest first, cursor-paginated."""
        observations = [observation_of(span) for span in self.spans.values()] + self.stored
        for key in ("traceId", "sessionId"):
            if key in query:
                observations = [o for o in observations if o[key] == query[key]]
        observations.sort(key=lambda o: (o["startTime"], o["traceId"], o["id"]), reverse=True)
        start = json.loads(base64.b64decode(query["cursor"]))["offset"] if "cursor" in query else 0
        limit = int(query.get("limit", "50"))
        groups = query.get("fields", "core,basic").split(",")
        keys = {key for group in ("core", *groups) for key in _GROUPS[group]}
        data = [{k: v for k, v in o.items() if k in keys} for o in observations]
        meta: dict[str, str] = {}
        if start + limit < len(data):
            meta["cursor"] = base64.b64encode(
                json.dumps({"offset": start + limit}).encode()
            ).decode()
        return {"data": data[start : start + limit], "meta": meta}


def _handler(stand_in: LangfuseStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """No access log in the test output."""

        def do_POST(self) -> None:
            stand_in.authorizations.add(self.headers.get("Authorization", ""))
            body = self.rfile.read(int(self.headers["Content-Length"]))
            if self.headers.get("Content-Encoding") == "gzip":
                body = gzip.decompress(body)
            if urlparse(self.path).path != "/api/public/otel/v1/traces":
                return self._send(404, b"", "text/plain")
            stand_in.receive(body)
            answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
            self._send(200, answer, "application/x-protobuf")

        def do_GET(self) -> None:
            stand_in.authorizations.add(self.headers.get("Authorization", ""))
            url = urlparse(self.path)
            if url.path != "/api/public/v2/observations":
                return self._send(404, b"", "text/plain")
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            self._send(200, json.dumps(stand_in.page(query)).encode(), "application/json")

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler
