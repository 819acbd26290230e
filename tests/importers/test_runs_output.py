"""Writing imported runs: one JSONL line each, the tally's line, none at all refused; the
warnings about renamed run ids, at most ten of them and a line for the rest."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.run import Run, ToolCall
from judgekit.importers.runs_output import renamed_warnings, write_runs
from judgekit.importers.unique_ids import UniqueRunIds

SOURCE = Path("chats.jsonl")


def test_each_run_is_one_line_and_the_tally_counts_calls_and_errors() -> None:
    runs = [
        Run(run_id="a", task_id="t", tool_calls=[ToolCall(name="f", args={}, error="boom")]),
        Run(run_id="b", task_id="t", tool_calls=[]),
    ]
    out = io.StringIO()
    tally = write_runs(runs, out, source=SOURCE)
    assert out.getvalue().splitlines() == [
        # `args` is kept when empty: a reader other than judgekit would take it missing as null.
        '{"run_id":"a","task_id":"t","tool_calls":[{"name":"f","args":{},"error":"boom"}]}',
        '{"run_id":"b","task_id":"t","tool_calls":[]}',
    ]
    assert tally.line() == (
        "imported 2 runs with 1 tool calls (1 tool errors, 0 with invalid arguments)"
    )


def test_no_runs_at_all_is_an_error_naming_the_source() -> None:
    with pytest.raises(DataError) as raised:
        write_runs([], io.StringIO(), source=SOURCE)
    assert str(raised.value) == "chats.jsonl: no conversations in this file: no runs to import"


def test_ten_renamed_ids_are_named_and_the_rest_summed_up() -> None:
    ids = UniqueRunIds()
    names = [f"r{n}" for n in range(12)]
    list(ids.apply(Run(run_id=name, task_id="t", tool_calls=[]) for name in names * 2))
    warnings = renamed_warnings(SOURCE, ids)
    assert len(warnings) == 11
    assert warnings[0] == (
        "chats.jsonl: run id 'r0' appears 2 times; the later runs are 'r0#2' "
        "(each run id must appear once)"
    )
    assert warnings[-1] == (
        "chats.jsonl: 2 more run ids appear several times, renamed the same way (#2, #3, ...)"
    )
