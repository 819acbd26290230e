"""`judgekit import openai-responses` on logs built with the openai SDK's own Response types."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.errors import DataError
from judgekit.formats.run import ToolCall
from judgekit.importers.openai_responses import import_openai_responses
from judgekit.importers.registry import sniff

responses = pytest.importorskip("openai.types.responses", reason="needs the openai SDK")
input_item = pytest.importorskip("openai.types.responses.response_input_item")

USAGE_DETAILS = {
    "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
    "output_tokens_details": {"reasoning_tokens": 0},
}


def _usage(input_tokens: int, output_tokens: int) -> Any:
    return responses.ResponseUsage(
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        total_tokens=input_tokens + output_tokens,
        **USAGE_DETAILS,
    )


def _response(response_id: str, output: list[Any], usage: Any, **more: Any) -> Any:
    return responses.Response(
        id=response_id,
        object="response",
        created_at=1_760_000_000.0,
        model="gpt-4.1-mini-2025-04-14",
        output=output,
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
        usage=usage,
        status="completed",
        **more,
    )


def _logged(response: Any, inputs: list[Any]) -> dict[str, Any]:
    """A response as a logger keeps it: the SDK's dump, with the request's input items."""
    record: dict[str, Any] = response.model_dump(mode="json")
    record["input"] = [item.model_dump(mode="json", exclude_none=True) for item in inputs]
    return record


def _refund_chain() -> list[dict[str, Any]]:
    question = input_item.Message(
        role="user",
        content=[{"type": "input_text", "text": "Refund order A100 in full, please."}],
    )
    first = _response(
        "resp_1",
        [
            responses.ResponseReasoningItem(id="rs_1", summary=[], type="reasoning"),
            responses.ResponseFunctionToolCall(
                type="function_call",
                call_id="call_a",
                name="get_order",
                arguments='{"order_id": "A100"}',
            ),
            responses.ResponseFunctionToolCall(
                type="function_call",
                call_id="call_b",
                name="refund",
                arguments='{"order_id": "A100", "amount": 40',
            ),
        ],
        _usage(120, 30),
    )
    outputs = [
        input_item.FunctionCallOutput(
            type="function_call_output",
            call_id="call_a",
            output='{"status": "delivered", "total": 40}',
        ),
        input_item.FunctionCallOutput(
            type="function_call_output", call_id="call_b", output="Error: amount is required"
        ),
    ]
    answer = responses.ResponseOutputMessage(
        id="msg_1",
        role="assistant",
        status="completed",
        type="message",
        content=[
            responses.ResponseOutputText(
                type="output_text", text="I could not refund.", annotations=[]
            )
        ],
    )
    second = _response("resp_2", [answer], _usage(200, 12), previous_response_id="resp_1")
    return [_logged(first, [question]), _logged(second, outputs)]


def test_a_chain_of_responses_is_one_run_with_its_calls_paired(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in _refund_chain()))
    (run,) = import_openai_responses(path)
    assert run.run_id == "resp_1"
    assert run.task_id == "responses"
    assert run.input == "Refund order A100 in full, please."
    assert run.tool_calls == [
        ToolCall(
            name="get_order",
            args={"order_id": "A100"},
            id="call_a",
            result={"status": "delivered", "total": 40},
        ),
        ToolCall(
            name="refund",
            args={},
            id="call_b",
            raw_arguments='{"order_id": "A100", "amount": 40',
            arguments_error="not valid JSON: Expecting ',' delimiter: line 1 column 34 (char 33)",
            result="Error: amount is required",
            error="Error: amount is required",
        ),
    ]
    assert run.final_answer == "I could not refund."
    assert run.turns == 2
    assert run.usage is not None
    assert (run.usage.input_tokens, run.usage.output_tokens) == (320, 42)
    assert run.stop_reason is None
    assert run.metadata == {"model": "gpt-4.1-mini-2025-04-14"}


def test_the_command_writes_the_runs_and_the_file_is_sniffed(tmp_path: Path) -> None:
    path = tmp_path / "responses.json"
    path.write_text(json.dumps(_refund_chain(), indent=2))
    assert sniff(path) == "openai-responses"
    out = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "openai-responses", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"imported 1 runs with 2 tool calls (1 tool errors, 1 with invalid arguments) to {out}\n"
    )
    assert json.loads(out.read_text())["tool_calls"][0]["name"] == "get_order"


def test_import_openai_on_responses_names_openai_responses(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in _refund_chain()))
    result = CliRunner().invoke(main, ["import", "openai", str(path)])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {path}: this looks like OpenAI Responses API output; "
        "try `judgekit import openai-responses`\n"
    )


def test_a_failed_response_stops_with_an_error_and_unchained_ones_are_runs(
    tmp_path: Path,
) -> None:
    failed = _response("resp_9", [], _usage(5, 0)).model_dump(mode="json")
    failed["status"] = "failed"
    alone = _refund_chain()[0]
    path = tmp_path / "responses.jsonl"
    path.write_text(json.dumps(failed) + "\n" + json.dumps(alone) + "\n")
    runs = list(import_openai_responses(path, task_id="refund_full"))
    assert [(run.run_id, run.stop_reason, run.task_id) for run in runs] == [
        ("resp_9", "error", "refund_full"),
        ("resp_1", None, "refund_full"),
    ]
    assert [call.result for call in runs[1].tool_calls] == [None, None]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '{"id": "r", "output": {"type": "message"}}',
            "output: expected a list of items, got an object",
        ),
        (
            '{"id": "r", "output": [3]}',
            "output[0]: expected an input or output item object with a `type`, got the number 3",
        ),
        (
            '{"id": "r", "output": [{"type": "function_call", "call_id": "c"}]}',
            "output[0].name: required field is missing (expected a string)",
        ),
        (
            '{"id": "r", "output": [{"type": "function_call_output", "output": "ok"}]}',
            "output[0].call_id: required field is missing (expected a string)",
        ),
        (
            '{"id": "r", "output": [], "usage": {"input_tokens": -1}}',
            "usage.input_tokens: expected a whole number of tokens, got the number -1",
        ),
        ('{"id": "r"}', "output: required field is missing (expected a list of items)"),
    ],
)
def test_malformed_logs_name_line_and_field(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "responses.jsonl"
    path.write_text('{"id": "r0", "output": []}\n' + text + "\n")
    with pytest.raises(DataError) as caught:
        list(import_openai_responses(path))
    assert str(caught.value) == f"{path}:2: {message}"
