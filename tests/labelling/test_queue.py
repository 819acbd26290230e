"""The team queue: labellers asking at once never get one run, except the runs to label
twice, which exactly two get; a claim lapses after its hold, a skip gives a run back, the
first labeller's settings hold for all — and two processes draining one queue label every
run once."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from judgekit.formats.label import Label, read_labels
from judgekit.formats.queue_file import queue_path, read_queue_settings
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.queue import TeamQueue, double_coded, open_queue
from tests.conftest import REPO
from tests.labelling.conftest import goal_completion
from tests.processes import env

NOW = datetime(2026, 5, 1, 12, 0, tzinfo=UTC)
RUNS = [f"r{n}" for n in range(1, 21)]


def _queue(labels: Path, double_code: float = 0.0, seed: int = 0) -> TeamQueue:
    return open_queue(
        goal_completion(),
        labels,
        strategy="random",
        seed=seed,
        double_code=double_code,
        clock=lambda: NOW,
    )


def _label(labels: Path, run: str, who: str) -> None:
    with LabelWriter(labels) as writer:
        writer.append(
            Label(run_id=run, rubric_id="goal_completion", label="pass", labeler=who, at=NOW)
        )


def test_two_labellers_asking_in_turn_never_hold_one_run(tmp_path: Path) -> None:
    labels = tmp_path / "goal_completion.jsonl"
    queue = _queue(labels)
    ana = queue.claim_next("ana", RUNS, skipped=(), now=NOW)
    bo = queue.claim_next("bo", RUNS, skipped=(), now=NOW)
    assert (ana, bo) == ("r1", "r2")
    # Asking again before labelling gives back the run one holds: a reload resumes.
    assert queue.claim_next("ana", RUNS, skipped=(), now=NOW) == "r1"
    _label(labels, "r1", "ana")
    assert queue.claim_next("ana", RUNS, skipped=(), now=NOW) == "r3"
    assert queue.left(RUNS) == 19  # r1 labelled; the held r2 and r3 still to label


def test_a_claim_lapses_after_its_hold_and_a_skip_gives_the_run_back(tmp_path: Path) -> None:
    labels = tmp_path / "goal_completion.jsonl"
    queue = _queue(labels)
    assert queue.claim_next("ana", RUNS, skipped=(), now=NOW) == "r1"
    later = NOW + timedelta(minutes=31)
    assert queue.claim_next("bo", RUNS, skipped=(), now=later) == "r1"  # ana's hold lapsed
    queue.release("bo", "r1", "skipped", now=later)
    assert queue.claim_next("cy", RUNS, skipped=(), now=later) == "r1"
    assert queue.claim_next("bo", RUNS, skipped={"r1"}, now=later) == "r2"


def test_the_runs_to_label_twice_go_to_exactly_two_labellers(tmp_path: Path) -> None:
    labels = tmp_path / "goal_completion.jsonl"
    queue = _queue(labels, double_code=0.5)
    twice = [run for run in RUNS if double_coded("goal_completion", run, 0.5)]
    assert 4 <= len(twice) <= 16  # a hash, not the labels: about half of 20
    held: dict[str, list[str]] = {}
    for who in ("ana", "bo", "cy"):
        while (run := queue.claim_next(who, RUNS, skipped=(), now=NOW)) is not None:
            held.setdefault(run, []).append(who)
            _label(labels, run, who)
    assert sorted(held) == sorted(RUNS)
    assert {run for run, who in held.items() if len(who) == 2} == set(twice)
    assert all(len(who) == 1 for run, who in held.items() if run not in twice)
    assert queue.left(RUNS) == 0


def test_the_first_labellers_settings_hold_for_everyone(tmp_path: Path) -> None:
    labels = tmp_path / "goal_completion.jsonl"
    _queue(labels, double_code=0.2, seed=7)
    second = _queue(labels, double_code=0.9, seed=1)
    assert (second.settings.seed, second.settings.double_code) == (7, 0.2)
    settings = read_queue_settings(labels)
    assert settings is not None and settings.seed == 7
    assert queue_path(labels).read_text().count('"queue":1') == 1


DRAINER = """
import sys
from datetime import UTC, datetime
from pathlib import Path
from judgekit.formats.label import Label
from judgekit.formats.rubric_file import load_rubric
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.queue import open_queue

labels, who, rubric = Path(sys.argv[1]), sys.argv[2], load_rubric(sys.argv[3])
runs = [f"r{n}" for n in range(200)]
queue = open_queue(rubric, labels, strategy="random", seed=0, double_code=0.1,
                   clock=lambda: datetime.now(UTC))
with LabelWriter(labels) as writer:
    while (run := queue.claim_next(who, runs, skipped=(), now=datetime.now(UTC))) is not None:
        writer.append(Label(run_id=run, rubric_id=rubric.id, label="pass", labeler=who,
                            at=datetime.now(UTC)))
        print(run, flush=True)
"""


def test_two_processes_draining_one_queue_label_every_run_as_often_as_it_needs(
    tmp_path: Path,
) -> None:
    labels = tmp_path / "goal_completion.jsonl"
    rubric = str(REPO / "rubrics" / "goal_completion.yaml")
    drainers = [
        subprocess.Popen(
            [sys.executable, "-c", DRAINER, str(labels), who, rubric],
            stdout=subprocess.PIPE,
            text=True,
            env=env(tmp_path / "home"),
            cwd=REPO,
        )
        for who in ("ana", "bo")
    ]
    outputs = [drainer.communicate(timeout=120)[0].split() for drainer in drainers]
    assert all(drainer.returncode == 0 for drainer in drainers)
    runs = [f"r{n}" for n in range(200)]
    twice = {run for run in runs if double_coded("goal_completion", run, 0.1)}
    counts = {run: outputs[0].count(run) + outputs[1].count(run) for run in runs}
    assert {run for run, n in counts.items() if n == 2} == twice
    assert {run for run, n in counts.items() if n == 1} == set(runs) - twice
    assert all(outputs[0].count(run) <= 1 and outputs[1].count(run) <= 1 for run in runs)
    assert len(read_labels(labels, goal_completion()).current) == 200 + len(twice)
    assert outputs[0] and outputs[1]  # both took part


def test_two_labellers_in_the_terminal_share_the_queue(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from judgekit.cli import main

    runs = tmp_path / "runs.jsonl"
    runs.write_text("".join(f'{{"run_id": "{run}", "final_answer": "done"}}\n' for run in RUNS))
    labels_dir = tmp_path / "labels"
    base = [
        "label",
        str(runs),
        "--rubric",
        str(REPO / "rubrics" / "goal_completion.yaml"),
        "--labels-dir",
        str(labels_dir),
        "--queue",
    ]
    ana = CliRunner().invoke(main, [*base, "--labeler", "ana", "--limit", "3"], input="p\np\ns\n")
    assert ana.exit_code == 0, ana.output
    bo = CliRunner().invoke(main, [*base, "--labeler", "bo", "--limit", "3"], input="f\nf\nf\n")
    assert bo.exit_code == 0, bo.output
    log = read_labels(labels_dir / "goal_completion.jsonl", goal_completion())
    by = {who: sorted(run for (run, w) in log.current if w == who) for who in ("ana", "bo")}
    assert len(by["ana"]) == 2 and len(by["bo"]) == 3
    assert not set(by["ana"]) & set(by["bo"])
    # ana's skipped run went back to the queue, and bo took it.
    released = [
        line
        for line in queue_path(labels_dir / "goal_completion.jsonl").read_text().splitlines()
        if '"released"' in line
    ]
    assert len(released) == 1 and any(run in released[0] for run in by["bo"])
    assert "2 labelled, 1 skipped this session" in ana.output


def test_a_settling_label_is_not_a_labellers_own_label_in_the_queue(tmp_path: Path) -> None:
    labels = tmp_path / "goal_completion.jsonl"
    queue = _queue(labels, double_code=1.0)  # every run needs two labellers
    runs = ["r1"]
    assert queue.claim_next("ana", runs, skipped=(), now=NOW) == "r1"
    _label(labels, "r1", "ana")
    with LabelWriter(labels) as writer:
        writer.append(
            Label(
                run_id="r1",
                rubric_id="goal_completion",
                label="fail",
                labeler="lead",
                at=NOW,
                settles=["ana"],
            )
        )
    assert queue.left(runs) == 1
    assert queue.claim_next("bo", runs, skipped=(), now=NOW) == "r1"
