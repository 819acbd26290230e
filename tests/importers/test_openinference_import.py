"""`judgekit import openinference` on spans recorded with the real OpenTelemetry SDK carrying
the attribute names of the `openinference-semantic-conventions` package."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.errors import DataError
from judgekit.formats.run import ToolCall
from judgekit.importers.openinference import import_openinference
from judgekit.importers.registry import sniff
from tests.importers.otel_spans import record_spans, write_console, write_otlp_json

semconv = pytest.importorskip(
    "openinference.semconv.trace", reason="needs openinference-semantic-conventions"
)
trace_api = pytest.importorskip("opentelemetry.trace", reason="needs opentelemetry-api")
S = semconv.SpanAttributes
M = semconv.MessageAttributes
T = semconv.ToolCallAttributes
KIND = semconv.OpenInferenceSpanKindValues


def _message(prefix: str, number: int, **fields: Any) -> dict[str, Any]:
    return {f"{prefix}.{number}.{key}": value for key, value in fields.items()}


def _llm(tracer: Any, attributes: dict[str, Any]) -> None:
    with tracer.start_as_current_span(
        "ChatCompletion", attributes={S.OPENINFERENCE_SPAN_KIND: KIND.LLM.value, **attributes}
    ):
        pass


def _refund_agent(tracer: Any) -> None:
    """An agent as the OpenInference instrumentations record it."""
    asked = f"{M.MESSAGE_TOOL_CALLS}.0"
    with tracer.start_as_current_span(
        "shop agent",
        attributes={
            S.OPENINFERENCE_SPAN_KIND: KIND.AGENT.value,
            S.INPUT_VALUE: "Refund order A100 in full.",
            S.OUTPUT_VALUE: "I could not refund A100.",
        },
    ):
        _llm(
            tracer,
            {
                S.LLM_MODEL_NAME: "gpt-4o-mini",
                S.LLM_TOKEN_COUNT_PROMPT: 310,
                S.LLM_TOKEN_COUNT_COMPLETION: 41,
                S.LLM_COST_TOTAL: 0.0002,
                **_message(
                    S.LLM_INPUT_MESSAGES,
                    0,
                    **{M.MESSAGE_ROLE: "user", M.MESSAGE_CONTENT: "Refund order A100 in full."},
                ),
                **_message(
                    S.LLM_OUTPUT_MESSAGES,
                    0,
                    **{
                        M.MESSAGE_ROLE: "assistant",
                        f"{asked}.{T.TOOL_CALL_ID}": "call_1",
                        f"{asked}.{T.TOOL_CALL_FUNCTION_NAME}": "get_order",
                        f"{asked}.{T.TOOL_CALL_FUNCTION_ARGUMENTS_JSON}": '{"order_id": "A100"}',
                    },
                ),
            },
        )
        for name, arguments, output, failure in (
            ("get_order", '{"order_id": "A100"}', '{"status": "delivered", "total": 40}', None),
            ("refund", '{"order_id": "A100", "amount": 400}', None, "amount above total"),
        ):
            with tracer.start_as_current_span(
                name,
                attributes={
                    S.OPENINFERENCE_SPAN_KIND: KIND.TOOL.value,
                    S.TOOL_NAME: name,
                    S.INPUT_VALUE: arguments,
                    **({S.OUTPUT_VALUE: output} if output is not None else {}),
                },
            ) as span:
                if failure is not None:
                    span.set_status(trace_api.Status(trace_api.StatusCode.ERROR, failure))
        _llm(
            tracer,
            {
                S.LLM_TOKEN_COUNT_PROMPT: 420,
                S.LLM_TOKEN_COUNT_COMPLETION: 18,
                S.LLM_COST_TOTAL: 0.0001,
                **_message(
                    S.LLM_OUTPUT_MESSAGES,
                    0,
                    **{M.MESSAGE_ROLE: "assistant", M.MESSAGE_CONTENT: "I could not refund A100."},
                ),
            },
        )


@pytest.mark.parametrize("writer", [write_console, write_otlp_json])
def test_sdk_spans_become_one_run_per_trace(tmp_path: Path, writer: Any) -> None:
    spans = record_spans(_refund_agent)
    trace_id = format(spans[0].context.trace_id, "032x")
    root_span_id = format(next(s for s in spans if s.parent is None).context.span_id, "016x")
    path = writer(spans, tmp_path / "phoenix.json")
    assert sniff(path) == "openinference"
    (run,) = import_openinference(path)
    assert run.run_id == trace_id
    assert run.task_id == "phoenix"
    assert run.input == "Refund order A100 in full."
    assert run.tool_calls == [
        ToolCall(
            name="get_order", args={"order_id": "A100"}, result={"status": "delivered", "total": 40}
        ),
        ToolCall(
            name="refund", args={"order_id": "A100", "amount": 400}, error="amount above total"
        ),
    ]
    assert run.final_answer == "I could not refund A100."
    assert run.turns == 2
    assert run.usage is not None
    assert (run.usage.input_tokens, run.usage.output_tokens) == (730, 59)
    assert run.cost_usd == pytest.approx(0.0003, abs=1e-12)
    assert run.metadata == {
        "trace_id": trace_id,
        "root_span_id": root_span_id,
        "model": "gpt-4o-mini",
    }


def test_the_model_s_requested_calls_stand_in_without_tool_spans(tmp_path: Path) -> None:
    def llm_only(tracer: Any) -> None:
        asked = f"{M.MESSAGE_TOOL_CALLS}.0"
        with tracer.start_as_current_span("agent", attributes={S.OPENINFERENCE_SPAN_KIND: "AGENT"}):
            _llm(
                tracer,
                _message(
                    S.LLM_OUTPUT_MESSAGES,
                    0,
                    **{
                        f"{asked}.{T.TOOL_CALL_ID}": "c1",
                        f"{asked}.{T.TOOL_CALL_FUNCTION_NAME}": "get_order",
                        f"{asked}.{T.TOOL_CALL_FUNCTION_ARGUMENTS_JSON}": '{"order_id": "A1"',
                    },
                ),
            )
            tool_reply = {
                M.MESSAGE_ROLE: "tool",
                M.MESSAGE_TOOL_CALL_ID: "c1",
                M.MESSAGE_CONTENT: "Error: no such order",
            }
            _llm(tracer, _message(S.LLM_INPUT_MESSAGES, 0, **tool_reply))

    (run,) = import_openinference(write_console(record_spans(llm_only), tmp_path / "s.json"))
    assert run.tool_calls == [
        ToolCall(
            name="get_order",
            id="c1",
            raw_arguments='{"order_id": "A1"',
            arguments_error="not valid JSON: Expecting ',' delimiter: line 1 column 18 (char 17)",
            result="Error: no such order",
        )
    ]


def test_import_otel_on_openinference_spans_names_openinference(tmp_path: Path) -> None:
    path = write_otlp_json(record_spans(_refund_agent), tmp_path / "phoenix.jsonl")
    result = CliRunner().invoke(main, ["import", "otel", str(path)])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {path}: this looks like OpenInference spans; "
        "try `judgekit import openinference`\n"
    )
    result = CliRunner().invoke(
        main, ["import", "openinference", str(path), "-o", str(tmp_path / "r")]
    )
    assert result.exit_code == 0, result.output
    assert result.output == (
        "imported 1 runs with 2 tool calls (1 tool errors, 0 with invalid arguments) "
        f"to {tmp_path / 'r'}\n"
    )


def _span_line(attributes: dict[str, Any], span_id: str = "0x02") -> str:
    return json.dumps(
        {"name": "x", "context": {"trace_id": "0x01", "span_id": span_id}, "attributes": attributes}
    )


@pytest.mark.parametrize(
    ("attributes", "message"),
    [
        (
            {"openinference.span.kind": "LLM", "llm.token_count.prompt": "9"},
            "attributes.llm.token_count.prompt: expected a whole number of tokens, got the string '9'",
        ),
        (
            {"openinference.span.kind": "LLM", "llm.cost.total": -1},
            "attributes.llm.cost.total: expected a cost in USD (a number ≥ 0), got the number -1",
        ),
        (
            {"openinference.span.kind": "TOOL", "tool.name": ["refund"]},
            "attributes.tool.name: expected a string, got a list",
        ),
    ],
)
def test_malformed_spans_name_line_and_field(
    tmp_path: Path, attributes: dict[str, Any], message: str
) -> None:
    path = tmp_path / "spans.jsonl"
    path.write_text(
        _span_line({"openinference.span.kind": "AGENT"})
        + "\n"
        + _span_line(attributes, span_id="0x03")
        + "\n"
    )
    with pytest.raises(DataError) as caught:
        list(import_openinference(path))
    assert str(caught.value) == f"{path}:2: {message}"
