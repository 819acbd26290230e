"""Every platform: the command line starts without termios (Windows has none), and keys are
read from a console through click where there is no POSIX terminal."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from judgekit._util.file_locks import locked
from judgekit.labelling.console_keys import ConsoleKeyAnswers
from tests.conftest import REPO
from tests.labelling.conftest import TIMEOUT, child_env, label_args, shop_order
from tests.labelling.test_label_prompt import expected, written

# Run judgekit's __main__ as Windows would import it: `termios` (and `tty`, built on it)
# cannot be imported.
WITHOUT_TERMIOS = (
    "import sys, runpy\n"
    "sys.modules['termios'] = None\n"
    "sys.modules['tty'] = None\n"
    "sys.argv = ['judgekit', *sys.argv[1:]]\n"
    "runpy.run_module('judgekit', run_name='__main__', alter_sys=True)\n"
)


def without_termios(
    tmp: Path, *args: str | Path, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_TERMIOS, *[str(a) for a in args]],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        env=child_env(tmp),
        cwd=tmp,
        timeout=TIMEOUT,
        check=False,
    )


def test_the_prelude_really_hides_termios(tmp_path: Path) -> None:
    probe = subprocess.run(
        [sys.executable, "-c", WITHOUT_TERMIOS.split("sys.argv")[0] + "import termios\n"],
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert probe.returncode == 1
    assert probe.stderr.splitlines()[-1] == (
        "ModuleNotFoundError: import of termios halted; None in sys.modules"
    )


@pytest.mark.parametrize(
    ("args", "usage"),
    [
        (["--help"], "Usage: python -m judgekit [OPTIONS] COMMAND [ARGS]..."),
        (["label", "--help"], "Usage: python -m judgekit label [OPTIONS] RUNS"),
        (["labels", "--help"], "Usage: python -m judgekit labels [OPTIONS]"),
    ],
)
def test_help_runs_without_termios(tmp_path: Path, args: list[str], usage: str) -> None:
    done = without_termios(tmp_path, *args)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.splitlines()[0] == usage


def test_every_command_module_imports_without_termios(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "sys.modules['termios'] = None\n"
        "sys.modules['tty'] = None\n"
        "import judgekit.cli\n"
        "from judgekit.cli.main import main\n"
        "import click\n"
        "ctx = click.Context(main)\n"
        "names = main.list_commands(ctx)\n"
        "assert all(main.get_command(ctx, n) is not None for n in names)\n"
        "import judgekit.labelling, judgekit.labelling.answers, judgekit.labelling.console_keys\n"
        "print(len(names), 'commands;', 'termios' in sys.modules and sys.modules['termios'])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        env=child_env(tmp_path),
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(" commands; None\n")


def test_piped_labelling_works_without_termios(tmp_path: Path) -> None:
    order = shop_order()
    done = without_termios(tmp_path, *label_args()[2:], stdin="p\nf\nq\n")
    assert done.returncode == 0, done.stderr
    assert written(tmp_path) == [expected(order[0], "pass"), expected(order[1], "fail")]
    assert done.stdout.endswith(
        "2 labelled, 0 skipped this session; labels in "
        f"{Path('labels') / 'goal_completion.jsonl'}\n"
    )


def scripted(*keys: str | type[BaseException]) -> Iterator[str]:
    for key in keys:
        if isinstance(key, type):
            raise key()
        yield key


def console(*keys: str | type[BaseException], lines: str = "") -> ConsoleKeyAnswers:
    script = scripted(*keys)
    typed = iter(lines.splitlines(keepends=True))
    return ConsoleKeyAnswers(getchar=lambda: next(script), readline=lambda: next(typed, ""))


def test_console_keys_skip_arrows_and_quit_on_ctrl_keys() -> None:
    # msvcrt's arrow up comes as "\xe0H" from click, F1 as "\x00;"; an ANSI console as ESC [A.
    answers = console("\xe0H", "\x00;", "\x1b[A", "p", "F", "\x03", "\x1a", "\x04")
    with answers.raw_mode() as keys:
        assert [keys.key() for _ in range(5)] == ["p", "F", "q", "q", "q"]


def test_console_keys_read_click_interrupts_and_the_end_as_quit() -> None:
    assert console(KeyboardInterrupt).key() == "q"
    assert console(EOFError).key() == "q"
    assert console("").key() is None


def test_a_console_note_is_a_typed_line(capsys: pytest.CaptureFixture[str]) -> None:
    answers = console(lines="wrong order id\r\n")
    assert answers.line("note: ") == "wrong order id"
    assert answers.line("note: ") is None
    assert capsys.readouterr().out == "note: note: "


def test_click_getchar_gives_the_console_keys_in_a_terminal(tmp_path: Path) -> None:
    """The default getchar (click's, msvcrt on Windows) in a real pseudo-terminal."""
    script = (
        "from judgekit.labelling.console_keys import ConsoleKeyAnswers\n"
        "keys = ConsoleKeyAnswers()\n"
        "print('ready', flush=True)\n"
        "print([keys.key() for _ in range(3)], flush=True)\n"
    )
    child = pexpect.spawn(
        sys.executable, ["-c", script], env=child_env(tmp_path), encoding="utf-8",
        timeout=TIMEOUT,
    )  # fmt: skip
    child.expect_exact("ready")
    for key in ["p", "\x1b[A", "f", "\x03"]:
        child.send(key)
    child.expect_exact("['p', 'f', 'q']")
    child.expect(pexpect.EOF)


POSIX_ONLY = {"termios", "tty", "fcntl", "pty", "resource", "pwd", "grp", "posix"}


def module_level_imports(path: Path) -> set[str]:
    """The modules a file imports when it is imported (not those inside its functions)."""
    found: set[str] = set()
    nodes = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while nodes:
        node = nodes.pop()
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
        elif isinstance(node, ast.If | ast.Try):
            nodes.extend(ast.iter_child_nodes(node))
    return found


def test_only_the_posix_terminal_imports_a_posix_only_module_and_only_when_used() -> None:
    package = REPO / "judgekit"
    imports = {
        str(path.relative_to(REPO)): module_level_imports(path) for path in package.rglob("*.py")
    }
    posix_only = sorted(path for path, names in imports.items() if names & POSIX_ONLY)
    assert posix_only == ["judgekit/labelling/posix_terminal.py"]
    importers = [p for p, names in imports.items() if "judgekit.labelling.posix_terminal" in names]
    assert importers == []


def test_a_file_lock_excludes_other_writers_and_shares_with_readers(tmp_path: Path) -> None:
    fcntl = pytest.importorskip("fcntl", reason="flock is the POSIX lock")
    path = tmp_path / "labels.jsonl"
    path.write_text("")
    with path.open("ab") as writer, path.open("rb") as other:
        with locked(writer.fileno(), exclusive=True), pytest.raises(BlockingIOError):
            fcntl.flock(other.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)
        fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)  # released: free again
        fcntl.flock(other.fileno(), fcntl.LOCK_UN)
        with locked(writer.fileno(), exclusive=False):
            fcntl.flock(other.fileno(), fcntl.LOCK_SH | fcntl.LOCK_NB)  # readers share
            with pytest.raises(BlockingIOError):
                fcntl.flock(other.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
