"""import_anthropic on hand-written Messages transcripts."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import DataError
from judgekit.formats.run import Run, ToolCall
from judgekit.importers import import_anthropic


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _use(call_id: str, name: str, tool_input: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": tool_input}


def _result(call_id: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": content, **extra}


TRAVEL_CONVERSATION: dict[str, Any] = {
    "run_id": "travel/weather-gate-book/0",
    "task_id": "weather-gate-book",
    "trial": 0,
    "model": "claude-sonnet-4",
    "system": "You are a travel agent. Never book without checking the weather.",
    "cost_usd": 0.0123,
    "final_state": {"bookings": {"AA123": {"status": "booked"}}},
    "messages": [
        {
            "role": "user",
            "content": "Book flight AA123 for Friday, but only if it isn't raining in Denver.",
        },
        {
            "role": "assistant",
            "content": [
                {"type": "thinking", "thinking": "Weather first, and the flight in parallel."},
                _text("Let me check the weather and the flight."),
                _use("toolu_01", "get_weather", {"city": "Denver", "day": "Friday"}),
                _use("toolu_02", "get_flight", '{"flight_id": "AA123"}'),
            ],
            "stop_reason": "tool_use",
            "usage": {"input_tokens": 500, "output_tokens": 60, "cache_read_input_tokens": 400},
        },
        {
            "role": "user",
            "content": [
                _result("toolu_02", [_text('{"flight_id": "AA123",'), _text('"seats": 4}')]),
                _result("toolu_01", "sunny"),
            ],
        },
        {
            "role": "assistant",
            "content": [_use("toolu_03", "book", {"flight_id": "AA123", "date": "Friday"})],
            "usage": {"input_tokens": 700, "output_tokens": 20},
        },
        {
            "role": "user",
            "content": [_result("toolu_03", [_text("payment declined")], is_error=True)],
        },
        {
            "role": "assistant",
            "content": [_use("toolu_04", "book", '{"flight_id": "AA123", date: "Friday"}')],
        },
        {"role": "user", "content": [_result("toolu_04", '{"booking": "B7", "seats": [12]}')]},
        {
            "role": "assistant",
            "content": [_text("Booked AA123 for Friday."), _text("Booking B7.")],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 900, "output_tokens": 15, "cache_read_input_tokens": 0},
        },
    ],
}


def _write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value, indent=2), encoding="utf-8")
    return path


def _only_run(path: Path, **options: Any) -> Run:
    runs = list(import_anthropic(path, **options))
    assert len(runs) == 1
    return runs[0]


def test_a_whole_conversation_becomes_one_run(tmp_path: Path) -> None:
    run = _only_run(_write_json(tmp_path / "travel.json", TRAVEL_CONVERSATION))

    assert run.model_dump(exclude={"tool_calls", "violations"}) == {
        "run_id": "travel/weather-gate-book/0",
        "task_id": "weather-gate-book",
        "trial": 0,
        "input": "Book flight AA123 for Friday, but only if it isn't raining in Denver.",
        "final_answer": "Booked AA123 for Friday.\nBooking B7.",
        "reference": None,
        "messages_to_user": [
            "Let me check the weather and the flight.",
            "Booked AA123 for Friday.\nBooking B7.",
        ],
        "messages": [],
        "turns": 4,
        "usage": {"input_tokens": 2100, "output_tokens": 95, "cache_read_input_tokens": 400},
        "cost_usd": 0.0123,
        "duration_s": None,
        "stop_reason": None,
        "initial_state": None,
        "final_state": {"bookings": {"AA123": {"status": "booked"}}},
        "metadata": {"model": "claude-sonnet-4"},
    }
    assert run.tool_calls == [
        ToolCall(
            name="get_weather",
            args={"city": "Denver", "day": "Friday"},
            result="sunny",
            id="toolu_01",
        ),
        ToolCall(
            name="get_flight",
            args={"flight_id": "AA123"},
            result={"flight_id": "AA123", "seats": 4},
            id="toolu_02",
        ),
        ToolCall(
            name="book",
            args={"flight_id": "AA123", "date": "Friday"},
            result="payment declined",
            error="payment declined",
            id="toolu_03",
        ),
        ToolCall(
            name="book",
            args={},
            result={"booking": "B7", "seats": [12]},
            id="toolu_04",
            raw_arguments='{"flight_id": "AA123", date: "Friday"}',
            arguments_error=(
                "not valid JSON: Expecting property name enclosed in double quotes: "
                "line 1 column 24 (char 23)"
            ),
        ),
    ]


def test_input_skips_tool_results_and_a_system_message(tmp_path: Path) -> None:
    conversation = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [_result("toolu_0", "left over from before")]},
        {"role": "user", "content": [{"type": "image", "source": {}}, _text("What is this?")]},
        {"role": "assistant", "content": "   "},
    ]
    run = _only_run(_write_json(tmp_path / "photo.json", conversation))

    assert (run.input, run.final_answer, run.turns) == ("What is this?", None, 1)
    assert run.messages_to_user == []  # white space alone tells the user nothing
    assert run.metadata == {"unmatched_tool_results": 1}
    assert run.usage is None


def test_repeated_ids_pair_with_the_earliest_unanswered_use(tmp_path: Path) -> None:
    conversation = [
        {"role": "user", "content": "Look twice."},
        {
            "role": "assistant",
            "content": [_use("toolu_X", "look", {"n": 1}), _use("toolu_X", "look", {"n": 2})],
        },
        {
            "role": "user",
            "content": [
                _result("toolu_X", "one"),
                _result("toolu_X", "two"),
                _result("toolu_X", "three"),
                {"type": "tool_result", "content": "no id"},
            ],
        },
    ]
    run = _only_run(_write_json(tmp_path / "twice.json", conversation))

    assert [(call.args, call.result) for call in run.tool_calls] == [
        ({"n": 1}, "one"),
        ({"n": 2}, "two"),
    ]
    assert run.metadata == {"unmatched_tool_results": 2}


@pytest.mark.parametrize(
    ("tool_input", "args", "raw_arguments", "arguments_error"),
    [
        ('["AA123"]', {}, '["AA123"]', "arguments are a JSON list, not an object"),
        (["AA123"], {}, '["AA123"]', "arguments are a JSON list, not an object"),
        (7, {}, "7", "arguments are a JSON number, not an object"),
        (None, {}, None, None),
    ],
)
def test_tool_input_that_is_not_an_object_is_kept_and_flagged(
    tmp_path: Path,
    tool_input: Any,
    args: dict[str, Any],
    raw_arguments: str | None,
    arguments_error: str | None,
) -> None:
    conversation = [
        {"role": "user", "content": "Go."},
        {"role": "assistant", "content": [_use("toolu_1", "go", tool_input)]},
    ]
    (call,) = _only_run(_write_json(tmp_path / "input.json", conversation)).tool_calls

    assert (call.args, call.raw_arguments, call.arguments_error) == (
        args,
        raw_arguments,
        arguments_error,
    )


def test_a_tool_result_is_an_error_only_when_flagged(tmp_path: Path) -> None:
    conversation = [
        {"role": "user", "content": "Go."},
        {
            "role": "assistant",
            "content": [_use("t1", "a", {}), _use("t2", "b", {}), _use("t3", "c", {})],
        },
        {
            "role": "user",
            "content": [
                _result("t1", "Error: but not flagged"),
                _result("t2", "refused", is_error=False),
                _result("t3", None, is_error=True),
            ],
        },
    ]
    run = _only_run(_write_json(tmp_path / "flags.json", conversation))

    assert [(call.result, call.error) for call in run.tool_calls] == [
        ("Error: but not flagged", None),
        ("refused", None),
        (None, "the tool reported an error"),
    ]


def test_jsonl_and_gzip(tmp_path: Path) -> None:
    short = {"messages": [{"role": "user", "content": "hi"}], "system": [_text("Be kind.")]}
    path = tmp_path / "claude-runs.jsonl.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(TRAVEL_CONVERSATION) + "\n\n" + json.dumps(short) + "\n")

    runs = list(import_anthropic(path, task_id="greeting"))

    assert [(run.run_id, run.task_id, len(run.tool_calls), run.metadata) for run in runs] == [
        ("travel/weather-gate-book/0", "weather-gate-book", 4, {"model": "claude-sonnet-4"}),
        ("claude-runs/1", "greeting", 0, {}),
    ]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '[{"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "input": {}}]}]',
            "[0].content[0].name: required field is missing (expected a string)",
        ),
        (
            '[{"role": "assistant", "content": [{"text": "no type"}]}]',
            "[0].content[0].type: required field is missing (expected a string)",
        ),
        (
            '[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", '
            '"is_error": 1}]}]',
            "[0].content[0].is_error: expected true or false, got the number 1",
        ),
        (
            '[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", '
            '"content": {"x": 1}}]}]',
            "[0].content[0].content: expected a string or a list of content parts, got an object",
        ),
        (
            '{"messages": [{"role": "tool", "content": "x"}]}',
            "messages[0].role: unknown role 'tool'; valid roles: user, assistant, system",
        ),
        (
            '{"messages": [], "traj": []}',
            "has both `messages` and `traj`; keep one",
        ),
        (
            '[{"role": "assistant", "content": "ok", "usage": {"input_tokens": "12"}}]',
            "[0].usage.input_tokens: expected a whole number of tokens, got the string '12'",
        ),
    ],
)
def test_malformed_conversations_name_the_file_line_and_field(
    tmp_path: Path, line: str, message: str
) -> None:
    path = tmp_path / "runs.jsonl"
    path.write_text(f'[{{"role": "user", "content": "fine"}}]\n\n{line}\n', encoding="utf-8")
    with pytest.raises(DataError) as caught:
        list(import_anthropic(path))
    assert str(caught.value) == f"{path}:3: {message}"
