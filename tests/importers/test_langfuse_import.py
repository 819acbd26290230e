"""Langfuse trace exports imported as runs: observations built with the langfuse SDK's own
API classes (ObservationV2 in an ObservationsV2Response page) and serialised as its API
returns them, a trace carrying its observations, and hand-made malformed exports."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import DataError
from judgekit.importers.interface import ImportOptions
from judgekit.importers.json_values import file_head
from judgekit.importers.langfuse_traces import IMPORTER, import_langfuse, looks_like_langfuse

langfuse_api = pytest.importorskip("langfuse.api", reason="the langfuse SDK builds the export")

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ANSWER = "It is 21 degrees in Paris."


def _observations(trace_id: str, *, failed: bool = False) -> list[Any]:
    """An agent's trace: a root agent span, a generation asking for a tool, the tool (a TOOL
    observation), a second call traced as a plain span by @observe (it fails), an event and
    a last generation."""

    def observation(offset: int, kind: str, name: str, **fields: Any) -> Any:
        start = START + timedelta(seconds=offset)
        parent = None if offset == 0 else f"{trace_id}-0"
        return langfuse_api.ObservationV2(
            id=f"{trace_id}-{offset}", trace_id=trace_id, project_id="proj", type=kind,
            name=name, start_time=start, end_time=start + timedelta(seconds=9 if offset == 0 else 1),
            parent_observation_id=parent, **fields,
        )  # fmt: skip

    asked = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_1", "type": "function",
             "function": {"name": "lookup", "arguments": '{"city": "Paris"}'}},
        ],
    }  # fmt: skip
    root_fields: dict[str, Any] = {"input": {"question": "Weather in Paris?"}}
    if failed:
        root_fields.update(level="ERROR", status_message="RateLimitError: slow down")
    else:
        root_fields["output"] = ANSWER
    return [
        observation(0, "AGENT", "weather_agent", **root_fields),
        observation(1, "GENERATION", "chat", model="gpt-4o", output=asked,
                    usage_details={"input": 100, "output": 20, "total": 120},
                    cost_details={"total": 0.0012}),
        observation(2, "TOOL", "lookup", input={"city": "Paris"}, output={"temp": 21}),
        observation(3, "SPAN", "lookup", input={"args": [], "kwargs": {"city": "Atlantis"}},
                    level="ERROR", status_message="ValueError: no such city"),
        observation(4, "EVENT", "cache-miss"),
        observation(5, "GENERATION", "chat", model="gpt-4o", output={"role": "assistant",
                    "content": ANSWER}, usage_details={"input": 150, "output": 8, "total": 158},
                    cost_details={"total": 0.0016}),
    ]  # fmt: skip


def _page(path: Path, observations: list[Any]) -> Path:
    meta = langfuse_api.ObservationsV2Meta(cursor=None)
    path.write_text(langfuse_api.ObservationsV2Response(data=observations, meta=meta).json())
    return path


def test_each_trace_is_one_run_with_its_tool_calls(tmp_path: Path) -> None:
    observations = _observations("t1") + _observations("t2", failed=True)
    observations.reverse()  # an export's order is not the order they started in
    first, second = import_langfuse(_page(tmp_path / "langfuse.json", observations))
    assert (second.run_id, first.run_id) == ("t1", "t2")
    run = second
    assert run.task_id == "langfuse"
    assert run.input == "Weather in Paris?"
    assert run.final_answer == ANSWER
    assert [(c.name, c.args, c.result, c.error, c.id) for c in run.tool_calls] == [
        ("lookup", {"city": "Paris"}, {"temp": 21}, None, "t1-2"),
        ("lookup", {"city": "Atlantis"}, None, "ValueError: no such city", "t1-3"),
    ]
    assert run.turns == 2
    assert run.usage is not None
    assert run.usage.model_dump() == {"input_tokens": 250, "output_tokens": 28, "total_tokens": 278}
    assert run.cost_usd == pytest.approx(0.0028)
    assert run.duration_s == 9.0
    assert run.stop_reason is None
    assert first.stop_reason == "error"
    assert first.metadata == {"trace_id": "t2", "error": "RateLimitError: slow down"}
    assert first.final_answer == ANSWER  # the last generation's answer, the agent failing after


def test_observations_one_per_line_read_the_same(tmp_path: Path) -> None:
    observations = _observations("t1")
    jsonl = tmp_path / "observations.jsonl"
    jsonl.write_text("".join(o.json() + "\n" for o in observations))
    page = _page(tmp_path / "p.json", observations)
    from_lines = list(IMPORTER.read(jsonl, ImportOptions(task_id="weather")))
    assert from_lines == list(IMPORTER.read(page, ImportOptions(task_id="weather")))
    assert len(from_lines[0].tool_calls) == 2


def test_a_trace_with_its_observations_takes_input_output_and_latency_from_the_trace(
    tmp_path: Path,
) -> None:
    observations = [json.loads(o.json()) for o in _observations("t1")]
    trace = {
        "id": "t1", "timestamp": START.isoformat(), "name": "weather", "input": "Paris?",
        "output": {"answer": "21"}, "latency": 12.5, "tags": ["prod"], "sessionId": "s1",
        "observations": observations,
    }  # fmt: skip
    path = tmp_path / "traces.jsonl"
    path.write_text(json.dumps(trace) + "\n")
    (run,) = IMPORTER.read(path, ImportOptions(task_id="weather"))
    assert (run.task_id, run.input, run.final_answer, run.duration_s) == (
        "weather", "Paris?", "21", 12.5,
    )  # fmt: skip
    assert run.metadata == {
        "trace_id": "t1",
        "name": "weather",
        "tags": ["prod"],
        "session_id": "s1",
    }
    assert len(run.tool_calls) == 2


def test_a_span_nobody_asked_for_is_no_tool_call(tmp_path: Path) -> None:
    observations = _observations("t1")
    observations[3] = observations[3].model_copy(update={"name": "format_answer"})
    (run,) = import_langfuse(_page(tmp_path / "p.json", observations))
    assert [call.name for call in run.tool_calls] == ["lookup"]


def test_a_langfuse_export_is_sniffed_as_langfuse_alone(tmp_path: Path) -> None:
    from judgekit.importers.registry import IMPORTERS, sniff

    jsonl = tmp_path / "observations.jsonl"
    jsonl.write_text("".join(o.json() + "\n" for o in _observations("t1")))
    for path in (_page(tmp_path / "page.json", _observations("t1")), jsonl):
        head = file_head(path)
        assert looks_like_langfuse(head)
        assert [name for name, imp in IMPORTERS.items() if imp.looks_like(head)] == ["langfuse"]
        assert sniff(path) == "langfuse"


def _obs(**fields: Any) -> str:
    base = {"id": "o1", "traceId": "t1", "type": "SPAN", "startTime": "2026-03-01T09:00:00Z"}
    return json.dumps({**base, **fields})


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([_obs(type="WORKFLOW")], "lf.jsonl:1: type: unknown observation type 'WORKFLOW'; "
         "valid: AGENT, CHAIN, EMBEDDING, EVALUATOR, EVENT, GENERATION, GUARDRAIL, RETRIEVER, "
         "SPAN, TOOL"),
        ([_obs(), _obs(id="o2", traceId=None)], "lf.jsonl:2: traceId: required field is "
         "missing (expected a string)"),
        ([_obs(level="FATAL")], "lf.jsonl:1: level: unknown level 'FATAL'; valid: DEBUG, "
         "DEFAULT, WARNING, ERROR"),
        ([_obs(type="TOOL", name=None)], "lf.jsonl:1: name: required field is missing "
         "(expected a string)"),
        ([_obs(type="GENERATION", usageDetails={"input": 1.5})], "lf.jsonl:1: "
         "usageDetails.input: expected a whole number of tokens ≥ 0, got the number 1.5"),
        ([_obs(type="GENERATION", costDetails={"total": -1})], "lf.jsonl:1: costDetails.total: "
         "expected a number ≥ 0, got the number -1"),
        (['{"id": "t1", "observations": {}}'], "lf.jsonl:1: observations: expected a list of "
         "observations, got an object"),
        (['{"data": [1]}'], "lf.jsonl:1: data[0]: expected a Langfuse observation or trace "
         "object, got the number 1"),
    ],
)  # fmt: skip
def test_a_malformed_export_names_line_and_field(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    path = tmp_path / "lf.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as caught:
        list(import_langfuse(path))
    assert str(caught.value) == message.replace("lf.jsonl", str(path), 1)


def test_the_command_imports_an_export_and_other_importers_name_it(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from judgekit.cli.main import main

    path = _page(tmp_path / "langfuse.json", _observations("t1") + _observations("t2", failed=True))
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "langfuse", str(path), "-o", str(runs)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"imported 2 runs with 4 tool calls (2 tool errors, 0 with invalid arguments) to {runs}\n"
    )
    for other in ("anthropic", "langsmith", "otel"):
        result = CliRunner().invoke(main, ["import", other, str(path)])
        assert result.exit_code == 2
        assert result.output == (
            f"judgekit: error: {path}: this looks like a Langfuse trace export (observations); "
            "try `judgekit import langfuse`\n"
        )


def test_legacy_usage_and_calculated_cost_are_summed(tmp_path: Path) -> None:
    lines = [
        _obs(id="g1", type="GENERATION", usage={"input": 7, "output": 2, "total": 9,
             "unit": "TOKENS"}, calculatedTotalCost=0.5),
        _obs(id="g2", type="GENERATION", startTime="2026-03-01T09:00:01Z",
             usageDetails={"input": 3, "output": 1, "cache_read_input_tokens": 2},
             totalCost=0.25, output="done"),
    ]  # fmt: skip
    path = tmp_path / "lf.jsonl"
    path.write_text("\n".join(lines) + "\n")
    (run,) = import_langfuse(path)
    assert run.usage is not None
    assert run.usage.model_dump() == {
        "input_tokens": 10,
        "output_tokens": 3,
        "total_tokens": 9,
        "cache_read_input_tokens": 2,
    }
    assert (run.cost_usd, run.turns, run.final_answer) == (0.75, 2, "done")
