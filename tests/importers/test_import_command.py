"""`judgekit import`: a file of another source's kind exits 2 naming the command to use,
before any output is written; every registered source is a subcommand."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli.main import main
from tests.conftest import REPO

ANTHROPIC_EXAMPLE = REPO / "examples" / "transcripts" / "shop_anthropic.json"
OPENAI_EXAMPLE = REPO / "examples" / "transcripts" / "shop_openai.jsonl"


def test_openai_on_the_anthropic_example_exits_2_naming_anthropic(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "openai", str(ANTHROPIC_EXAMPLE), "-o", str(runs)])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {ANTHROPIC_EXAMPLE}: this looks like Anthropic Messages transcripts; "
        "try `judgekit import anthropic`\n"
    )
    assert not runs.exists()


def test_anthropic_on_the_openai_example_exits_2_naming_openai() -> None:
    result = CliRunner().invoke(main, ["import", "anthropic", str(OPENAI_EXAMPLE)])
    assert result.exit_code == 2
    assert result.output == (
        f"judgekit: error: {OPENAI_EXAMPLE}: this looks like OpenAI Chat Completions "
        "transcripts; try `judgekit import openai`\n"
    )


def test_the_right_importer_still_imports(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(
        main, ["import", "anthropic", str(ANTHROPIC_EXAMPLE), "-o", str(runs)]
    )
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"imported 3 runs with 7 tool calls (1 tool errors, 0 with invalid arguments) to {runs}\n"
    )
    assert [json.loads(line)["run_id"] for line in runs.read_text().splitlines()] == [
        "anthropic/refuse_overrefund/1",
        "anthropic/refund_full/1",
        "anthropic/cancel_shipped/1",
    ]


def test_an_unknown_source_names_the_help() -> None:
    result = CliRunner().invoke(main, ["import", "nosuch", "file.json"])
    assert result.exit_code == 2
    assert result.output == (
        "judgekit: error: No such command 'nosuch'. (see judgekit import --help)\n"
    )
