"""import_openai on hand-written Chat Completions transcripts, in every file shape."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import ConfigError, DataError
from judgekit.formats.run import Run, ToolCall
from judgekit.importers import import_openai


def _call(call_id: str, name: str, arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def _tool(call_id: str, content: Any, **extra: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": content, **extra}


REFUND_CONVERSATION: dict[str, Any] = {
    "run_id": "shop/refund_full/2",
    "task_id": "refund_full",
    "trial": 2,
    "model": "gpt-4o-mini",
    "tools": [{"type": "function", "function": {"name": "get_order"}}],
    "usage": {"prompt_tokens": 100, "completion_tokens": 10},
    "messages": [
        {"role": "system", "content": "You are the shop's support agent."},
        {"role": "user", "content": "Order A100 arrived broken. Refund it in full."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                _call("call_1", "get_order", '{"order_id": "A100"}'),
                _call("call_2", "get_policy", '{"topic": "refunds"}'),
            ],
            "usage": {"prompt_tokens": 120, "completion_tokens": 30, "total_tokens": 150},
        },
        # Parallel calls answered in the opposite order: pairing goes by id.
        _tool("call_2", '{"max_days": 30}'),
        _tool("call_1", '{"order_id": "A100", "total": 40}'),
        {
            "role": "assistant",
            "content": "Refunding the full amount now.",
            "tool_calls": [_call("call_3", "issue_refund", '{"order_id": "A100", "amount": 40')],
        },
        _tool("call_3", "Error: arguments could not be parsed"),
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("call_4", "issue_refund", '{"order_id": "A100", "amount": 40}')],
            "usage": {"input_tokens": 200, "output_tokens": 12},
        },
        _tool(
            "call_4",
            [{"type": "text", "text": '{"ok": true,'}, {"type": "text", "text": '"refund": "R9"}'}],
        ),
        {"role": "assistant", "content": "Refund of $40 issued for A100."},
        {"role": "user", "content": "Thanks!"},
    ],
}


def _write_json(path: Path, value: Any, *, indent: int | None = 2) -> Path:
    path.write_text(json.dumps(value, indent=indent), encoding="utf-8")
    return path


def _write_jsonl(path: Path, values: list[Any]) -> Path:
    path.write_text("".join(json.dumps(value) + "\n" for value in values), encoding="utf-8")
    return path


def _only_run(path: Path, **options: Any) -> Run:
    runs = list(import_openai(path, **options))
    assert len(runs) == 1
    return runs[0]


def test_a_whole_conversation_becomes_one_run(tmp_path: Path) -> None:
    run = _only_run(_write_json(tmp_path / "refund.json", REFUND_CONVERSATION))

    assert run.model_dump(exclude={"tool_calls", "violations"}) == {
        "run_id": "shop/refund_full/2",
        "task_id": "refund_full",
        "trial": 2,
        "input": "Order A100 arrived broken. Refund it in full.",
        "final_answer": "Refund of $40 issued for A100.",
        "reference": None,
        # The text beside a tool call counts: the user saw it.
        "messages_to_user": ["Refunding the full amount now.", "Refund of $40 issued for A100."],
        "messages": [],
        "turns": 4,
        "usage": {"input_tokens": 420, "output_tokens": 52, "total_tokens": 150},
        "cost_usd": None,
        "duration_s": None,
        "stop_reason": None,
        "initial_state": None,
        "final_state": None,
        "metadata": {"model": "gpt-4o-mini", "dropped_fields": ["tools"]},
    }
    assert run.tool_calls == [
        ToolCall(
            name="get_order",
            args={"order_id": "A100"},
            result={"order_id": "A100", "total": 40},
            id="call_1",
        ),
        ToolCall(
            name="get_policy", args={"topic": "refunds"}, result={"max_days": 30}, id="call_2"
        ),
        ToolCall(
            name="issue_refund",
            args={},
            result="Error: arguments could not be parsed",
            error="Error: arguments could not be parsed",
            id="call_3",
            raw_arguments='{"order_id": "A100", "amount": 40',
            arguments_error="not valid JSON: Expecting ',' delimiter: line 1 column 34 (char 33)",
        ),
        ToolCall(
            name="issue_refund",
            args={"order_id": "A100", "amount": 40},
            result={"ok": True, "refund": "R9"},
            id="call_4",
        ),
    ]


def test_repeated_call_ids_pair_with_the_earliest_unanswered_call(tmp_path: Path) -> None:
    conversation = [
        {"role": "user", "content": "Move my flight, then cancel the hotel."},
        {"role": "assistant", "content": None, "tool_calls": [_call("call_A", "search", "{}")]},
        _tool("call_A", "first search"),
        {"role": "assistant", "content": None, "tool_calls": [_call("call_A", "search", "{}")]},
        _tool("call_A", "second search"),
        # Two outstanding calls share an id: answers go to them in order.
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [_call("call_B", "book", "{}"), _call("call_B", "cancel", "{}")],
        },
        _tool("call_B", "booked"),
        _tool("call_B", "cancelled"),
        _tool("call_B", "an answer nobody asked for"),
        _tool("call_unknown", "another stray answer"),
        {"role": "tool", "content": "an answer without an id"},
    ]
    run = _only_run(_write_json(tmp_path / "moves.json", conversation))

    assert [(call.name, call.result) for call in run.tool_calls] == [
        ("search", "first search"),
        ("search", "second search"),
        ("book", "booked"),
        ("cancel", "cancelled"),
    ]
    assert run.metadata == {"unmatched_tool_results": 3}
    assert run.final_answer is None


def test_a_call_left_unanswered_keeps_no_result(tmp_path: Path) -> None:
    conversation = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Checking.", "tool_calls": [_call("c1", "look", "{}")]},
    ]
    run = _only_run(_write_json(tmp_path / "cut.json", conversation))

    assert run.tool_calls == [ToolCall(name="look", id="c1")]
    assert run.final_answer == "Checking."
    assert run.messages_to_user == ["Checking."]
    assert run.turns == 1


@pytest.mark.parametrize(
    ("arguments", "args", "raw_arguments", "arguments_error"),
    [
        ('["A100", 40]', {}, '["A100", 40]', "arguments are a JSON list, not an object"),
        ('"A100"', {}, '"A100"', "arguments are a JSON string, not an object"),
        ("null", {}, "null", "arguments are JSON null, not an object"),
        (
            "{'order_id': 'A100'}",
            {},
            "{'order_id': 'A100'}",
            "not valid JSON: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)",
        ),
        ({"order_id": "A100"}, {"order_id": "A100"}, None, None),
        ("", {}, None, None),
        ("  \n", {}, None, None),
        ([1, 2], {}, "[1, 2]", "arguments are a JSON list, not an object"),
    ],
)
def test_arguments_that_are_not_a_json_object_are_kept_and_flagged(
    tmp_path: Path,
    arguments: Any,
    args: dict[str, Any],
    raw_arguments: str | None,
    arguments_error: str | None,
) -> None:
    conversation = [
        {"role": "user", "content": "Refund A100."},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", "refund", arguments)]},
    ]
    (call,) = _only_run(_write_json(tmp_path / "args.json", conversation)).tool_calls

    assert (call.name, call.args, call.raw_arguments, call.arguments_error) == (
        "refund",
        args,
        raw_arguments,
        arguments_error,
    )


def _one_result(tmp_path: Path, tool_message: dict[str, Any], **options: Any) -> ToolCall:
    conversation = [
        {"role": "user", "content": "Book AA1."},
        {"role": "assistant", "content": None, "tool_calls": [_call("c1", "book", "{}")]},
        tool_message,
    ]
    (call,) = _only_run(_write_json(tmp_path / "one.json", conversation), **options).tool_calls
    return call


@pytest.mark.parametrize(
    ("tool_message", "error"),
    [
        (_tool("c1", "Error: flight AA1 is full"), "Error: flight AA1 is full"),
        (_tool("c1", "  Error: leading space"), "  Error: leading space"),
        (_tool("c1", "No Error here"), None),
        (_tool("c1", "Errors are rare"), None),
        (_tool("c1", "seat 4A held", is_error=True), "seat 4A held"),
        (_tool("c1", "Error: looks bad but is fine", is_error=False), None),
        (_tool("c1", "partial", error="quota exceeded"), "quota exceeded"),
        (_tool("c1", "partial", error={"code": 429}), '{"code": 429}'),
        (_tool("c1", "Error: the pattern decides", error=""), "Error: the pattern decides"),
        (_tool("c1", "fine", error=None), None),
        (_tool("c1", "", is_error=True), "the tool reported an error"),
    ],
)
def test_tool_errors_come_from_flags_else_from_the_pattern(
    tmp_path: Path, tool_message: dict[str, Any], error: str | None
) -> None:
    assert _one_result(tmp_path, tool_message).error == error


def test_the_error_pattern_can_be_changed_or_turned_off(tmp_path: Path) -> None:
    failing = _tool("c1", "FAILED: no seats")
    assert _one_result(tmp_path, failing, error_pattern=r"^FAILED").error == "FAILED: no seats"
    refusal = _tool("c1", "Error: no seats")
    assert _one_result(tmp_path, refusal, error_pattern=None).error is None


def test_a_long_error_is_cut_to_500_characters(tmp_path: Path) -> None:
    text = "Error: " + "x" * 600
    call = _one_result(tmp_path, _tool("c1", text))
    assert call.error == text[:500]
    assert call.result == text


def test_a_result_is_parsed_only_when_it_is_a_json_object_or_list(tmp_path: Path) -> None:
    assert _one_result(tmp_path, _tool("c1", "[1, 2]")).result == [1, 2]
    assert _one_result(tmp_path, _tool("c1", "255.0")).result == "255.0"
    assert _one_result(tmp_path, _tool("c1", "{not json")).result == "{not json"
    assert _one_result(tmp_path, _tool("c1", None)).result is None


def test_an_invalid_error_pattern_is_refused_at_once(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        import_openai(tmp_path / "never-read.json", error_pattern="(unclosed")
    assert str(caught.value) == (
        "error_pattern '(unclosed' is not a valid regular expression: "
        "missing ), unterminated subpattern at position 0"
    )


def test_legacy_function_calls_pair_by_name(tmp_path: Path) -> None:
    conversation = [
        {"role": "user", "content": "Weather in Denver?"},
        {
            "role": "assistant",
            "content": None,
            "function_call": {"name": "get_weather", "arguments": '{"city": "Denver"}'},
        },
        {"role": "function", "name": "get_weather", "content": '{"sky": "rain"}'},
        {"role": "assistant", "content": "It is raining in Denver."},
    ]
    run = _only_run(_write_json(tmp_path / "legacy.json", conversation))

    assert run.tool_calls == [
        ToolCall(name="get_weather", args={"city": "Denver"}, result={"sky": "rain"})
    ]


def test_jsonl_holds_one_conversation_per_line(tmp_path: Path) -> None:
    lines = [
        [{"role": "user", "content": "first"}, {"role": "assistant", "content": "one"}],
        {"messages": [{"role": "user", "content": "second"}], "task_id": 7, "reward": 1.0},
        {"traj": [{"role": "user", "content": "third"}], "trial": 3, "info": {"big": "x"}},
    ]
    path = _write_jsonl(tmp_path / "airline.runs.jsonl", lines)

    runs = list(import_openai(path, task_id="fallback"))

    assert [(run.run_id, run.task_id, run.trial, run.input) for run in runs] == [
        ("airline.runs/0", "fallback", None, "first"),
        ("airline.runs/1", "7", None, "second"),
        ("airline.runs/2", "fallback", 3, "third"),
    ]
    assert [run.metadata for run in runs] == [{}, {"reward": 1.0}, {"dropped_fields": ["info"]}]
    assert [run.usage for run in runs] == [None, None, None]


def test_record_fields_carry_over_and_its_metadata_wins(tmp_path: Path) -> None:
    record = {
        "messages": [{"role": "user", "content": "typed message"}],
        "input": "the task as given",
        "cost_usd": 0.5,
        "duration_s": 2.5,
        "stop_reason": "max_turns",
        "initial_state": {"seats": 1},
        "final_state": {"seats": 0},
        "metadata": {"agent": "v2", "reward": "from metadata"},
        "reward": 1.0,
        "agent": None,
        "tags": ["a"],
        "info": {"big": True},
    }
    run = _only_run(_write_json(tmp_path / "carried.json", record))

    assert (run.input, run.cost_usd, run.duration_s, run.stop_reason) == (
        "the task as given",
        0.5,
        2.5,
        "max_turns",
    )
    assert (run.initial_state, run.final_state) == ({"seats": 1}, {"seats": 0})
    assert run.metadata == {
        "agent": "v2",
        "reward": "from metadata",
        "dropped_fields": ["info", "tags"],
    }


def test_jsonl_is_streamed_so_good_lines_come_before_a_bad_one(tmp_path: Path) -> None:
    good = [{"role": "user", "content": "fine"}]
    path = tmp_path / "chats.jsonl"
    path.write_text(json.dumps(good) + "\n" + json.dumps(good) + "\n" + '[{"role": }\n')

    runs = import_openai(path)

    assert next(runs).input == "fine"
    assert next(runs).input == "fine"
    with pytest.raises(DataError) as caught:
        next(runs)
    assert str(caught.value) == (
        f"{path}:3: malformed JSON at column 11: Expecting value "
        "(JSONL: each line must be one whole conversation)"
    )


def test_a_json_array_of_conversations(tmp_path: Path) -> None:
    conversations = [
        {"traj": [{"role": "user", "content": "a"}], "task_id": 0, "trial": 1},
        [{"role": "user", "content": "b"}],
    ]
    for indent in (2, None):  # pretty-printed, and all on one line
        path = _write_json(tmp_path / "batch.json", conversations, indent=indent)
        runs = list(import_openai(path))
        assert [(run.run_id, run.task_id, run.trial, run.input) for run in runs] == [
            ("batch/0", "0", 1, "a"),
            ("batch/1", "batch", None, "b"),
        ]


def test_a_single_conversation_document_and_an_empty_array(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "solo"}]
    run = _only_run(_write_json(tmp_path / "solo.json", {"messages": messages}))
    assert (run.run_id, run.task_id, run.input, run.turns) == ("solo/0", "solo", "solo", 0)
    assert list(import_openai(_write_json(tmp_path / "none.json", []))) == []


def test_gzipped_files_are_read(tmp_path: Path) -> None:
    jsonl = tmp_path / "runs.jsonl.gz"
    with gzip.open(jsonl, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps(REFUND_CONVERSATION) + "\n" + json.dumps([]) + "\n")
    document = tmp_path / "runs.json.gz"
    with gzip.open(document, "wt", encoding="utf-8") as fh:
        fh.write(json.dumps([REFUND_CONVERSATION, REFUND_CONVERSATION], indent=1))

    from_jsonl = list(import_openai(jsonl))
    from_document = list(import_openai(document))

    assert [(run.run_id, len(run.tool_calls)) for run in from_jsonl] == [
        ("shop/refund_full/2", 4),
        ("runs/1", 0),
    ]
    # The same conversation twice: the second run's id is made unique.
    assert [(run.run_id, len(run.tool_calls)) for run in from_document] == [
        ("shop/refund_full/2", 4),
        ("shop/refund_full/2#2", 4),
    ]


def _error_of(path: Path) -> str:
    with pytest.raises(DataError) as caught:
        list(import_openai(path))
    return str(caught.value)


def test_malformed_json_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('[\n  {"role": "user",\n   "content": "hi"\n  }\n  {"role": "assistant"}\n]\n')
    assert _error_of(path) == (
        f"{path}:5: malformed JSON at column 3: Expecting ',' delimiter "
        "(expected one JSON document, or JSONL: one conversation per line)"
    )


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            '{"messages": [{"content": "hi"}]}',
            "messages[0].role: required field is missing; "
            "valid roles: system, developer, user, assistant, tool, function",
        ),
        (
            '{"messages": [{"role": "critic", "content": "hi"}]}',
            "messages[0].role: unknown role 'critic'; "
            "valid roles: system, developer, user, assistant, tool, function",
        ),
        (
            '[{"role": "assistant", "tool_calls": [{"id": "c1", "function": {"arguments": "{}"}}]}]',
            "[0].tool_calls[0].function.name: required field is missing (expected a string)",
        ),
        (
            '[{"role": "assistant", "tool_calls": [{"id": "c1", "type": "custom"}]}]',
            "[0].tool_calls[0].type: unsupported tool call type 'custom'; expected 'function'",
        ),
        (
            '[{"role": "assistant", "content": null, "tool_calls": {"id": "c1"}}]',
            "[0].tool_calls: expected a list of tool calls, got an object",
        ),
        (
            '[{"role": "user", "content": 42}]',
            "[0].content: expected a string or a list of content parts, got the number 42",
        ),
        (
            '[{"role": "tool", "tool_call_id": "c1", "content": "x", "is_error": "yes"}]',
            "[0].is_error: expected true or false, got the string 'yes'",
        ),
        ('{"messages": "hello"}', "messages: expected a list of messages, got the string 'hello'"),
        (
            '{"role": "user", "content": "hi"}',
            "expected a conversation: a list of messages, or an object with a `messages` "
            "(or `traj`) list; got a single message",
        ),
        (
            "42",
            "expected a conversation: a list of messages, or an object with a `messages` "
            "(or `traj`) list; got the number 42",
        ),
        (
            '{"messages": [], "trial": "third"}',
            "trial: Input should be a valid integer, unable to parse string as an integer "
            "(got 'third')",
        ),
        (
            '{"messages": [], "stop_reason": "bored"}',
            "stop_reason: Input should be 'completed', 'max_turns', 'max_tool_calls', 'max_cost', 'timeout' "
            "or 'error' (got 'bored')",
        ),
        (
            '{"messages": [], "usage": {"prompt_tokens": -3}}',
            "usage.prompt_tokens: expected a whole number of tokens, got the number -3",
        ),
        ('{"messages": [], "metadata": [1]}', "metadata: expected an object, got a list"),
    ],
)
def test_malformed_conversations_name_the_file_line_and_field(
    tmp_path: Path, line: str, message: str
) -> None:
    good = '[{"role": "user", "content": "fine"}]'
    path = tmp_path / "runs.jsonl"
    path.write_text(f"{good}\n{line}\n", encoding="utf-8")
    assert _error_of(path) == f"{path}:2: {message}"


def test_a_bad_conversation_inside_a_json_array_is_named_by_its_index(tmp_path: Path) -> None:
    path = _write_json(tmp_path / "batch.json", [[{"role": "user"}], [["not", "a", "message"]]])
    assert _error_of(path) == (
        f"{path}: [1][0]: expected a message object with a `role`, got a list"
    )


def test_missing_and_empty_files(tmp_path: Path) -> None:
    assert _error_of(tmp_path / "absent.json") == f"{tmp_path / 'absent.json'}: no such file"
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n  \n")
    assert _error_of(empty) == (
        f"{empty}: empty file; expected a list of messages, or an object with a `messages` "
        "(or `traj`) list, or JSONL"
    )
