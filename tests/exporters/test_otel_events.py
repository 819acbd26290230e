"""Verdicts as OpenTelemetry GenAI evaluation events, read back by the real OTLP protobuf
classes (opentelemetry-proto's ExportLogsServiceRequest)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from judgekit import __version__
from tests.exporters.world import NO_RUBRIC, OTEL_SPAN, OTEL_TRACE, export_verdicts


def _attributes(record: Any) -> dict[str, object]:
    values: dict[str, object] = {}
    for attribute in record.attributes:
        kind = attribute.value.WhichOneof("value")
        values[attribute.key] = getattr(attribute.value, kind)
    return values


def _as_proto_json(document: dict[str, Any]) -> str:
    # OTLP/JSON spells trace and span ids as hex; protobuf's JSON mapping reads bytes as
    # base64. A collector converts them, as this does.
    for resource in document["resourceLogs"]:
        for scope in resource["scopeLogs"]:
            for record in scope["logRecords"]:
                for key in ("traceId", "spanId"):
                    if key in record:
                        raw = bytes.fromhex(record[key])
                        record[key] = base64.b64encode(raw).decode()
    return json.dumps(document)


def test_verdicts_read_back_as_otlp_log_records(tmp_path: Path) -> None:
    result, out = export_verdicts(tmp_path, "otel", "events.json")
    assert result.exit_code == 0, result.output
    document = json.loads(out.read_text(encoding="utf-8"))
    request = json_format.Parse(_as_proto_json(document), ExportLogsServiceRequest())
    [resource] = request.resource_logs
    assert _attributes(resource.resource) == {"service.name": "judgekit"}
    [scope] = resource.scope_logs
    assert scope.scope.name == "judgekit"
    passed, failed, unscored, abstained = scope.log_records
    assert {r.event_name for r in scope.log_records} == {"gen_ai.evaluation.result"}
    assert passed.trace_id.hex() == OTEL_TRACE
    assert passed.span_id.hex() == OTEL_SPAN
    # calendar.timegm((2026, 11, 29, 10, 2, 11)) seconds, then the microseconds
    assert passed.time_unix_nano == 1_795_946_531_123_456_000
    assert passed.severity_number == 9
    assert _attributes(passed) == {
        "gen_ai.evaluation.name": "goal_completion",
        "gen_ai.evaluation.score.value": 1.0,
        "gen_ai.evaluation.score.label": "pass",
        "gen_ai.evaluation.explanation": "The refund of $40 was issued, as asked.",
        "judgekit.kind": "verdict",
        "judgekit.run_id": "shop/otel",
        "judgekit.status": "scored",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "judgekit.rubric.version": "3f2a9c",
        "judgekit.judge.model": "openai/gpt-4o-mini",
        "judgekit.version": __version__,
        "judgekit.confidence": 0.9,
        # No rubric file here to check a promotion by: none is claimed.
        "judgekit.promotion.promoted": False,
        "judgekit.promotion.reason": NO_RUBRIC,
    }
    # A LangSmith run's UUIDs: the trace id is the same 128 bits; a UUID is no span id.
    assert failed.trace_id.hex() == "0b1e9c3a6d2f4a8b9c1d2e3f4a5b6c7d"
    assert failed.span_id == b""
    assert _attributes(failed)["gen_ai.evaluation.score.value"] == 0.0
    assert _attributes(failed)["gen_ai.evaluation.score.label"] == "fail"
    # Unscored and abstained: their status, never a score.
    assert _attributes(unscored) == {
        "gen_ai.evaluation.name": "goal_completion",
        "error.type": "unscored",
        "gen_ai.evaluation.explanation": "not JSON after one retry: 'I think it passes'",
        "judgekit.kind": "verdict",
        "judgekit.run_id": "shop/bare",
        "judgekit.status": "unscored",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "judgekit.rubric.version": "3f2a9c",
        "judgekit.judge.model": "openai/gpt-4o-mini",
        "judgekit.version": __version__,
        "judgekit.promotion.promoted": False,
        "judgekit.promotion.reason": NO_RUBRIC,
    }
    assert unscored.trace_id == b""
    abstained_attributes = _attributes(abstained)
    assert abstained_attributes["judgekit.status"] == "abstained"
    assert "gen_ai.evaluation.score.value" not in abstained_attributes
    assert "gen_ai.evaluation.score.label" not in abstained_attributes
    assert result.stderr == (
        f"exported 4 verdicts (1 abstained, 2 scored, 1 unscored) as otel to {out}\n"
        "judgekit: warning: 2 exported without a trace link: 1 whose run is not among the "
        "runs of --runs; 1 whose run carries no trace id otel takes\n"
    )


def test_the_written_json_is_otlp_json_exactly(tmp_path: Path) -> None:
    result, out = export_verdicts(tmp_path, "otel", "events.json")
    assert result.exit_code == 0, result.output
    first = json.loads(out.read_text(encoding="utf-8"))["resourceLogs"][0]["scopeLogs"][0][
        "logRecords"
    ][0]
    assert first["timeUnixNano"] == "1795946531123456000"  # a 64-bit integer is a string
    assert first["traceId"] == OTEL_TRACE
    assert first["spanId"] == OTEL_SPAN
    assert first["eventName"] == "gen_ai.evaluation.result"
    assert first["attributes"][1] == {
        "key": "gen_ai.evaluation.score.value",
        "value": {"doubleValue": 1.0},
    }
