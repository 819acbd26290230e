"""One rule for output options: ``--out`` names a folder, ``-o/--output`` a single file;
``report --out FILE`` still works for one more version, with a warning on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.grade import Grade

DEPRECATED = (
    "warning: report --out FILE is deprecated and goes in the next version: use -o/--output "
    "FILE (--out names a folder in every other command)\n"
)


def results_file(folder: Path) -> Path:
    results = folder / "results.jsonl"
    results.write_text(
        "".join(
            Grade(run_id=f"shop/refund/{i}", task_id="refund", passed=i < 3).model_dump_json()
            + "\n"
            for i in range(4)
        )
    )
    return results


@pytest.mark.parametrize("option", ["-o", "--output"])
def test_report_writes_the_file_named_by_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, option: str
) -> None:
    monkeypatch.chdir(tmp_path)
    results = results_file(tmp_path)
    result = CliRunner().invoke(main, ["report", option, "pr.html", "--results", str(results)])
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout.startswith("wrote pr.html: 4 runs, ")
    assert "<tr><td>refund</td><td>4</td><td>3</td>" in (tmp_path / "pr.html").read_text()


def test_report_out_still_works_and_says_it_is_deprecated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    results = results_file(tmp_path)
    result = CliRunner().invoke(main, ["report", "--out", "old.html", "--results", str(results)])
    assert result.exit_code == 0, result.output
    assert result.stderr == DEPRECATED
    assert result.stdout.startswith("wrote old.html: 4 runs, ")
    assert (tmp_path / "old.html").is_file()
    assert not (tmp_path / "report.html").exists()


@pytest.mark.parametrize(
    ("command", "option", "says"),
    [
        ("report", "-o, --output FILE", "-o/--output names a file; --out, in every command, a"),
        ("grade", "--out DIRECTORY", "--out names a folder in every command; -o/--output, a"),
        ("run", "--out DIRECTORY", "--out names a folder in every command; -o/--output, a"),
        ("judge", "--out DIRECTORY", "--out names a folder in every command; -o/--output, a"),
    ],
)
def test_each_help_says_the_rule(command: str, option: str, says: str) -> None:
    result = CliRunner().invoke(main, [command, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    (line,) = [line for line in result.stdout.splitlines() if line.strip().startswith(option)]
    assert says in line


def test_report_help_does_not_show_the_deprecated_out() -> None:
    result = CliRunner().invoke(main, ["report", "--help"], terminal_width=200)
    options = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("  -")]
    assert "-o," in options
    assert "--out" not in options
