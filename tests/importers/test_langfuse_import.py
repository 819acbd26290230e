"""Langfuse trace exports imported as runs: what the langfuse SDK itself traces (an agent
with @observe, its OpenAI integration and tool observations), sends to a stand-in of
Langfuse's API and reads back with its API client, written as users write the SDK's
objects; observations built with the SDK's API classes (ObservationV2 in an
ObservationsV2Response page), a trace carrying its observations, and hand-made malformed
exports."""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterator
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
        ([_obs(startTime="yesterday")], "lf.jsonl:1: startTime: expected an ISO 8601 time, "
         "got 'yesterday'"),
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


# What the langfuse SDK itself writes and reads back: an agent traced with @observe, the
# langfuse OpenAI integration (over the fake LLM server) and start_as_current_observation,
# its spans sent by the SDK to a stand-in of Langfuse's API (tests/importers/langfuse_stand_in
# .py says what it records and what it derives as Langfuse does), then read with the SDK's
# own `api.observations.get_many` and written as users write API objects (`.json()`).

PARIS, ATLANTIS = "Weather in Paris?", "Weather in Atlantis?"
PARIS_ANSWER = "Paris: 21 degrees, rain tomorrow."
LOOKUP_TOOL = {"type": "function", "function": {"name": "lookup", "parameters": {}}}
FIELDS = "core,basic,time,io,metadata,model,usage,trace_context"


def _agent_reply(request: Any) -> Any:
    from judgekit.testing import Reply

    messages = request.body["messages"]
    if any(message["role"] == "tool" for message in messages):
        return Reply(PARIS_ANSWER if messages[0]["content"] == PARIS else "No such city.")
    city = "Paris" if messages[0]["content"] == PARIS else "Atlantis"
    names = ("lookup", "forecast") if city == "Paris" else ("lookup",)
    return Reply("", tool_calls=tuple(
        {"id": f"call_{name}", "type": "function",
         "function": {"name": name, "arguments": json.dumps({"city": city})}}
        for name in names
    ))  # fmt: skip


def _traced_agent(openai_base_url: str) -> Any:
    """An agent traced the way the langfuse SDK's users trace theirs."""
    import langfuse
    from langfuse.openai import OpenAI

    client = OpenAI(base_url=openai_base_url, api_key="test")

    @langfuse.observe(as_type="tool")
    def lookup(city: str) -> dict[str, int]:
        raise ValueError(f"no such city: {city}")

    @langfuse.observe()  # a tool traced as a plain span
    def forecast(city: str) -> str:
        return "rain tomorrow"

    def run_tool(call: Any) -> str:
        time.sleep(0.002)  # Langfuse's times are to the millisecond: keep the steps apart
        arguments = json.loads(call.function.arguments)
        if call.function.name == "forecast":
            return forecast(city=arguments["city"])
        if arguments["city"] != "Paris":
            try:
                lookup(arguments["city"])  # positional: @observe records it in `args`
            except ValueError as exc:
                return str(exc)
        with langfuse.get_client().start_as_current_observation(
            as_type="tool", name="lookup", input=arguments
        ) as tool:
            tool.update(output={"temp": 21})
        return '{"temp": 21}'

    @langfuse.observe(as_type="agent")
    def weather_agent(question: str) -> str:
        messages: list[Any] = [{"role": "user", "content": question}]
        for _ in range(2):
            time.sleep(0.002)
            answer = (
                client.chat.completions.create(
                    model="gpt-4o", messages=messages, tools=[LOOKUP_TOOL]
                )
                .choices[0]
                .message
            )
            messages.append(answer.model_dump(exclude_none=True))
            for call in answer.tool_calls or ():
                messages.append(
                    {"role": "tool", "tool_call_id": call.id, "content": run_tool(call)}
                )
        if question == ATLANTIS:
            raise RuntimeError("gave up on Atlantis")
        return str(answer.content)

    return weather_agent


@pytest.fixture(scope="module")
def langfuse_sdk() -> Iterator[tuple[Any, Any]]:
    """The stand-in and the SDK's client on it: one for the module, as the SDK keeps one
    set of resources per public key for the whole process."""
    import langfuse

    from tests.importers.langfuse_stand_in import PLACEHOLDER_AUTH, LangfuseStandIn

    with LangfuseStandIn() as stand_in:
        client = langfuse.Langfuse(
            host=stand_in.host, public_key="pk-lf-placeholder", secret_key="sk-lf-placeholder"
        )
        yield stand_in, client
        client.shutdown()
    assert stand_in.authorizations == {PLACEHOLDER_AUTH}  # no real key, only 127.0.0.1


@pytest.fixture(scope="module")
def langfuse_api_export(
    langfuse_sdk: tuple[Any, Any], tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Any]:
    """The agent run twice in one session (Paris, then Atlantis inside a web framework's
    span that is never sent to Langfuse), traced by the SDK, read back through its API."""
    import langfuse
    from opentelemetry.sdk.trace import TracerProvider

    from judgekit.testing import FakeLLMServer

    _, client = langfuse_sdk
    folder = tmp_path_factory.mktemp("langfuse")
    with (
        FakeLLMServer(_agent_reply) as llm,
        langfuse.propagate_attributes(
            session_id="weather", user_id="ana", tags=["prod"], trace_name="weather-question"
        ),
    ):
        agent = _traced_agent(llm.openai_base_url)
        agent(PARIS)
        web = TracerProvider().get_tracer("web-framework")
        with web.start_as_current_span("POST /ask"), contextlib.suppress(RuntimeError):
            agent(ATLANTIS)
    client.flush()
    everything = client.api.observations.get_many(session_id="weather", fields=FIELDS, limit=1000)
    trace_ids = sorted({o.trace_id for o in everything.data if o.trace_id})
    pages = []
    for trace_id in trace_ids:  # each trace's observations, three to a page
        cursor = None
        while True:
            page = client.api.observations.get_many(
                trace_id=trace_id, fields=FIELDS, limit=3, cursor=cursor
            )
            pages.append(page)
            cursor = page.meta.cursor
            if cursor is None:
                break
    page_file = folder / "observations.json"
    page_file.write_text(everything.json())
    pages_file = folder / "observation-pages.jsonl"
    pages_file.write_text("".join(page.json() + "\n" for page in pages))
    dict_file = folder / "observations-dict.json"  # .dict() keeps datetimes: str() them
    dict_file.write_text(json.dumps(everything.dict(), default=str))
    return {"page": page_file, "pages": pages_file, "dict": dict_file, "pages_count": len(pages)}


def _file_observations(path: Path) -> list[dict[str, Any]]:
    """The observations of an export of API pages (one JSON page, or a page per line)."""
    return [o for line in path.read_text().splitlines() for o in json.loads(line)["data"]]


def _json_or_text(raw: str | None) -> Any:
    return json.loads(raw) if raw is not None and raw.startswith(("{", "[")) else raw


def _expected_run(observations: list[dict[str, Any]]) -> dict[str, Any]:
    """What the export says of one trace, read straight from the API's fields: the v2 API's
    input and output are the JSON texts the SDK sent (a string as it is)."""
    ordered = sorted(observations, key=lambda o: o["startTime"])
    generations = [o for o in ordered if o["type"] == "GENERATION"]
    asked = {
        call["function"]["name"]
        for g in generations
        for call in json.loads(g["output"]).get("tool_calls") or ()
    }
    (root,) = [o for o in ordered if o["isRootObservation"]]
    calls = []
    for o in ordered:
        if o["type"] == "TOOL" or (o["type"] == "SPAN" and o["name"] in asked):
            args = json.loads(o["input"])
            if set(args) == {"args", "kwargs"} and args["args"] == []:
                args = args["kwargs"]  # @observe's record of a call by keywords
            error = o["statusMessage"] if o["level"] == "ERROR" else None
            calls.append((o["name"], args, _json_or_text(o["output"]), error, o["id"]))
    final = root["output"] or json.loads(generations[-1]["output"])["content"]
    usage = {
        f"{kind}_tokens": sum(g["usageDetails"][kind] for g in generations)
        for kind in ("input", "output", "total")
    }
    ends = [datetime.fromisoformat(o["endTime"]) for o in ordered]
    run: dict[str, Any] = {
        "run_id": root["traceId"], "input": json.loads(root["input"])["args"][0],
        "tool_calls": calls, "final_answer": final, "turns": len(generations),
        "usage": usage, "cost_usd": sum(g["costDetails"]["total"] for g in generations),
        "duration_s": (max(ends) - datetime.fromisoformat(ordered[0]["startTime"])).total_seconds(),
        "metadata": {"trace_id": root["traceId"], "name": root["traceName"],
                     "tags": root["tags"], "session_id": root["sessionId"],
                     "user_id": root["userId"]},
        "stop_reason": None,
    }  # fmt: skip
    if root["level"] == "ERROR":
        run["stop_reason"] = "error"
        run["metadata"]["error"] = root["statusMessage"]
    return run


def _as_expected(run: Any) -> dict[str, Any]:
    return {
        "run_id": run.run_id, "input": run.input,
        "tool_calls": [(c.name, c.args, c.result, c.error, c.id) for c in run.tool_calls],
        "final_answer": run.final_answer, "turns": run.turns,
        "usage": run.usage.model_dump() if run.usage else None, "cost_usd": run.cost_usd,
        "duration_s": run.duration_s, "metadata": run.metadata, "stop_reason": run.stop_reason,
    }  # fmt: skip


@pytest.mark.parametrize("shape", ["page", "pages", "dict"])
def test_what_the_sdk_exports_imports_through_the_command_as_the_file_says(
    langfuse_api_export: dict[str, Any], shape: str, tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from judgekit.cli.main import main
    from judgekit.formats.run import load_runs
    from judgekit.importers.registry import sniff

    assert langfuse_api_export["pages_count"] == 4  # five observations a trace, three a page
    path, runs_file = langfuse_api_export[shape], tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "langfuse", str(path), "-o", str(runs_file)])
    assert sniff(path) == "langfuse"
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"imported 2 runs with 3 tool calls (1 tool errors, 0 with invalid arguments) "
        f"to {runs_file}\n"
    )
    by_trace: dict[str, list[dict[str, Any]]] = {}
    for observation in _file_observations(path):
        by_trace.setdefault(observation["traceId"], []).append(observation)
    expected = {trace_id: _expected_run(found) for trace_id, found in by_trace.items()}
    runs = {run.run_id: _as_expected(run) for run in load_runs(runs_file)}
    assert runs == expected
    paris, atlantis = sorted(runs.values(), key=lambda run: run["input"] != PARIS)
    assert [call[:4] for call in paris["tool_calls"]] == [
        ("lookup", {"city": "Paris"}, {"temp": 21}, None),
        ("forecast", {"city": "Paris"}, "rain tomorrow", None),
    ]
    assert (paris["final_answer"], paris["turns"], paris["stop_reason"]) == (
        PARIS_ANSWER, 2, None,
    )  # fmt: skip
    assert [call[:4] for call in atlantis["tool_calls"]] == [
        ("lookup", {"args": ["Atlantis"], "kwargs": {}}, None, "no such city: Atlantis"),
    ]  # called positionally, @observe kept no parameter name
    assert paris["metadata"] == {
        "trace_id": paris["run_id"], "name": "weather-question", "tags": ["prod"],
        "session_id": "weather", "user_id": "ana",
    }  # fmt: skip
    assert (atlantis["input"], atlantis["final_answer"], atlantis["metadata"]["error"]) == (
        ATLANTIS, "No such city.", "gave up on Atlantis",
    )  # fmt: skip


def test_langfuse_counts_cached_and_reasoning_tokens_apart_and_the_run_counts_them_in(
    langfuse_sdk: tuple[Any, Any], tmp_path: Path
) -> None:
    """A generation given OpenAI's usage (cached prompt tokens, reasoning tokens): Langfuse
    keeps ``input`` and ``output`` net of those details; a run's counts are the whole."""
    import langfuse

    _, client = langfuse_sdk
    openai_usage = {
        "prompt_tokens": 1200, "completion_tokens": 90, "total_tokens": 1290,
        "prompt_tokens_details": {"cached_tokens": 1024, "audio_tokens": None},
        "completion_tokens_details": {"reasoning_tokens": 64},
    }  # fmt: skip
    with (
        langfuse.propagate_attributes(session_id="cached"),
        client.start_as_current_observation(
            as_type="generation", name="chat", model="gpt-4o", usage_details=openai_usage
        ) as generation,
    ):
        generation.update(output={"role": "assistant", "content": "done"})
    client.flush()
    page = client.api.observations.get_many(session_id="cached", fields=FIELDS)
    path = tmp_path / "langfuse.json"
    path.write_text(page.json())
    (observation,) = json.loads(path.read_text())["data"]
    assert observation["usageDetails"] == {
        "input": 176, "output": 26, "total": 1290,
        "input_cached_tokens": 1024, "output_reasoning_tokens": 64,
    }  # fmt: skip
    (run,) = import_langfuse(path)
    assert run.usage is not None
    assert run.usage.model_dump() == {
        "input_tokens": 1200, "output_tokens": 90, "total_tokens": 1290,
        "input_cached_tokens": 1024, "output_reasoning_tokens": 64,
    }  # fmt: skip
    assert run.cost_usd == observation["costDetails"]["total"]
    assert run.cost_usd == pytest.approx(176 * 2.5e-06 + 1024 * 1.25e-06 + 26 * 1e-05)


def test_observations_are_ordered_by_time_whatever_the_sdk_writes_of_a_whole_second(
    langfuse_sdk: tuple[Any, Any], tmp_path: Path
) -> None:
    """Langfuse's API writes times to the millisecond (``09:00:00.000Z``); the SDK's
    ``.json()`` writes a whole second without its fraction (``09:00:00Z``), which sorts after
    ``09:00:00.400000Z`` as text."""
    stand_in, client = langfuse_sdk

    def tool(name: str, start: str, end: str) -> dict[str, Any]:
        return {
            "id": name, "traceId": "ordered", "projectId": "p", "type": "TOOL", "name": name,
            "startTime": f"2026-03-01T09:00:{start}Z", "endTime": f"2026-03-01T09:00:{end}Z",
            "parentObservationId": None, "sessionId": "ordered", "level": "DEFAULT",
            "input": '{"step": "' + name + '"}', "output": "ok",
        }  # fmt: skip

    stand_in.stored += [
        tool("first", "00.000", "00.300"),
        tool("second", "00.400", "00.900"),
        tool("third", "01.000", "02.000"),
    ]
    page = client.api.observations.get_many(session_id="ordered", fields=FIELDS)
    path = tmp_path / "langfuse.json"
    path.write_text(page.json())
    assert [o["startTime"] for o in json.loads(path.read_text())["data"]] == [
        "2026-03-01T09:00:01Z", "2026-03-01T09:00:00.400000Z", "2026-03-01T09:00:00Z",
    ]  # fmt: skip
    (run,) = import_langfuse(path)
    assert [call.name for call in run.tool_calls] == ["first", "second", "third"]
    assert run.duration_s == 2.0


def test_steps_started_in_one_millisecond_keep_their_order(
    langfuse_sdk: tuple[Any, Any], tmp_path: Path
) -> None:
    """Langfuse's API gives times to the millisecond and pages newest first: an agent span
    and its first tool, then a second tool, all started in one millisecond."""
    stand_in, client = langfuse_sdk

    def observation(key: str, kind: str, end: str, parent: str | None) -> dict[str, Any]:
        return {
            "id": key, "traceId": "one-ms", "projectId": "p", "type": kind, "name": key,
            "startTime": "2026-03-01T09:00:00.100Z", "endTime": f"2026-03-01T09:00:{end}Z",
            "parentObservationId": parent, "sessionId": "one-ms", "level": "DEFAULT",
            "input": "{}", "output": key,
        }  # fmt: skip

    stand_in.stored += [
        observation("a-agent", "AGENT", "00.900", None),
        observation("b-lookup", "TOOL", "00.100", "a-agent"),
        observation("c-book", "TOOL", "00.300", "a-agent"),
    ]
    page = client.api.observations.get_many(session_id="one-ms", fields=FIELDS)
    assert [o.id for o in page.data] == ["c-book", "b-lookup", "a-agent"]
    path = tmp_path / "langfuse.json"
    path.write_text(page.json())
    (run,) = import_langfuse(path)
    assert [call.name for call in run.tool_calls] == ["b-lookup", "c-book"]
    assert run.final_answer == "a-agent"


def test_an_agent_that_traced_only_its_model_calls_has_the_calls_they_asked_for(
    langfuse_sdk: tuple[Any, Any], tmp_path: Path
) -> None:
    """An agent span and the langfuse OpenAI integration, no tool observation: the calls the
    model asked for (a generation's output), their results the next generation's tool
    messages."""
    import langfuse
    from langfuse.openai import OpenAI

    from judgekit.testing import FakeLLMServer

    _, client = langfuse_sdk
    results = {"lookup": '{"temp": 21}', "forecast": "rain tomorrow"}
    with (
        FakeLLMServer(_agent_reply) as llm,
        langfuse.propagate_attributes(session_id="untraced-tools"),
        OpenAI(base_url=llm.openai_base_url, api_key="test") as openai_client,
        client.start_as_current_observation(as_type="agent", name="weather_agent"),
    ):
        messages: list[Any] = [{"role": "user", "content": PARIS}]
        for _ in range(2):
            answer = (
                openai_client.chat.completions.create(
                    model="gpt-4o", messages=messages, tools=[LOOKUP_TOOL]
                )
                .choices[0]
                .message
            )
            messages.append(answer.model_dump(exclude_none=True))
            messages += [
                {"role": "tool", "tool_call_id": call.id, "content": results[call.function.name]}
                for call in answer.tool_calls or ()
            ]
    client.flush()
    page = client.api.observations.get_many(session_id="untraced-tools", fields=FIELDS)
    path = tmp_path / "langfuse.json"
    path.write_text(page.json())
    observations = sorted(json.loads(path.read_text())["data"], key=lambda o: o["startTime"])
    first, second = (o for o in observations if o["type"] == "GENERATION")
    asked = json.loads(first["output"])
    sent = {
        m["tool_call_id"]: m["content"]
        for m in json.loads(second["input"])["messages"]
        if m["role"] == "tool"
    }
    expected = [
        (c["function"]["name"], json.loads(c["function"]["arguments"]),
         _json_or_text(sent[c["id"]]), None, c["id"])
        for c in asked["tool_calls"]
    ]  # fmt: skip
    (run,) = import_langfuse(path)
    assert [(c.name, c.args, c.result, c.error, c.id) for c in run.tool_calls] == expected
    assert expected == [
        ("lookup", {"city": "Paris"}, {"temp": 21}, None, "call_lookup"),
        ("forecast", {"city": "Paris"}, "rain tomorrow", None, "call_forecast"),
    ]
    assert (run.turns, run.final_answer) == (2, PARIS_ANSWER)


def test_group_by_session_makes_the_sessions_traces_one_conversation(
    langfuse_api_export: dict[str, Any], tmp_path: Path
) -> None:
    from click.testing import CliRunner

    from judgekit.cli.main import main
    from judgekit.formats.run import load_runs

    path = langfuse_api_export["page"]
    traces = sorted(load_runs(_runs_of(path, tmp_path / "traces.jsonl")), key=_first_start(path))
    grouped = tmp_path / "session.jsonl"
    command = ["import", "langfuse", str(path), "-o", str(grouped), "--group-by", "session"]
    result = CliRunner().invoke(main, command)
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"imported 1 runs with 3 tool calls (1 tool errors, 0 with invalid arguments) to {grouped}\n"
    )
    (run,) = load_runs(grouped)
    paris, atlantis = traces
    assert (paris.input, atlantis.input) == (PARIS, ATLANTIS)
    assert run.run_id == "weather"
    assert [(m.role, m.content, m.after_tool_calls) for m in run.messages] == [
        ("user", PARIS, 0),
        ("assistant", PARIS_ANSWER, 2),
        ("user", ATLANTIS, 2),
        ("assistant", "No such city.", 3),
    ]
    assert run.tool_calls == paris.tool_calls + atlantis.tool_calls
    assert run.messages_to_user == [PARIS_ANSWER, "No such city."]
    assert (run.input, run.final_answer) == (PARIS, "No such city.")
    assert paris.usage is not None and atlantis.usage is not None and run.usage is not None
    assert run.usage.model_dump() == {
        key: paris.usage.model_dump()[key] + atlantis.usage.model_dump()[key]
        for key in ("input_tokens", "output_tokens", "total_tokens")
    }
    assert run.turns == 4 == (paris.turns or 0) + (atlantis.turns or 0)
    assert run.cost_usd == pytest.approx((paris.cost_usd or 0) + (atlantis.cost_usd or 0))
    assert run.stop_reason == "error"
    assert run.metadata == {
        "name": "weather-question", "tags": ["prod"], "session_id": "weather",
        "user_id": "ana", "trace_ids": [paris.run_id, atlantis.run_id],
        "error": "gave up on Atlantis",
    }  # fmt: skip


def _runs_of(path: Path, out: Path) -> Path:
    from click.testing import CliRunner

    from judgekit.cli.main import main

    result = CliRunner().invoke(main, ["import", "langfuse", str(path), "-o", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _first_start(path: Path) -> Any:
    """A run's key: when its trace's first observation started, as the file says."""
    starts: dict[str, datetime] = {}
    for o in _file_observations(path):
        start = datetime.fromisoformat(o["startTime"])
        starts[o["traceId"]] = min(starts.get(o["traceId"], start), start)
    return lambda run: starts[run.run_id]


def test_the_nightly_example_s_export_imports_as_the_api_pages_do(
    langfuse_sdk: tuple[Any, Any], langfuse_api_export: dict[str, Any], tmp_path: Path
) -> None:
    """examples/nightly/export_langfuse.py, run as the nightly workflow runs it, against the
    stand-in: its pages import to the same runs as the API's own page."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO

    stand_in, _ = langfuse_sdk
    exported = tmp_path / "traces.jsonl"
    env = {
        **os.environ,
        "LANGFUSE_HOST": stand_in.host,
        "LANGFUSE_PUBLIC_KEY": "pk-lf-placeholder",
        "LANGFUSE_SECRET_KEY": "sk-lf-placeholder",
    }
    script = REPO / "examples" / "nightly" / "export_langfuse.py"
    done = subprocess.run(
        [sys.executable, str(script), "--hours", "24", "-o", str(exported)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("wrote 1 pages of observations since ")
    from judgekit.formats.run import load_runs

    ours = {run.run_id: run for run in load_runs(_runs_of(exported, tmp_path / "ours.jsonl"))}
    api = list(load_runs(_runs_of(langfuse_api_export["page"], tmp_path / "api.jsonl")))
    # The export holds every trace the stand-in has (other tests' too), the page one session.
    assert len(api) == 2
    assert [_as_expected(ours[run.run_id]) for run in api] == [_as_expected(run) for run in api]
