"""Every command the README shows, run in the README's order in a scratch copy of the
examples, so the README cannot go stale.

Commands that ask a model run against a local fake server (the README's key placeholder
becomes a test key and ``--base-url`` points at the server); benchmarks run at small sizes;
the two set-up commands are what ``.ci/run`` itself runs.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO, shared_data_path

README = REPO / "README.md"
SETUP = {"pip install -e '.[dev]'", "python -m pytest"}  # .ci/run runs exactly these
# Exit codes the walk-through expects besides 0, and why.
EXPECTED_EXIT = {
    # A fake judge that passes everything agrees with no one: promote says so and exits 1.
    "judgekit promote --rubric goal_completion --labels my-labels/goal_completion.jsonl": (
        1,
        "not promoted",
    ),
    # Nothing is promoted yet, so there is no figure to recheck against.
    "OPENAI_API_KEY=your-key judgekit monitor --recheck goal_completion": (
        2,
        "no promotion record",
    ),
    # The README shows this run failing, with this message.
    "pytest -m judgekit --judgekit-tasks tasks/shop.yaml --judgekit-agent examples.shop:agent "
    "--judgekit-trials 20 --judgekit-min-pass-rate 0.7 --judgekit-baseline main/results.jsonl": (
        1,
        "shop/refuse_overrefund: pass rate 11/20 = 0.55, required ≥ 0.7\n"
        "trial 1: state: orders.A102.refunded: expected a number ≤ 90, got 200",
    ),
}
BENCH_SIZES = {
    "bench/grade_throughput.py": ["--runs", "300"],
    "bench/suite_loading.py": ["--tasks", "200", "--repeat", "1"],
    "bench/trial_overhead.py": ["--trials", "50", "--repeats", "1"],
    "bench/judge_throughput.py": [
        "--items",
        "40",
        "--latency",
        "0.01",
        "--concurrency",
        "8",
        "--repeat",
        "1",
    ],
    "bench/label_screen.py": [],
    "bench/calibration_bootstrap.py": ["--n", "2000", "--resamples", "50"],
    "bench/store_monitor.py": ["--verdicts", "3000", "--days", "10"],
    "bench/store_record.py": ["--verdicts", "2000", "--per-call", "500", "--repeat", "1"],
    "bench/monitor_alerts.py": ["--series", "50"],
    "bench/selective_guarantee.py": ["--draws", "20"],
    "bench/startup.py": ["--repeats", "1"],
}


@dataclass(frozen=True)
class Command:
    line: str  # as the README shows it
    block: str  # bash or console
    shown: tuple[str, ...] = ()  # the output the README shows under it (console blocks)


def readme_commands() -> list[Command]:
    """Shell commands of the README's bash and console blocks, continuations joined, each
    with the output shown under it."""
    found: list[Command] = []
    for kind, body in re.findall(r"```(bash|console)\n(.*?)```", README.read_text(), re.S):
        lines = body.splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            command = line[2:] if line.startswith("$ ") else (line if kind == "bash" else None)
            while command is not None and command.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command.rstrip()[:-1].rstrip() + " " + lines[i].strip()
            shown: list[str] = []
            while kind == "console" and i + 1 < len(lines) and not lines[i + 1].startswith("$ "):
                i += 1
                shown.append(lines[i])
            if command and not command.startswith("#"):
                found.append(Command(re.sub(r"\s+#.*$", "", command).strip(), kind, tuple(shown)))
            i += 1
    return found


def assert_shown(command: Command, output: str) -> None:
    """Every line the README shows under the command is a line it printed; "..." stands
    for lines left out and "…" for a part that differs between machines."""
    printed = {line.rstrip() for line in output.splitlines()}
    for line in command.shown:
        if line != "..." and "…" not in line:
            assert line.rstrip() in printed, f"{command.line}: README shows {line!r}"


def test_the_readme_shows_the_commands_this_test_runs() -> None:
    lines = [c.line for c in readme_commands()]
    assert lines[:3] == ["pip install -e '.[dev]'", "python -m pytest", "judgekit demo"]
    every_command = {line.split()[1] for line in lines if line.startswith("judgekit ")}
    assert {
        "import",
        "grade",
        "run",
        "judge",
        "label",
        "labels",
        "calibrate",
        "promote",
        "monitor",
        "report",
        "store",
        "gate",
        "rubrics",
        "demo",
    } <= every_command


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    for folder in ("tasks", "rubrics", "examples", "labels"):
        if (REPO / folder).is_dir():
            shutil.copytree(
                REPO / folder, tmp_path / folder, ignore=shutil.ignore_patterns("__pycache__")
            )
    # A project of the user's: its own tests folder, which the pytest plugin adds tests to.
    (tmp_path / "tests").mkdir()
    (tmp_path / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-readme")
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)
    yield tmp_path


def _judgekit(args: list[str], stdin: str | None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, args, input=stdin)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def _prepare(command: Command, server: FakeLLMServer) -> tuple[list[str], Path | None]:
    """The argv to run, and the file a ``> FILE`` redirect writes to."""
    line = command.line.replace("OPENAI_API_KEY=your-key ", "")
    redirect = None
    if " > " in line:
        line, target = line.split(" > ")
        redirect = Path(target.strip())
    args = shlex.split(line)
    if "--base-url" in args:
        args[args.index("--base-url") + 1] = server.openai_base_url
    elif command.line.startswith("OPENAI_API_KEY="):
        args += ["--base-url", server.openai_base_url]
    return args, redirect


def test_every_readme_command_runs(scratch: Path) -> None:
    ran: list[str] = []
    demo_output = ""
    reply = '{"reason": "the answer does what was asked", "score": "pass"}'
    with FakeLLMServer(reply=lambda request: reply) as server:
        for command in readme_commands():
            if command.line in SETUP or "llmbar" in command.line:
                continue
            args, redirect = _prepare(command, server)
            if args[0] == "judgekit":
                stdin = "p\nf\n" * 4 + "q\n" if args[1] == "label" else None
                code, out, err = _judgekit(args[1:], stdin)
            elif args[:2] == ["cp", "-r"] and len(args) == 4:  # the walk-through's scratch labels
                shutil.copytree(args[2], args[3])
                code, out, err = 0, "", ""
            elif args[0] == "python" and args[1].startswith("bench/"):
                code, out, err = _run([sys.executable, str(REPO / args[1]), *BENCH_SIZES[args[1]]])
            elif args[0] == "pytest":
                code, out, err = _run(
                    [
                        sys.executable,
                        "-m",
                        "pytest",
                        *args[1:],
                        "-p",
                        "no:cacheprovider",
                        "-q",
                        "--rootdir",
                        str(scratch),
                    ]
                )
            else:
                raise AssertionError(
                    f"the README shows a command this test cannot run: {command.line}"
                )
            expected_code, expected_text = EXPECTED_EXIT.get(command.line, (0, ""))
            assert code == expected_code, f"{command.line}\n{out}\n{err}"
            assert expected_text in out + err, command.line
            assert_shown(command, out + err)
            if redirect is not None:
                redirect.write_text(out)
            if command.line == "judgekit demo":
                demo_output = out
            ran.append(command.line)
    llmbar = [c for c in readme_commands() if "llmbar" in c.line]
    assert len(ran) == len(readme_commands()) - len(SETUP) - len(llmbar)
    # The walk-through's files are there: it really ran, in order.
    assert (scratch / "runs.jsonl").read_text().count("\n") == 3
    assert "kappa" in (scratch / "comment.md").read_text()
    # The walk-through labels into its copy: the repository's labels stay as committed.
    for name in ("goal_completion.jsonl", "goal_completion.split.jsonl"):
        assert (scratch / "labels" / name).read_bytes() == (REPO / "labels" / name).read_bytes()
    assert (scratch / "my-labels" / "goal_completion.jsonl").read_text().count("\n") > (
        REPO / "labels" / "goal_completion.jsonl"
    ).read_text().count("\n")
    # The demo prints what the README quotes of it.
    quoted = README.read_text().split("The part that matters, as it prints:\n\n```console\n")[1]
    printed = [line.rstrip() for line in demo_output.splitlines()]
    for line in quoted.split("```", 1)[0].splitlines():
        assert line in printed, line
    assert (scratch / "report.html").is_file() and (scratch / "scores.png").is_file()


def test_the_llmbar_walkthrough_runs_on_the_real_data(scratch: Path) -> None:
    data = shared_data_path("llmbar")  # skips, saying why, without ../shared
    convert, calibrate = [c for c in readme_commands() if "llmbar" in c.line]
    args = shlex.split(convert.line)
    code, out, err = _run(
        [
            sys.executable,
            *args[1:],
            "--data",
            str(data / "verdicts.jsonl"),
            "--published",
            str(data / "published_statistics.jsonl"),
        ]
    )
    assert code == 0, err
    assert "position-bias rate 0.130 (of 200 items with both orders judged)" in out
    code, out, _ = _judgekit(shlex.split(calibrate.line)[1:], None)
    assert code == 0
    shown = README.read_text().split(f"$ {calibrate.line}\n", 1)[1].split("```", 1)[0]
    for line in shown.splitlines():
        if line != "...":
            assert line in out.splitlines(), line


def _run(argv: list[str]) -> tuple[int, str, str]:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    return done.returncode, done.stdout, done.stderr
