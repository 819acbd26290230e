"""Record ``mlflow_traces.jsonl``, ``mlflow_traces.json`` and ``mlflow_anthropic.json``: what
MLflow's tracing SDK makes of a tool-calling agent over the real ``openai`` SDK, and over the
real ``anthropic`` SDK, run against the fake server.

Run from the repository root (recorded with mlflow-tracing 3.17.2, openai 3.57.0 and anthropic 2.16.0):
``python examples/traces/record_mlflow.py``. ``mlflow.openai.autolog()`` traces each
chat completion (a CHAT_MODEL span with the messages, the tools and the token usage); the
agent loop is an AGENT span, each tool a TOOL span (``@mlflow.trace``); the session and the
user go into the trace's metadata with ``mlflow.update_current_trace``. Three conversations
on two sessions: Denver's weather; Atlantis (the tool raises) then 2 + 3; then the first
session goes on with Boston's weather and a flight the tool refuses with an "Error: " text.
``mlflow.anthropic.autolog()`` then traces the agent over Claude's Messages API, asking for
Denver's weather (``mlflow_anthropic.json``: that one trace, pretty-printed).

No tracking server is needed: MLflow's own span processor builds each trace in its
in-memory trace manager, and the exporter here takes the finished ``Trace`` from it (as
MLflow's exporters do before sending it), so the file holds ``Trace.to_json()`` per line
and, in the ``.json``, the list as ``mlflow.search_traces(return_type="list")`` returns it.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import anthropic
import mlflow
import openai
from mlflow.entities import SpanType, Trace
from mlflow.entities.trace_location import MlflowExperimentLocation
from mlflow.tracing.processor.mlflow_v3 import MlflowV3SpanProcessor
from mlflow.tracing.trace_manager import InMemoryTraceManager
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

from judgekit.testing import FakeLLMServer, FakeRequest, Reply

HERE = Path(__file__).parent
QUESTIONS = (
    "What is the weather in Denver?",
    "Weather in Atlantis, and what is 2 + 3?",
    "And in Boston? Book me a flight there.",
)
SESSIONS = ("session-denver", "session-atlantis", "session-denver")
SCRIPT: dict[str, list[tuple[str, dict[str, Any]]]] = {
    QUESTIONS[0]: [("get_weather", {"city": "Denver"})],
    QUESTIONS[1]: [("get_weather", {"city": "Atlantis"}), ("add", {"a": 2, "b": 3})],
    QUESTIONS[2]: [("get_weather", {"city": "Boston"}), ("book_flight", {"city": "Boston"})],
}
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {key: {"type": kind} for key, kind in parameters.items()},
                "required": list(parameters),
            },
        },
    }
    for name, description, parameters in (
        ("get_weather", "The weather in a city.", {"city": "string"}),
        ("add", "The sum of two whole numbers.", {"a": "integer", "b": "integer"}),
        ("book_flight", "Book a flight to a city.", {"city": "string"}),
    )
]


class KeepTraces(SpanExporter):
    """Takes each finished trace from MLflow's in-memory trace manager, at its root span."""

    def __init__(self) -> None:
        self.traces: list[Trace] = []

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        for span in spans:
            if span.parent is None:
                kept = InMemoryTraceManager.get_instance().pop_trace(span.context.trace_id)
                if kept is not None:
                    self.traces.append(kept.trace)
        return SpanExportResult.SUCCESS


@mlflow.trace(span_type=SpanType.TOOL)
def get_weather(city: str) -> dict[str, Any]:
    if city == "Atlantis":
        raise ValueError(f"no such city: {city}")
    return {"city": city, "sky": "sunny", "celsius": 21}


@mlflow.trace(span_type=SpanType.TOOL)
def add(a: int, b: int) -> int:
    return a + b


@mlflow.trace(span_type=SpanType.TOOL)
def book_flight(city: str) -> str:
    return f"Error: no seats left to {city}"


FUNCTIONS = {"get_weather": get_weather, "add": add, "book_flight": book_flight}
CLIENT: list[openai.OpenAI] = []  # set once the fake server listens; not an input of the trace
ANTHROPIC: list[anthropic.Anthropic] = []


def reply(request: FakeRequest) -> Reply:
    """The model's next step: the script's next call, or an answer quoting the last result."""
    messages = request.body["messages"]
    number = QUESTIONS.index(messages[1]["content"])
    done = sum(1 for message in messages if message["role"] == "tool")
    script = SCRIPT[QUESTIONS[number]]
    if done < len(script):
        name, arguments = script[done]
        call = {
            "id": f"call_{number}_{done}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)},
        }
        return Reply("", tool_calls=(call,))
    return Reply(f"Done after {done} tools: {messages[-1]['content']}")


@mlflow.trace(span_type=SpanType.AGENT)
def agent(question: str, session: str) -> str:
    mlflow.update_current_trace(
        metadata={"mlflow.trace.session": session, "mlflow.trace.user": "ana"}
    )
    messages: list[Any] = [
        {"role": "system", "content": "You help travellers."},
        {"role": "user", "content": question},
    ]
    while True:
        answer = CLIENT[0].chat.completions.create(
            model="gpt-4o-mini", messages=messages, tools=TOOLS
        )
        message = answer.choices[0].message
        if not message.tool_calls:
            return message.content or ""
        messages.append(message.model_dump(exclude_none=True))
        for call in message.tool_calls:
            try:
                result: Any = FUNCTIONS[call.function.name](**json.loads(call.function.arguments))
            except ValueError as exc:
                result = f"Error: {exc}"
            text = result if isinstance(result, str) else json.dumps(result)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": text})


def anthropic_reply(request: FakeRequest) -> Reply:
    """Claude's next step: Denver's weather, then an answer quoting it."""
    last = request.body["messages"][-1]["content"]
    if isinstance(last, str):
        call = {"type": "tool_use", "id": "toolu_0", "name": "get_weather",
                "input": {"city": "Denver"}}  # fmt: skip
        return Reply("Let me look.", content_blocks=(call,))
    return Reply(f"Denver: {last[0]['content']}")


@mlflow.trace(span_type=SpanType.AGENT)
def claude_agent(question: str) -> str:
    """The same agent over Anthropic's Messages API, traced by mlflow.anthropic.autolog()."""
    messages: list[Any] = [{"role": "user", "content": question}]
    tools = [
        {"name": t["function"]["name"], "description": t["function"]["description"],
         "input_schema": t["function"]["parameters"]}
        for t in TOOLS
    ]  # fmt: skip
    while True:
        answer = ANTHROPIC[0].messages.create(
            model="claude-sonnet-4-5", max_tokens=256, messages=messages, tools=tools
        )
        calls = [block for block in answer.content if block.type == "tool_use"]
        if not calls:
            return "".join(block.text for block in answer.content if block.type == "text")
        messages.append({"role": "assistant", "content": [b.model_dump() for b in answer.content]})
        results = [
            {"type": "tool_result", "tool_use_id": call.id,
             "content": json.dumps(FUNCTIONS[call.name](**call.input))}
            for call in calls
        ]  # fmt: skip
        messages.append({"role": "user", "content": results})


def record() -> list[Trace]:
    # MLflow then traces through the OpenTelemetry provider set below, not one of its own.
    os.environ["MLFLOW_USE_DEFAULT_TRACER_PROVIDER"] = "false"
    mlflow.set_tracking_uri("http://127.0.0.1:9")  # never reached: the exporter keeps traces
    mlflow.tracing.set_destination(MlflowExperimentLocation("0"))
    exporter = KeepTraces()
    provider = TracerProvider()
    provider.add_span_processor(MlflowV3SpanProcessor(span_exporter=exporter, export_metrics=False))
    otel_trace.set_tracer_provider(provider)
    mlflow.openai.autolog()
    with FakeLLMServer(reply) as server:
        CLIENT.append(openai.OpenAI(base_url=server.openai_base_url, api_key="test", max_retries=0))
        for question, session in zip(QUESTIONS, SESSIONS, strict=True):
            agent(question, session)
    mlflow.anthropic.autolog()
    with FakeLLMServer(anthropic_reply) as server:
        ANTHROPIC.append(
            anthropic.Anthropic(base_url=server.anthropic_base_url, api_key="test", max_retries=0)
        )
        claude_agent(QUESTIONS[0])
    return exporter.traces


def main() -> None:
    *traces, claude = record()
    lines = "".join(trace.to_json() + "\n" for trace in traces)
    (HERE / "mlflow_traces.jsonl").write_text(lines)
    (HERE / "mlflow_anthropic.json").write_text(claude.to_json(pretty=True) + "\n")
    listed = [trace.to_dict() for trace in traces]
    (HERE / "mlflow_traces.json").write_text(json.dumps(listed, indent=2) + "\n")


if __name__ == "__main__":
    main()
