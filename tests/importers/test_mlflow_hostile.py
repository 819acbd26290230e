"""`judgekit import mlflow` on malformed or hostile trace files: an error naming the file, the
line and the field, exit 2, no runs file written; and an MLflow file given to another
importer is refused naming `judgekit import mlflow`."""

from __future__ import annotations

import base64
import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main

JSONL = Path(__file__).resolve().parents[2] / "examples" / "traces" / "mlflow_traces.jsonl"
Traces = list[Any]


def _span(traces: Traces, trace: int, span: int) -> dict[str, Any]:
    return traces[trace]["data"]["spans"][span]  # type: ignore[no-any-return]


def _set_attribute(trace: int, span: int, key: str, value: Any) -> Callable[[Traces], None]:
    return lambda traces: _span(traces, trace, span)["attributes"].__setitem__(key, value)


def _other_copy(traces: Traces) -> None:
    changed = copy.deepcopy(traces[0])
    changed["data"]["spans"][2]["name"] = "get_forecast"
    traces.append(changed)


def _parent_loop(traces: Traces) -> None:
    _span(traces, 0, 0)["parent_span_id"] = _span(traces, 0, 1)["span_id"]


CASES: dict[str, tuple[Callable[[Traces], None], str]] = {
    "no info": (
        lambda traces: traces[1].pop("info"),
        "2: info: required field is missing (expected an MLflow trace object with `info` and "
        "`data` (Trace.to_dict()))",
    ),
    "no trace id": (
        lambda traces: traces[1]["info"].pop("trace_id"),
        "2: info.trace_id: required field is missing (expected a string)",
    ),
    "spans not a list": (
        lambda traces: traces[1]["data"].__setitem__("spans", {}),
        "2: data.spans: expected a list of spans, got an object",
    ),
    "a list of numbers": (
        lambda traces: traces.__setitem__(1, [1]),
        "2: [0]: expected an MLflow trace object with `info` and `data` (Trace.to_dict()), "
        "got the number 1",
    ),
    "a line cut short": (
        lambda traces: traces.__setitem__(2, '{"info": '),
        "3: malformed JSON at column 1: Expecting value (JSONL: one value per line)",
    ),
    "negative tokens": (
        _set_attribute(1, 1, "mlflow.chat.tokenUsage", '{"input_tokens": -3}'),
        "2: data.spans[1].attributes.mlflow.chat.tokenUsage.input_tokens: expected a whole "
        "number of tokens, got the number -3",
    ),
    "token usage not JSON": (
        _set_attribute(1, 1, "mlflow.chat.tokenUsage", "[1"),
        "2: data.spans[1].attributes.mlflow.chat.tokenUsage: expected a token usage object, "
        "got the string '[1'",
    ),
    "a cost that is not a number": (
        _set_attribute(0, 1, "mlflow.llm.cost", '{"total_cost": "free"}'),
        "1: data.spans[1].attributes.mlflow.llm.cost.total_cost: expected a cost in USD (a "
        "number ≥ 0), got the string 'free'",
    ),
    "a span type that is not a string": (
        _set_attribute(0, 2, "mlflow.spanType", "5"),
        "1: data.spans[2].attributes.mlflow.spanType: expected a string, got the number 5",
    ),
    "a start time that is not a number": (
        lambda traces: _span(traces, 0, 2).__setitem__("start_time_unix_nano", "soon"),
        "1: data.spans[2].start_time_unix_nano: expected nanoseconds since the epoch (a whole "
        "number ≥ 0), got the string 'soon'",
    ),
    "a session that is not a string": (
        lambda traces: traces[0]["info"]["trace_metadata"].__setitem__("mlflow.trace.session", 7),
        "1: info.trace_metadata.mlflow.trace.session: expected a string, got the number 7",
    ),
    "a span without an id": (
        lambda traces: _span(traces, 0, 1).pop("span_id"),
        "1: data.spans[1].span_id: required field is missing (expected a string)",
    ),
    "parents in a loop": (
        _parent_loop,
        "1: data.spans[0]: span ids form a cycle of parents: {root} → {child} → {root} (each "
        "id's parent is the next); a trace's parent links must end at a root",
    ),
    "a span twice, changed": (
        _other_copy,
        "4: data.spans[2]: span id {tool} appears twice with different content: line 1, "
        "data.spans[2] and line 4, data.spans[2]; a span id names one span",
    ),
}


def _write(path: Path, change: Callable[[Traces], None]) -> dict[str, str]:
    """The recorded traces, changed, written to ``path``; the ids of trace 1's first spans."""
    traces: Traces = [json.loads(line) for line in JSONL.read_text().splitlines()]
    spans = traces[0]["data"]["spans"]
    ids = {  # as errors show them: hex, where the file holds base64
        "root": _hex(spans[0]["span_id"]),
        "child": _hex(spans[1]["span_id"]),
        "tool": _hex(spans[2]["span_id"]),
    }
    change(traces)
    lines = (t if isinstance(t, str) else json.dumps(t) for t in traces)
    path.write_text("".join(line + "\n" for line in lines))
    return ids


def _hex(value: str) -> str:
    return base64.b64decode(value).hex()


@pytest.mark.parametrize("case", list(CASES))
def test_a_malformed_trace_file_is_refused_naming_line_and_field(case: str, tmp_path: Path) -> None:
    change, message = CASES[case]
    path = tmp_path / "traces.jsonl"
    ids = _write(path, change)
    out = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "mlflow", str(path), "-o", str(out)])
    assert result.exit_code == 2
    assert result.output == f"judgekit: error: {path}:{message.format(**ids)}\n"
    assert not out.exists()


def test_an_identical_copy_of_a_trace_is_dropped_and_said(tmp_path: Path) -> None:
    path = tmp_path / "traces.jsonl"
    _write(path, lambda traces: traces.append(copy.deepcopy(traces[0])))
    out = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "mlflow", str(path), "-o", str(out)])
    assert result.exit_code == 0
    assert result.output == (
        f"imported 3 runs with 5 tool calls (2 tool errors, 0 with invalid arguments) to {out}\n"
        f"{path}: 4 duplicate spans dropped (same id, same content)\n"
    )


@pytest.mark.parametrize("other", ["langsmith", "otel", "openinference", "langfuse", "openai"])
def test_an_mlflow_file_given_to_another_importer_names_mlflow(other: str) -> None:
    for path in (JSONL, JSONL.with_suffix(".json")):
        result = CliRunner().invoke(main, ["import", other, str(path)])
        assert result.exit_code == 2
        assert result.output == (
            f"judgekit: error: {path}: this looks like MLflow traces; try `judgekit import mlflow`\n"
        )
