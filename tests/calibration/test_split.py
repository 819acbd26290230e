"""The dev/test split of a rubric's labelled runs: exact assignments on a hand-made labels
file (stratified by majority label, ties broken by run hash, in run-hash order), the first
assignment winning forever, spent test labels, and a file a killed process left behind.

The run hashes the expectations follow (first byte of sha256("ok\\0" + run id)):
r5 15, r3 19, r6 67, r7 80, r4 120, r8 176, r1 203, r2 254 — so with test_share 0.5 a
run whose class is balanced goes to test when its byte is below 128 (r5, r3, r7, r4).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from judgekit.calibration.split import load_split, mark_spent, restrict_labels, run_hash
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric
from judgekit.formats.split_file import read_split_file, split_path

AT = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
Labels = dict[tuple[str, str], Label]


def rubric(test_share: float = 0.5) -> Rubric:
    return Rubric(
        id="ok",
        scale="binary",
        prompt="Did the agent finish? {final_answer}",
        judge={"model": "openai/gpt-4o-mini"},
        promotion={"test_share": test_share},
    )


def labels_of(*given: tuple[str, str, str]) -> Labels:
    """(run, labeller, label) triples as a current-labels mapping."""
    return {
        (run, who): Label(run_id=run, rubric_id="ok", label=value, labeler=who, at=AT)
        for run, who, value in given
    }


# r1–r4 pass, r5–r6 fail, r7 tied between two labellers.
FIRST = labels_of(
    ("r1", "ana", "pass"),
    ("r2", "ana", "pass"),
    ("r3", "ana", "pass"),
    ("r4", "ana", "pass"),
    ("r5", "ana", "fail"),
    ("r6", "ana", "fail"),
    ("r7", "ana", "pass"),
    ("r7", "ben", "fail"),
)


def file_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_the_run_hashes_the_expectations_follow() -> None:
    firsts = {run: run_hash("ok", run)[0] for run in ("r1", "r2", "r3", "r4", "r5", "r6", "r7")}
    assert firsts == {"r1": 203, "r2": 254, "r3": 19, "r4": 120, "r5": 15, "r6": 67, "r7": 80}


def test_runs_are_stratified_by_label_in_run_hash_order(tmp_path: Path) -> None:
    labels_file = tmp_path / "ok.jsonl"
    split = load_split(rubric(), labels_file, FIRST)
    # r5 (fail, 0/0: byte 15 → test), r3 (pass, 0/0: 19 → test), r6 (fail, 1 of 1 in test
    # → dev), r7 (tied, its own class, 0/0: 80 → test), r4 (pass, 1/1 → dev), r1 (pass,
    # 1 of 2 in test, exactly 0.5: 203 → dev), r2 (pass, 1 of 3 → test).
    assert split.test == {"r5", "r3", "r7", "r2"}
    assert split.dev == {"r6", "r4", "r1"}
    assert split.side("r2") == "test" and split.side("r9") is None
    assert split.path == tmp_path / "ok.split.jsonl"
    written = [(d["run_id"], d["side"], d["label"]) for d in file_lines(split.path)]
    assert written == [
        ("r5", "test", "fail"),
        ("r3", "test", "pass"),
        ("r6", "dev", "fail"),
        ("r7", "test", None),
        ("r4", "dev", "pass"),
        ("r1", "dev", "pass"),
        ("r2", "test", "pass"),
    ]


def test_another_test_share_holds_out_that_share_of_each_class(tmp_path: Path) -> None:
    passes = labels_of(*[(f"p{i}", "ana", "pass") for i in range(20)])
    fails = labels_of(*[(f"f{i}", "ana", "fail") for i in range(10)])
    split = load_split(rubric(0.3), tmp_path / "ok.jsonl", passes | fails)
    assert len(split.test & {f"p{i}" for i in range(20)}) == 6
    assert len(split.test & {f"f{i}" for i in range(10)}) == 3
    assert len(split.dev) == 21


def test_a_new_label_assigns_only_its_run_and_the_first_assignment_wins(tmp_path: Path) -> None:
    labels_file = tmp_path / "ok.jsonl"
    first = load_split(rubric(), labels_file, FIRST)
    # r1 is relabelled fail (it stays on dev) and r8 is labelled pass: the pass class holds
    # 2 test and 2 dev, so r8 ties, and its byte 176 sends it to dev.
    later = FIRST | labels_of(("r1", "ana", "fail"), ("r8", "ana", "pass"))
    second = load_split(rubric(), labels_file, later)
    assert second.dev == first.dev | {"r8"}
    assert second.test == first.test
    lines = file_lines(second.path)
    assert len(lines) == 8
    assert (lines[-1]["run_id"], lines[-1]["side"], lines[-1]["label"]) == ("r8", "dev", "pass")
    # Loading again with the same labels writes nothing.
    load_split(rubric(), labels_file, later)
    assert len(file_lines(second.path)) == 8


def test_the_split_is_the_same_for_the_same_labels_file(tmp_path: Path) -> None:
    one = load_split(rubric(), tmp_path / "a" / "ok.jsonl", FIRST)
    two = load_split(rubric(), tmp_path / "b" / "ok.jsonl", dict(reversed(FIRST.items())))
    assert (one.dev, one.test) == (two.dev, two.test)


def test_without_record_nothing_is_written(tmp_path: Path) -> None:
    labels_file = tmp_path / "ok.jsonl"
    split = load_split(rubric(), labels_file, FIRST, record=False)
    assert split.test == {"r5", "r3", "r7", "r2"}
    assert not split_path(labels_file).exists()


def test_spent_test_labels_are_not_fresh(tmp_path: Path) -> None:
    labels_file = tmp_path / "ok.jsonl"
    split = load_split(rubric(), labels_file, FIRST)
    why = "shown as a disagreement by calibrate --split test"
    # r4 is dev and r9 was never assigned: neither is marked; r3 once only.
    assert mark_spent(split.path, ["r3", "r4", "r9", "r3", "r2"], why) == 2
    assert mark_spent(split.path, ["r3"], "again") == 0
    again = load_split(rubric(), labels_file, FIRST)
    assert again.spent == {"r3": why, "r2": why}
    assert again.fresh_test == {"r5", "r7"}
    assert again.summary({"r1", "r2", "r3", "r5", "r6"}).as_dict() == {
        "file": str(split.path),
        "test_share": 0.5,
        "n_dev": 2,
        "n_test": 3,
        "n_test_fresh": 1,
        "n_test_spent": 2,
        "test_relabelled": [],
        "test_tied": [],
    }


def test_restrict_labels_keeps_the_labels_of_the_runs_given() -> None:
    kept = restrict_labels(FIRST, {"r7", "r1"})
    assert sorted(kept) == [("r1", "ana"), ("r7", "ana"), ("r7", "ben")]


def test_a_line_cut_short_by_a_crash_is_replaced_on_the_next_load(tmp_path: Path) -> None:
    labels_file = tmp_path / "ok.jsonl"
    path = split_path(labels_file)
    load_split(rubric(), labels_file, labels_of(("r5", "ana", "fail")))
    with path.open("ab") as fh:
        fh.write(b'{"run_id": "r3", "side": "te')  # a process killed mid-write
    assert read_split_file(path).warnings == [
        f"{path}:2: ignored a truncated last line (left by a crash while writing?)"
    ]
    split = load_split(rubric(), labels_file, FIRST)
    assert split.test == {"r5", "r3", "r7", "r2"}
    lines = file_lines(path)  # every line whole again
    assert [d["run_id"] for d in lines] == ["r5", "r3", "r6", "r7", "r4", "r1", "r2"]


KILLED_WRITER = """
import os, sys
from pathlib import Path
from judgekit.calibration.split import load_split
from tests.calibration.test_split import FIRST, rubric

real_fsync = os.fsync

def fsync_then_die(fd):
    real_fsync(fd)
    os._exit(9)  # killed right after the durable append, before anything else

os.fsync = fsync_then_die
load_split(rubric(), Path(sys.argv[1]), FIRST)
"""


def test_a_killed_process_leaves_its_assignments_durable(tmp_path: Path) -> None:
    labels_file = tmp_path / "ok.jsonl"
    done = subprocess.run(
        [sys.executable, "-c", KILLED_WRITER, str(labels_file)],
        cwd=Path(__file__).parents[2],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
        check=False,
    )
    assert done.returncode == 9
    assert len(file_lines(split_path(labels_file))) == 7
    split = load_split(rubric(), labels_file, FIRST | labels_of(("r8", "ana", "pass")))
    assert split.test == {"r5", "r3", "r7", "r2"} and "r8" in split.dev


@pytest.mark.parametrize("share", [0.0, 1.0, 1.5])
def test_a_test_share_outside_zero_to_one_is_refused(share: float) -> None:
    with pytest.raises(ValueError, match="test_share"):
        rubric(share)
