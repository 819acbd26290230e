"""Commands read all their input before they write, write whole files or none, say in one
line when an output cannot be written, and never let two processes write one folder."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from pathlib import Path

import pytest

from judgekit import Task, World
from judgekit._util.folder_lock import LOCK_FILE, PID_FILE
from judgekit.formats.task import load_tasks
from judgekit.store import open_store
from judgekit.store.record_files import table_counts
from tests.conftest import REPO
from tests.processes import judgekit, listing, lock_held, read_only, start_judgekit
from tests.store.recording.test_calibrate_and_promote import workspace

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS = REPO / "tasks" / "shop.yaml"
SLOW_AGENT = "tests.cli.test_output_files:slow_agent"
TRIALS = 50  # 4 shop tasks: 200 trials, at 10 ms each about 2 s


# With this variable naming a file, slow_agent's trials wait until the file exists: a run
# then holds its folder for as long as the test needs, however loaded the machine.
AGENT_GATE = "JUDGEKIT_TEST_AGENT_GATE"


def slow_agent(task: Task, world: World) -> str:
    """The shop's stub, 10 ms a trial: two runs of it overlap for seconds."""
    from examples.shop import agent

    gate = os.environ.get(AGENT_GATE)
    deadline = time.monotonic() + 60
    while gate and not os.path.exists(gate) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.01)
    return agent(task, world)


def home() -> Path:
    """The JUDGEKIT_HOME of this test (tests/conftest.py), shared with its processes."""
    return Path(os.environ["JUDGEKIT_HOME"])


def run_args(out: Path, *more: str | Path) -> list[str | Path]:
    return [
        "run",
        "--tasks",
        SHOP_TASKS,
        "--agent",
        SLOW_AGENT,
        "--trials",
        str(TRIALS),
        "--out",
        out,
        "--no-store",
        "--json",
        *more,
    ]


def trial_counts(out: Path) -> Counter[tuple[str, int]]:
    """How many lines of runs.jsonl each (task, trial) has."""
    runs = [json.loads(line) for line in (out / "runs.jsonl").read_text().splitlines()]
    return Counter((run["task_id"], run["trial"]) for run in runs)


def assert_complete(out: Path) -> None:
    """Every one of the 200 trials once in runs.jsonl, graded once in results.*."""
    assert trial_counts(out) == Counter(
        {(task, trial): 1 for task in SHOP_TASK_IDS for trial in range(1, TRIALS + 1)}
    )
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["run_id"] for r in results) == sorted(
        f"shop/{task}/{trial}" for task in SHOP_TASK_IDS for trial in range(1, TRIALS + 1)
    )
    assert len((out / "results.csv").read_text().splitlines()) == 1 + 4 * TRIALS


SHOP_TASK_IDS = [task.id for task in load_tasks(SHOP_TASKS)]


def wait_for_pid_file(folder: Path, pid: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            if (folder / PID_FILE).read_text() == f"{pid}\n":
                return
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    raise AssertionError(f"{pid} never took the lock of {folder}")


def test_a_second_resume_on_the_same_folder_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two `run --resume` on one folder used to run the missing trials twice (399 lines of
    runs.jsonl for 200 trials); the second now stops at once and the first completes."""
    out = tmp_path / "out"
    gate = tmp_path / "gate"
    monkeypatch.setenv(AGENT_GATE, str(gate))  # the first run's trials wait for the gate
    first = start_judgekit(run_args(out, "--resume"), home())
    wait_for_pid_file(out, first.pid)
    second = judgekit(run_args(out, "--resume"), home())
    gate.touch()
    assert second.returncode == 2
    assert second.stderr == (
        f"judgekit: error: {out} is in use by another judgekit process (pid {first.pid})\n"
    )
    stdout, stderr = first.communicate(timeout=120)
    assert first.returncode == 0, stderr
    assert json.loads(stdout)["runs"] == 4 * TRIALS
    assert_complete(out)
    assert listing(out) == [LOCK_FILE, "results.csv", "results.jsonl", "runs.jsonl"]


def test_two_resumes_started_together_run_each_trial_once(tmp_path: Path) -> None:
    out = tmp_path / "out"
    both = [start_judgekit(run_args(out, "--resume"), home()) for _ in range(2)]
    outcomes = sorted((p.wait(timeout=120), p.stderr.read() if p.stderr else "") for p in both)
    assert [code for code, _ in outcomes] == [0, 2]
    assert "is in use by another judgekit process (pid " in outcomes[1][1]
    assert_complete(out)
    # resuming a complete folder runs nothing more
    again = judgekit(run_args(out, "--resume"), home())
    assert again.returncode == 0 and json.loads(again.stdout)["runs"] == 4 * TRIALS
    assert_complete(out)


def test_grade_with_a_baseline_it_cannot_write_writes_no_results(tmp_path: Path) -> None:
    """It used to write results.jsonl and results.csv, then fail with a traceback."""
    (tmp_path / "file").write_text("x")
    out = tmp_path / "results"
    done = judgekit(
        [
            "grade",
            SHOP_RUNS,
            "--tasks",
            SHOP_TASKS,
            "--out",
            out,
            "--save-baseline",
            tmp_path / "file" / "baseline.jsonl",
            "--no-store",
        ],
        home(),
    )
    assert done.returncode == 2
    assert done.stderr == (
        f"judgekit: error: cannot create the folder {tmp_path / 'file'}: a file has that name\n"
    )
    assert listing(tmp_path) == ["file"]


def test_grade_writes_the_baseline_with_the_results(tmp_path: Path) -> None:
    out, baseline = tmp_path / "results", tmp_path / "baselines" / "main.jsonl"
    args = ["grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", out, "--save-baseline", baseline]
    done = judgekit([*args, "--no-store"], home())
    assert done.returncode == 0, done.stderr
    assert baseline.read_bytes() == (out / "results.jsonl").read_bytes()
    assert len(baseline.read_text().splitlines()) == 18
    assert listing(out) == [LOCK_FILE, "results.csv", "results.jsonl"]
    assert done.stdout.splitlines()[-2:] == [
        f"wrote {out / 'results.jsonl'} and {out / 'results.csv'}",
        f"saved the baseline {baseline}: gate a change against it with judgekit gate "
        f"--baseline {baseline} --candidate FOLDER",
    ]


def test_run_says_where_it_saved_the_baseline(tmp_path: Path) -> None:
    out, baseline = tmp_path / "main", tmp_path / "my baselines" / "shop.jsonl"
    args = ["run", "--tasks", SHOP_TASKS, "--agent", "examples.shop:agent", "--trials", "2"]
    done = judgekit([*args, "--out", out, "--no-store", "--save-baseline", baseline], home())
    assert done.returncode == 0, done.stderr
    assert baseline.read_bytes() == (out / "results.jsonl").read_bytes()
    assert done.stdout.splitlines()[-2:] == [
        f"wrote {out / 'runs.jsonl'}, results.jsonl and results.csv",
        f"saved the baseline {baseline}: gate a change against it with judgekit gate "
        f"--baseline '{baseline}' --candidate FOLDER",
    ]


def test_grade_into_a_folder_it_cannot_write(tmp_path: Path) -> None:
    out = tmp_path / "results"
    args = ["grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--no-store", "--out"]
    with read_only(out) as reason:
        done = judgekit([*args, out], home())
        assert done.returncode == 2
        assert done.stderr == f"judgekit: error: cannot write in {out}: {reason}\n"
        assert listing(out) == []
    (tmp_path / "file").write_text("x")
    done = judgekit([*args, tmp_path / "file" / "results"], home())
    assert done.returncode == 2
    assert done.stderr == (
        f"judgekit: error: cannot create the folder {tmp_path / 'file' / 'results'}: "
        "Not a directory\n"
    )


def test_run_with_a_baseline_it_cannot_write_runs_no_trial(tmp_path: Path) -> None:
    """It used to run every trial, write them, then fail with a traceback."""
    (tmp_path / "file").write_text("x")
    out = tmp_path / "out"
    done = judgekit(run_args(out, "--save-baseline", tmp_path / "file" / "b.jsonl"), home())
    assert done.returncode == 2
    assert done.stderr == (
        f"judgekit: error: cannot create the folder {tmp_path / 'file'}: a file has that name\n"
    )
    assert not out.exists()


def test_run_into_a_folder_it_cannot_write(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with read_only(out) as reason:
        done = judgekit(run_args(out), home())
        assert done.returncode == 2
        assert done.stderr == f"judgekit: error: cannot write in {out}: {reason}\n"
        assert listing(out) == []


def test_a_resume_that_cannot_read_the_runs_leaves_them_as_they_were(tmp_path: Path) -> None:
    """A bad line and a torn last line: the torn line used to be cut before the bad line
    stopped the resume."""
    out = tmp_path / "out"
    out.mkdir()
    good = SHOP_RUNS.read_text().splitlines()[0]
    data = f'{good}\n{{"run_id": "x", "task_id": "refund_full", "tool_calls": {{}}}}\n{good[:40]}'.encode()
    (out / "runs.jsonl").write_bytes(data)
    done = judgekit(run_args(out, "--resume"), home())
    assert done.returncode == 2
    assert done.stderr == (
        f"judgekit: error: {out / 'runs.jsonl'}:2: tool_calls: cannot resume from this file: "
        "Input should be a valid array\n"
    )
    assert (out / "runs.jsonl").read_bytes() == data
    assert listing(out) == [LOCK_FILE, "runs.jsonl"]


def test_a_resume_refuses_a_trial_written_twice(tmp_path: Path) -> None:
    """What two resumes on one folder left before the lock: the trial would count twice in
    every rate (13 runs reported for 12 trials)."""
    out = tmp_path / "out"
    first = judgekit(["run", "--tasks", SHOP_TASKS, "--agent", "examples.shop:agent",
                      "--trials", "3", "--out", out, "--no-store"], home())  # fmt: skip
    assert first.returncode == 0, first.stderr
    runs = out / "runs.jsonl"
    data = runs.read_bytes() + runs.read_bytes().splitlines(keepends=True)[0]
    runs.write_bytes(data)
    done = judgekit(run_args(out, "--resume"), home())
    assert done.returncode == 2
    assert done.stderr == (
        f"judgekit: error: {runs}:13: run_id: duplicate run id 'shop/refund_full/1' "
        "(first at line 1); each run id must appear once\n"
    )
    assert runs.read_bytes() == data


def test_report_and_monitor_plots_into_a_folder_they_cannot_write(tmp_path: Path) -> None:
    folder = tmp_path / "site"
    with read_only(folder) as reason:
        for args in (
            ["report", "-o", folder / "report.html"],
            ["monitor", "--plot", folder / "s.png"],
        ):
            done = judgekit(args, home())
            assert done.returncode == 2, done.stderr
            assert done.stderr == f"judgekit: error: cannot write in {folder}: {reason}\n"
            assert listing(folder) == []


def test_monitor_writes_both_plots(tmp_path: Path) -> None:
    done = judgekit(["monitor", "--plot", tmp_path / "plots" / "scores.png", "--json"], home())
    assert done.returncode == 0, done.stderr
    plots = tmp_path / "plots"
    assert json.loads(done.stdout)["plots"] == [
        str(plots / "scores.png"),
        str(plots / "scores.cost_turns.png"),
    ]
    assert listing(plots) == [LOCK_FILE, "scores.cost_turns.png", "scores.png"]
    assert (plots / "scores.png").read_bytes()[:4] == b"\x89PNG"


def test_calibrate_with_a_plot_it_cannot_write_records_nothing(tmp_path: Path) -> None:
    """The calibration used to be recorded in the store, then the plot fail with a
    traceback."""
    options = workspace(tmp_path, n_per_class=30)
    (tmp_path / "file").write_text("x")
    done = judgekit(["calibrate", *options, "--plot", tmp_path / "file" / "c.png"], home())
    assert done.returncode == 2
    assert done.stderr == (
        f"judgekit: error: cannot create the folder {tmp_path / 'file'}: a file has that name\n"
    )
    with open_store() as store:
        assert table_counts(store)["calibrations"] == 0
    done = judgekit(["calibrate", *options, "--plot", tmp_path / "plots" / "c.png"], home())
    assert done.returncode == 0, done.stderr
    assert listing(tmp_path / "plots") == [LOCK_FILE, "c.png"]
    with open_store() as store:
        assert table_counts(store)["calibrations"] == 1


def test_promote_into_a_folder_it_cannot_write_records_nothing(tmp_path: Path) -> None:
    options = workspace(tmp_path, n_per_class=30, side="test")
    with read_only(tmp_path / "rubrics") as reason:
        done = judgekit(["promote", *options], home())
        assert done.returncode == 2
        record = tmp_path / "rubrics" / "goal_completion.promotion.json"
        assert done.stderr == f"judgekit: error: cannot write {record}: {reason}\n"
        assert listing(tmp_path / "rubrics") == ["goal_completion.yaml"]
    with open_store() as store:
        assert table_counts(store)["promotions"] == 0


def test_import_into_a_folder_it_cannot_write(tmp_path: Path) -> None:
    transcripts = REPO / "examples" / "transcripts" / "shop_openai.jsonl"
    with read_only(tmp_path / "runs") as reason:
        target = tmp_path / "runs" / "runs.jsonl"
        done = judgekit(["import", "openai", transcripts, "-o", target], home())
        assert done.returncode == 2
        assert done.stderr == f"judgekit: error: cannot write {target}: {reason}\n"


def test_a_failed_import_leaves_no_folder_behind(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('[{"role": "critic"}]\n')
    done = judgekit(["import", "openai", bad, "-o", tmp_path / "new" / "runs.jsonl"], home())
    assert done.returncode == 2
    assert done.stderr.startswith(f"judgekit: error: {bad}:1: ")
    assert listing(tmp_path) == ["bad.jsonl"]


def test_label_into_a_folder_it_cannot_write(tmp_path: Path) -> None:
    labels = tmp_path / "labels"
    args = ["label", SHOP_RUNS, "--rubric", "goal_completion", "--labeler", "ana"]
    with read_only(labels) as reason:
        done = judgekit([*args, "--labels-dir", labels], home(), stdin="p\n")
        assert done.returncode == 2
        assert done.stderr == (
            f"judgekit: error: cannot write {labels / 'goal_completion.jsonl'}: {reason}\n"
        )


def test_a_run_that_runs_out_of_room_keeps_what_finished_and_resumes(tmp_path: Path) -> None:
    """A write that fails mid-run (here a file size limit, as a full disk would) used to end
    in a traceback; now one line, and --resume completes the run."""
    out = tmp_path / "out"
    full = judgekit(run_args(out), home(), max_file_bytes=64_000)
    assert full.returncode == 2
    assert full.stderr == f"judgekit: error: cannot write {out / 'runs.jsonl'}: File too large\n"
    assert (out / "runs.jsonl").stat().st_size == 64_000  # up to a line the limit cut
    done = judgekit(run_args(out, "--resume"), home())
    assert done.returncode == 0, done.stderr
    assert_complete(out)


def test_grade_that_runs_out_of_room_writes_no_results(tmp_path: Path) -> None:
    out = tmp_path / "results"
    out.mkdir()
    (out / "results.jsonl").write_text("previous\n")
    args = ["grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", out, "--no-store"]
    full = judgekit(args, home(), max_file_bytes=4_000)
    assert full.returncode == 2
    assert full.stderr == f"judgekit: error: cannot write {out / 'results.jsonl'}: File too large\n"
    assert listing(out) == [LOCK_FILE, "results.jsonl"]
    assert (out / "results.jsonl").read_text() == "previous\n"


def test_demo_and_plots_into_a_folder_in_use_are_refused(tmp_path: Path) -> None:
    folder = tmp_path / "shared"
    with lock_held(folder, home()) as holder:
        busy = (
            f"judgekit: error: {folder} is in use by another judgekit process (pid {holder.pid})\n"
        )
        for args in (
            ["demo", "--out", folder],
            ["monitor", "--plot", folder / "scores.png"],
            ["report", "-o", folder / "report.html"],
        ):
            done = judgekit(args, home())
            assert (done.returncode, done.stderr) == (2, busy), args
        assert listing(folder) == [LOCK_FILE, PID_FILE]
