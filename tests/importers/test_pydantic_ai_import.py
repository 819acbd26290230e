"""`judgekit import otel` on traces pydantic-ai writes itself, in each of its instrumentation
versions: an agent with a tool run against the fake server (OpenAI-compatible) over the
real openai SDK, its spans recorded by the OpenTelemetry SDK and written as OTLP JSON."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.formats.run import ToolCall, load_runs
from judgekit.testing import FakeLLMServer, FakeRequest
from judgekit.testing.logprobs import Reply
from tests.importers.otel_spans import write_otlp_json

pydantic_ai = pytest.importorskip("pydantic_ai", reason="needs pydantic-ai-slim[openai]")
instrumented = pytest.importorskip("pydantic_ai.models.instrumented")
openai_models = pytest.importorskip("pydantic_ai.models.openai")
openai_providers = pytest.importorskip("pydantic_ai.providers.openai")
trace_sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="needs opentelemetry-sdk")
export = pytest.importorskip("opentelemetry.sdk.trace.export")
in_memory = pytest.importorskip("opentelemetry.sdk.trace.export.in_memory_span_exporter")

CITIES = ("Denver", "Boston")
ANSWER = "Sunny in Denver, rain in Boston."
# Where each version keeps a tool call's arguments and result (pydantic-ai's
# InstrumentationNames.for_version): version 2 has names of its own.
TOOL_ATTRIBUTES = {2: ("tool_arguments", "tool_response")}
SEMCONV_TOOL_ATTRIBUTES = ("gen_ai.tool.call.arguments", "gen_ai.tool.call.result")


def _reply(request: FakeRequest) -> Reply:
    if any(message["role"] == "tool" for message in request.body["messages"]):
        return Reply(ANSWER)
    calls = tuple(
        {
            "id": f"call_{number}",
            "type": "function",
            "function": {"name": "get_weather", "arguments": json.dumps({"city": city})},
        }
        for number, city in enumerate(CITIES, start=1)
    )
    return Reply("", tool_calls=calls)


def _record(version: int) -> list[Any]:
    exporter = in_memory.InMemorySpanExporter()
    provider = trace_sdk.TracerProvider()
    provider.add_span_processor(export.SimpleSpanProcessor(exporter))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # versions 2 to 4 are deprecated
        settings = instrumented.InstrumentationSettings(tracer_provider=provider, version=version)
    with FakeLLMServer(_reply) as server:
        model = openai_models.OpenAIChatModel(
            "gpt-4o-mini",
            provider=openai_providers.OpenAIProvider(
                base_url=server.openai_base_url, api_key="test"
            ),
        )
        agent = pydantic_ai.Agent(model, name="weather")
        agent.instrument = settings

        @agent.tool_plain
        def get_weather(city: str) -> dict[str, str]:
            return {"city": city, "sky": "sunny" if city == "Denver" else "rain"}

        assert agent.run_sync("What is the weather in Denver and Boston?").output == ANSWER
    provider.shutdown()
    return list(exporter.get_finished_spans())


def _expected_calls(spans: list[Any], version: int) -> list[ToolCall]:
    """The tool calls read straight from the spans' attributes, in the order they started."""
    arguments_key, result_key = TOOL_ATTRIBUTES.get(version, SEMCONV_TOOL_ATTRIBUTES)
    tool_spans = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "execute_tool"]
    return [
        ToolCall(
            name=span.attributes["gen_ai.tool.name"],
            id=span.attributes["gen_ai.tool.call.id"],
            args=json.loads(span.attributes[arguments_key]),
            result=json.loads(span.attributes[result_key]),
        )
        for span in sorted(tool_spans, key=lambda span: span.start_time)
    ]


@pytest.mark.parametrize("version", [2, 3, 4, 5, 6])
def test_every_instrumentation_version_imports_calls_turns_usage_and_answer(
    tmp_path: Path, version: int
) -> None:
    spans = _record(version)
    source = write_otlp_json(spans, tmp_path / "spans.json")
    out = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "otel", str(source), "-o", str(out)])
    assert result.exit_code == 0, result.output
    (run,) = load_runs(out)

    expected = _expected_calls(spans, version)
    assert [(call.args, call.result) for call in expected] == [
        ({"city": "Denver"}, {"city": "Denver", "sky": "sunny"}),
        ({"city": "Boston"}, {"city": "Boston", "sky": "rain"}),
    ]
    assert run.tool_calls == expected
    chats = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "chat"]
    (agent,) = [s for s in spans if s.attributes.get("gen_ai.operation.name") == "invoke_agent"]
    assert run.turns == len(chats) == 2
    assert run.usage is not None
    # A count of zero (the turn that only calls tools writes no text) is left out of a span.
    for kind in ("input_tokens", "output_tokens"):
        counts = [s.attributes.get(f"gen_ai.usage.{kind}", 0) for s in chats]
        assert getattr(run.usage, kind) == sum(counts) > 0
    assert run.final_answer == agent.attributes["final_result"] == ANSWER
    first = json.loads(agent.attributes["pydantic_ai.all_messages"])[0]
    assert run.input == first["parts"][0]["content"] == "What is the weather in Denver and Boston?"
    assert run.run_id == format(spans[0].context.trace_id, "032x")
