"""import_openai on the real τ-bench gpt-4o airline runs, checked against the compact copy.

The compact file was flattened independently: per run, the tool calls in order with parsed
arguments, the call id, the first 200 characters of the raw tool message
(``observation_head``) and τ-bench's own error flag (``observation_is_error``).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from judgekit.formats.run import Run, ToolCall
from judgekit.importers import import_openai
from tests.conftest import shared_data_path

HEAD_CHARS = 200


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    return list(import_openai(shared_data_path("taubench", "raw", "gpt-4o-airline.json.gz")))


@pytest.fixture(scope="module")
def compact() -> list[dict[str, Any]]:
    path: Path = shared_data_path("taubench", "gpt-4o-airline.compact.jsonl")
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh]


def _raw_text(call: ToolCall) -> str:
    # Results that were JSON objects or lists are stored parsed; τ-bench wrote them with
    # json.dumps' defaults, so dumping them again gives back the raw tool message.
    return call.result if isinstance(call.result, str) else json.dumps(call.result)


def test_every_record_becomes_a_run(runs: list[Run], compact: list[dict[str, Any]]) -> None:
    assert len(runs) == 200
    assert [(run.task_id, run.trial) for run in runs] == [
        (str(record["task_id"]), record["trial"]) for record in compact
    ]
    assert [run.run_id for run in runs[:2]] == ["gpt-4o-airline/0", "gpt-4o-airline/1"]
    assert len({run.run_id for run in runs}) == 200
    assert Counter(run.metadata["reward"] for run in runs) == {0.0: 116, 1.0: 84}
    assert {tuple(run.metadata) for run in runs} == {("reward", "dropped_fields")}
    assert all(run.metadata["dropped_fields"] == ["info"] for run in runs)


def test_tool_calls_match_the_compact_copy_call_by_call(
    runs: list[Run], compact: list[dict[str, Any]]
) -> None:
    for run, record in zip(runs, compact, strict=True):
        expected = [(c["name"], c["arguments"], c["id"]) for c in record["tool_calls"]]
        assert [(call.name, call.args, call.id) for call in run.tool_calls] == expected
        assert all(call.arguments_error is None for call in run.tool_calls)


def test_results_are_paired_with_their_calls(
    runs: list[Run], compact: list[dict[str, Any]]
) -> None:
    for run, record in zip(runs, compact, strict=True):
        heads = [_raw_text(call)[:HEAD_CHARS] for call in run.tool_calls]
        assert heads == [c["observation_head"] for c in record["tool_calls"]], run.run_id
    assert all("unmatched_tool_results" not in run.metadata for run in runs)


def test_error_flags_agree_with_taubench(runs: list[Run], compact: list[dict[str, Any]]) -> None:
    for run, record in zip(runs, compact, strict=True):
        flags = [call.error is not None for call in run.tool_calls]
        assert flags == [c["observation_is_error"] for c in record["tool_calls"]], run.run_id
        for call in run.tool_calls:
            assert call.error is None or call.error == _raw_text(call)


def test_turns_input_and_final_answer(runs: list[Run], compact: list[dict[str, Any]]) -> None:
    assert [run.turns for run in runs] == [record["n_assistant_messages"] for record in compact]
    assert runs[0].input == "Hi! I'm looking to book a flight from New York to Seattle on May 20th."
    assert all(run.input and run.final_answer for run in runs)
    assert all(run.usage is None for run in runs)


def test_messages_to_user_are_every_assistant_text_as_sent(runs: list[Run]) -> None:
    import gzip

    raw = shared_data_path("taubench", "raw", "gpt-4o-airline.json.gz")
    with gzip.open(raw, "rt", encoding="utf-8") as fh:
        records = json.load(fh)
    for run, record in zip(runs, records, strict=True):
        sent = [m["content"] for m in record["traj"] if m["role"] == "assistant" and m["content"]]
        assert run.messages_to_user == sent, run.run_id
        assert run.final_answer == sent[-1]
    assert sum(len(run.messages_to_user) for run in runs) == 1380


def test_totals(runs: list[Run]) -> None:
    calls = [call for run in runs for call in run.tool_calls]
    errors = Counter(call.name for call in calls if call.error is not None)
    assert len(calls) == 1164
    assert errors == {
        "update_reservation_flights": 42,
        "book_reservation": 30,
        "update_reservation_baggages": 1,
    }
    # τ-bench reuses call ids inside a run: 73 calls repeat an id already used in their run.
    repeats = sum(
        count - 1 for run in runs for count in Counter(call.id for call in run.tool_calls).values()
    )
    assert repeats == 73


def _entry(task_id: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "trial": 0,
        "reward": 0.0,
        "traj": [{"role": "user", "content": "hi"}],
        "info": {"task": {"actions": actions, "outputs": []}, "reward_info": None},
    }


def _import_taubench(tmp_path: Path, entries: Any) -> tuple[int, str]:
    from click.testing import CliRunner

    from judgekit.cli import main

    source = tmp_path / "traj.json"
    source.write_text(json.dumps(entries), encoding="utf-8")
    result = CliRunner().invoke(
        main,
        [
            "import",
            "taubench",
            str(source),
            "-o",
            str(tmp_path / "r.jsonl"),
            "--suite-out",
            str(tmp_path / "s.yaml"),
        ],
    )
    return result.exit_code, result.output.replace(str(tmp_path), "DIR")


def test_a_task_with_two_ground_truths_names_both_entries(tmp_path: Path) -> None:
    one = [{"name": "cancel", "kwargs": {"id": "A"}}]
    two = [{"name": "cancel", "kwargs": {"id": "B"}}]
    code, output = _import_taubench(tmp_path, [_entry(1, one), _entry(2, []), _entry(1, two)])
    assert code == 2
    assert output.splitlines()[-1] == (
        "judgekit: error: DIR/traj.json: [2].info.task.actions: task 1 has a different ground "
        "truth here than in entry [0]; every run of a task must carry the same one"
    )


def test_a_malformed_action_names_the_entry_and_field(tmp_path: Path) -> None:
    code, output = _import_taubench(tmp_path, [_entry(1, []), _entry(2, [{"kwargs": {}}])])
    assert code == 2
    assert output.splitlines()[-1] == (
        "judgekit: error: DIR/traj.json: [1].info.task.actions[0].name: "
        "expected the tool's name, got null"
    )


def _right_run(task_id: int, actions: list[dict[str, Any]], calls: list[Any]) -> dict[str, Any]:
    """A run τ-bench found database-right (r_actions 1) that made ``calls`` (name, args)."""
    traj: list[dict[str, Any]] = [{"role": "user", "content": "hi"}]
    for number, (name, args) in enumerate(calls):
        function = {"name": name, "arguments": json.dumps(args)}
        traj.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"id": f"c{number}", "type": "function", "function": function}],
            }
        )
        traj.append({"role": "tool", "tool_call_id": f"c{number}", "content": "ok"})
    traj.append({"role": "assistant", "content": "done"})
    entry = _entry(task_id, actions)
    entry.update(traj=traj, reward=1.0)
    entry["info"]["reward_info"] = {"reward": 1.0, "info": {"r_actions": 1.0, "gt_data_hash": "h"}}
    return entry


def _stderr_lines(tmp_path: Path, entries: Any, *options: str) -> list[str]:
    from click.testing import CliRunner

    from judgekit.cli import main

    source = tmp_path / "traj.json"
    source.write_text(json.dumps(entries), encoding="utf-8")
    suite = tmp_path / "s.yaml"
    arguments = ["import", "taubench", str(source), "-o", str(tmp_path / "r.jsonl")]
    result = CliRunner().invoke(main, [*arguments, "--suite-out", str(suite), *options])
    assert result.exit_code == 0, result.output
    return result.stderr.splitlines()[1:]


def test_write_tools_named_on_the_command_line(tmp_path: Path) -> None:
    rename = [{"name": "rename", "kwargs": {"id": "A", "name": "x"}}]
    lines = _stderr_lines(tmp_path, [_entry(1, rename)], "--write-tools", "rename, archive")
    assert lines == [
        "write tools: --write-tools (2): archive, rename",
        f"wrote 1 tasks to {tmp_path / 's.yaml'}",
    ]


def test_inferred_write_tools_are_said_and_not_misled_by_an_overwrite_or_a_refusal(
    tmp_path: Path,
) -> None:
    rename_a = {"name": "rename", "kwargs": {"id": "A", "name": "x"}}
    entries = [
        # Right in the end: the wrong name was overwritten by the right one.
        _right_run(
            1,
            [rename_a],
            [
                ("lookup", {"id": "A"}),
                ("rename", {"id": "A", "name": "y"}),
                ("rename", {"id": "A", "name": "x"}),
            ],
        ),
        # A ground truth τ-bench's replay refused leaves the data as a task without actions.
        _right_run(2, [{"name": "rename", "kwargs": {"id": "B", "name": "z"}}], []),
        _right_run(3, [], []),
    ]
    lines = _stderr_lines(tmp_path, entries)
    assert lines[0] == (
        "write tools: inferred from the file (1): rename (no τ-bench domain recognised from the "
        "file's tools; name them with --write-tools)"
    )
    suite = yaml.safe_load((tmp_path / "s.yaml").read_text(encoding="utf-8"))
    # Task 2's write is left out: the run τ-bench found right has no call for it.
    expected = [{"name": "rename", "args": {"id": "A", "name": "x"}}]
    assert [t["expect_tools"] for t in suite["tasks"]] == [expected, [], []]
    assert suite["tasks"][0]["ignore_tools"] == ["lookup"]


def test_an_empty_write_tools_name_is_refused(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from judgekit.cli import main

    source = tmp_path / "traj.json"
    source.write_text(json.dumps([_entry(1, [])]), encoding="utf-8")
    result = CliRunner().invoke(
        main,
        [
            "import",
            "taubench",
            str(source),
            "--suite-out",
            str(tmp_path / "s.yaml"),
            "--write-tools",
            "a,,b",
        ],
    )
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "judgekit: error: Invalid value for --write-tools: expected tool names separated by "
        "commas, got 'a,,b' (see judgekit import taubench --help)"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["traj.json"]
