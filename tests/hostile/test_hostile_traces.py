"""Trace exports as collectors and hostile files hand them to `judgekit import`: spans whose
parents loop (the importers used to spin at 100% CPU for ever), a span exported twice (it
doubled the tool calls; a second copy that differed was taken too), ids, kinds and names of
the wrong JSON type (``TypeError: unhashable type: 'list'`` tracebacks), a trace too deep to
walk once per span; and a `judgekit store import` that fails while recording (it left an
empty batch in the store each time). Each is one line naming file, line and field, exit 2,
nothing written; an identical copy is dropped and counted."""

from __future__ import annotations

import copy
import json
import signal
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.formats.run import load_runs
from judgekit.importers.json_values import iter_json_values
from tests.conftest import REPO
from tests.importers.otel_spans import record_spans, write_console, write_otlp_json

OP = "gen_ai.operation.name"
KIND = "openinference.span.kind"
WRONG: dict[str, tuple[Any, str]] = {
    "list": (["x"], "a list"),
    "object": ({"a": 1}, "an object"),
    "number": (7, "the number 7"),
    "bool": (True, "true"),
}
MISSING = "required field is missing (expected a string)"


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The CLI in this process; any exception but the exit is a bug and fails the test."""
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


class _TookTooLong(Exception):
    pass


@contextmanager
def within(seconds: float) -> Iterator[None]:
    """Fail the block when it runs longer than ``seconds`` (a walk that loops for ever)."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise _TookTooLong(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# --- files in the shapes their producers write ---------------------------------------------


def _genai_agent(tracer: Any) -> None:
    """An agent as GenAI instrumentation records it: invoke_agent over a chat and two tools."""
    with tracer.start_as_current_span(
        "invoke_agent shop", attributes={OP: "invoke_agent", "gen_ai.agent.name": "shop"}
    ):
        with tracer.start_as_current_span(
            "chat gpt-4o-mini",
            attributes={OP: "chat", "gen_ai.request.model": "gpt-4o-mini"},
        ):
            pass
        for number, (tool, args) in enumerate(
            [("get_order", '{"order_id": "A100"}'), ("refund", '{"order_id": "A100"}')], 1
        ):
            with tracer.start_as_current_span(
                f"execute_tool {tool}",
                attributes={
                    OP: "execute_tool",
                    "gen_ai.tool.name": tool,
                    "gen_ai.tool.call.id": f"call_{number}",
                    "gen_ai.tool.call.arguments": args,
                },
            ):
                pass


def _openinference_agent(tracer: Any) -> None:
    """An agent as the OpenInference instrumentations record it: AGENT over LLM and TOOL."""
    with tracer.start_as_current_span(
        "agent", attributes={KIND: "AGENT", "agent.name": "shop", "input.value": "Refund A100"}
    ):
        with tracer.start_as_current_span(
            "llm", attributes={KIND: "LLM", "llm.model_name": "gpt-4o-mini"}
        ):
            pass
        with tracer.start_as_current_span(
            "refund",
            attributes={
                KIND: "TOOL",
                "tool.name": "refund",
                "tool_call.id": "call_1",
                "input.value": '{"order_id": "A100"}',
                "output.value": '{"ok": true}',
            },
        ):
            pass


def _console_spans(tmp_path: Path) -> list[dict[str, Any]]:
    """The GenAI agent's spans as the SDK's ConsoleSpanExporter writes them (children first,
    the invoke_agent span last)."""
    path = write_console(record_spans(_genai_agent), tmp_path / "console.json")
    return [value for _, value in iter_json_values(path)]


def _write_console(spans: list[dict[str, Any]], path: Path) -> list[int]:
    """``spans`` written as the console exporter writes them; the line each one starts on."""
    starts, line, text = [], 1, ""
    for span in spans:
        shown = json.dumps(span, indent=4) + "\n"  # span.to_json(), then os.linesep
        starts.append(line)
        line += shown.count("\n")
        text += shown
    path.write_text(text)
    return starts


def _otlp_document(tmp_path: Path) -> dict[str, Any]:
    """The OpenInference agent's spans in OTLP JSON (protobuf's JSON mapping: base64 ids)."""
    path = write_otlp_json(record_spans(_openinference_agent), tmp_path / "otlp.json")
    document: dict[str, Any] = json.loads(path.read_text())
    return document


def _otlp_spans(document: dict[str, Any]) -> list[dict[str, Any]]:
    spans: list[dict[str, Any]] = document["resourceSpans"][0]["scopeSpans"][0]["spans"]
    return spans


def _hex(span_id: str) -> str:
    return span_id.removeprefix("0x")


def _langfuse_page(tmp_path: Path) -> dict[str, Any]:
    from tests.importers.test_langfuse_import import _observations, _page

    page = _page(tmp_path / "page.json", _observations("trace-1"))
    document: dict[str, Any] = json.loads(page.read_text())
    return document


def _langsmith_runs() -> list[dict[str, Any]]:
    from tests.importers.test_langsmith_import import _runs

    return [json.loads(run.model_dump_json()) for run in _runs(1)]


def _lines(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    return path


def _refused(args: list[str | Path], output: Path) -> str:
    """The one line of a refused import (exit 2, nothing written), within 10 seconds."""
    with within(10):
        code, stdout, stderr = invoke("import", *args, "-o", output)
    assert (code, stdout) == (2, ""), stderr
    assert not output.exists()
    assert len(stderr.splitlines()) == 1
    assert "Traceback" not in stderr
    return stderr


# --- parents that loop ----------------------------------------------------------------------

LOOP = "(each id's parent is the next); a trace's parent links must end at a root"


@pytest.mark.parametrize("self_parent", [False, True], ids=["two spans", "its own parent"])
def test_console_spans_whose_parents_loop_are_refused_naming_the_ids(
    tmp_path: Path, self_parent: bool
) -> None:
    spans = _console_spans(tmp_path)
    _, _, refund, agent = spans
    agent_id, refund_id = _hex(agent["context"]["span_id"]), _hex(refund["context"]["span_id"])
    if self_parent:
        agent["parent_id"] = agent["context"]["span_id"]
        loop = f"{agent_id} → {agent_id}"
    else:  # the agent's parent is the refund, whose parent is the agent
        agent["parent_id"] = refund["context"]["span_id"]
        loop = f"{agent_id} → {refund_id} → {agent_id}"
    path = tmp_path / "spans.json"
    starts = _write_console(spans, path)
    stderr = _refused(["otel", path], tmp_path / "runs.jsonl")
    assert stderr == (
        f"judgekit: error: {path}:{starts[3]}: span ids form a cycle of parents: {loop} {LOOP}\n"
    )


def test_otlp_spans_whose_parents_loop_are_refused_naming_the_ids(tmp_path: Path) -> None:
    document = _otlp_document(tmp_path)
    spans = _otlp_spans(document)
    llm, _, agent = spans
    agent["parentSpanId"] = llm["spanId"]
    path = tmp_path / "phoenix.json"
    path.write_text(json.dumps(document) + "\n")
    from judgekit.importers.spans import hex_id

    agent_id, llm_id = hex_id(agent["spanId"]), hex_id(llm["spanId"])
    stderr = _refused(["openinference", path], tmp_path / "runs.jsonl")
    assert stderr == (
        f"judgekit: error: {path}:1: resourceSpans[0].scopeSpans[0].spans[0]: span ids form a "
        f"cycle of parents: {llm_id} → {agent_id} → {llm_id} {LOOP}\n"
    )


def test_langfuse_observations_whose_parents_loop_are_refused(tmp_path: Path) -> None:
    page = _langfuse_page(tmp_path)
    page["data"][0]["parentObservationId"] = "trace-1-2"  # the root under the tool
    path = _lines(tmp_path / "observations.jsonl", [page])
    stderr = _refused(["langfuse", path], tmp_path / "runs.jsonl")
    assert stderr == (
        f"judgekit: error: {path}:1: data[0].parentObservationId: observation ids form a cycle "
        f"of parents: trace-1-0 → trace-1-2 → trace-1-0 {LOOP}\n"
    )


def test_langsmith_runs_whose_parents_loop_are_refused(tmp_path: Path) -> None:
    runs = _langsmith_runs()
    tools, tool = runs[2]["id"], runs[3]["id"]
    runs[2]["parent_run_id"] = tool  # the tools chain under its own tool run
    path = _lines(tmp_path / "langsmith.jsonl", runs)
    stderr = _refused(["langsmith", path], tmp_path / "runs.jsonl")
    assert stderr == (
        f"judgekit: error: {path}:3: parent_run_id: run ids form a cycle of parents: "
        f"{tools} → {tool} → {tools} {LOOP}\n"
    )


def test_a_trace_five_thousand_spans_deep_is_walked_once(tmp_path: Path) -> None:
    """Each span's top agent was found by walking to the root from every span: 12.5 million
    steps for this trace (28 s; 20,000 spans deep, over 5 minutes). Nested agents, as a
    recursive agent records them."""
    spans = _console_spans(tmp_path)
    agent = spans[3]
    trace_id = agent["context"]["trace_id"]
    chain = []
    for number in range(1, 5_001):
        span = copy.deepcopy(agent)
        span["context"]["span_id"] = f"0x{number:016x}"
        span["parent_id"] = f"0x{number - 1:016x}" if number > 1 else None
        span["context"]["trace_id"] = trace_id
        chain.append(span)
    path = _lines(tmp_path / "deep.jsonl", chain)
    with within(15):
        code, _, stderr = invoke("import", "otel", path, "-o", tmp_path / "runs.jsonl")
    assert (code, stderr) == (0, f"imported 1 runs with 0 tool calls (0 tool errors, 0 with "
                              f"invalid arguments) to {tmp_path / 'runs.jsonl'}\n")  # fmt: skip


# --- a span exported twice ------------------------------------------------------------------


def _calls(path: Path) -> list[list[str]]:
    return [[call.name for call in run.tool_calls] for run in load_runs(path)]


def test_console_spans_exported_twice_are_kept_once_and_counted(tmp_path: Path) -> None:
    spans = _console_spans(tmp_path)
    once, twice = tmp_path / "once.json", tmp_path / "twice.json"
    _write_console(spans, once)
    _write_console(spans + spans[1:3], twice)  # the batch with both tools, exported again
    invoke("import", "otel", once, "--task-id", "refund", "-o", tmp_path / "once.jsonl")
    code, _, stderr = invoke(
        "import", "otel", twice, "--task-id", "refund", "-o", tmp_path / "twice.jsonl"
    )
    assert code == 0
    assert stderr == (
        "imported 1 runs with 2 tool calls (0 tool errors, 0 with invalid arguments) to "
        f"{tmp_path / 'twice.jsonl'}\n{twice}: 2 duplicate spans dropped (same id, same content)\n"
    )
    assert (tmp_path / "twice.jsonl").read_bytes() == (tmp_path / "once.jsonl").read_bytes()
    assert _calls(tmp_path / "twice.jsonl") == [["get_order", "refund"]]


def test_a_span_id_given_twice_with_different_content_is_refused(tmp_path: Path) -> None:
    spans = _console_spans(tmp_path)
    changed = copy.deepcopy(spans[2])
    changed["attributes"]["gen_ai.tool.call.arguments"] = '{"order_id": "A200"}'
    path = tmp_path / "spans.json"
    starts = _write_console([*spans, changed], path)
    stderr = _refused(["otel", path], tmp_path / "runs.jsonl")
    span_id = _hex(changed["context"]["span_id"])
    assert stderr == (
        f"judgekit: error: {path}:{starts[4]}: span id {span_id} appears twice with different "
        f"content: line {starts[2]} and line {starts[4]}; a span id names one span\n"
    )


def test_otlp_batches_exported_twice_are_kept_once(tmp_path: Path) -> None:
    document = _otlp_document(tmp_path)
    once = tmp_path / "once.jsonl"
    once.write_text(json.dumps(document) + "\n")
    twice = tmp_path / "twice.jsonl"  # the collector's file exporter: one batch per line
    twice.write_text(json.dumps(document) + "\n" + json.dumps(document) + "\n")
    task = ["--task-id", "refund"]
    invoke("import", "openinference", once, *task, "-o", tmp_path / "once-runs.jsonl")
    code, _, stderr = invoke("import", "openinference", twice, *task, "-o", tmp_path / "runs.jsonl")
    assert code == 0
    assert stderr.splitlines()[1:] == [
        f"{twice}: 3 duplicate spans dropped (same id, same content)"
    ]
    assert (tmp_path / "runs.jsonl").read_bytes() == (tmp_path / "once-runs.jsonl").read_bytes()


def test_langfuse_pages_delivered_twice_are_kept_once_and_a_changed_copy_refused(
    tmp_path: Path,
) -> None:
    page = _langfuse_page(tmp_path)
    again = {"data": page["data"][2:4], "meta": page["meta"]}  # a cursor that went back
    path = _lines(tmp_path / "pages.jsonl", [page, again])
    code, _, stderr = invoke("import", "langfuse", path, "-o", tmp_path / "runs.jsonl")
    assert code == 0
    assert stderr.splitlines()[1:] == [
        f"{path}: 2 duplicate observations dropped (same id, same content)"
    ]
    assert _calls(tmp_path / "runs.jsonl") == [["lookup", "lookup"]]
    again["data"][1] = {**again["data"][1], "statusMessage": "ValueError: something else"}
    _lines(path, [page, again])
    stderr = _refused(["langfuse", path], tmp_path / "changed.jsonl")
    assert stderr == (
        f"judgekit: error: {path}:2: data[1].id: observation id trace-1-3 appears twice with "
        "different content: line 1, data[3] and line 2, data[1]; an observation id names one "
        "observation\n"
    )


def test_a_langfuse_trace_exported_twice_with_its_observations_is_kept_once(
    tmp_path: Path,
) -> None:
    page = _langfuse_page(tmp_path)
    trace = {"id": "trace-1", "name": "weather", "output": "21", "observations": page["data"]}
    path = _lines(tmp_path / "traces.jsonl", [trace, trace])
    code, _, stderr = invoke("import", "langfuse", path, "-o", tmp_path / "runs.jsonl")
    assert code == 0
    assert stderr.splitlines()[1:] == [f"{path}: 1 duplicate trace dropped (same id, same content)"]
    assert _calls(tmp_path / "runs.jsonl") == [["lookup", "lookup"]]
    _lines(path, [trace, {**trace, "output": "35"}])
    stderr = _refused(["langfuse", path], tmp_path / "changed.jsonl")
    assert stderr == (
        f"judgekit: error: {path}:2: id: trace id trace-1 appears twice with different "
        "content: line 1 and line 2; a trace id names one trace\n"
    )


def test_langsmith_runs_given_twice_are_kept_once_and_a_changed_copy_refused(
    tmp_path: Path,
) -> None:
    runs = _langsmith_runs()
    path = _lines(tmp_path / "langsmith.jsonl", runs + runs[3:5])
    code, _, stderr = invoke("import", "langsmith", path, "-o", tmp_path / "runs.jsonl")
    assert code == 0
    assert stderr.splitlines()[1:] == [f"{path}: 2 duplicate runs dropped (same id, same content)"]
    assert _calls(tmp_path / "runs.jsonl") == [["lookup", "lookup"]]
    changed = {**runs[3], "outputs": {"output": {"temp": 35}}}
    _lines(path, [*runs, changed])
    stderr = _refused(["langsmith", path], tmp_path / "changed.jsonl")
    assert stderr == (
        f"judgekit: error: {path}:7: id: run id {runs[3]['id']} appears twice with different "
        "content: line 4 and line 7; a run id names one run\n"
    )


# --- wrong-typed ids, kinds and names -------------------------------------------------------

OK = "ok"  # null is valid there: the field is optional
SPAN = "resourceSpans[0].scopeSpans[0].spans"


def _samples(tmp_path: Path) -> dict[str, list[Any]]:
    """Each importer's file as JSON values, one per record (a console span, an OTLP
    document, a Langfuse API page, a LangSmith run)."""
    return {
        "console": _console_spans(tmp_path),
        "otlp": [_otlp_document(tmp_path)],
        "langfuse": [_langfuse_page(tmp_path)],
        "langsmith": _langsmith_runs(),
    }


def _otlp_attribute(document: dict[str, Any], span: int, key: str) -> int:
    attributes = _otlp_spans(document)[span]["attributes"]
    return next(n for n, pair in enumerate(attributes) if pair["key"] == key)


# importer, sample, record, path to the field (an int: an OTLP attribute by key), the
# field as the error names it, what null there gives.
FIELDS: list[tuple[str, str, int, tuple[Any, ...], str, str]] = [
    ("otel", "console", 2, ("context", "trace_id"), "context.trace_id", MISSING),
    ("otel", "console", 2, ("context", "span_id"), "context.span_id", MISSING),
    ("otel", "console", 2, ("parent_id",), "parent_id", OK),
    ("otel", "console", 2, ("name",), "name", MISSING),
    ("otel", "console", 2, ("status", "description"), "status.description", OK),
    ("otel", "console", 2, ("attributes", OP), f"attributes.{OP}", OK),
    ("otel", "console", 2, ("attributes", "gen_ai.tool.name"), "attributes.gen_ai.tool.name", OK),
    ("otel", "console", 2, ("attributes", "gen_ai.tool.call.id"),
     "attributes.gen_ai.tool.call.id", OK),
    ("otel", "console", 3, ("attributes", OP), f"attributes.{OP}", OK),
    ("otel", "console", 3, ("attributes", "gen_ai.agent.name"), "attributes.gen_ai.agent.name",
     OK),
    ("otel", "console", 0, ("attributes", "gen_ai.request.model"),
     "attributes.gen_ai.request.model", OK),
    ("openinference", "otlp", 0, (1, "traceId"), f"{SPAN}[1].traceId", MISSING),
    ("openinference", "otlp", 0, (1, "spanId"), f"{SPAN}[1].spanId", MISSING),
    ("openinference", "otlp", 0, (1, "parentSpanId"), f"{SPAN}[1].parentSpanId", OK),
    ("openinference", "otlp", 0, (1, "name"), f"{SPAN}[1].name", MISSING),
    ("openinference", "otlp", 0, (1, KIND, "key"), f"{SPAN}[1].attributes[{{n}}].key", MISSING),
    ("openinference", "otlp", 0, (1, KIND, "value", "stringValue"),
     f"{SPAN}[1].attributes[{{n}}].value.stringValue", "null"),
    ("openinference", "otlp", 0, (1, "tool.name", "value", "stringValue"),
     f"{SPAN}[1].attributes[{{n}}].value.stringValue", "null"),
    ("langfuse", "langfuse", 0, ("data", 2, "id"), "data[2].id", MISSING),
    ("langfuse", "langfuse", 0, ("data", 2, "traceId"), "data[2].traceId", MISSING),
    ("langfuse", "langfuse", 0, ("data", 2, "type"), "data[2].type", MISSING),
    ("langfuse", "langfuse", 0, ("data", 0, "type"), "data[0].type", MISSING),  # sniffed
    ("langfuse", "langfuse", 0, ("data", 2, "parentObservationId"),
     "data[2].parentObservationId", OK),
    ("langfuse", "langfuse", 0, ("data", 2, "name"), "data[2].name", MISSING),
    ("langfuse", "langfuse", 0, ("data", 3, "name"), "data[3].name", OK),
    ("langfuse", "langfuse", 0, ("data", 2, "level"), "data[2].level", OK),
    ("langfuse", "langfuse", 0, ("data", 3, "statusMessage"), "data[3].statusMessage", OK),
    ("langfuse", "langfuse", 0, ("data", 2, "startTime"), "data[2].startTime", MISSING),
    ("langsmith", "langsmith", 3, ("id",), "id", MISSING),
    ("langsmith", "langsmith", 3, ("trace_id",), "trace_id", OK),
    ("langsmith", "langsmith", 3, ("parent_run_id",), "parent_run_id", OK),
    ("langsmith", "langsmith", 3, ("run_type",), "run_type", MISSING),
    ("langsmith", "langsmith", 0, ("run_type",), "run_type", MISSING),  # sniffed
    ("langsmith", "langsmith", 3, ("name",), "name", MISSING),
    ("langsmith", "langsmith", 4, ("error",), "error", OK),
    ("langsmith", "langsmith", 0, ("reference_example_id",), "reference_example_id", OK),
]  # fmt: skip


def _set(record: Any, path: tuple[Any, ...], value: Any) -> str:
    """Set the field at ``path`` of ``record`` to ``value``; ``{n}`` of an OTLP attribute's
    field is its index."""
    if "resourceSpans" in record:  # (span number, attribute key or field, ...)
        span = _otlp_spans(record)[path[0]]
        if len(path) == 2:
            span[path[1]] = value
            return ""
        number = _otlp_attribute(record, path[0], path[1])
        target = span["attributes"][number]
        for key in path[2:-1]:
            target = target[key]
        target[path[-1]] = value
        return str(number)
    for key in path[:-1]:
        record = record[key]
    record[path[-1]] = value
    return ""


@pytest.mark.parametrize("wrong", [*WRONG, "null"])
@pytest.mark.parametrize(
    ("importer", "sample", "record", "path", "field", "null"),
    FIELDS,
    ids=[f"{case[0]}-{case[4]}-{case[2]}" for case in FIELDS],
)
def test_a_wrong_typed_field_is_one_line_naming_it(
    tmp_path: Path,
    importer: str,
    sample: str,
    record: int,
    path: tuple[Any, ...],
    field: str,
    null: str,
    wrong: str,
) -> None:
    records = _samples(tmp_path)[sample]
    value, described = WRONG[wrong] if wrong != "null" else (None, "null")
    number = _set(records[record], path, value)
    source = tmp_path / f"export.{'json' if sample == 'console' else 'jsonl'}"
    if sample == "console":
        line = _write_console(records, source)[record]
    else:
        _lines(source, records)
        line = record + 1
    output = tmp_path / "runs.jsonl"
    if wrong == "null" and null == OK:
        with within(10):
            code, _, stderr = invoke("import", importer, source, "-o", output)
        assert code == 0, stderr
        return
    stderr = _refused([importer, source], output)
    problem = (
        MISSING if wrong == "null" and null == MISSING else f"expected a string, got {described}"
    )
    shown = field.format(n=number)
    assert stderr == f"judgekit: error: {source}:{line}: {shown}: {problem}\n"


# --- a store import that fails while recording ----------------------------------------------


def _store_counts(database: Path) -> list[int]:
    """How many batches, runs and grades the store's file holds."""
    connection = sqlite3.connect(database)
    try:
        tables = ("batches", "runs", "grades")
        return [connection.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in tables]
    finally:
        connection.close()


def test_a_store_import_that_fails_while_recording_leaves_no_batch(tmp_path: Path) -> None:
    """A run whose turns no 64-bit column holds passes every check of the file, and the
    database refuses it: each attempt used to leave a batch with nothing in it."""
    database = tmp_path / "judgekit.sqlite"
    store = {"JUDGEKIT_DB": f"sqlite:///{database}"}
    shop, travel = (
        REPO / "examples" / "runs" / "shop.jsonl",
        REPO / "examples" / "runs" / "travel.jsonl",
    )
    assert invoke("store", "import", shop, env=store)[0] == 0
    before = _store_counts(database)
    assert before == [1, 18, 0]
    first = json.loads(shop.read_text().splitlines()[0])
    huge = _lines(tmp_path / "huge.jsonl", [{**first, "turns": 2**70}])
    refused = (
        f"judgekit: error: sqlite:///{database}: Python int too large to convert to SQLite "
        "INTEGER (past the 64 bits a column holds)\n"
    )
    for _ in range(2):
        assert invoke("store", "import", huge, env=store) == (2, "", refused)
        assert _store_counts(database) == before
    # Files recorded before the failing one stay recorded, as the command printed.
    code, stdout, stderr = invoke("store", "import", travel, huge, env=store)
    assert (code, stdout, stderr) == (2, f"{travel}: 17 runs recorded (batch 2)\n", refused)
    assert _store_counts(database) == [2, 35, 0]


def test_a_grade_the_store_cannot_record_leaves_no_batch(tmp_path: Path) -> None:
    database = tmp_path / "judgekit.sqlite"
    store = {"JUDGEKIT_DB": f"sqlite:///{database}"}
    shop = REPO / "examples" / "runs" / "shop.jsonl"
    tasks = REPO / "tasks" / "shop.yaml"
    assert invoke("grade", shop, "--tasks", tasks, "--out", tmp_path / "a", env=store)[0] == 0
    before = _store_counts(database)
    first = json.loads(shop.read_text().splitlines()[0])
    huge = _lines(tmp_path / "huge.jsonl", [{**first, "turns": 2**70}])
    out = tmp_path / "b"
    code, _, stderr = invoke("grade", huge, "--tasks", tasks, "--out", out, env=store)
    assert (code, stderr) == (
        2,
        f"judgekit: error: results written to {out / 'results.jsonl'} and "
        f"{out / 'results.csv'}; the store could not record them: sqlite:///{database}: "
        "Python int too large to convert to SQLite INTEGER (past the 64 bits a column holds)\n",
    )
    assert _store_counts(database) == before
