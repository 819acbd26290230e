"""A run as text: the readable transcript for people and the JSON lines a judge reads."""

from __future__ import annotations

from judgekit.formats.run import Run, ToolCall
from judgekit.formats.transcript import (
    final_answer_text,
    judge_tool_calls,
    judge_transcript,
    render_tool_calls,
    render_transcript,
)


def run(**fields: object) -> Run:
    return Run.model_validate(
        {"run_id": "shop/refund_full/1", "task_id": "refund_full", "tool_calls": [], **fields}
    )


def test_transcript_shows_calls_results_errors_and_the_answer_folded() -> None:
    calls = [
        ToolCall(name="search", args={"query": "x" * 50, "limit": 3}, result=["y" * 50]),
        ToolCall(name="book", args={"flight_id": "AA1"}, error="sold out"),
        ToolCall(name="book", raw_arguments="{flight: AA1", arguments_error="not JSON"),
    ]
    the_run = run(tool_calls=calls, final_answer="Could not book.", stop_reason="max_turns")
    assert render_transcript(the_run, fold_at=20) == (
        'Tool call 1: search(query="xxxxxxxxxxxxxxxxxxx… [32 more characters], limit=3)\n'
        'Result: ["yyyyyyyyyyyyyyyyyy… [34 more characters]\n'
        'Tool call 2: book(flight_id="AA1")\n'
        "Error: sold out\n"
        "Tool call 3: book(unparsed arguments: {flight: AA1)\n"
        "Result: null\n"
        "Final answer: Could not book.\n"
        "The run stopped early: max_turns"
    )
    assert render_tool_calls(calls, fold_at=20) == (
        '1. search(query="xxxxxxxxxxxxxxxxxxx… [32 more characters], limit=3)\n'
        '2. book(flight_id="AA1")\n'
        "3. book(unparsed arguments: {flight: AA1)"
    )
    assert render_tool_calls([]) == "(no tool calls)"
    assert (
        render_transcript(run())
        == "(no tool calls)\nFinal answer: (the agent gave no final answer)"
    )


def test_the_judge_reads_calls_results_errors_and_the_answer_as_json_lines() -> None:
    calls = [
        ToolCall(name="search", args={"query": "x" * 50, "limit": 3}, result=["y" * 50]),
        ToolCall(name="book", args={"flight_id": "AA1"}, error="sold out"),
        ToolCall(name="book", raw_arguments="{flight: AA1", arguments_error="not JSON"),
    ]
    the_run = run(tool_calls=calls, final_answer="Could not book.", stop_reason="max_turns")
    assert judge_transcript(the_run, fold_at=20) == (
        '{"tool_call": 1, "name": "search", "args": {"query": "xxxxxxxxxxxxxxxxxxxx… '
        '[30 more characters]", "limit": 3}, "result": "[\\"yyyyyyyyyyyyyyyyyy… '
        '[34 more characters]"}\n'
        '{"tool_call": 2, "name": "book", "args": {"flight_id": "AA1"}, "error": "sold out"}\n'
        '{"tool_call": 3, "name": "book", "unparsed_arguments": "{flight: AA1", "result": null}\n'
        '{"final_answer": "Could not book."}\n'
        '{"stopped_early": "max_turns"}'
    )
    assert judge_tool_calls(calls[1:]) == (
        '{"tool_call": 1, "name": "book", "args": {"flight_id": "AA1"}}\n'
        '{"tool_call": 2, "name": "book", "unparsed_arguments": "{flight: AA1"}'
    )
    assert judge_tool_calls([]) == '{"tool_calls": 0}'
    assert judge_transcript(run()) == '{"tool_calls": 0}\n{"final_answer": null}'


def test_a_missing_final_answer_says_so() -> None:
    assert final_answer_text(run()) == "(the agent gave no final answer)"
    assert final_answer_text(run(final_answer="Done.")) == "Done."
