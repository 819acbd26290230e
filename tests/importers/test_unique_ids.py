"""Imports make repeated run ids unique (``#2``, ``#3``, ...), say so on stderr, and write a
runs file every command reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.run import check_runs_file, load_runs
from judgekit.importers import import_anthropic
from judgekit.importers.unique_ids import UniqueRunIds
from tests.conftest import REPO

SHOP_TASKS = REPO / "tasks" / "shop.yaml"


def conversation(run_id: Any, answer: str) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "task_id": "refund_full",
        "messages": [
            {"role": "user", "content": "Order A100 arrived broken. Refund it in full."},
            {"role": "assistant", "content": answer},
        ],
    }


def transcript(path: Path, run_ids: list[Any]) -> Path:
    lines = [json.dumps(conversation(run_id, f"answer {i}")) for i, run_id in enumerate(run_ids)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_repeated_ids_are_renamed_and_said(tmp_path: Path) -> None:
    chat = transcript(tmp_path / "chat.jsonl", ["a", "a", "b", "a#2", "a", 5, 5])
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "openai", str(chat), "-o", str(runs)])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"imported 7 runs with 0 tool calls (0 tool errors, 0 with invalid arguments) to {runs}",
        f"judgekit: warning: {chat}: run id 'a' appears 3 times; the later runs are 'a#2', "
        "'a#3' (each run id must appear once)",
        f"judgekit: warning: {chat}: run id 'a#2' appears 2 times; the later runs are "
        "'a#2#2' (each run id must appear once)",
        f"judgekit: warning: {chat}: run id '5' appears 2 times; the later runs are '5#2' "
        "(each run id must appear once)",
    ]
    imported = list(load_runs(runs))
    assert [(run.run_id, run.final_answer, run.metadata) for run in imported] == [
        ("a", "answer 0", {}),
        ("a#2", "answer 1", {"original_run_id": "a"}),
        ("b", "answer 2", {}),
        ("a#2#2", "answer 3", {"original_run_id": "a#2"}),
        ("a#3", "answer 4", {"original_run_id": "a"}),
        ("5", "answer 5", {}),
        ("5#2", "answer 6", {"original_run_id": "5"}),
    ]
    assert check_runs_file(runs) == 7
    graded = CliRunner().invoke(
        main, ["grade", str(runs), "--tasks", str(SHOP_TASKS), "--out", str(tmp_path), "--json"]
    )
    assert graded.exit_code == 0, graded.output
    assert json.loads(graded.stdout)["runs"] == 7


def test_many_repeated_ids_are_summed_up_past_ten(tmp_path: Path) -> None:
    chat = transcript(tmp_path / "chat.jsonl", [i for i in range(12) for _ in range(2)])
    result = CliRunner().invoke(main, ["import", "anthropic", str(chat)])
    assert result.exit_code == 0, result.output
    warnings = result.stderr.splitlines()[1:]
    assert len(warnings) == 11
    assert warnings[9] == (
        f"judgekit: warning: {chat}: run id '9' appears 2 times; the later runs are '9#2' "
        "(each run id must appear once)"
    )
    assert warnings[10] == (
        f"judgekit: warning: {chat}: 2 more run ids appear several times, renamed the same way "
        "(#2, #3, ...)"
    )
    ids = [json.loads(line)["run_id"] for line in result.stdout.splitlines()]
    assert len(ids) == len(set(ids)) == 24


def test_the_python_api_makes_ids_unique_too(tmp_path: Path) -> None:
    chat = transcript(tmp_path / "chat.jsonl", ["x", "x"])
    assert [run.run_id for run in import_anthropic(chat)] == ["x", "x#2"]
    ids = UniqueRunIds()
    assert [run.run_id for run in import_anthropic(chat, run_ids=ids)] == ["x", "x#2"]
    assert ids.renamed == {"x": ["x#2"]}
