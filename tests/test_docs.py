"""Every command the README and the docs pages show, run as shown, so none can go stale.

Each page runs top to bottom in a bash shell of its own, in a scratch folder holding a copy
of the repository's tasks/, rubrics/, examples/ and labels/ (or an empty folder, for a page
whose first line is ``<!-- docs-test: empty folder -->``), with this checkout's ``judgekit``
on the PATH. Conventions, from the pages' point of view:

- ```` ```console ```` blocks: a line starting ``$ `` is a command, the lines under it are
  output it must print (each a line printed; ``...`` stands for lines left out; a line
  holding ``…`` differs between machines and is not compared). ```` ```bash ```` blocks:
  every line is a command. A line ending in ``\\`` continues on the next.
- A command ending in `` # exits N`` must exit N; every other command must exit 0.
- A model is never called: OpenAI and Anthropic are a local fake judge that passes every
  answer (``OPENAI_BASE_URL`` and ``ANTHROPIC_BASE_URL`` point at it, and a ``--base-url``
  the page shows is pointed at it too), so ``OPENAI_API_KEY=your-key judgekit …`` runs as
  pasted.
- Set-up commands (``pip install …``, ``python -m pytest``, ``python -m build``) are what
  ``.ci/run`` and the wheel's test run; benchmarks (``python bench/…``, this repository's)
  run at small sizes; commands on the real public data in ``../shared`` get its paths,
  and their page skips without it.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from judgekit.testing import FakeLLMServer
from tests.conftest import REPO, SHARED_DATA

README = REPO / "README.md"
DOCS = REPO / "docs"
EMPTY_FOLDER = "<!-- docs-test: empty folder -->"
PROJECT_FOLDERS = ("tasks", "rubrics", "examples", "labels")
# Run by .ci/run and the wheel's test, not here: they install or test this repository.
SETUP_PREFIXES = (
    "pip install ",
    "python -m pip ",
    "python -m pytest",
    "python -m venv ",
    "python -m build",
)
EXITS = re.compile(r"\s#\s*exits (\d+)\s*$")
BENCH_SIZES = {
    "bench/grade_throughput.py": ["--runs", "300"],
    "bench/suite_loading.py": ["--tasks", "200", "--repeat", "1"],
    "bench/trial_overhead.py": ["--trials", "50", "--repeats", "1"],
    "bench/judge_throughput.py": [
        *("--items", "40", "--latency", "0.01", "--concurrency", "8", "--repeat", "1"),
    ],
    "bench/label_screen.py": [],
    "bench/rate_limits.py": ["--items", "40", "--window", "1"],
    "bench/batch_vs_direct.py": ["--items", "40", "--turnaround", "0.5", "--poll-interval", "0.1"],
    "bench/calibration_bootstrap.py": ["--n", "2000", "--resamples", "50"],
    "bench/store_monitor.py": ["--verdicts", "3000", "--days", "10"],
    "bench/store_record.py": ["--verdicts", "2000", "--per-call", "500", "--repeat", "1"],
    "bench/monitor_alerts.py": ["--series", "50"],
    "bench/selective_guarantee.py": ["--draws", "20"],
    "bench/startup.py": ["--repeats", "1"],
    "bench/view_runs.py": ["--runs", "500", "--repeat", "1"],
}
# The real public data a command reads, beside the checkout: (the data, its options).
SHARED_ARGS = {
    "python examples/llmbar/to_judgekit.py": (
        "llmbar",
        ["--data", "llmbar/verdicts.jsonl", "--published", "llmbar/published_statistics.jsonl"],
    ),
}


@dataclass(frozen=True)
class Command:
    line: str  # as the page shows it, continuations joined
    exit_code: int  # what ` # exits N` says, else 0
    shown: tuple[str, ...] = ()  # the output shown under it (console blocks)


def pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def page_id(page: Path) -> str:
    return page.relative_to(REPO).as_posix()


def page_commands(text: str) -> list[Command]:
    """The commands of a page's bash and console blocks, in order, each with the output
    shown under it."""
    found: list[Command] = []
    for kind, body in re.findall(r"^```(bash|console)\n(.*?)^```", text, re.S | re.M):
        lines = body.splitlines()
        if kind == "console" and lines and not lines[0].startswith("$ "):
            raise AssertionError(f"a console block starts with output, not a command: {lines[0]}")
        i = 0
        while i < len(lines):
            line = lines[i].removeprefix("$ ") if kind == "console" else lines[i]
            while line.rstrip().endswith("\\") and i + 1 < len(lines):
                i += 1
                line = line.rstrip()[:-1].rstrip() + " " + lines[i].strip()
            shown: list[str] = []
            while kind == "console" and i + 1 < len(lines) and not lines[i + 1].startswith("$ "):
                i += 1
                shown.append(lines[i])
            if line.strip() and not line.lstrip().startswith("#"):
                exits = EXITS.search(line)
                found.append(Command(line.strip(), int(exits[1]) if exits else 0, tuple(shown)))
            i += 1
    return found


def assert_shown(command: Command, output: str) -> None:
    """Every line the page shows under the command is a line it printed."""
    printed = {line.rstrip() for line in output.splitlines()}
    for line in command.shown:
        if line != "..." and "…" not in line:
            assert line.rstrip() in printed, f"{command.line}: the page shows {line!r}\n{output}"


def is_setup(command: Command) -> bool:
    return command.line.startswith(SETUP_PREFIXES)


def as_run(command: Command, server: FakeLLMServer) -> str:
    """The command as the shell runs it here: the shown --base-url pointed at the fake
    judge, a benchmark at a small size, real data from ../shared."""
    line = re.sub(r"--base-url \S+", f"--base-url {server.openai_base_url}", command.line)
    words = shlex.split(line, comments=True)
    if len(words) >= 2 and words[0] == "python" and words[1] in BENCH_SIZES:
        line = shlex.join(["python", str(REPO / words[1]), *words[2:], *BENCH_SIZES[words[1]]])
    for prefix, (_, options) in SHARED_ARGS.items():
        if line.startswith(prefix):
            data = [str(SHARED_DATA / part) if "/" in part else part for part in options]
            line = shlex.join([*words, *data])
    return line


def shell_env(bin_dir: Path, server: FakeLLMServer, venv: Path | None = None) -> dict[str, str]:
    """A user's shell: this checkout's judgekit and Python first on the PATH (or those of
    ``venv``, an install with no source tree), no key, no store or home set, the providers'
    APIs answered by the fake judge."""
    python = sys.executable if venv is None else str(venv / "bin" / "python")
    for name, target in (
        ("judgekit", f'{python} -m judgekit "$@"'),
        ("python", f'{python} "$@"'),
        ("pytest", f'{python} -m pytest "$@"'),
    ):
        shim = bin_dir / name
        shim.write_text(f"#!/bin/sh\nexec {target}\n", encoding="utf-8")
        shim.chmod(0o755)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.endswith("_API_KEY")
        and key not in ("JUDGEKIT_DB", "JUDGEKIT_HOME", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
    }
    env.update(
        PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        PYTHONPATH=str(REPO),
        OPENAI_BASE_URL=server.openai_base_url,
        ANTHROPIC_BASE_URL=server.anthropic_base_url,
    )
    if venv is not None:
        del env["PYTHONPATH"]
        env.pop("VIRTUAL_ENV", None)
    return env


def script(commands: list[str], outputs: Path) -> str:
    """One bash script running the commands in order (so `cd` and variables carry on),
    each one's stdout, stderr and exit code kept apart; background jobs ended at the end."""
    lines = ["set +e"]
    for number, command in enumerate(commands):
        out = outputs / str(number)
        # The newline before `}` ends a trailing comment of the command.
        lines.append(f"{{ {command}\n}} >{out}.out 2>{out}.err </dev/null; echo $? >{out}.rc")
    lines.append("jobs -p | xargs -r kill 2>/dev/null; wait 2>/dev/null; exit 0")
    return "\n".join(lines) + "\n"


def run_page(
    page: Path, folder: Path, work: Path, venv: Path | None = None
) -> list[tuple[Command, int, str]]:
    """Runs the page's commands in ``folder`` (with ``venv``'s judgekit when given); each
    command with its exit code and output."""
    text = page.read_text(encoding="utf-8")
    commands = [c for c in page_commands(text) if not is_setup(c)]
    if not text.startswith(EMPTY_FOLDER):
        for name in PROJECT_FOLDERS:
            shutil.copytree(
                REPO / name, folder / name, ignore=shutil.ignore_patterns("__pycache__")
            )
    for prefix, (data, _) in SHARED_ARGS.items():
        if any(c.line.startswith(prefix) for c in commands) and not (SHARED_DATA / data).exists():
            pytest.skip(f"real data not available: {SHARED_DATA / data} is missing")
    bin_dir, outputs = work / "bin", work / "outputs"
    bin_dir.mkdir()
    outputs.mkdir()
    reply = '{"reason": "the answer does what was asked", "score": "pass"}'
    with FakeLLMServer(reply=lambda request: reply) as server:
        lines = [as_run(c, server) for c in commands]
        subprocess.run(
            ["bash", "-c", script(lines, outputs)],
            cwd=folder,
            env=shell_env(bin_dir, server, venv),
            stdin=subprocess.DEVNULL,
            timeout=1800,
            check=True,
        )
    ran = []
    for number, command in enumerate(commands):
        code = int((outputs / f"{number}.rc").read_text())
        output = (outputs / f"{number}.out").read_text() + (outputs / f"{number}.err").read_text()
        ran.append((command, code, output))
    return ran


def check_page(ran: list[tuple[Command, int, str]]) -> None:
    """Each command exited as the page says, printed what it shows and no traceback."""
    for command, code, output in ran:
        assert code == command.exit_code, f"{command.line}: exit {code}\n{output}"
        assert "Traceback" not in output, f"{command.line}\n{output}"
        assert_shown(command, output)


@pytest.mark.parametrize("page", pages(), ids=page_id)
def test_every_command_of_the_page_runs_as_shown(page: Path, tmp_path: Path) -> None:
    folder, work = tmp_path / "page", tmp_path / "work"
    folder.mkdir()
    work.mkdir()
    check_page(run_page(page, folder, work))
    if page.name == "walkthrough.md":
        # The tour labels into its copy: the repository's labels stay as committed.
        for name in ("goal_completion.jsonl", "goal_completion.split.jsonl"):
            assert (folder / "labels" / name).read_bytes() == (REPO / "labels" / name).read_bytes()


def test_the_readme_shows_the_set_up_ci_runs_and_the_demo() -> None:
    lines = [c.line for c in page_commands(README.read_text(encoding="utf-8"))]
    setup = ["pip install -e '.[dev]'", "python -m pytest"]  # .ci/run runs exactly these
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert [line for line in lines if line in setup] == setup
    assert set(setup) <= set(ci)
    assert "pip install judgekit-agents" in lines and "judgekit demo" in lines


def test_the_readme_is_short() -> None:
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_the_pages_together_run_every_step_of_the_flow() -> None:
    shown = {
        name
        for page in pages()
        for c in page_commands(page.read_text(encoding="utf-8"))
        for name in re.findall(r"(?:^|\| |=\S+ )judgekit ([a-z][\w-]*)", c.line)
    }
    assert {
        *("import", "grade", "run", "judge", "label", "labels", "calibrate", "promote"),
        *("monitor", "report", "store", "gate", "rubrics", "demo", "export"),
    } <= shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("```bash\njudgekit demo\n```\n", [Command("judgekit demo", 0)]),
        (
            "```console\n$ judgekit promote --rubric r  # exits 1\nnot promoted\n...\n```\n",
            [Command("judgekit promote --rubric r  # exits 1", 1, ("not promoted", "..."))],
        ),
        (
            "```bash\npytest -m judgekit \\\n    --judgekit-trials 2\n# a comment\n```\n",
            [Command("pytest -m judgekit --judgekit-trials 2", 0)],
        ),
        ("```text\n$ judgekit grade x\n```\n", []),
    ],
)
def test_a_page_is_read_as_the_conventions_say(text: str, expected: list[Command]) -> None:
    assert page_commands(text) == expected


def test_a_console_block_opening_with_output_is_refused() -> None:
    with pytest.raises(AssertionError, match="starts with output"):
        page_commands("```console\nsome output\n```\n")


def test_a_page_runs_in_one_shell_from_an_empty_folder(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        f"{EMPTY_FOLDER}\n\n"
        "```bash\ntest ! -e tasks\nmkdir sub\ncd sub\n```\n\n"
        "```console\n$ printf 'p\\nf\\n' | cat\np\nf\n$ pwd\n…/sub\n$ cd nowhere  # exits 1\n```\n",
        encoding="utf-8",
    )
    (tmp_path / "folder").mkdir()
    (tmp_path / "work").mkdir()
    ran = run_page(page, tmp_path / "folder", tmp_path / "work")
    assert [(c.line, code) for c, code, _ in ran] == [
        ("test ! -e tasks", 0),
        ("mkdir sub", 0),
        ("cd sub", 0),
        ("printf 'p\\nf\\n' | cat", 0),
        ("pwd", 0),
        ("cd nowhere  # exits 1", 1),
    ]
    assert ran[3][2] == "p\nf\n" and ran[4][2] == f"{tmp_path / 'folder' / 'sub'}\n"
    assert ran[5][0].exit_code == 1
