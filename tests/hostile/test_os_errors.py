"""Whatever the file system refuses is one line naming the path and the system's reason,
exit 2, with nothing written: a symbolic link that points at itself (it used to end nine
commands in ``OSError: [Errno 40]`` tracebacks and others in a false "no such file" or "no
labels yet"), a file nobody may read, a file where a folder should be, an integer of 5,000
digits or JSON nested 100,000 deep in a runs, labels or transcript file (a ValueError and a
RecursionError traceback), a store or an output folder that loops. And a command writing
several files has them all whole before it renames any into place.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit._util.atomic_files import TEMPORARY_SUFFIX, atomic_files
from judgekit._util.input_paths import exists, is_dir, is_file, read_text, reading
from judgekit._util.jsonl import parse_json
from judgekit.cli import main
from judgekit.errors import DataError, OutputError
from tests.conftest import REPO
from tests.processes import env, judgekit, listing

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS = REPO / "tasks" / "shop.yaml"
RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
LABELS = REPO / "labels" / "goal_completion.jsonl"
TRANSCRIPT = REPO / "examples" / "transcripts" / "shop_openai.jsonl"
LOOP = os.strerror(errno.ELOOP)  # Too many levels of symbolic links
DENIED = os.strerror(errno.EACCES)  # Permission denied
NOT_A_FOLDER = os.strerror(errno.ENOTDIR)  # Not a directory
LONG_NUMBER = "9" * 5000
# A judge that needs no key; nothing listens there, and no request is made before the
# input is read.
NO_KEY = ["--model", "openai/m", "--base-url", "http://127.0.0.1:9/v1", "--no-store"]
DEEP = "[" * 100_000


def invoke(*args: str | Path, env_vars: dict[str, str] | None = None) -> tuple[int, str, str]:
    """The CLI in this process; any exception but the exit is a bug and fails the test."""
    result = CliRunner().invoke(main, [str(a) for a in args], env=env_vars)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def loop(path: Path) -> Path:
    """A symbolic link that points at itself."""
    path.symlink_to(path.name)
    return path


def results_folder(tmp_path: Path) -> Path:
    """A results folder graded from the shop runs."""
    folder = tmp_path / "results"
    code, _, err = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", folder, "--no-store")
    assert code == 0, err
    return folder


# ------------------------------------------------------------------ a symbolic link loop

# (command line, the path the message names, whether a reader says "cannot read: ") for a
# loop at L (a file name), D (a folder name) or inside T (a folder of task suites).
LoopCase = Callable[[Path, Path], tuple[list[str | Path], Path, bool]]


def _tasks_folder_with_a_loop(tmp: Path) -> Path:
    folder = tmp / "suites"
    folder.mkdir()
    shutil.copy(SHOP_TASKS, folder / "shop.yaml")
    loop(folder / "zz.yaml")
    return folder


LOOP_CASES: dict[str, LoopCase] = {
    "import openai FILE": lambda tmp, out: (
        ["import", "openai", loop(tmp / "t.jsonl"), "-o", out / "runs.jsonl"],
        tmp / "t.jsonl",
        True,
    ),
    "import anthropic FILE": lambda tmp, out: (
        ["import", "anthropic", loop(tmp / "t.json"), "-o", out / "runs.jsonl"],
        tmp / "t.json",
        True,
    ),
    "grade RUNS": lambda tmp, out: (
        ["grade", loop(tmp / "runs.jsonl"), "--tasks", SHOP_TASKS, "--out", out, "--no-store"],
        tmp / "runs.jsonl",
        True,
    ),
    "grade --tasks FILE": lambda tmp, out: (
        ["grade", SHOP_RUNS, "--tasks", loop(tmp / "t.yaml"), "--out", out, "--no-store"],
        tmp / "t.yaml",
        True,
    ),
    "grade --tasks FOLDER": lambda tmp, out: (
        ["grade", SHOP_RUNS, "--tasks", loop(tmp / "suites"), "--out", out, "--no-store"],
        tmp / "suites",
        True,
    ),
    "grade --tasks FOLDER holding a loop": lambda tmp, out: (
        ["grade", SHOP_RUNS, "--tasks", _tasks_folder_with_a_loop(tmp), "--out", out],
        tmp / "suites" / "zz.yaml",
        True,
    ),
    "run --tasks FILE": lambda tmp, out: (
        ["run", "--tasks", loop(tmp / "t.yaml"), "--agent", "examples.shop:agent", "--out", out],
        tmp / "t.yaml",
        True,
    ),
    "judge --rubric": lambda tmp, out: (
        ["judge", SHOP_RUNS, "--rubric", loop(tmp / "r.yaml"), "--out", out, *NO_KEY],
        tmp / "r.yaml",
        True,
    ),
    "judge --tasks FOLDER holding a loop": lambda tmp, out: (
        [
            "judge",
            SHOP_RUNS,
            "--rubric",
            RUBRIC,
            "--tasks",
            _tasks_folder_with_a_loop(tmp),
            "--out",
            out,
            *NO_KEY,
        ],
        tmp / "suites" / "zz.yaml",
        True,
    ),
    "label RUNS": lambda tmp, out: (
        [
            "label",
            loop(tmp / "runs.jsonl"),
            "--rubric",
            RUBRIC,
            "--labeler",
            "ana",
            "--labels-dir",
            out,
        ],
        tmp / "runs.jsonl",
        True,
    ),
    "label --rubric": lambda tmp, out: (
        [
            "label",
            SHOP_RUNS,
            "--rubric",
            loop(tmp / "r.yaml"),
            "--labeler",
            "ana",
            "--labels-dir",
            out,
        ],
        tmp / "r.yaml",
        True,
    ),
    "label --labels-dir": lambda tmp, out: (
        [
            "label",
            SHOP_RUNS,
            "--rubric",
            RUBRIC,
            "--labeler",
            "ana",
            "--labels-dir",
            loop(tmp / "labels"),
        ],
        tmp / "labels" / "goal_completion.jsonl",
        True,
    ),
    "labels --rubric": lambda tmp, out: (
        ["labels", "--rubric", loop(tmp / "r.yaml")],
        tmp / "r.yaml",
        True,
    ),
    "labels --labels-dir": lambda tmp, out: (
        ["labels", "--rubric", RUBRIC, "--labels-dir", loop(tmp / "labels")],
        tmp / "labels" / "goal_completion.jsonl",
        True,
    ),
    "calibrate --rubric": lambda tmp, out: (
        ["calibrate", "--rubric", loop(tmp / "r.yaml"), "--no-store", "--plot", out / "c.png"],
        tmp / "r.yaml",
        True,
    ),
    "calibrate --labels": lambda tmp, out: (
        [
            "calibrate",
            "--rubric",
            RUBRIC,
            "--labels",
            loop(tmp / "l.jsonl"),
            "--no-store",
            "--plot",
            out / "c.png",
        ],
        tmp / "l.jsonl",
        True,
    ),
    "calibrate --verdicts": lambda tmp, out: (
        [
            "calibrate",
            "--rubric",
            RUBRIC,
            "--labels",
            LABELS,
            "--no-store",
            "--verdicts",
            loop(tmp / "v.jsonl"),
            "--plot",
            out / "c.png",
        ],
        tmp / "v.jsonl",
        True,
    ),
    "promote --rubric": lambda tmp, out: (
        ["promote", "--rubric", loop(tmp / "r.yaml"), "--no-store"],
        tmp / "r.yaml",
        True,
    ),
    "rubrics --dir": lambda tmp, out: (
        ["rubrics", "--dir", loop(tmp / "rubrics")],
        tmp / "rubrics",
        True,
    ),
    "monitor --rubric": lambda tmp, out: (
        ["monitor", "--rubric", loop(tmp / "r.yaml"), "--plot", out / "m.png"],
        tmp / "r.yaml",
        True,
    ),
    "monitor --labels-dir": lambda tmp, out: (
        ["monitor", "--labels-dir", loop(tmp / "labels"), "--plot", out / "m.png"],
        tmp / "labels",
        True,
    ),
    "report --results": lambda tmp, out: (
        ["report", "--results", loop(tmp / "results.jsonl"), "-o", out / "r.html"],
        tmp / "results.jsonl",
        True,
    ),
    "gate --baseline FILE": lambda tmp, out: (
        ["gate", "--baseline", loop(tmp / "b.jsonl"), "--candidate", results_folder(out.parent)],
        tmp / "b.jsonl",
        True,
    ),
    "gate --candidate FOLDER": lambda tmp, out: (
        ["gate", "--baseline", results_folder(out.parent), "--candidate", loop(tmp / "pr")],
        tmp / "pr",
        True,
    ),
    "store import": lambda tmp, out: (
        ["store", "import", loop(tmp / "runs.jsonl")],
        tmp / "runs.jsonl",
        True,
    ),
}


@pytest.mark.parametrize("case", LOOP_CASES)
def test_a_symbolic_link_loop_is_one_line_and_writes_nothing(tmp_path: Path, case: str) -> None:
    inputs, out = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    args, named, says_cannot_read = LOOP_CASES[case](inputs, out)
    before = listing(tmp_path)
    code, stdout, stderr = invoke(*args)
    reason = f"cannot read: {LOOP}" if says_cannot_read else LOOP
    assert (code, stdout, stderr) == (2, "", f"judgekit: error: {named}: {reason}\n")
    assert listing(tmp_path) == before  # no output folder, file or temporary
    assert not (Path(os.environ["JUDGEKIT_HOME"]) / "judgekit.sqlite").exists()


def test_an_output_folder_that_loops_is_named_with_its_cause(tmp_path: Path) -> None:
    """It used to say "a file has that name"."""
    out = loop(tmp_path / "out")
    code, _, err = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", out, "--no-store")
    assert (code, err) == (2, f"judgekit: error: cannot create the folder {out}: {LOOP}\n")
    assert listing(tmp_path) == ["out"]


def test_an_earlier_output_that_loops_is_named_not_taken_for_absent(tmp_path: Path) -> None:
    """A runs.jsonl or verdicts.jsonl in --out that loops read as "nothing yet": run went on
    to write beside it and judge to replace it."""
    runs_out, verdicts_out = tmp_path / "run", tmp_path / "judge"
    runs_out.mkdir()
    verdicts_out.mkdir()
    runs, verdicts = loop(runs_out / "runs.jsonl"), loop(verdicts_out / "verdicts.jsonl")
    for resume in ([], ["--resume"]):
        code, _, err = invoke(
            "run", "--tasks", SHOP_TASKS, "--agent", "examples.shop:agent", "--out", runs_out,
            "--no-store", "--json", *resume,
        )  # fmt: skip
        assert (code, err) == (2, f"judgekit: error: {runs}: cannot read: {LOOP}\n")
    code, _, err = invoke(
        "judge", SHOP_RUNS, "--rubric", RUBRIC, "--out", verdicts_out, *NO_KEY, "--json"
    )
    assert (code, err) == (2, f"judgekit: error: {verdicts}: cannot read: {LOOP}\n")
    assert [path.is_symlink() for path in (runs, verdicts)] == [True, True]
    assert listing(runs_out) == [".judgekit.lock", "runs.jsonl"]
    assert listing(verdicts_out) == [".judgekit.lock", "verdicts.jsonl"]


def test_a_store_file_that_loops_is_named_with_its_cause(tmp_path: Path) -> None:
    """SQLite said only "unable to open database file"; a loop in its folder said "File
    exists"."""
    database = loop(tmp_path / "store.sqlite")
    for url in (f"sqlite:///{database}", f"sqlite:///{database}/inner.sqlite"):
        code, _, err = invoke("store", "info", env_vars={"JUDGEKIT_DB": url})
        assert (code, err) == (2, f"judgekit: error: {url}: {LOOP}\n")
    assert listing(tmp_path) == ["store.sqlite"]


# ------------------------------------------------------- a file where a folder should be


def test_labels_under_a_file_are_an_error_not_no_labels_yet(tmp_path: Path) -> None:
    """``--labels-dir FILE/sub`` used to read as "no labels yet" (labels) or be created
    halfway (label)."""
    (tmp_path / "file").write_text("x")
    labels_dir = tmp_path / "file" / "labels"
    named = labels_dir / "goal_completion.jsonl"
    expected = f"judgekit: error: {named}: cannot read: {NOT_A_FOLDER}\n"
    for args in (
        ["labels", "--rubric", RUBRIC, "--labels-dir", labels_dir],
        ["label", SHOP_RUNS, "--rubric", RUBRIC, "--labeler", "ana", "--labels-dir", labels_dir],
    ):
        code, _, err = invoke(*args)
        assert (code, err) == (2, expected)
    code, _, err = invoke("calibrate", "--rubric", RUBRIC, "--labels", named, "--no-store")
    assert (code, err) == (2, expected)
    code, _, err = invoke("monitor", "--labels-dir", labels_dir)
    assert (code, err) == (2, f"judgekit: error: {labels_dir}: cannot read: {NOT_A_FOLDER}\n")
    assert listing(tmp_path) == ["file"]


# ----------------------------------------------------------------- a file nobody may read


def unprivileged(args: Sequence[str | Path], home: Path) -> subprocess.CompletedProcess[str]:
    """``python -m judgekit ARGS`` as a process that file permissions stop: as root,
    without the capabilities that let root read and search anything."""
    prefix: list[str] = []
    if os.geteuid() == 0:
        caps = "-dac_override,-dac_read_search"
        prefix = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]
    return subprocess.run(
        [*prefix, sys.executable, "-m", "judgekit", *map(str, args)],
        cwd=REPO,
        env=env(home),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def unreadable(path: Path) -> Path:
    path.chmod(0)
    return path


def test_files_nobody_may_read_are_one_line(tmp_path: Path) -> None:
    """An unreadable task suite in a folder, results file and labels file used to end in a
    PermissionError traceback."""
    results = results_folder(tmp_path)
    suites = tmp_path / "suites"
    suites.mkdir()
    shutil.copy(SHOP_TASKS, suites / "shop.yaml")
    labels = tmp_path / "labels"
    labels.mkdir()
    shutil.copy(LABELS, labels / "goal_completion.jsonl")
    rubric = tmp_path / "goal_completion.yaml"
    shutil.copy(RUBRIC, rubric)
    for path in (suites / "shop.yaml", results / "results.jsonl", labels / "goal_completion.jsonl"):
        unreadable(path)
    unreadable(rubric)
    out = tmp_path / "out"
    cases: list[tuple[list[str | Path], Path]] = [
        (["grade", SHOP_RUNS, "--tasks", suites, "--out", out, "--no-store"], suites / "shop.yaml"),
        (["gate", "--baseline", results, "--candidate", results], results / "results.jsonl"),
        (["report", "--results", results, "-o", out / "r.html"], results / "results.jsonl"),
        (["labels", "--rubric", RUBRIC, "--labels-dir", labels], labels / "goal_completion.jsonl"),
        (["promote", "--rubric", rubric, "--no-store"], rubric),
        (["judge", SHOP_RUNS, "--rubric", rubric, "--out", out, "--no-store"], rubric),
    ]
    for args, named in cases:
        done = unprivileged(args, tmp_path / "home")
        assert (done.returncode, done.stderr) == (
            2,
            f"judgekit: error: {named}: cannot read: {DENIED}\n",
        ), args
        assert not out.exists()


# ------------------------------------------- numbers too long and nesting too deep to read


def runs_line(**more: object) -> str:
    return json.dumps({"run_id": "r1", "task_id": "refund_full", "tool_calls": [], **more})


def test_a_number_too_long_or_json_too_deep_in_a_runs_file(tmp_path: Path) -> None:
    """store import used to end in a ValueError or RecursionError traceback; grade says
    what pydantic's parser says, on one line too."""
    long_number = tmp_path / "long.jsonl"
    long_number.write_text(runs_line(turns=0).replace('"turns": 0', f'"turns": {LONG_NUMBER}'))
    deep = tmp_path / "deep.jsonl"
    deep.write_text(f"{DEEP}\n{runs_line()}\n")
    column = runs_line(turns=0).index('"turns": 0') + len('"turns": ') + 1
    code, _, err = invoke("store", "import", long_number)
    assert (code, err) == (
        2,
        f"judgekit: error: {long_number}:1: malformed JSON at column {column}: a number of "
        "5000 digits, more than the 4300 that can be read\n",
    )
    code, _, err = invoke("store", "import", deep)
    assert (code, err) == (
        2,
        f"judgekit: error: {deep}:1: malformed JSON at column 100000: nested 100000 levels "
        "deep, too deep to read\n",
    )
    for runs in (long_number, deep):
        code, _, err = invoke("grade", runs, "--tasks", SHOP_TASKS, "--out", tmp_path / "out")
        assert code == 2 and err.startswith(f"judgekit: error: {runs}:") and err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_a_number_too_long_or_json_too_deep_in_a_labels_file(tmp_path: Path) -> None:
    labels = tmp_path / "labels"
    labels.mkdir()
    good = LABELS.read_text().splitlines()[0]
    for bad, problem in (
        (good.replace('"label":"fail"', f'"label":{LONG_NUMBER}'), "a number of 5000 digits"),
        (good.replace('"label":"fail"', '"label":"fail","x":' + DEEP), "nested 100001 levels"),
    ):
        assert bad != good
        (labels / "goal_completion.jsonl").write_text(f"{good}\n{bad}\n")
        code, _, err = invoke("labels", "--rubric", RUBRIC, "--labels-dir", labels)
        path = labels / "goal_completion.jsonl"
        assert code == 2 and err.startswith(f"judgekit: error: {path}:2: malformed JSON: {problem}")
        assert err.count("\n") == 1


def test_a_number_too_long_or_json_too_deep_in_a_transcript(tmp_path: Path) -> None:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]
    text = json.dumps({"messages": messages})
    cases = {
        "long.jsonl": text.replace('"ok"', f'"ok", "n": {LONG_NUMBER}'),
        "deep.jsonl": f"{text}\n{text}\n" + text.replace('"hi"', DEEP),
    }
    for name, content in cases.items():
        transcript = tmp_path / name
        transcript.write_text(content + "\n")
        for api in ("openai", "anthropic"):
            code, _, err = invoke("import", api, transcript, "-o", tmp_path / "out" / "r.jsonl")
            line = 1 if name == "long.jsonl" else 3
            assert code == 2, err
            assert err.startswith(f"judgekit: error: {transcript}:{line}: malformed JSON at col")
            assert err.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_tool_arguments_nested_past_what_a_runs_file_reads_are_refused(tmp_path: Path) -> None:
    """Arguments 210 deep used to be written (and grade then refused the file), 300 deep
    ended the import in a serialisation traceback."""
    for depth in (210, 300):
        arguments = '{"a": ' + "[" * depth + "]" * depth + "}"
        call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": arguments}}
        message = {"role": "assistant", "content": "x", "tool_calls": [call]}
        transcript = tmp_path / "t.jsonl"
        transcript.write_text(
            json.dumps({"messages": [{"role": "user", "content": "hi"}, message]})
        )
        code, _, err = invoke("import", "openai", transcript, "-o", tmp_path / "out" / "r.jsonl")
        assert (code, err) == (
            2,
            f"judgekit: error: {transcript}: run 't/0' holds a value nested more than 200 "
            "levels deep, deeper than a runs file is read\n",
        )
        assert not (tmp_path / "out").exists()


def deep_agent(task: object, world: object) -> str:
    """An agent whose tool call carries arguments 300 levels deep."""
    from judgekit import World

    assert isinstance(world, World)
    nested = json.loads("[" * 300 + "]" * 300)
    with contextlib.suppress(Exception):  # the tool refuses it; the call is recorded anyway
        world.call("lookup_order", order_id=nested)
    return "done"


def test_a_trial_too_deep_to_record_stops_the_run_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "out"
    agent = "tests.hostile.test_os_errors:deep_agent"
    args = ["run", "--tasks", SHOP_TASKS, "--agent", agent, "--trials", "1", "--out", out]
    code, _, err = invoke(*args, "--no-store", "--json")
    assert code == 2
    assert re.fullmatch(
        f"judgekit: error: {re.escape(str(out / 'runs.jsonl'))}: run 'shop/[a-z_]+/1' holds a "
        "value nested more than 200 levels deep, deeper than a runs file is read\n",
        err,
    )
    assert (out / "runs.jsonl").read_text() == ""  # the trials before it would stay


# ------------------------------------------------- several files written as one


def test_grade_renames_neither_result_until_both_are_whole(tmp_path: Path) -> None:
    """A write limit that results.jsonl's last flush meets after results.csv was complete:
    the csv used to be renamed into place first, leaving a new results.csv beside the old
    results.jsonl."""
    out = tmp_path / "results"
    out.mkdir()
    (out / "results.jsonl").write_text("old jsonl\n")
    (out / "results.csv").write_text("old csv\n")
    args = ["grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", out, "--no-store"]
    done = judgekit(args, tmp_path / "home", max_file_bytes=9_000)
    assert done.returncode == 2
    assert done.stderr == f"judgekit: error: cannot write {out / 'results.jsonl'}: File too large\n"
    assert (out / "results.jsonl").read_text() == "old jsonl\n"
    assert (out / "results.csv").read_text() == "old csv\n"
    assert not [name for name in os.listdir(out) if name.endswith(TEMPORARY_SUFFIX)]


def test_grade_writes_the_baseline_with_the_results(tmp_path: Path) -> None:
    out, baseline = tmp_path / "results", tmp_path / "baselines" / "main.jsonl"
    args = ["grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", out, "--save-baseline", baseline]
    code, _, err = invoke(*args, "--no-store")
    assert code == 0, err
    assert baseline.read_bytes() == (out / "results.jsonl").read_bytes()
    assert listing(baseline.parent) == ["main.jsonl"]


def test_a_set_of_files_appears_whole_or_not_at_all(tmp_path: Path) -> None:
    first, second = tmp_path / "a.txt", tmp_path / "b.txt"
    first.write_text("old a")
    second.mkdir()  # a folder where the second file should go: refused before any rename
    folder_error = pytest.raises(OutputError, match=f"^cannot write {second}: it is a folder$")
    with folder_error, atomic_files() as files:
        files.text(first).write("new a")
        files.text(second).write("new b")
    assert first.read_text() == "old a"
    assert listing(tmp_path) == ["a.txt", "b.txt"]
    second.rmdir()
    with pytest.raises(RuntimeError), atomic_files() as files:
        files.text(first).write("new a")
        files.binary(second).write(b"new b")
        raise RuntimeError("the block fails")
    assert listing(tmp_path) == ["a.txt"]
    with atomic_files() as files:
        files.text(first).write("new a")
        files.binary(second).write(b"new b")
    assert (first.read_text(), second.read_bytes()) == ("new a", b"new b")
    assert listing(tmp_path) == ["a.txt", "b.txt"]


# ---------------------------------------------------------------- the shared helpers


def test_probes_say_false_only_when_nothing_is_there(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    assert (exists(tmp_path / "file"), is_file(tmp_path / "file"), is_dir(tmp_path)) == (
        True,
        True,
        True,
    )
    assert (exists(tmp_path / "no"), is_file(tmp_path / "no"), is_dir(tmp_path / "no")) == (
        False,
        False,
        False,
    )
    (tmp_path / "dangling").symlink_to("nowhere")
    assert not exists(tmp_path / "dangling")
    looping = loop(tmp_path / "loop")
    for probe in (exists, is_file, is_dir, read_text):
        with pytest.raises(DataError, match=f"^{looping}: cannot read: {LOOP}$"):
            probe(looping)
    under_a_file = tmp_path / "file" / "x"
    with pytest.raises(DataError, match=f"^{under_a_file}: cannot read: {NOT_A_FOLDER}$"):
        is_file(under_a_file)
    with pytest.raises(DataError, match=f"^{tmp_path}: is a folder, expected a file$"):
        read_text(tmp_path)
    with pytest.raises(DataError, match=f"^{looping}: cannot read: {LOOP}$"), reading(tmp_path):
        looping.read_bytes()  # the path the system names wins


def test_parse_json_raises_json_decode_errors_only() -> None:
    digits_in_a_string = f'{{"a": "{"1" * 9000}", "b": -{LONG_NUMBER}}}'
    for text, problem, column in (
        ("[" * 100_000, "nested 100000 levels deep, too deep to read", 100_000),
        (digits_in_a_string, "a number of 5000 digits", digits_in_a_string.index("-9") + 2),
        ('{"a": }', "Expecting value", 7),
    ):
        with pytest.raises(json.JSONDecodeError) as caught:
            parse_json(text)
        assert caught.value.msg.startswith(problem) and caught.value.colno == column
    with pytest.raises(json.JSONDecodeError, match="nested 3000 levels"):
        parse_json(("[" * 3000).encode("utf-16"))
    with pytest.raises(UnicodeDecodeError):
        parse_json(b'"\xff"')
