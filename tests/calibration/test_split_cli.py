"""The split end to end through the CLI on hand-made files: calibrate shows only the dev
side's disagreements, --split test spends those it shows, a run that is one of the rubric's
examples is spent, and promote measures exactly the fresh test labels."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.split_file import read_split_file
from tests.conftest import REPO

AT = datetime(2026, 11, 29, 10, 0, tzinfo=UTC).isoformat()
MODEL = "openai/gpt-4o-mini"
EXAMPLE_INPUT = "Move my 3pm dentist appointment to Thursday at the same time."
EXAMPLE_OUTPUT = "Done: your dentist appointment is now Thursday at 3pm."


class Files:
    def __init__(self, root: Path) -> None:
        (root / "rubrics").mkdir()
        (root / "labels").mkdir()
        shutil.copy(REPO / "rubrics" / "goal_completion.yaml", root / "rubrics")
        self.rubric = root / "rubrics" / "goal_completion.yaml"
        self.labels = root / "labels" / "goal_completion.jsonl"
        self.split = root / "labels" / "goal_completion.split.jsonl"
        self.verdicts = root / "verdicts.jsonl"
        self.runs = root / "runs.jsonl"
        self.version = rubric_version(load_rubric(self.rubric))

    def invoke(self, *args: str) -> Result:
        common = ["--rubric", str(self.rubric), "--verdicts", str(self.verdicts)]
        return CliRunner().invoke(main, [*args, *common, "--labels", str(self.labels)])


def fixed_side(run: str, side: str) -> dict[str, Any]:
    """A split line that puts ``run`` on ``side`` whatever the lines before: the rule under
    a test share of 0 (dev) or 1 (test)."""
    return {"run_id": run, "side": side, "test_share": 1.0 if side == "test" else 0.0, "at": AT}


def lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


def make(root: Path) -> Files:
    """60 dev runs d0–d59 and 60 test runs t0–t59, each 30 pass and 30 fail by label; the
    judge is wrong on d0, d1, t0, t1, t2 (it passes them) and right elsewhere. The split is
    recorded up front; run t59 is the rubric's first example."""
    files = Files(root)
    labels, verdicts, split = [], [], []
    for side in ("d", "t"):
        for i in range(60):
            run = f"{side}{i}"
            human = "fail" if i < 30 else "pass"
            wrong = i < (2 if side == "d" else 3)
            labels.append(
                {
                    "run_id": run,
                    "rubric_id": "goal_completion",
                    "label": human,
                    "labeler": "ana",
                    "at": AT,
                }
            )
            verdicts.append(
                {
                    "run_id": run,
                    "rubric_id": "goal_completion",
                    "rubric_version": files.version,
                    "model": MODEL,
                    "status": "scored",
                    "score": "pass" if wrong else human,
                    "reason": f"judged {run}",
                    "at": AT,
                }
            )
            split.append(fixed_side(run, "dev" if side == "d" else "test"))
    files.labels.write_text(lines(labels))
    files.verdicts.write_text(lines(verdicts))
    files.split.write_text(lines(split))
    files.runs.write_text(
        lines(
            [
                {
                    "run_id": "t59",
                    "task_id": "dentist",
                    "input": EXAMPLE_INPUT,
                    "final_answer": EXAMPLE_OUTPUT,
                    "tool_calls": [],
                },
                {
                    "run_id": "t58",
                    "task_id": "dentist",
                    "input": EXAMPLE_INPUT,
                    "final_answer": "Your appointment is on Thursday.",
                    "tool_calls": [],
                },
            ]
        )
    )
    return files


def test_calibrate_shows_dev_and_promote_measures_fresh_test(tmp_path: Path) -> None:
    files = make(tmp_path)
    dev = files.invoke("calibrate", "--no-store")
    assert dev.exit_code == 0, dev.output
    out = dev.stdout.splitlines()
    assert out[0] == f"goal_completion (version {files.version}, judge {MODEL}): 60 runs compared"
    assert out[1] == (
        "measured on dev: 60 of 120 labelled runs; 60 test labels held out for `judgekit "
        "promote` (60 fresh)"
    )
    assert "disagreements: 2" in out
    assert [line for line in out if line.startswith("  d") or line.startswith("  t")] == [
        "  d0: human fail, judge pass",
        "  d1: human fail, judge pass",
    ]
    assert read_split_file(files.split).spent == {}  # dev disagreements spend nothing

    # Given the runs, t59 (the rubric's first example, same input and answer) is spent.
    promoted = files.invoke("promote", "--no-store", "--json", "--runs", str(files.runs))
    assert promoted.exit_code == 0, promoted.output
    assert read_split_file(files.split).spent == {"t59": "a few-shot example in the rubric"}
    record = json.loads((tmp_path / "rubrics" / "goal_completion.promotion.json").read_text())
    assert record["n"] == 59
    assert record["confusion"] == {"pass": {"pass": 29, "fail": 0}, "fail": {"pass": 3, "fail": 27}}
    assert record["split"] == {
        "file": str(files.split),
        "test_share": 0.5,
        "n_dev": 60,
        "n_test": 60,
        "n_test_fresh": 59,
        "n_test_spent": 1,
        "test_relabelled": [],
        "test_tied": [],
        "test_runs": [f"t{i}" for i in range(59)],
    }


def test_calibrate_split_test_spends_every_test_label_it_measures(tmp_path: Path) -> None:
    # Two of the 60 test runs disagree with the judge, and only two are listed: all 60 are
    # spent, agreeing or not, so promotion has nothing left to measure.
    files = make(tmp_path)
    test = files.invoke("calibrate", "--no-store", "--split", "test", "--disagreements", "2")
    assert test.exit_code == 0, test.output
    assert test.stdout.splitlines()[1] == (
        "measured on test: 60 of 120 labelled runs (60 fresh, 0 spent); every test label "
        "measured is now spent: `judgekit promote` no longer counts them"
    )
    assert "  t0: human fail, judge pass" in test.stdout.splitlines()
    assert "  t2: human fail, judge pass" not in test.stdout.splitlines()  # not listed
    why = "measured beside the judge's verdicts by calibrate --split test"
    assert read_split_file(files.split).spent == {f"t{i}": why for i in range(60)}
    refused = files.invoke("promote", "--no-store")
    assert refused.exit_code == 2
    assert refused.output == (
        "judgekit: error: no fresh test labels for goal_completion: of 120 labelled runs, 60 "
        "are dev and 60 test (60 spent); `judgekit label` must add about 100 more labels for "
        "the 50 the policy asks (a share 0.5 of new labels goes to test)\n"
    )


def test_promote_refuses_when_too_few_fresh_test_labels(tmp_path: Path) -> None:
    files = make(tmp_path)
    # Drop 13 test labels: 47 fresh test labels are left.
    labels = [json.loads(line) for line in files.labels.read_text().splitlines()]
    keep = [row for row in labels if row["run_id"] not in {f"t{i}" for i in range(30, 43)}]
    files.labels.write_text(lines(keep))
    refused = files.invoke("promote", "--no-store")
    assert refused.exit_code == 1, refused.output
    assert refused.stdout.splitlines() == [
        "goal_completion (version " + files.version + ") not promoted: 1 of 3 criteria not met",
        "  min_labels: runs compared 47, bar 50 (3 short)",
        "measured on 47 fresh test labels (0 spent, 60 dev held for calibrate): `judgekit "
        "label` must add about 6 more labels (a share 0.5 of new labels goes to test)",
    ]


def test_no_fresh_test_label_at_all_is_one_line_exit_2(tmp_path: Path) -> None:
    files = make(tmp_path)
    files.split.write_text(
        "".join(
            json.dumps(fixed_side(run, "dev")) + "\n"
            for run in [f"d{i}" for i in range(60)] + [f"t{i}" for i in range(60)]
        )
    )
    result = files.invoke("promote", "--no-store")
    assert result.exit_code == 2
    assert result.output == (
        "judgekit: error: no fresh test labels for goal_completion: of 120 labelled runs, 120 "
        "are dev and 0 test (0 spent); `judgekit label` must add about 100 more labels for "
        "the 50 the policy asks (a share 0.5 of new labels goes to test)\n"
    )


def test_the_store_and_the_markdown_say_what_was_measured(tmp_path: Path) -> None:
    from judgekit.store import open_store

    files = make(tmp_path)
    assert files.invoke("calibrate").exit_code == 0
    with open_store() as store, store.engine.connect() as connection:
        from sqlalchemy import select

        from judgekit.store import schema

        (row,) = connection.execute(select(schema.calibrations.c.data)).all()
    assert (row.data["measured_on"], row.data["n"]) == ("dev", 60)
    assert row.data["split"] == {
        "file": str(files.split),
        "test_share": 0.5,
        "n_dev": 60,
        "n_test": 60,
        "n_test_fresh": 60,
        "n_test_spent": 0,
        "test_relabelled": [],
        "test_tied": [],
    }
    markdown = files.invoke("calibrate", "--no-store", "--md").stdout.splitlines()
    assert markdown[4] == (
        "measured on dev: 60 of 120 labelled runs; 60 test labels held out for `judgekit "
        "promote` (60 fresh)"
    )


def test_a_new_version_promoted_keeps_the_test_kappa_it_replaced(tmp_path: Path) -> None:
    files = make(tmp_path)
    first = files.invoke("promote", "--no-store")
    assert first.exit_code == 0, first.output
    record_path = tmp_path / "rubrics" / "goal_completion.promotion.json"
    old = json.loads(record_path.read_text())
    assert "previous" not in old  # nothing was replaced

    # An edit to the prompt: a new version, judged again, now right on every run.
    files.rubric.write_text(
        files.rubric.read_text().replace("prompt: |", "prompt: |\n  Be strict.", 1)
    )
    new_version = rubric_version(load_rubric(files.rubric))
    assert new_version != files.version
    verdicts = [json.loads(line) for line in files.verdicts.read_text().splitlines()]
    labels = {
        row["run_id"]: row["label"]
        for row in map(json.loads, files.labels.read_text().splitlines())
    }
    files.verdicts.write_text(
        lines(
            [{**v, "rubric_version": new_version, "score": labels[v["run_id"]]} for v in verdicts]
        )
    )
    second = files.invoke("promote", "--no-store")
    assert second.exit_code == 0, second.output
    new = json.loads(record_path.read_text())
    assert new["kappa"] == 1.0 and new["n"] == 60
    assert new["previous"] == {
        "rubric_version": files.version,
        "model": MODEL,
        "n": 60,
        "kappa": old["kappa"],
        "kappa_ci": old["kappa_ci"],
        "promoted_at": old["promoted_at"],
    }
    assert round(old["kappa"], 3) == 0.9  # 3 of 60 wrong: agreement 0.95
    assert second.stdout.splitlines()[1] == (
        f"test kappa 0.900 [{old['kappa_ci'][0]:.3f}, {old['kappa_ci'][1]:.3f}] on 60 labels at "
        f"version {files.version} (promoted {old['promoted_at']}) → 1.000 [1.000, 1.000] on 60 "
        "labels now"
    )
    # Promoting the same version again keeps the version before it, not itself.
    again = files.invoke("promote", "--no-store")
    assert again.exit_code == 0, again.output
    assert json.loads(record_path.read_text())["previous"] == new["previous"]


def test_a_bad_input_file_leaves_the_split_unwritten(tmp_path: Path) -> None:
    files = make(tmp_path)
    files.split.unlink()
    files.verdicts.write_text('{"run_id": "d0"}\n')
    for command in ("calibrate", "promote"):
        result = files.invoke(command, "--no-store")
        assert result.exit_code == 2, result.output
        assert result.output.startswith(f"judgekit: error: {files.verdicts}:1:")
        assert not files.split.exists()
    files.verdicts.write_text("")
    repeated = files.runs.read_text().splitlines()[0]
    files.runs.write_text(f"{repeated}\n{repeated}\n")
    result = files.invoke("calibrate", "--no-store", "--runs", str(files.runs))
    assert result.exit_code == 2, result.output
    assert result.output == (
        f"judgekit: error: {files.runs}:2: run_id: duplicate run id 't59' (first at line 1); "
        "each run id must appear once\n"
    )
    assert not files.split.exists()
