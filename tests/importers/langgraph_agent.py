"""A LangGraph ReAct agent (``create_react_agent`` over ``langchain_openai.ChatOpenAI``)
talking to the fake server, for the tests that import what LangGraph's tracers record.

Two conversations, each on a thread of its own, in three invocations (three traces): the
first looks up Denver's weather and answers; the second asks for Atlantis (the tool raises,
ToolNode hands the model an error ToolMessage), then adds two numbers, then answers; then the
first thread goes on: Boston's weather, then a flight there, which the tool refuses with a
ToolException it handles itself (a ToolMessage of status "error").
"""

from __future__ import annotations

import json
import warnings
from typing import Any

import pytest

from judgekit.testing import FakeLLMServer, FakeRequest
from judgekit.testing.logprobs import Reply

tools_module = pytest.importorskip("langchain_core.tools", reason="needs langchain-core")
chat_openai = pytest.importorskip("langchain_openai", reason="needs langchain-openai")
prebuilt = pytest.importorskip("langgraph.prebuilt", reason="needs langgraph")
memory = pytest.importorskip("langgraph.checkpoint.memory", reason="needs langgraph")

QUESTIONS = (
    "What is the weather in Denver?",
    "Weather in Atlantis, and what is 2 + 3?",
    "And in Boston? Book me a flight there.",
)
THREADS = ("thread-denver", "thread-atlantis", "thread-denver")
# The calls the model asks for, turn by turn, in each conversation.
SCRIPT: dict[str, list[tuple[str, dict[str, Any]]]] = {
    QUESTIONS[0]: [("get_weather", {"city": "Denver"})],
    QUESTIONS[1]: [("get_weather", {"city": "Atlantis"}), ("add", {"a": 2, "b": 3})],
    QUESTIONS[2]: [("get_weather", {"city": "Boston"}), ("book_flight", {"city": "Boston"})],
}


@tools_module.tool
def get_weather(city: str) -> dict[str, Any]:
    """The weather in a city."""
    if city == "Atlantis":
        raise ValueError(f"no such city: {city}")
    return {"city": city, "sky": "sunny", "celsius": 21}


@tools_module.tool
def add(a: int, b: int) -> int:
    """The sum of two whole numbers."""
    return a + b


@tools_module.tool
def book_flight(city: str) -> str:
    """Book a flight to a city."""
    raise tools_module.ToolException(f"No seats left to {city}")


book_flight.handle_tool_error = True  # the tool answers its own failure


def reply(request: FakeRequest) -> Reply:
    """The model's next step: the script's next call, or an answer quoting the last result."""
    messages = request.body["messages"]
    asked = max(n for n, message in enumerate(messages) if message["role"] == "user")
    number = QUESTIONS.index(messages[asked]["content"])
    done = sum(1 for message in messages[asked:] if message["role"] == "tool")
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


def run_conversations(server: FakeLLMServer, callbacks: list[Any] | None = None) -> list[Any]:
    """The three invocations through the agent; each one's final state."""
    model = chat_openai.ChatOpenAI(
        model="gpt-4o-mini", base_url=server.openai_base_url, api_key="test", max_retries=0
    )
    tool_node = prebuilt.ToolNode([get_weather, add, book_flight], handle_tool_errors=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # create_react_agent is deprecated for langchain's own
        agent = prebuilt.create_react_agent(model, tool_node, checkpointer=memory.InMemorySaver())
    states = []
    for question, thread in zip(QUESTIONS, THREADS, strict=True):
        config: dict[str, Any] = {"configurable": {"thread_id": thread}}
        if callbacks is not None:
            config["callbacks"] = callbacks
        states.append(agent.invoke({"messages": [("user", question)]}, config))
    return states
