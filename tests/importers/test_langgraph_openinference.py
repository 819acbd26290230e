"""`judgekit import openinference` on what openinference-instrumentation-langchain records of
a LangGraph ReAct agent (tests/importers/langgraph_agent.py) run against the fake server: its
spans, taken by the OpenTelemetry SDK's in-memory exporter and written as OTLP JSON, are
compared with the same file read here with json alone."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.formats.run import Run, load_runs
from tests.importers import langgraph_agent as agent
from tests.importers.otel_spans import write_otlp_json

instrumentation = pytest.importorskip(
    "openinference.instrumentation.langchain",
    reason="needs openinference-instrumentation-langchain",
)
trace_sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="needs opentelemetry-sdk")
export = pytest.importorskip("opentelemetry.sdk.trace.export")
in_memory = pytest.importorskip("opentelemetry.sdk.trace.export.in_memory_span_exporter")


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """The OTLP JSON file of the agent's three invocations, and each one's final state."""
    exporter = in_memory.InMemorySpanExporter()
    provider = trace_sdk.TracerProvider()
    provider.add_span_processor(export.SimpleSpanProcessor(exporter))
    instrumentor = instrumentation.LangChainInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    try:
        with agent.FakeLLMServer(agent.reply) as server:
            states = agent.run_conversations(server)
    finally:
        instrumentor.uninstrument()
    provider.shutdown()
    path = tmp_path_factory.mktemp("openinference") / "langgraph-spans.json"
    return write_otlp_json(exporter.get_finished_spans(), path), states


def _spans(path: Path) -> list[dict[str, Any]]:
    """Every span of the OTLP JSON file, its attributes as a plain dict, by start time."""
    document = json.loads(path.read_text())
    spans = []
    for resource in document["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                values = {a["key"]: next(iter(a["value"].values())) for a in span["attributes"]}
                spans.append({**span, "attributes": values})
    return sorted(spans, key=lambda span: int(span["startTimeUnixNano"]))


def _hex(value: str) -> str:
    return base64.b64decode(value).hex()


def _expected_calls(spans: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(name, id, arguments, result, error) of each TOOL span: the call as LangGraph handed
    it to ToolNode (the parent span's input), the result the ToolMessage's content (the error
    too when its status is "error"); a span that failed has its exception text as the error."""
    by_id = {span["spanId"]: span for span in spans}
    calls = []
    for span in spans:
        attributes = span["attributes"]
        if attributes["openinference.span.kind"] != "TOOL":
            continue
        sent = json.loads(by_id[span["parentSpanId"]]["attributes"]["input.value"])["tool_call"]
        result = error = None
        if span["status"].get("code") == "STATUS_CODE_ERROR":
            error = span["status"]["message"].split("Traceback")[0]
        else:
            message = json.loads(attributes["output.value"])["data"]
            assert message["tool_call_id"] == sent["id"]
            content = message["content"]
            result = json.loads(content) if content.startswith("{") else content
            error = content if message["status"] == "error" else None
        calls.append((attributes["tool.name"], sent["id"], sent["args"], result, error))
    return calls


def _llm_spans(spans: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [s for s in spans if s["attributes"]["openinference.span.kind"] == "LLM"]


def _usage(llm_spans: list[dict[str, Any]]) -> tuple[int, int]:
    return (
        sum(int(s["attributes"]["llm.token_count.prompt"]) for s in llm_spans),
        sum(int(s["attributes"]["llm.token_count.completion"]) for s in llm_spans),
    )


def _import(path: Path, out: Path, *options: str) -> tuple[list[Run], str]:
    result = CliRunner().invoke(
        main, ["import", "openinference", str(path), "-o", str(out), *options]
    )
    assert result.exit_code == 0, result.output
    return list(load_runs(out)), result.output


def test_each_langgraph_invocation_is_one_run_with_its_tool_calls(
    recorded: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    path, states = recorded
    spans = _spans(path)
    traces: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        traces.setdefault(_hex(span["traceId"]), []).append(span)
    runs, output = _import(path, tmp_path / "runs.jsonl")
    assert output == (
        "imported 3 runs with 5 tool calls (2 tool errors, 0 with invalid arguments) "
        f"to {tmp_path / 'runs.jsonl'}\n"
    )
    assert [run.run_id for run in runs] == list(traces)
    for run, trace_spans, state, question in zip(
        runs, traces.values(), states, agent.QUESTIONS, strict=True
    ):
        root = trace_spans[0]
        assert "parentSpanId" not in root
        assert run.input == json.loads(root["attributes"]["input.value"])["messages"][0][1]
        assert run.input == question
        calls = [(c.name, c.id, c.args, c.result, c.error) for c in run.tool_calls]
        assert calls == _expected_calls(trace_spans)
        llm_spans = _llm_spans(trace_spans)
        assert run.turns == len(llm_spans)
        assert run.usage is not None
        assert (run.usage.input_tokens, run.usage.output_tokens) == _usage(llm_spans)
        last_output = llm_spans[-1]["attributes"]["llm.output_messages.0.message.content"]
        assert run.final_answer == last_output == state["messages"][-1].content
    assert [[(c.name, c.args, c.result, c.error) for c in run.tool_calls] for run in runs] == [
        [("get_weather", {"city": "Denver"}, {"city": "Denver", "sky": "sunny", "celsius": 21}, None)],
        [
            ("get_weather", {"city": "Atlantis"}, None, "ValueError('no such city: Atlantis')"),
            ("add", {"a": 2, "b": 3}, "5", None),
        ],
        [
            ("get_weather", {"city": "Boston"}, {"city": "Boston", "sky": "sunny", "celsius": 21}, None),
            ("book_flight", {"city": "Boston"}, "No seats left to Boston", "No seats left to Boston"),
        ],
    ]  # fmt: skip
    assert [run.turns for run in runs] == [2, 3, 3]
    assert runs[1].final_answer == "Done after 2 tools: 5"


@pytest.mark.parametrize("group_by", ["session", "thread"])  # thread: the older name
def test_group_by_session_makes_one_run_of_each_threads_traces(
    recorded: tuple[Path, list[Any]], tmp_path: Path, group_by: str
) -> None:
    path, states = recorded
    spans = _spans(path)
    threads: dict[str, list[dict[str, Any]]] = {}
    for span in spans:
        threads.setdefault(span["attributes"]["session.id"], []).append(span)
    assert list(threads) == ["thread-denver", "thread-atlantis"]
    runs, output = _import(path, tmp_path / "runs.jsonl", "--group-by", group_by)
    assert output.startswith("imported 2 runs with 5 tool calls (2 tool errors, ")
    assert [run.run_id for run in runs] == list(threads)
    denver, atlantis = runs
    for run, thread_spans in zip(runs, threads.values(), strict=True):
        calls = [(c.name, c.id, c.args, c.result, c.error) for c in run.tool_calls]
        assert calls == _expected_calls(thread_spans)
        llm_spans = _llm_spans(thread_spans)
        assert run.turns == len(llm_spans)
        assert run.usage is not None
        assert (run.usage.input_tokens, run.usage.output_tokens) == _usage(llm_spans)
        trace_ids = list(dict.fromkeys(_hex(span["traceId"]) for span in thread_spans))
        assert run.metadata["trace_ids"] == trace_ids
        assert run.metadata["session_id"] == run.run_id
    assert [(c.name, c.args["city"]) for c in denver.tool_calls] == [
        ("get_weather", "Denver"),
        ("get_weather", "Boston"),
        ("book_flight", "Boston"),
    ]
    assert (denver.turns, atlantis.turns) == (5, 3)
    assert denver.input == agent.QUESTIONS[0]
    assert denver.final_answer == states[2]["messages"][-1].content
    assert denver.final_answer == "Done after 2 tools: No seats left to Boston"
    assert atlantis.final_answer == states[1]["messages"][-1].content
    # Every turn's question and answer, each after the calls made before it.
    answers = [state["messages"][-1].content for state in states]
    assert [(m.role, m.content, m.after_tool_calls) for m in denver.messages] == [
        ("user", agent.QUESTIONS[0], 0),
        ("assistant", answers[0], 1),
        ("user", agent.QUESTIONS[2], 1),
        ("assistant", answers[2], 3),
    ]
    assert [(m.role, m.content, m.after_tool_calls) for m in atlantis.messages] == [
        ("user", agent.QUESTIONS[1], 0),
        ("assistant", answers[1], 2),
    ]
    assert denver.messages_to_user == [answers[0], answers[2]]


def test_group_by_is_offered_where_the_format_carries_threads() -> None:
    shown = CliRunner().invoke(main, ["import", "openinference", "--help"]).output
    assert "--group-by [trace|session]" in shown
    refused = CliRunner().invoke(main, ["import", "openai", "x.jsonl", "--group-by", "thread"])
    assert refused.exit_code == 2
    assert refused.output == (
        "judgekit: error: No such option '--group-by'. (see judgekit import openai --help)\n"
    )
