"""LangSmith trace exports imported as runs: runs built with the langsmith SDK's own Run
class and dumped as its client returns them (flat JSONL, and a root carrying its
child_runs), and hand-made malformed exports."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import DataError
from judgekit.importers.interface import ImportOptions
from judgekit.importers.json_values import file_head
from judgekit.importers.langsmith_runs import IMPORTER, import_langsmith, looks_like_langsmith

schemas = pytest.importorskip("langsmith.schemas", reason="the langsmith SDK builds the export")

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def _runs(trace_number: int, *, failed: bool = False) -> list[Any]:
    """One agent trace: a root chain, two llm calls, two tool calls (the second fails)
    under a nested chain, as LangSmith records a LangChain agent."""
    trace = uuid.UUID(int=trace_number)
    made: list[Any] = []

    def add(offset: int, parent: Any | None, run_type: str, name: str, **fields: Any) -> Any:
        run_id = trace if parent is None else uuid.UUID(int=trace_number * 100 + offset)
        start = START + timedelta(seconds=offset)
        dotted = f"{start:%Y%m%dT%H%M%S%fZ}{run_id}"
        parent_order = parent.dotted_order + "." if parent is not None else ""
        run = schemas.Run(
            id=run_id, trace_id=trace, parent_run_id=parent.id if parent else None,
            dotted_order=parent_order + dotted, name=name, run_type=run_type, start_time=start,
            end_time=start + timedelta(seconds=0.5 if parent else 9), **fields,
        )  # fmt: skip
        made.append(run)
        return run

    root = add(0, None, "chain", "weather_agent", inputs={"question": "Weather in Paris?"},
               outputs=None if failed else {"output": "It is 21 degrees."},
               error="RateLimitError: slow down" if failed else None,
               reference_example_id=uuid.UUID(int=77), tags=["prod"],
               session_id=uuid.UUID(int=900))  # fmt: skip
    add(1, root, "llm", "ChatOpenAI", inputs={"messages": []}, outputs={"generations": []},
        prompt_tokens=100, completion_tokens=20, total_tokens=120, total_cost="0.0012")  # fmt: skip
    tools = add(2, root, "chain", "tools", inputs={}, outputs={})
    add(3, tools, "tool", "lookup", inputs={"city": "Paris"}, outputs={"output": {"temp": 21}})
    add(4, tools, "tool", "lookup", inputs={"city": "Atlantis"}, outputs=None,
        error="ToolException: no such city")  # fmt: skip
    add(5, root, "llm", "ChatOpenAI", inputs={"messages": []}, outputs={"generations": []},
        prompt_tokens=150, completion_tokens=8, total_tokens=158, total_cost="0.0016")  # fmt: skip
    return made


def _jsonl(path: Path, runs: list[Any]) -> Path:
    path.write_text("".join(run.model_dump_json() + "\n" for run in runs))
    return path


def test_each_trace_is_one_run_with_its_tool_calls_in_start_order(tmp_path: Path) -> None:
    runs = _runs(1) + _runs(2, failed=True)
    runs.reverse()  # an export's order is not the order runs started in
    path = _jsonl(tmp_path / "langsmith.jsonl", runs)
    first, second = sorted(import_langsmith(path), key=lambda run: run.run_id)
    assert first.run_id == str(uuid.UUID(int=1))
    assert first.task_id == str(uuid.UUID(int=77))
    assert first.input == "Weather in Paris?"
    assert first.final_answer == "It is 21 degrees."
    assert [(c.name, c.args, c.result, c.error) for c in first.tool_calls] == [
        ("lookup", {"city": "Paris"}, {"temp": 21}, None),
        ("lookup", {"city": "Atlantis"}, None, "ToolException: no such city"),
    ]
    assert first.tool_calls[0].id == str(uuid.UUID(int=103))
    assert first.turns == 2
    assert first.usage is not None
    assert (first.usage.input_tokens, first.usage.output_tokens) == (250, 28)
    assert first.cost_usd == pytest.approx(0.0028)
    assert first.duration_s == 9.0
    assert first.stop_reason is None
    # The trace id is kept, so `judgekit export` can send verdicts back to this trace.
    assert first.metadata == {
        "trace_id": "00000000-0000-0000-0000-000000000001",
        "name": "weather_agent",
        "tags": ["prod"],
        "langsmith_project_id": "00000000-0000-0000-0000-000000000384",
    }
    assert second.stop_reason == "error"
    assert second.final_answer is None
    assert second.metadata["error"] == "RateLimitError: slow down"


def test_a_root_with_its_child_runs_reads_the_same(tmp_path: Path) -> None:
    flat = _runs(1)
    root = flat[0].model_copy(update={"child_runs": flat[1:]})
    nested = tmp_path / "trace.json"
    nested.write_text(root.model_dump_json(indent=2))
    (from_nested,) = import_langsmith(nested)
    (from_flat,) = import_langsmith(_jsonl(tmp_path / "flat.jsonl", flat))
    assert from_nested.model_dump(exclude={"metadata"}) == from_flat.model_dump(
        exclude={"metadata"}
    )


def test_a_langsmith_export_is_sniffed_as_langsmith_alone(tmp_path: Path) -> None:
    from judgekit.importers.registry import IMPORTERS, sniff

    path = _jsonl(tmp_path / "langsmith.jsonl", _runs(1))
    head = file_head(path)
    assert looks_like_langsmith(head)
    accepted = [name for name, importer in IMPORTERS.items() if importer.looks_like(head)]
    assert accepted == ["langsmith"]
    assert sniff(path) == "langsmith"


def test_task_id_option_is_used_when_the_root_names_no_example(tmp_path: Path) -> None:
    runs = _runs(1)
    runs[0] = runs[0].model_copy(update={"reference_example_id": None})
    path = _jsonl(tmp_path / "langsmith.jsonl", runs)
    (run,) = IMPORTER.read(path, ImportOptions(task_id="weather"))
    assert run.task_id == "weather"
    (run,) = IMPORTER.read(path, ImportOptions())
    assert run.task_id == "langsmith"


def _line(**fields: Any) -> str:
    base = {"id": "r1", "run_type": "chain", "inputs": {}, "trace_id": "r1", "parent_run_id": None}
    return json.dumps({**base, **fields})


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ([_line(run_type="agent")], "ls.jsonl:1: run_type: unknown run type 'agent'; valid: "
         "chain, embedding, llm, parser, prompt, retriever, tool"),
        ([_line(), _line(id="r2", run_type="tool", parent_run_id="r1")],
         "ls.jsonl:2: name: required field is missing (expected a string)"),
        ([_line(), _line(id="r2", name="t", run_type="tool", parent_run_id="r1", inputs=[1])],
         "ls.jsonl:2: inputs: expected an object, got a list"),
        ([_line(prompt_tokens=-3)], "ls.jsonl:1: prompt_tokens: expected a whole number ≥ 0, "
         "got the number -3"),
        ([_line(total_cost="cheap")], "ls.jsonl:1: total_cost: expected a number ≥ 0, got the "
         "string 'cheap'"),
        ([_line(id="r2", trace_id="r1", parent_run_id="r1")], "ls.jsonl:1: trace_id: trace 'r1' "
         "has no root run (one without parent_run_id) in this file; export whole traces"),
        ([_line(id="r2", trace_id=None, parent_run_id="r9")], "ls.jsonl:1: trace_id: required "
         "field is missing (a child run needs its trace_id, or its parent earlier in the file)"),
        ([_line(), "[1]"], "ls.jsonl:2: [0]: expected a LangSmith run object (with `id`, "
         "`run_type`, `inputs`), got the number 1"),
        ([_line(), "{oops"], "ls.jsonl:2: malformed JSON at column 2: Expecting property name "
         "enclosed in double quotes (JSONL: one value per line)"),
    ],
)  # fmt: skip
def test_a_malformed_export_names_line_and_field(
    tmp_path: Path, lines: list[str], message: str
) -> None:
    path = tmp_path / "ls.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(DataError) as caught:
        list(import_langsmith(path))
    assert str(caught.value) == message.replace("ls.jsonl", str(path), 1)


def test_the_command_imports_an_export_and_other_importers_name_it(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from judgekit.cli.main import main

    path = _jsonl(tmp_path / "langsmith.jsonl", _runs(1) + _runs(2, failed=True))
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "langsmith", str(path), "-o", str(runs)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"imported 2 runs with 4 tool calls (2 tool errors, 0 with invalid arguments) to {runs}\n"
    )
    for other in ("openai", "langfuse", "inspect"):
        result = CliRunner().invoke(main, ["import", other, str(path)])
        assert result.exit_code == 2
        assert result.output == (
            f"judgekit: error: {path}: this looks like a LangSmith trace export (runs); "
            "try `judgekit import langsmith`\n"
        )


def test_a_trace_without_llm_runs_takes_the_roots_own_tokens(tmp_path: Path) -> None:
    path = tmp_path / "ls.jsonl"
    path.write_text(_line(prompt_tokens=12, completion_tokens=4, total_cost=0.5) + "\n")
    (run,) = import_langsmith(path)
    assert run.usage is not None
    assert (run.usage.input_tokens, run.usage.output_tokens, run.cost_usd) == (12, 4, 0.5)
    assert (run.turns, run.tool_calls, run.input) == (0, [], None)
