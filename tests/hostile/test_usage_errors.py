"""A bad option is one line and exit 2, like any other bad input: a file where a folder is
expected, an unknown option or command, a missing argument."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main
from tests.conftest import REPO

SHOP_RUNS = str(REPO / "examples" / "runs" / "shop.jsonl")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args), prog_name="judgekit")
    return result.exit_code, result.stderr


def test_a_file_where_a_folder_is_expected_is_one_line(tmp_path: Path) -> None:
    a_file = tmp_path / "labels"
    a_file.write_text("not a folder\n")
    assert run("grade", SHOP_RUNS, "--tasks", str(REPO / "tasks"), "--out", str(a_file)) == (
        2,
        f"judgekit: error: Invalid value for '--out': Directory '{a_file}' is a file. "
        "(see judgekit grade --help)\n",
    )
    assert run("labels", "--rubric", "goal_completion", "--labels-dir", str(a_file)) == (
        2,
        f"judgekit: error: Invalid value for '--labels-dir': Directory '{a_file}' is a file. "
        "(see judgekit labels --help)\n",
    )
    assert [p.name for p in tmp_path.iterdir()] == ["labels"]


def test_unknown_options_commands_and_missing_arguments_are_one_line() -> None:
    assert run("grade", "--bogus", "x") == (
        2,
        "judgekit: error: No such option '--bogus'. (Did you mean one of: '--jobs', '--out'?) "
        "(see judgekit grade --help)\n",
    )
    assert run("nosuch") == (
        2,
        "judgekit: error: No such command 'nosuch'. (see judgekit --help)\n",
    )
    assert run("grade") == (
        2,
        "judgekit: error: Missing argument 'RUNS'. (see judgekit grade --help)\n",
    )


def test_an_option_value_cannot_drive_the_terminal(tmp_path: Path) -> None:
    hostile = tmp_path / "\x1b]0;TITLE\x07\x1b[2J"
    hostile.write_text("a file, not a folder\n")
    code, err = run("grade", SHOP_RUNS, "--tasks", str(REPO / "tasks"), "--out", str(hostile))
    assert code == 2
    assert err.startswith("judgekit: error: Invalid value for '--out': Directory ")
    assert err.count("\n") == 1
    assert not any(c in err for c in "\x1b\x07")  # shown, never sent to the terminal
