"""`judgekit import otel` on GenAI spans recorded with the real OpenTelemetry SDK, written as
its console exporter and as OTLP JSON, and on hand-made malformed files."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.errors import DataError
from judgekit.formats.run import Run, ToolCall
from judgekit.importers.otel_genai import import_otel
from judgekit.importers.registry import sniff
from tests.importers.otel_spans import record_spans, write_console, write_otlp_json

gen_ai = pytest.importorskip(
    "opentelemetry.semconv._incubating.attributes.gen_ai_attributes",
    reason="needs opentelemetry-semantic-conventions",
)
trace_api = pytest.importorskip("opentelemetry.trace", reason="needs opentelemetry-api")


def _messages(role: str, *parts: dict[str, Any]) -> str:
    return json.dumps([{"role": role, "parts": list(parts)}])


def _refund_agent(tracer: Any) -> None:
    """An agent as GenAI instrumentation records it: invoke_agent over chat and tools."""
    question = {"type": "text", "content": "Refund order A100 in full."}
    with tracer.start_as_current_span(
        "invoke_agent shop",
        attributes={gen_ai.GEN_AI_OPERATION_NAME: "invoke_agent", gen_ai.GEN_AI_AGENT_NAME: "shop"},
    ):
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={
                gen_ai.GEN_AI_OPERATION_NAME: "chat",
                gen_ai.GEN_AI_REQUEST_MODEL: "gpt-4o-mini",
                gen_ai.GEN_AI_USAGE_INPUT_TOKENS: 310,
                gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: 41,
                gen_ai.GEN_AI_INPUT_MESSAGES: _messages("user", question),
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool get_order",
            attributes={
                gen_ai.GEN_AI_OPERATION_NAME: "execute_tool",
                gen_ai.GEN_AI_TOOL_NAME: "get_order",
                gen_ai.GEN_AI_TOOL_CALL_ID: "call_1",
                gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS: '{"order_id": "A100"}',
                gen_ai.GEN_AI_TOOL_CALL_RESULT: '{"status": "delivered", "total": 40}',
            },
        ):
            pass
        with tracer.start_as_current_span(
            "execute_tool refund",
            attributes={
                gen_ai.GEN_AI_OPERATION_NAME: "execute_tool",
                gen_ai.GEN_AI_TOOL_NAME: "refund",
                gen_ai.GEN_AI_TOOL_CALL_ID: "call_2",
                gen_ai.GEN_AI_TOOL_CALL_ARGUMENTS: '{"order_id": "A100", "amount": 400}',
                "error.type": "ValueError",
            },
        ) as failing:
            failing.set_status(trace_api.Status(trace_api.StatusCode.ERROR, "amount above total"))
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={
                gen_ai.GEN_AI_OPERATION_NAME: "chat",
                gen_ai.GEN_AI_USAGE_INPUT_TOKENS: 420,
                gen_ai.GEN_AI_USAGE_OUTPUT_TOKENS: 18,
                gen_ai.GEN_AI_OUTPUT_MESSAGES: _messages(
                    "assistant", {"type": "text", "content": "I could not refund A100."}
                ),
            },
        ):
            pass


EXPECTED_CALLS = [
    ToolCall(
        name="get_order",
        args={"order_id": "A100"},
        id="call_1",
        result={"status": "delivered", "total": 40},
    ),
    ToolCall(
        name="refund",
        args={"order_id": "A100", "amount": 400},
        id="call_2",
        error="amount above total",
    ),
]


def _check_refund_run(run: Run, trace_id: str, root_span_id: str) -> None:
    assert run.run_id == trace_id
    assert run.task_id == "refund_full"
    assert run.input == "Refund order A100 in full."
    assert run.tool_calls == EXPECTED_CALLS
    assert run.final_answer == "I could not refund A100."
    assert run.turns == 2
    assert run.usage is not None
    assert (run.usage.input_tokens, run.usage.output_tokens) == (730, 59)
    assert run.stop_reason is None
    assert run.metadata == {
        "trace_id": trace_id,
        "root_span_id": root_span_id,
        "agent_name": "shop",
        "model": "gpt-4o-mini",
    }


@pytest.mark.parametrize("writer", [write_console, write_otlp_json])
def test_sdk_spans_become_one_run_per_trace(tmp_path: Path, writer: Any) -> None:
    spans = record_spans(_refund_agent)
    trace_id = format(spans[0].context.trace_id, "032x")
    root_span_id = format(next(s for s in spans if s.parent is None).context.span_id, "016x")
    path = writer(spans, tmp_path / "traces.json")
    assert sniff(path) == "otel"
    (run,) = import_otel(path, task_id="refund_full")
    _check_refund_run(run, trace_id, root_span_id)


def test_two_traces_in_otlp_lines_are_two_runs(tmp_path: Path) -> None:
    first = write_otlp_json(record_spans(_refund_agent), tmp_path / "a.json").read_text()
    second = write_otlp_json(record_spans(_refund_agent), tmp_path / "b.json").read_text()
    path = tmp_path / "traces.jsonl"
    path.write_text(first + second)
    result = CliRunner().invoke(main, ["import", "otel", str(path), "-o", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert result.output == (
        "imported 2 runs with 4 tool calls (2 tool errors, 0 with invalid arguments) "
        f"to {tmp_path / 'r'}\n"
    )


def test_model_requested_calls_stand_in_when_no_tool_span_was_recorded(tmp_path: Path) -> None:
    def chat_only(tracer: Any) -> None:
        call = {
            "type": "tool_call",
            "id": "c1",
            "name": "get_order",
            "arguments": {"order_id": "A1"},
        }
        reply = {"type": "tool_call_response", "id": "c1", "response": '{"total": 40}'}
        with tracer.start_as_current_span("agent loop"):  # one trace: the spans' parent
            for attributes in (
                {gen_ai.GEN_AI_OUTPUT_MESSAGES: _messages("assistant", call)},
                {gen_ai.GEN_AI_INPUT_MESSAGES: _messages("tool", reply)},
            ):
                chat = {gen_ai.GEN_AI_OPERATION_NAME: "chat", **attributes}
                with tracer.start_as_current_span("chat", attributes=chat):
                    pass

    path = write_console(record_spans(chat_only), tmp_path / "spans.json")
    (run,) = import_otel(path)
    assert run.tool_calls == [
        ToolCall(name="get_order", args={"order_id": "A1"}, id="c1", result={"total": 40})
    ]
    assert run.task_id == "spans"


def test_import_openai_on_spans_names_otel(tmp_path: Path) -> None:
    path = write_console(record_spans(_refund_agent), tmp_path / "spans.json")
    result = CliRunner().invoke(main, ["import", "openai", str(path)])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {path}: this looks like OpenTelemetry GenAI spans; "
        "try `judgekit import otel`\n"
    )


def test_collector_otlp_json_with_hex_ids(tmp_path: Path) -> None:
    """OTLP JSON as the collector's file exporter writes it (hex ids, 64-bit ints as strings,
    status code 2 for an error), made by hand."""

    def attribute(key: str, value: dict[str, Any]) -> dict[str, Any]:
        return {"key": key, "value": value}

    trace_id = "5b8efff798038103d269b633813fc60c"
    spans = [
        {
            "traceId": trace_id,
            "spanId": "eee19b7ec3c1b174",
            "name": "execute_tool lookup",
            "startTimeUnixNano": "1544712660000000000",
            "endTimeUnixNano": "1544712661500000000",
            "attributes": [
                attribute("gen_ai.operation.name", {"stringValue": "execute_tool"}),
                attribute("gen_ai.tool.call.arguments", {"stringValue": '{"q": "AA1"}'}),
            ],
            "status": {"code": 2, "message": "timed out"},
        },
        {
            "traceId": trace_id,
            "spanId": "eee19b7ec3c1b173",
            "name": "chat",
            "startTimeUnixNano": "1544712659000000000",
            "endTimeUnixNano": "1544712662000000000",
            "attributes": [
                attribute("gen_ai.operation.name", {"stringValue": "chat"}),
                attribute("gen_ai.usage.input_tokens", {"intValue": "1200"}),
                attribute(
                    "gen_ai.response.finish_reasons",
                    {"arrayValue": {"values": [{"stringValue": "stop"}]}},
                ),
            ],
        },
    ]
    document = {"resourceSpans": [{"scopeSpans": [{"spans": spans}]}]}
    path = tmp_path / "collector.json"
    path.write_text(json.dumps(document, indent=2))
    (run,) = import_otel(path)
    assert run.run_id == trace_id
    assert run.tool_calls == [ToolCall(name="lookup", args={"q": "AA1"}, error="timed out")]
    assert run.usage is not None and run.usage.input_tokens == 1200
    assert run.turns == 1
    assert run.duration_s == 3.0  # from the first span's start to the last one's end


def test_older_usage_names_and_openllmetry_s_request_type(tmp_path: Path) -> None:
    def older(tracer: Any) -> None:
        attributes = {
            "llm.request.type": "chat",
            "gen_ai.request.model": "gpt-4o",
            gen_ai.GEN_AI_USAGE_PROMPT_TOKENS: 90,
            gen_ai.GEN_AI_USAGE_COMPLETION_TOKENS: 7,
        }
        with tracer.start_as_current_span("openai.chat", attributes=attributes):
            pass

    (run,) = import_otel(write_console(record_spans(older), tmp_path / "spans.json"))
    assert run.usage is not None
    assert (run.usage.input_tokens, run.usage.output_tokens) == (90, 7)
    assert (run.turns, run.metadata["model"]) == (1, "gpt-4o")


_SPAN = '"traceId": "t", "spanId": "s", "name": "chat"'


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ('{"resourceSpans": {}}', "resourceSpans: expected a list, got an object"),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{"spanId": "s", "name": "x"}]}]}]}',
            "resourceSpans[0].scopeSpans[0].spans[0].traceId: required field is missing "
            "(expected a string)",
        ),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{' + _SPAN + ', "attributes": '
            '[{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "many"}}]}]}]}]}',
            "resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.intValue: expected a "
            "whole number, got the string 'many'",
        ),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{' + _SPAN + ', "attributes": '
            '[{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}, '
            '{"key": "gen_ai.output.messages", "value": {"stringValue": "[{"}}]}]}]}]}',
            "resourceSpans[0].scopeSpans[0].spans[0].attributes.gen_ai.output.messages: "
            "malformed JSON at column 3: Expecting property name enclosed in double quotes",
        ),
        (
            '{"resourceSpans": [{"scopeSpans": [{"spans": [{' + _SPAN + ', "attributes": '
            '[{"key": "gen_ai.operation.name", "value": {"stringValue": "chat"}}, '
            '{"key": "gen_ai.usage.input_tokens", "value": {"intValue": "-3"}}]}]}]}]}',
            "resourceSpans[0].scopeSpans[0].spans[0].attributes.gen_ai.usage.input_tokens: "
            "expected a whole number of tokens, got the number -3",
        ),
        (
            '{"name": "x", "context": 3}',
            "context: expected an object with `trace_id`, got the number 3",
        ),
    ],
)
def test_malformed_span_files_name_line_and_field(tmp_path: Path, line: str, message: str) -> None:
    path = tmp_path / "traces.jsonl"
    path.write_text('{"resourceSpans": []}\n' + line + "\n")
    with pytest.raises(DataError) as caught:
        list(import_otel(path))
    assert str(caught.value) == f"{path}:2: {message}"
