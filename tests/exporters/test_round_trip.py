"""Spans recorded with the real OpenTelemetry SDK, imported with `judgekit import otel`,
judged, and exported with `judgekit export --format otel`: each evaluation event lands on
the trace the SDK recorded."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from judgekit.cli import main
from judgekit.formats.run import load_runs
from tests.exporters.world import export, verdict, write_jsonl
from tests.importers.otel_spans import record_spans, write_otlp_json


def _agent(tracer: Any) -> None:
    """An agent as GenAI instrumentation records it: invoke_agent over one tool and a chat."""
    with tracer.start_as_current_span(
        "invoke_agent shop", attributes={"gen_ai.operation.name": "invoke_agent"}
    ):
        with tracer.start_as_current_span(
            "execute_tool get_order",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": "get_order",
                "gen_ai.tool.call.arguments": '{"order_id": "A100"}',
                "gen_ai.tool.call.result": '{"status": "delivered"}',
            },
        ):
            pass
        answer = [{"role": "assistant", "parts": [{"type": "text", "content": "Delivered."}]}]
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={
                "gen_ai.operation.name": "chat",
                "gen_ai.output.messages": json.dumps(answer),
            },
        ):
            pass


def test_an_sdk_trace_gets_its_evaluation_event(tmp_path: Path) -> None:
    spans = record_spans(_agent) + record_spans(_agent)
    traces = [format(s.context.trace_id, "032x") for s in spans if s.parent is None]
    source = write_otlp_json(spans, tmp_path / "traces.json")
    runs_file = tmp_path / "runs.jsonl"
    imported = CliRunner().invoke(main, ["import", "otel", str(source), "-o", str(runs_file)])
    assert imported.exit_code == 0, imported.output
    runs = list(load_runs(runs_file))
    assert [run.metadata["trace_id"] for run in runs] == traces
    verdicts = write_jsonl(
        tmp_path / "verdicts.jsonl",
        [verdict(runs[0].run_id), verdict(runs[1].run_id, score="fail")],
    )
    out = tmp_path / "events.json"
    result = export(
        "verdicts", "--format", "otel", "--verdicts", verdicts, "--runs", runs_file, "-o", out
    )
    assert result.exit_code == 0, result.output
    assert result.stderr == f"exported 2 verdicts (2 scored) as otel to {out}\n"
    document = json.loads(out.read_text(encoding="utf-8"))
    for record in document["resourceLogs"][0]["scopeLogs"][0]["logRecords"]:
        record["traceId"] = base64.b64encode(bytes.fromhex(record["traceId"])).decode()
    request = json_format.Parse(json.dumps(document), ExportLogsServiceRequest())
    records = request.resource_logs[0].scope_logs[0].log_records
    assert [r.trace_id.hex() for r in records] == traces


def test_langsmith_and_langfuse_traces_get_their_verdicts_back(tmp_path: Path) -> None:
    """Imported from a LangSmith or Langfuse export, a run keeps its trace id, so the
    feedback or score exported for its verdict lands on that trace."""
    from tests.importers.test_langfuse_import import _observations
    from tests.importers.test_langsmith_import import _runs

    langsmith = tmp_path / "langsmith.jsonl"
    langsmith.write_text("".join(run.model_dump_json() + "\n" for run in _runs(1)))
    langfuse = tmp_path / "langfuse.jsonl"
    langfuse.write_text("".join(o.json() + "\n" for o in _observations("t1")))
    for source, fmt, trace_field, trace in (
        (langsmith, "langsmith", "trace_id", "00000000-0000-0000-0000-000000000001"),
        (langfuse, "langfuse", "traceId", "t1"),
    ):
        runs_file = tmp_path / f"{fmt}.runs.jsonl"
        imported = CliRunner().invoke(main, ["import", fmt, str(source), "-o", str(runs_file)])
        assert imported.exit_code == 0, imported.output
        (run,) = load_runs(runs_file)
        verdicts = write_jsonl(tmp_path / f"{fmt}.verdicts.jsonl", [verdict(run.run_id)])
        out = tmp_path / f"{fmt}.out.jsonl"
        result = export(
            "verdicts", "--format", fmt, "--verdicts", verdicts, "--runs", runs_file, "-o", out
        )
        assert result.exit_code == 0, result.output
        (line,) = out.read_text(encoding="utf-8").splitlines()
        assert json.loads(line)[trace_field] == trace
