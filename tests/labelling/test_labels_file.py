"""The label writer: supersession, cutting a crash-truncated line before appending, a corrupt
file stopping the CLI, staleness."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.label import Label, read_labels
from judgekit.labelling.labels_file import LabelWriter
from tests.labelling.conftest import (
    RUBRIC,
    SHOP_RUNS,
    goal_completion,
    run_piped,
    shop_order,
    shown_runs,
)

AT = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def label(run_id: str, value: str, labeler: str = "ana", **extra: object) -> Label:
    return Label(
        run_id=run_id, rubric_id="goal_completion", label=value, labeler=labeler, at=AT, **extra
    )


def line(run_id: str, value: object, labeler: str = "ana") -> str:
    return json.dumps(
        {
            "run_id": run_id,
            "rubric_id": "goal_completion",
            "label": value,
            "labeler": labeler,
            "at": "2026-11-29T10:00:00Z",
        }
    )


def test_a_later_line_supersedes_an_earlier_one(tmp_path: Path) -> None:
    path = tmp_path / "goal_completion.jsonl"
    with LabelWriter(path) as writer:
        writer.append(label("r1", "pass"))
        writer.append(label("r1", "pass", labeler="bob"))
        writer.append(label("r1", "fail"))
    log = read_labels(path, goal_completion())
    assert len(log.lines) == 3
    assert {key: lab.label for key, lab in log.current.items()} == {
        ("r1", "ana"): "fail",
        ("r1", "bob"): "pass",
    }
    assert path.read_text().splitlines()[0] == (
        '{"run_id":"r1","rubric_id":"goal_completion","label":"pass","labeler":"ana",'
        '"at":"2026-11-29T10:00:00Z"}'
    )


def test_a_truncated_last_line_is_ignored_with_a_warning_and_cut_before_appending(
    tmp_path: Path,
) -> None:
    path = tmp_path / "goal_completion.jsonl"
    path.write_text(line("r1", "pass") + "\n" + line("r2", "fail")[:40])
    log = read_labels(path, goal_completion())
    assert [lab.run_id for lab in log.lines] == ["r1"]
    assert log.warnings == [
        f"{path}:2: ignored a truncated last line (left by a crash while writing?)"
    ]
    with LabelWriter(path) as writer:
        writer.append(label("r3", "fail"))
    again = read_labels(path, goal_completion())
    assert [lab.run_id for lab in again.lines] == ["r1", "r3"]
    assert again.warnings == []


def test_a_whole_last_line_without_newline_is_kept(tmp_path: Path) -> None:
    path = tmp_path / "goal_completion.jsonl"
    path.write_text(line("r1", "pass"))
    assert [lab.run_id for lab in read_labels(path, goal_completion()).lines] == ["r1"]
    with LabelWriter(path) as writer:
        writer.append(label("r2", "fail"))
    assert [lab.run_id for lab in read_labels(path, goal_completion()).lines] == ["r1", "r2"]


def test_a_corrupt_label_file_stops_the_cli_with_one_line(tmp_path: Path) -> None:
    labels = tmp_path / "labels"
    labels.mkdir()
    (labels / "goal_completion.jsonl").write_text(line("r1", "pass") + "\n" + line("r2", 7) + "\n")
    done = run_piped(tmp_path, "p\n")
    assert done.returncode == 2
    assert done.stderr == (
        "judgekit: error: labels/goal_completion.jsonl:2: label: unknown label 7 for the binary "
        'scale of goal_completion; valid labels are "pass", "fail"\n'
    )


def test_a_changed_run_makes_its_label_stale(tmp_path: Path) -> None:
    order = shop_order()
    done = run_piped(tmp_path, "p\nf\nq\n")
    assert done.returncode == 0, done.stderr
    # The second labelled run now tells the user something else.
    changed = tmp_path / "shop.jsonl"
    rows = [json.loads(text) for text in SHOP_RUNS.read_text().splitlines()]
    for row in rows:
        if row["run_id"] == order[1]:
            row["final_answer"] = "Something else entirely."
    changed.write_text("".join(json.dumps(row) + "\n" for row in rows))
    again = run_piped(tmp_path, "q\n", runs=changed)
    assert again.returncode == 0, again.stderr
    assert "1 of your labels are stale (the run changed since you labelled it)" in again.stdout
    assert "stale: the run changed since you labelled it fail" in again.stdout
    assert shown_runs(again.stdout) == [order[1]]  # shown first, to relabel
    summary = CliRunner().invoke(
        main,
        [
            "labels",
            "--rubric",
            str(RUBRIC),
            "--labels-dir",
            str(tmp_path / "labels"),
            "--runs",
            str(changed),
            "--tasks",
            str(RUBRIC.parents[1] / "tasks"),
            "--json",
        ],
    )
    assert summary.exit_code == 0, summary.output
    assert json.loads(summary.stdout)["labelers"] == {
        "ana": {"labels": 2, "classes": {"pass": 1, "fail": 1}, "stale": 1}
    }
