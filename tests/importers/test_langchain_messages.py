"""LangChain messages in each shape langchain-core's own serialisers write them, read by
judgekit.importers.langchain_messages."""

from __future__ import annotations

from typing import Any

import pytest

from judgekit.importers.langchain_messages import (
    ToolOutcome,
    exception_text,
    first_human_text,
    last_ai_text,
    tool_outcome,
)

messages = pytest.importorskip("langchain_core.messages", reason="needs langchain-core")
load = pytest.importorskip("langchain_core.load", reason="needs langchain-core")


def _conversation() -> list[Any]:
    return [
        messages.SystemMessage("Be brief."),
        messages.HumanMessage("Weather in Paris?"),
        messages.AIMessage(
            "", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "c1"}]
        ),
        messages.ToolMessage("21 degrees", tool_call_id="c1"),
        messages.AIMessage([{"type": "text", "text": "It is "}, {"type": "text", "text": "21."}]),
        messages.AIMessage(""),
    ]


@pytest.mark.parametrize(
    "serialise",
    [
        pytest.param(lambda ms: [load.dumpd(m) for m in ms], id="dumpd"),
        pytest.param(messages.messages_to_dict, id="messages_to_dict"),
        pytest.param(lambda ms: [m.model_dump() for m in ms], id="model_dump"),
    ],
)
def test_every_serialised_shape_gives_the_question_and_the_last_answer(serialise: Any) -> None:
    state = {"messages": serialise(_conversation())}
    assert first_human_text(state) == "Weather in Paris?"
    # the last AI message has no text: the one before it, its text blocks joined, answers
    assert last_ai_text(state) == "It is 21."
    assert last_ai_text([state["messages"]]) == "It is 21."  # a chat model's batch of lists


@pytest.mark.parametrize(
    "serialise",
    [load.dumpd, lambda m: messages.messages_to_dict([m])[0], lambda m: {"output": m.model_dump()}],
    ids=["dumpd", "messages_to_dict", "tool_run_outputs"],
)
def test_a_tool_message_gives_its_content_call_id_and_status(serialise: Any) -> None:
    failed = messages.ToolMessage("Error: no such city", tool_call_id="c2", status="error")
    assert tool_outcome(serialise(failed)) == ToolOutcome("Error: no such city", "c2", True)
    done = messages.ToolMessage("21 degrees", tool_call_id="c1")
    assert tool_outcome(serialise(done)) == ToolOutcome("21 degrees", "c1", False)
    assert tool_outcome(serialise(messages.AIMessage("hi"))) is None


def test_pairs_and_chat_dicts_are_messages_and_other_values_are_not() -> None:
    assert first_human_text({"messages": [["user", "Hi"]]}) == "Hi"
    assert first_human_text([{"role": "user", "content": "Hello"}]) == "Hello"
    assert last_ai_text({"role": "assistant", "content": "Done"}) == "Done"
    for value in ({"output": "Done"}, "Done", None, 3, [["tool"]], {"messages": "x"}):
        assert (first_human_text(value), last_ai_text(value), tool_outcome(value)) == (
            None,
            None,
            None,
        )


def test_exception_text_drops_the_traceback_langchain_appends() -> None:
    traced = "ValueError('no such city')Traceback (most recent call last):\n  File \"t.py\"\n"
    assert exception_text(traced) == "ValueError('no such city')"
    assert exception_text("ToolException: no such city") == "ToolException: no such city"
    only = "Traceback (most recent call last):\nValueError: x"
    assert exception_text(only) == only
