"""`judgekit import`: transcripts in, runs.jsonl out, then graded."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import REPO, shared_data_path


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def call(call_id: str, name: str, arguments: str) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def test_import_openai_then_grade(tmp_path: Path) -> None:
    conversation = {
        "run_id": "shop/refund_full/9",
        "task_id": "refund_full",
        "messages": [
            {"role": "user", "content": "Order A100 arrived broken. Refund it in full."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [call("c1", "lookup_order", '{"order_id": "A100"}')],
            },
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": '{"status": "delivered", "total": 40}',
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    call("c2", "issue_refund", '{"order_id": "A100", "amount": 40}'),
                    call("c3", "issue_refund", '{"order_id": "A100", "amount": 40'),
                ],
            },
            {"role": "tool", "tool_call_id": "c2", "content": '{"ok": true}'},
            {
                "role": "tool",
                "tool_call_id": "c3",
                "content": "Error: arguments are not valid JSON",
            },
            {"role": "assistant", "content": "Refund of $40 issued for A100."},
        ],
    }
    transcript = tmp_path / "chat.jsonl"
    transcript.write_text(json.dumps(conversation) + "\n", encoding="utf-8")
    runs = tmp_path / "runs.jsonl"
    code, _, err = invoke("import", "openai", transcript, "-o", runs)
    assert code == 0
    assert (
        err
        == f"imported 1 runs with 3 tool calls (1 tool errors, 1 with invalid arguments) to {runs}\n"
    )
    (run,) = [json.loads(line) for line in runs.read_text(encoding="utf-8").splitlines()]
    assert run["tool_calls"][2] == {
        "name": "issue_refund",
        "args": {},
        "result": "Error: arguments are not valid JSON",
        "error": "Error: arguments are not valid JSON",
        "id": "c3",
        "raw_arguments": '{"order_id": "A100", "amount": 40',
        "arguments_error": "not valid JSON: Expecting ',' delimiter: line 1 column 34 (char 33)",
    }
    assert run["final_answer"] == "Refund of $40 issued for A100."
    code, out, _ = invoke(
        "grade", runs, "--tasks", REPO / "tasks" / "shop.yaml", "--out", tmp_path, "--json"
    )
    assert code == 0
    (task,) = json.loads(out)["tasks"]
    assert task["failures"] == [
        {
            "run_id": "shop/refund_full/9",
            "reason": "path: issue_refund called 2 times, max_calls is 1; tool error rate 33% (1 of 3 calls), max is 50%"[
                :0
            ]
            + "path: issue_refund called 2 times, max_calls is 1",
        }
    ]


def test_import_anthropic_to_stdout(tmp_path: Path) -> None:
    conversation = {
        "task_id": "weather-only",
        "messages": [
            {"role": "user", "content": "What's the weather in Denver?"},
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "t1",
                        "name": "get_weather",
                        "input": {"city": "Denver"},
                    }
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "sunny"}],
            },
            {"role": "assistant", "content": [{"type": "text", "text": "It is sunny in Denver."}]},
        ],
    }
    transcript = tmp_path / "claude.json"
    transcript.write_text(json.dumps(conversation), encoding="utf-8")
    code, out, err = invoke("import", "anthropic", transcript)
    assert code == 0
    assert err == "imported 1 runs with 1 tool calls (0 tool errors, 0 with invalid arguments)\n"
    assert json.loads(out) == {
        "run_id": "claude/0",
        "task_id": "weather-only",
        "input": "What's the weather in Denver?",
        "tool_calls": [
            {"name": "get_weather", "args": {"city": "Denver"}, "result": "sunny", "id": "t1"}
        ],
        "final_answer": "It is sunny in Denver.",
        "messages_to_user": ["It is sunny in Denver."],
        "turns": 2,
    }


def test_import_refuses_bad_input_and_writes_nothing(tmp_path: Path) -> None:
    transcript = tmp_path / "bad.jsonl"
    transcript.write_text(
        '[{"role": "user", "content": "hi"}]\n[{"role": "critic"}]\n', encoding="utf-8"
    )
    runs = tmp_path / "runs.jsonl"
    code, _, err = invoke("import", "openai", transcript, "-o", runs)
    assert code == 2
    assert err.startswith(f"judgekit: error: {transcript}:2: ")
    assert "unknown role 'critic'" in err
    assert not runs.exists()
    assert list(tmp_path.iterdir()) == [transcript]


def test_import_the_real_taubench_transcripts(tmp_path: Path) -> None:
    raw = shared_data_path("taubench", "raw", "gpt-4o-airline.json.gz")
    runs = tmp_path / "runs.jsonl"
    code, _, err = invoke("import", "openai", raw, "-o", runs)
    assert code == 0
    assert (
        err
        == f"imported 200 runs with 1164 tool calls (73 tool errors, 0 with invalid arguments) to {runs}\n"
    )
    assert len(runs.read_text(encoding="utf-8").splitlines()) == 200
