"""Labellers labelling one rubric at once, while others crash in the middle of a label: every
label given is in the file once, whole, and the file stays readable."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from judgekit.formats.label import read_labels
from judgekit.formats.rubric_file import load_rubric
from tests.conftest import REPO
from tests.processes import env

RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
LABELS = 300

# A labeller: once the go file is there, appends COUNT labels with long notes, a few
# milliseconds apart; once the last file is there, one last label.
LABELLER = """
import sys, time
from datetime import UTC, datetime
from pathlib import Path
from judgekit.formats.label import Label
from judgekit.labelling.labels_file import LabelWriter

path, who, count, go, last = sys.argv[1], sys.argv[2], int(sys.argv[3]), *map(Path, sys.argv[4:])

def label(run_id, note):
    return Label(run_id=run_id, rubric_id="goal_completion", label="pass", labeler=who,
                 at=datetime.now(UTC), note=note)

with LabelWriter(path) as writer:
    while not go.exists():
        time.sleep(0.001)
    for i in range(count):
        writer.append(label(f"run-{i}", f"{who} {i} " + "x" * 2000))
        time.sleep(0.003)
    while not last.exists():
        time.sleep(0.001)
    writer.append(label("last", who))
"""

# A labeller that dies (SIGKILL) halfway through writing its label's line.
CRASHING = """
import os, signal, sys
from datetime import UTC, datetime
from judgekit.formats.label import Label
from judgekit.labelling.labels_file import LabelWriter

class DiesHalfway:
    def __init__(self, fh):
        self.fh = fh
    def write(self, data):
        self.fh.write(data[: len(data) // 2])
        self.fh.flush()
        os.kill(os.getpid(), signal.SIGKILL)
    def __getattr__(self, name):
        return getattr(self.fh, name)

writer = LabelWriter(sys.argv[1])
writer._fh = DiesHalfway(writer._fh)
writer.append(
    Label(run_id="crashed", rubric_id="goal_completion", label="pass", labeler="crash",
          at=datetime.now(UTC), note="y" * 3000)
)
"""


def python(script: str, *args: str | Path, home: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", script, *map(str, args)],
        cwd=REPO,
        env=env(home),
        stderr=subprocess.PIPE,
        text=True,
    )


def test_concurrent_labellers_lose_nothing_and_a_crash_tears_no_line(tmp_path: Path) -> None:
    path = tmp_path / "labels" / "goal_completion.jsonl"
    go, last, home = tmp_path / "go", tmp_path / "last", tmp_path / "home"
    labellers = [python(LABELLER, path, who, LABELS, go, last, home=home) for who in ("ana", "bob")]
    time.sleep(1.0)  # both have opened the file
    go.touch()
    mid_session = 0
    for _ in range(4):
        crashing = python(CRASHING, path, home=home)
        assert crashing.wait(timeout=30) == -9
        mid_session += path.read_bytes().count(b"\n") < 2 * LABELS
    last.touch()
    for labeller in labellers:
        _, stderr = labeller.communicate(timeout=60)
        assert labeller.returncode == 0, stderr

    log = read_labels(path, load_rubric(RUBRIC))
    assert log.warnings == []  # the labellers cut every torn line before appending
    for who in ("ana", "bob"):
        mine = [label for label in log.lines if label.labeler == who]
        assert [label.run_id for label in mine] == [f"run-{i}" for i in range(LABELS)] + ["last"]
        assert [label.note for label in mine] == [
            *(f"{who} {i} " + "x" * 2000 for i in range(LABELS)),
            who,
        ]
    assert [label.labeler for label in log.lines if label.labeler not in ("ana", "bob")] == []
    assert path.read_bytes().count(b"\n") == 2 * (LABELS + 1)
    assert mid_session >= 2, "the crashes should come while both label"
