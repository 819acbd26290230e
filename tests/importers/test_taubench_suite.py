"""judgekit import taubench on τ-bench's 200 real gpt-4o airline runs, against τ-bench's reward.

The suite is built with airline's own write tools (recognised from the file); graded with it, every run
τ-bench evaluated gets τ-bench's verdict, and the suite's mean over tasks reproduces τ-bench's
published pass^1..4.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import shared_data_path

WRITES = [
    "book_reservation",
    "cancel_reservation",
    "send_certificate",
    "update_reservation_baggages",
    "update_reservation_flights",
    "update_reservation_passengers",
]
# τ-bench's reward_info is null for these: it stopped them at its step limit, reward 0.
NOT_EVALUATED = [("33", 0), ("2", 1), ("9", 2), ("9", 3), ("46", 3)]


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    raw = shared_data_path("taubench", "raw", "gpt-4o-airline.json.gz")
    out = tmp_path_factory.mktemp("taubench")
    result = CliRunner().invoke(
        main,
        [
            "import",
            "taubench",
            str(raw),
            "-o",
            str(out / "runs.jsonl"),
            "--suite-out",
            str(out / "airline.yaml"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        f"imported 200 runs with 1164 tool calls (73 tool errors, 0 with invalid arguments) "
        f"to {out / 'runs.jsonl'}",
        f"write tools: airline's own (6): {', '.join(WRITES)}",
        f"wrote 50 tasks to {out / 'airline.yaml'}",
    ]
    return out


def _raw() -> list[dict[str, Any]]:
    path = shared_data_path("taubench", "raw", "gpt-4o-airline.json.gz")
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return list(json.load(fh))


def test_the_write_tools_are_taubench_own(imported: Path) -> None:
    # τ-bench's tool classes mark exactly these as writing (writes_db in the shared tools file).
    tools = json.loads(
        shared_data_path("taubench", "tools", "airline_tools@7362a170.json").read_text()
    )
    assert sorted(t["name"] for t in tools if t["writes_db"]) == WRITES
    suite = yaml.safe_load((imported / "airline.yaml").read_text(encoding="utf-8"))
    task = suite["tasks"][0]
    assert task["id"] == "0"
    assert task["order"] == "unordered" and task["ignore_failed_calls"] is True
    assert sorted(task["ignore_tools"]) == sorted(t["name"] for t in tools if not t["writes_db"])
    assert [c["name"] for c in task["expect_tools"]] == ["book_reservation"]
    by_id = {t["id"]: t for t in suite["tasks"]}
    assert by_id["8"]["expect_answer"] == ["327", "1000", "1786"]
    assert by_id["8"]["answer_normalise"] == ["lowercase", "remove_commas"]


def test_every_run_file_line_holds_the_calls_as_sent(imported: Path) -> None:
    # Read as plain JSON, not through judgekit: a call sent with "{}" (list_all_airports in
    # runs 10/0 and 23/0) must say `args: {}`, not leave args out.
    compact = shared_data_path("taubench", "gpt-4o-airline.compact.jsonl")
    records = [json.loads(line) for line in compact.read_text(encoding="utf-8").splitlines()]
    lines = (imported / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    same = [
        [(c["name"], c.get("args"), c["id"]) for c in json.loads(line)["tool_calls"]]
        == [(c["name"], c["arguments"], c["id"]) for c in record["tool_calls"]]
        for line, record in zip(lines, records, strict=True)
    ]
    assert sum(same) == 200


def test_grade_agrees_with_the_taubench_reward_on_every_evaluated_run(imported: Path) -> None:
    graded = CliRunner().invoke(
        main,
        [
            "grade",
            str(imported / "runs.jsonl"),
            "--tasks",
            str(imported / "airline.yaml"),
            "--out",
            str(imported / "results"),
            "--json",
            "--no-store",
        ],
    )
    assert graded.exit_code == 0, graded.output
    lines = (imported / "results" / "results.jsonl").read_text().splitlines()
    passed = {(g["task_id"], g["trial"]): g["passed"] for g in map(json.loads, lines)}
    not_evaluated, disagree = [], []
    for entry in _raw():
        key = (str(entry["task_id"]), entry["trial"])
        if entry["info"]["reward_info"] is None:
            not_evaluated.append(key)
            assert passed[key] is False  # cut off: stop_reason max_turns, as τ-bench's reward 0
        elif passed[key] != (entry["reward"] == 1.0):
            disagree.append(key)
    assert disagree == []
    assert not_evaluated == NOT_EVALUATED
    assert sum(passed.values()) == 84


@pytest.mark.parametrize(("k", "pass_hat_k"), [(1, 0.42), (2, 0.2733), (3, 0.22), (4, 0.2)])
def test_the_headline_reproduces_taubench_published_pass_hat_k(
    imported: Path, k: int, pass_hat_k: float
) -> None:
    graded = CliRunner().invoke(
        main,
        [
            "grade",
            str(imported / "runs.jsonl"),
            "--tasks",
            str(imported / "airline.yaml"),
            "--out",
            str(imported / f"k{k}"),
            "--json",
            "--no-store",
            "--k",
            str(k),
        ],
    )
    assert graded.exit_code == 0, graded.output
    headline = json.loads(graded.stdout)["mean_over_tasks"]
    assert headline["tasks"] == 50 and headline["left_out"] == []
    assert round(headline["pass_hat_k"], 4) == pass_hat_k


def test_the_docs_show_the_real_headline(imported: Path) -> None:
    page = Path(__file__).parents[2] / "docs" / "how-to" / "import.md"
    readme = page.read_text(encoding="utf-8")
    block = readme.split("## τ-bench in four commands")[1].split("```text\n")[1].split("```")[0]
    lines = block.splitlines()
    for number, line in enumerate(lines):
        if not line.startswith("$ judgekit grade"):
            continue
        k = line.split("--k ")[1].split()[0]
        graded = CliRunner().invoke(
            main,
            [
                "grade",
                str(imported / "runs.jsonl"),
                "--tasks",
                str(imported / "airline.yaml"),
                "--out",
                str(imported / f"readme{k}"),
                "--no-store",
                "--k",
                k,
            ],
        )
        assert lines[number + 1] in graded.stdout.splitlines()
