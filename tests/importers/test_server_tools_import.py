"""Server-side tools (run by the provider) imported as tool calls with ``executed_by="provider"``.

The Anthropic transcript is recorded with the real anthropic SDK against the fake server,
saved as the SDK serialises the Message (``model_dump``); the Responses log is built with
the openai SDK's own Response types. Each import is compared with the file's own blocks.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.formats.run import ToolCall, load_runs
from judgekit.importers import import_anthropic
from judgekit.importers.openai_responses import import_openai_responses
from judgekit.testing import FakeLLMServer, FakeRequest
from judgekit.testing.logprobs import Reply

anthropic = pytest.importorskip("anthropic", reason="needs the anthropic SDK")
responses = pytest.importorskip("openai.types.responses", reason="needs the openai SDK")

SEARCH_HITS = [
    {
        "type": "web_search_result",
        "url": "https://weather.example/denver",
        "title": "Denver weather",
        "encrypted_content": "EqgfCioIARgB",
        "page_age": "1 hour ago",
    }
]
SERVER_BLOCKS = (
    {"type": "server_tool_use", "id": "srvtoolu_01", "name": "web_search",
     "input": {"query": "Denver weather Friday"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_01", "content": SEARCH_HITS},
    {"type": "server_tool_use", "id": "srvtoolu_02", "name": "code_execution",
     "input": {"code": "print(21 * 2)"}},
    {"type": "code_execution_tool_result", "tool_use_id": "srvtoolu_02",
     "content": {"type": "code_execution_result", "stdout": "42\n", "stderr": "",
                 "return_code": 0, "content": []}},
    {"type": "server_tool_use", "id": "srvtoolu_03", "name": "web_search",
     "input": {"query": "Denver forecast"}},
    {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_03",
     "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}},
    {"type": "tool_use", "id": "toolu_04", "name": "book_flight",
     "input": {"flight_id": "AA123"}},
)  # fmt: skip


def _record_anthropic(path: Path) -> list[dict[str, Any]]:
    """One agent turn over the real SDK: the model searches, runs code, calls a tool."""

    def reply(request: FakeRequest) -> Reply:
        return Reply("Checking the weather.", content_blocks=SERVER_BLOCKS)

    question = {"role": "user", "content": "Book AA123 if Friday is dry in Denver."}
    with FakeLLMServer(reply) as server:
        client = anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test")
        message = client.messages.create(
            model="claude-sonnet-4-5",
            max_tokens=512,
            messages=[question],  # type: ignore[list-item]
            tools=[
                {"type": "web_search_20250305", "name": "web_search", "max_uses": 1},
                {"type": "code_execution_20250825", "name": "code_execution"},
            ],  # type: ignore[list-item]
        )
    messages = [question, message.model_dump(mode="json")]
    path.write_text(json.dumps({"run_id": "r1", "task_id": "t", "messages": messages}))
    return messages


def _expected_anthropic_calls(content: list[dict[str, Any]]) -> list[ToolCall]:
    """The tool calls read straight from the saved blocks, without the importer."""
    results = {b["tool_use_id"]: b["content"] for b in content if "tool_use_id" in b}
    calls = []
    for block in content:
        if block["type"] in ("server_tool_use", "tool_use"):
            result = results.get(block["id"])
            failed = isinstance(result, dict) and result["type"].endswith("_error")
            calls.append(
                ToolCall(
                    name=block["name"],
                    args=block["input"],
                    id=block["id"],
                    result=result,
                    error=result["error_code"] if failed else None,
                    executed_by="provider" if block["type"] == "server_tool_use" else "agent",
                )
            )
    return calls


def test_anthropic_server_tools_are_provider_run_calls(tmp_path: Path) -> None:
    path = tmp_path / "claude.json"
    messages = _record_anthropic(path)
    content = messages[1]["content"]
    assert [block["type"] for block in content][:3] == [
        "text",
        "server_tool_use",
        "web_search_tool_result",
    ]
    (run,) = import_anthropic(path)
    assert run.tool_calls == _expected_anthropic_calls(content)
    assert [(c.name, c.executed_by, c.error) for c in run.tool_calls] == [
        ("web_search", "provider", None),
        ("code_execution", "provider", None),
        ("web_search", "provider", "max_uses_exceeded"),
        ("book_flight", "agent", None),
    ]
    assert run.tool_calls[1].result["stdout"] == "42\n"
    assert run.turns == 1
    assert run.usage is not None
    assert run.usage.input_tokens == messages[1]["usage"]["input_tokens"] == 8
    assert run.messages_to_user == ["Checking the weather."]


def test_the_runs_file_keeps_who_ran_each_tool(tmp_path: Path) -> None:
    source = tmp_path / "claude.json"
    _record_anthropic(source)
    out = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "anthropic", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    line = json.loads(out.read_text().splitlines()[0])
    # The default (run by the agent) is left out of the file, as every default is.
    assert [call.get("executed_by") for call in line["tool_calls"]] == [
        "provider",
        "provider",
        "provider",
        None,
    ]
    (run,) = load_runs(out)
    assert [c.executed_by for c in run.tool_calls] == ["provider"] * 3 + ["agent"]


def _responses_log(path: Path) -> list[dict[str, Any]]:
    """A response whose output holds OpenAI's built-in tools, as Response.model_dump() writes it."""
    output = [
        responses.ResponseFunctionWebSearch(
            id="ws_1",
            type="web_search_call",
            status="completed",
            action={"type": "search", "query": "Denver weather Friday"},
        ),
        responses.ResponseFileSearchToolCall(
            id="fs_1",
            type="file_search_call",
            status="completed",
            queries=["refund policy"],
            results=[
                {
                    "file_id": "file_1",
                    "filename": "policy.md",
                    "score": 0.9,
                    "text": "Refunds within 30 days.",
                }
            ],
        ),
        responses.ResponseCodeInterpreterToolCall(
            id="ci_1",
            type="code_interpreter_call",
            status="failed",
            code="1/0",
            container_id="cntr_1",
            outputs=[{"type": "logs", "logs": "ZeroDivisionError"}],
        ),
        responses.ResponseComputerToolCall(
            id="cu_1",
            type="computer_call",
            call_id="call_cu_1",
            status="completed",
            action={"type": "click", "button": "left", "x": 10, "y": 20},
            pending_safety_checks=[],
        ),
    ]
    response = responses.Response(
        id="resp_1",
        object="response",
        created_at=1_760_000_000.0,
        model="gpt-4.1",
        output=output,
        parallel_tool_calls=True,
        tool_choice="auto",
        tools=[],
    )
    screenshot = {"type": "computer_screenshot", "image_url": "data:image/png;base64,AAAA"}
    answer = {"type": "computer_call_output", "call_id": "call_cu_1", "output": screenshot}
    records = [response.model_dump(mode="json"), {"previous_response_id": "resp_1",
               "id": "resp_2", "input": [answer], "output": []}]  # fmt: skip
    path.write_text("\n".join(json.dumps(record) for record in records) + "\n")
    return records


def test_openai_builtin_tools_are_provider_run_calls_with_their_results(tmp_path: Path) -> None:
    path = tmp_path / "responses.jsonl"
    records = _responses_log(path)
    items = records[0]["output"]
    (run,) = import_openai_responses(path)
    assert run.tool_calls == [
        ToolCall(name="web_search_call", args=items[0]["action"], id="ws_1",
                 executed_by="provider"),
        ToolCall(name="file_search_call", args={"queries": items[1]["queries"]},
                 result=items[1]["results"], id="fs_1", executed_by="provider"),
        ToolCall(name="code_interpreter_call", args={"code": "1/0", "container_id": "cntr_1"},
                 result=items[2]["outputs"], id="ci_1", error="the tool reported an error",
                 executed_by="provider"),
        ToolCall(name="computer_call", args=items[3]["action"], id="call_cu_1",
                 result=records[1]["input"][0]["output"]),
    ]  # fmt: skip


def test_anthropic_mcp_connector_calls_are_provider_run(tmp_path: Path) -> None:
    beta = pytest.importorskip("anthropic.types.beta", reason="needs the anthropic SDK")
    use = beta.BetaMCPToolUseBlock(
        type="mcp_tool_use",
        id="mcptoolu_1",
        name="lookup_order",
        server_name="shop",
        input={"order_id": "A100"},
    )
    answers = [
        beta.BetaMCPToolResultBlock(
            type="mcp_tool_result",
            tool_use_id="mcptoolu_1",
            is_error=True,
            content=[{"type": "text", "text": "order A100 not found"}],
        )
    ]
    content = [use.model_dump(mode="json"), *(a.model_dump(mode="json") for a in answers)]
    messages = [
        {"role": "user", "content": "Where is A100?"},
        {"role": "assistant", "content": content},
    ]
    path = tmp_path / "mcp.json"
    path.write_text(json.dumps({"messages": messages}))
    (run,) = import_anthropic(path)
    assert run.tool_calls == [
        ToolCall(
            name=content[0]["name"],
            args=content[0]["input"],
            id="mcptoolu_1",
            result=content[1]["content"][0]["text"],
            error="order A100 not found",
            executed_by="provider",
        )
    ]


def test_openai_mcp_calls_are_provider_run(tmp_path: Path) -> None:
    item = responses.response_output_item.McpCall(
        type="mcp_call",
        id="mcp_1",
        server_label="shop",
        name="lookup_order",
        arguments='{"order_id": "A100"}',
        output='{"status": "shipped"}',
    )
    path = tmp_path / "responses.json"
    path.write_text(json.dumps({"output": [item.model_dump(mode="json")]}))
    (run,) = import_openai_responses(path)
    assert run.tool_calls == [
        ToolCall(
            name="lookup_order",
            args=json.loads(item.arguments),
            result=json.loads(item.output or ""),
            executed_by="provider",
        )
    ]
