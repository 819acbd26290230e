"""`judgekit import mlflow` on the traces MLflow's tracing SDK wrote of a tool-calling agent
over the openai SDK against the fake server (``examples/traces/record_mlflow.py``, mlflow-tracing
3.17.2): the runs hold exactly what the traces say, as MLflow's own classes read them."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.formats.run import Run, load_runs

DATA = Path(__file__).resolve().parents[2] / "examples" / "traces"
JSONL = DATA / "mlflow_traces.jsonl"
LISTED = DATA / "mlflow_traces.json"
QUESTIONS = [
    "What is the weather in Denver?",
    "Weather in Atlantis, and what is 2 + 3?",
    "And in Boston? Book me a flight there.",
]
DENVER = {"city": "Denver", "sky": "sunny", "celsius": 21}
BOSTON = {"city": "Boston", "sky": "sunny", "celsius": 21}


def _traces() -> list[dict[str, Any]]:
    return [json.loads(line) for line in JSONL.read_text().splitlines()]


def _import(path: Path, out: Path, *options: str) -> tuple[list[Run], str]:
    result = CliRunner().invoke(main, ["import", "mlflow", str(path), "-o", str(out), *options])
    assert result.exit_code == 0, result.output
    return list(load_runs(out)), result.output


def _calls(run: Run) -> list[tuple[Any, ...]]:
    return [(c.name, c.id, c.args, c.result, c.error) for c in run.tool_calls]


def test_each_trace_is_a_run_with_its_tool_calls_answer_and_usage(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    runs, output = _import(JSONL, out)
    assert output == (
        f"imported 3 runs with 5 tool calls (2 tool errors, 0 with invalid arguments) to {out}\n"
    )
    traces = _traces()
    assert [run.run_id for run in runs] == [trace["info"]["trace_id"] for trace in traces]
    assert [run.input for run in runs] == QUESTIONS
    assert [_calls(run) for run in runs] == [
        [("get_weather", "call_0_0", {"city": "Denver"}, DENVER, None)],
        [
            ("get_weather", "call_1_0", {"city": "Atlantis"}, None,
             "ValueError: no such city: Atlantis"),
            ("add", "call_1_1", {"a": 2, "b": 3}, 5, None),
        ],
        [
            ("get_weather", "call_2_0", {"city": "Boston"}, BOSTON, None),
            ("book_flight", "call_2_1", {"city": "Boston"}, "Error: no seats left to Boston",
             "Error: no seats left to Boston"),
        ],
    ]  # fmt: skip
    assert [run.final_answer for run in runs] == [
        'Done after 1 tools: {"city": "Denver", "sky": "sunny", "celsius": 21}',
        "Done after 2 tools: 5",
        "Done after 2 tools: Error: no seats left to Boston",
    ]
    assert [run.messages_to_user for run in runs] == [[run.final_answer] for run in runs]
    assert [run.turns for run in runs] == [2, 3, 3]
    assert [(run.usage.input_tokens, run.usage.output_tokens) for run in runs if run.usage] == [
        (24, 10),
        (47, 5),
        (51, 10),
    ]
    sessions = ["session-denver", "session-atlantis", "session-denver"]
    assert [run.metadata for run in runs] == [
        {"trace_id": trace["info"]["trace_id"], "root_span_id": _root_span_id(trace),
         "session_id": session, "user_id": "ana",
         "name": "agent", "agent_name": "agent", "model": "gpt-4o-mini"}
        for trace, session in zip(traces, sessions, strict=True)
    ]  # fmt: skip
    assert {run.task_id for run in runs} == {"mlflow_traces"}


def test_the_runs_agree_with_what_mlflows_own_classes_read() -> None:
    from judgekit.importers.mlflow_traces import import_mlflow

    entities = pytest.importorskip("mlflow.entities", reason="needs mlflow-tracing")
    traces = [entities.Trace.from_json(line) for line in JSONL.read_text().splitlines()]
    runs = list(import_mlflow(JSONL))
    for run, trace in zip(runs, traces, strict=True):
        assert run.run_id == trace.info.trace_id
        usage = trace.info.token_usage
        assert run.usage is not None
        assert (run.usage.input_tokens, run.usage.output_tokens) == (
            usage["input_tokens"],
            usage["output_tokens"],
        )
        tools = trace.search_spans(span_type="TOOL")
        assert [(c.name, c.args) for c in run.tool_calls] == [(s.name, s.inputs) for s in tools]
        assert run.final_answer == trace.data.spans[0].outputs
        assert run.turns == len(trace.search_spans(span_type="CHAT_MODEL"))
        spans = trace.data.spans
        first, last = min(s.start_time_ns for s in spans), max(s.end_time_ns for s in spans)
        assert run.duration_s == (last - first) / 1e9


def test_a_json_list_of_traces_gives_the_same_runs(tmp_path: Path) -> None:
    from_lines, _ = _import(JSONL, tmp_path / "a.jsonl")
    from_list, _ = _import(LISTED, tmp_path / "b.jsonl")
    assert [run.model_dump() for run in from_list] == [run.model_dump() for run in from_lines]


def test_group_by_session_makes_one_run_of_each_sessions_traces(tmp_path: Path) -> None:
    out = tmp_path / "runs.jsonl"
    runs, output = _import(JSONL, out, "--group-by", "session")
    assert output == (
        f"imported 2 runs with 5 tool calls (2 tool errors, 0 with invalid arguments) to {out}\n"
    )
    ids = [trace["info"]["trace_id"] for trace in _traces()]
    denver, atlantis = runs
    assert (denver.run_id, atlantis.run_id) == ("session-denver", "session-atlantis")
    assert denver.metadata["trace_ids"] == [ids[0], ids[2]]
    assert atlantis.metadata["trace_ids"] == [ids[1]]
    assert [(c.name, c.id, c.args) for c in denver.tool_calls] == [
        ("get_weather", "call_0_0", {"city": "Denver"}),
        ("get_weather", "call_2_0", {"city": "Boston"}),
        ("book_flight", "call_2_1", {"city": "Boston"}),
    ]
    assert denver.input == QUESTIONS[0]
    assert denver.final_answer == "Done after 2 tools: Error: no seats left to Boston"
    assert denver.messages_to_user == [
        'Done after 1 tools: {"city": "Denver", "sky": "sunny", "celsius": 21}',
        "Done after 2 tools: Error: no seats left to Boston",
    ]
    assert (denver.turns, atlantis.turns) == (5, 3)
    assert denver.usage is not None and atlantis.usage is not None
    assert (denver.usage.input_tokens, denver.usage.output_tokens) == (24 + 51, 10 + 10)
    assert (atlantis.usage.input_tokens, atlantis.usage.output_tokens) == (47, 5)
    assert denver.metadata["session_id"] == "session-denver"
    assert "trace_id" not in denver.metadata


def test_error_pattern_off_keeps_an_error_text_a_result(tmp_path: Path) -> None:
    runs, _ = _import(JSONL, tmp_path / "runs.jsonl", "--error-pattern", "")
    assert [(c.name, c.error) for c in runs[2].tool_calls] == [
        ("get_weather", None),
        ("book_flight", None),
    ]
    assert runs[1].tool_calls[0].error == "ValueError: no such city: Atlantis"


def test_the_help_offers_group_by_and_error_pattern() -> None:
    shown = CliRunner().invoke(main, ["import", "mlflow", "--help"]).output
    assert "--group-by [trace|session]" in shown
    assert "--error-pattern" in shown


def _root_span_id(trace: dict[str, Any]) -> str:
    """The trace's root span's id as the span importers record it (hex, no 0x)."""
    (root,) = [span for span in trace["data"]["spans"] if not span.get("parent_span_id")]
    return base64.b64decode(root["span_id"]).hex()


def _hex(value: str) -> str:
    return "0x" + base64.b64decode(value).hex()


def _as_mlflow_2(trace: dict[str, Any]) -> dict[str, Any]:
    """The trace as MLflow 2 wrote it: ``request_id``, ``request_metadata``, spans with a
    hex ``context`` and ``status_code``."""
    info = trace["info"]
    spans = [
        {
            "name": span["name"],
            "context": {"span_id": _hex(span["span_id"]), "trace_id": _hex(span["trace_id"])},
            "parent_id": _hex(span["parent_span_id"]) if span["parent_span_id"] else None,
            "start_time": span["start_time_unix_nano"],
            "end_time": span["end_time_unix_nano"],
            "status_code": span["status"]["code"].removeprefix("STATUS_CODE_"),
            "status_message": span["status"]["message"],
            "attributes": span["attributes"],
            "events": [
                {"name": e["name"], "timestamp": e["time_unix_nano"], "attributes": e["attributes"]}
                for e in span["events"]
            ],
        }
        for span in trace["data"]["spans"]
    ]
    return {
        "info": {
            "request_id": info["trace_id"],
            "experiment_id": "0",
            "timestamp_ms": 1796302251122,
            "execution_time_ms": info["execution_duration_ms"],
            "status": info["state"],
            "request_metadata": info["trace_metadata"],
            "tags": info["tags"],
        },
        "data": {"spans": spans},
    }


def test_traces_of_mlflow_2_give_the_same_runs(tmp_path: Path) -> None:
    entities = pytest.importorskip("mlflow.entities", reason="needs mlflow-tracing")
    old = [_as_mlflow_2(trace) for trace in _traces()]
    for trace in old:  # MLflow reads them as its own
        read = entities.Trace.from_dict(json.loads(json.dumps(trace)))
        assert read.info.trace_id == trace["info"]["request_id"]
        assert len(read.data.spans) == len(trace["data"]["spans"])
    path = tmp_path / "mlflow2.jsonl"
    path.write_text("".join(json.dumps(trace) + "\n" for trace in old))
    current, _ = _import(JSONL, tmp_path / "a.jsonl")
    runs, _ = _import(path, tmp_path / "b.jsonl")
    assert [run.model_dump(exclude={"task_id"}) for run in runs] == [
        run.model_dump(exclude={"task_id"}) for run in current
    ]


def test_a_claude_agent_traced_by_anthropic_autolog_is_a_run(tmp_path: Path) -> None:
    path = DATA / "mlflow_anthropic.json"  # one trace, pretty-printed
    (run,), _ = _import(path, tmp_path / "runs.jsonl")
    assert run.run_id == json.loads(path.read_text())["info"]["trace_id"]
    assert run.input == QUESTIONS[0]
    assert _calls(run) == [("get_weather", "toolu_0", {"city": "Denver"}, DENVER, None)]
    answer = 'Denver: {"city": "Denver", "sky": "sunny", "celsius": 21}'
    assert (run.final_answer, run.messages_to_user) == (answer, ["Let me look.", answer])
    assert run.usage is not None
    assert (run.usage.input_tokens, run.usage.output_tokens, run.turns) == (15, 10, 2)
    assert run.metadata["model"] == "claude-sonnet-4-5"


def _without_tool_spans(trace: dict[str, Any]) -> dict[str, Any]:
    spans = trace["data"]["spans"]
    kept = [s for s in spans if json.loads(s["attributes"]["mlflow.spanType"]) != "TOOL"]
    return {**trace, "data": {"spans": kept}}


def test_without_tool_spans_the_calls_are_those_the_model_asked_for(tmp_path: Path) -> None:
    claude = json.loads((DATA / "mlflow_anthropic.json").read_text())
    path = tmp_path / "no-tools.jsonl"
    traces = [*_traces(), claude]
    path.write_text("".join(json.dumps(_without_tool_spans(t)) + "\n" for t in traces))
    runs, output = _import(path, tmp_path / "runs.jsonl")
    assert output.startswith("imported 4 runs with 6 tool calls (2 tool errors, ")
    assert [_calls(run) for run in runs] == [
        [("get_weather", "call_0_0", {"city": "Denver"}, DENVER, None)],
        [
            ("get_weather", "call_1_0", {"city": "Atlantis"}, "Error: no such city: Atlantis",
             "Error: no such city: Atlantis"),
            ("add", "call_1_1", {"a": 2, "b": 3}, "5", None),
        ],
        [
            ("get_weather", "call_2_0", {"city": "Boston"}, BOSTON, None),
            ("book_flight", "call_2_1", {"city": "Boston"}, "Error: no seats left to Boston",
             "Error: no seats left to Boston"),
        ],
        [("get_weather", "toolu_0", {"city": "Denver"}, DENVER, None)],
    ]  # fmt: skip
