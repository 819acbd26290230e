"""`judgekit import langsmith` on what langsmith's own tracer records of a LangGraph ReAct
agent (tests/importers/langgraph_agent.py) run against the fake server: the tracer posts its
runs to a stand-in LangSmith API on 127.0.0.1 (tests/importers/langsmith_stand_in.py), the
real ``langsmith.Client.list_runs`` reads them back, and they are exported as a user does,
one ``run.model_dump_json()`` a line. The import is compared with that file read here with
json alone."""

from __future__ import annotations

import json
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.formats.run import Run, load_runs
from tests.importers import langgraph_agent as agent
from tests.importers.langsmith_stand_in import LangSmithStandIn

langsmith = pytest.importorskip("langsmith", reason="needs langsmith")
tracers = pytest.importorskip("langchain_core.tracers.langchain", reason="needs langchain-core")

PROJECT = "weather-agent"


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """The export of the agent's three invocations, and each one's final state."""
    with pytest.MonkeyPatch.context() as env:
        for name in ("LANGSMITH_TRACING", "LANGCHAIN_TRACING_V2", "LANGSMITH_API_KEY"):
            env.delenv(name, raising=False)  # only the tracer given here records
        with LangSmithStandIn(PROJECT) as stand_in:
            client = langsmith.Client(api_url=stand_in.url, api_key="placeholder")
            tracer = tracers.LangChainTracer(project_name=PROJECT, client=client)
            with agent.FakeLLMServer(agent.reply) as server:
                states = agent.run_conversations(server, callbacks=[tracer])
            tracer.wait_for_futures()
            client.flush()
            reader = langsmith.Client(api_url=stand_in.url, api_key="placeholder")
            with warnings.catch_warnings():
                # list_runs is deprecated for client.runs.query, but is what exports use
                warnings.simplefilter("ignore", DeprecationWarning)
                runs = list(reader.list_runs(project_name=PROJECT))
    assert stand_in.unexpected == []
    assert set(stand_in.paths) == {
        "GET /info",
        "POST /runs/batch",
        "GET /sessions",
        "POST /runs/query",
    }
    path = tmp_path_factory.mktemp("langsmith") / "langgraph-runs.jsonl"
    path.write_text("".join(run.model_dump_json() + "\n" for run in runs))
    return path, states


def _by_trace(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The exported runs of each trace, in start order, traces in the order they began."""
    runs = [json.loads(line) for line in path.read_text().splitlines()]
    runs.sort(key=lambda run: datetime.fromisoformat(run["start_time"]))
    traces: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        traces.setdefault(run["trace_id"], []).append(run)
    return traces


def _expected_calls(runs: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """(name, id, arguments, result, error) of each tool run: the id the model's call's, the
    result the ToolMessage's content (the error too when its status is "error"); a run that
    raised has LangChain's exception text as the error."""
    calls = []
    for run in runs:
        if run["run_type"] != "tool":
            continue
        result = error = None
        if run["error"] is not None:
            error = run["error"].split("Traceback")[0]
            assert run["outputs"] == {}
        else:
            message = run["outputs"]["output"]
            assert (message["type"], message["tool_call_id"]) == (
                "tool",
                run["extra"]["tool_call_id"],
            )
            content = message["content"]
            result = json.loads(content) if content.startswith("{") else content
            error = content if message["status"] == "error" else None
        calls.append((run["name"], run["extra"]["tool_call_id"], run["inputs"], result, error))
    return calls


def _usage(runs: list[dict[str, Any]]) -> tuple[int, int]:
    """The tokens the llm runs' outputs say the API counted (as the tracer's metadata does)."""
    llm = [run for run in runs if run["run_type"] == "llm"]
    counted = [run["outputs"]["llm_output"]["token_usage"] for run in llm]
    sent = [run["extra"]["metadata"]["usage_metadata"] for run in llm]
    assert [(c["prompt_tokens"], c["completion_tokens"]) for c in counted] == [
        (s["input_tokens"], s["output_tokens"]) for s in sent
    ]
    return sum(c["prompt_tokens"] for c in counted), sum(c["completion_tokens"] for c in counted)


def _import(path: Path, out: Path, *options: str) -> tuple[list[Run], str]:
    result = CliRunner().invoke(main, ["import", "langsmith", str(path), "-o", str(out), *options])
    assert result.exit_code == 0, result.output
    return list(load_runs(out)), result.output


def test_each_langgraph_invocation_is_one_run_with_tool_message_contents(
    recorded: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    path, states = recorded
    traces = _by_trace(path)
    runs, output = _import(path, tmp_path / "runs.jsonl")
    assert output == (
        "imported 3 runs with 5 tool calls (2 tool errors, 0 with invalid arguments) "
        f"to {tmp_path / 'runs.jsonl'}\n"
    )
    assert [run.run_id for run in runs] == list(traces)
    for run, trace, state, question in zip(
        runs, traces.values(), states, agent.QUESTIONS, strict=True
    ):
        root = trace[0]
        assert root["parent_run_id"] is None
        assert run.input == root["inputs"]["messages"][0][1] == question
        calls = [(c.name, c.id, c.args, c.result, c.error) for c in run.tool_calls]
        assert calls == _expected_calls(trace)
        assert run.turns == sum(1 for r in trace if r["run_type"] == "llm")
        assert run.usage is not None
        assert (run.usage.input_tokens, run.usage.output_tokens) == _usage(trace)
        last_ai = [m for m in root["outputs"]["messages"] if m["type"] == "ai"][-1]
        assert run.final_answer == last_ai["content"] == state["messages"][-1].content
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
    assert runs[2].input == agent.QUESTIONS[2]


@pytest.mark.parametrize("group_by", ["session", "thread"])  # thread: the older name
def test_group_by_session_makes_one_run_of_each_threads_traces(
    recorded: tuple[Path, list[Any]], tmp_path: Path, group_by: str
) -> None:
    path, states = recorded
    threads: dict[str, list[dict[str, Any]]] = {}
    for trace in _by_trace(path).values():
        thread = trace[0]["extra"]["metadata"]["thread_id"]
        threads.setdefault(thread, []).extend(trace)
    assert list(threads) == ["thread-denver", "thread-atlantis"]
    runs, output = _import(path, tmp_path / "runs.jsonl", "--group-by", group_by)
    assert output.startswith("imported 2 runs with 5 tool calls (2 tool errors, ")
    assert [run.run_id for run in runs] == list(threads)
    for run, thread_runs in zip(runs, threads.values(), strict=True):
        calls = [(c.name, c.id, c.args, c.result, c.error) for c in run.tool_calls]
        assert calls == _expected_calls(thread_runs)
        assert run.turns == sum(1 for r in thread_runs if r["run_type"] == "llm")
        assert run.usage is not None
        assert (run.usage.input_tokens, run.usage.output_tokens) == _usage(thread_runs)
        roots = [r["id"] for r in thread_runs if r["parent_run_id"] is None]
        assert run.metadata["trace_ids"] == roots
        assert run.metadata["thread_id"] == run.run_id
    denver, atlantis = runs
    assert [(c.name, c.args["city"]) for c in denver.tool_calls] == [
        ("get_weather", "Denver"),
        ("get_weather", "Boston"),
        ("book_flight", "Boston"),
    ]
    assert (denver.turns, atlantis.turns) == (5, 3)
    assert denver.input == agent.QUESTIONS[0]
    assert denver.final_answer == states[2]["messages"][-1].content
    assert atlantis.final_answer == states[1]["messages"][-1].content == "Done after 2 tools: 5"
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
