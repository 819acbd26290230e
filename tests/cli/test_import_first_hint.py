"""A transcript of another tool given to ``grade`` or ``judge`` (which read runs) is refused
with the error found and what to run instead: ``judgekit import NAME FILE -o runs.jsonl``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import REPO

TRANSCRIPTS = REPO / "examples" / "transcripts"
TASKS = REPO / "tasks" / "shop.yaml"
RUBRIC = REPO / "rubrics" / "goal_completion.yaml"


def grade(runs: Path, out: Path) -> tuple[int, str]:
    result = CliRunner().invoke(
        main, ["grade", str(runs), "--tasks", str(TASKS), "--out", str(out), "--no-store"]
    )
    return result.exit_code, result.stderr


@pytest.mark.parametrize(
    ("file", "found", "name", "what"),
    [
        (
            "shop_openai.jsonl",
            "1: messages.2.tool_calls: unknown field (check the spelling against `judgekit schema`)",
            "openai",
            "OpenAI Chat Completions transcripts",
        ),
        (
            "shop_anthropic.json",
            "1: malformed JSON: EOF while parsing a list at line 2 column 0",
            "anthropic",
            "Anthropic Messages transcripts",
        ),
    ],
)
def test_grading_a_transcript_says_import_it_first(
    tmp_path: Path, file: str, found: str, name: str, what: str
) -> None:
    source = TRANSCRIPTS / file
    code, err = grade(source, tmp_path / "out")
    assert code == 2
    assert err == (
        f"judgekit: error: {source}:{found}; this looks like {what}, not runs; import it "
        f"first: `judgekit import {name} {source} -o runs.jsonl`\n"
    )
    assert not (tmp_path / "out").exists() or list((tmp_path / "out").iterdir()) == []


def test_a_conversation_without_extra_fields_gets_the_hint(tmp_path: Path) -> None:
    """A bare OpenAI conversation: its first error is a field runs' messages do not have."""
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "Refund A100"},
                    {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "refund", "arguments": "{}"},
                            }
                        ],
                    },
                    {"role": "tool", "tool_call_id": "c1", "content": "ok"},
                    {"role": "assistant", "content": "Done."},
                ]
            }
        )
    )
    code, err = grade(chat, tmp_path / "out")
    assert code == 2
    assert err == (
        f"judgekit: error: {chat}:1: messages.1.tool_calls: unknown field (check the spelling against "
        "`judgekit schema`)"
        "; this looks like OpenAI Chat Completions transcripts, not runs; import it first: "
        f"`judgekit import openai {chat} -o runs.jsonl`\n"
    )


def test_judging_a_transcript_says_import_it_first(tmp_path: Path) -> None:
    source = TRANSCRIPTS / "shop_openai.jsonl"
    result = CliRunner().invoke(main, ["judge", str(source), "--rubric", str(RUBRIC), "--dry-run"])
    assert result.exit_code == 2
    assert result.stderr.endswith(
        f"; import it first: `judgekit import openai {source} -o runs.jsonl`\n"
    )


def test_a_runs_file_with_a_bad_line_gets_no_hint(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    good = {"run_id": "r1", "task_id": "refund_full", "tool_calls": []}
    runs.write_text(json.dumps(good) + "\n" + json.dumps({**good, "run_id": "r2", "x": 1}) + "\n")
    code, err = grade(runs, tmp_path / "out")
    assert code == 2
    assert err == (
        f"judgekit: error: {runs}:2: x: unknown field (check the spelling against "
        "`judgekit schema`)\n"
    )


def test_a_file_of_no_known_kind_gets_no_hint(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    runs.write_text('{"hello": "world"}\n')
    code, err = grade(runs, tmp_path / "out")
    assert code == 2
    assert "import it first" not in err
    assert err.startswith(f"judgekit: error: {runs}:1: ")
