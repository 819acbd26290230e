"""``calibrate --plot`` says where it wrote the PNG: after the report as text, on stderr
beside --json and --md, whose output stays what it was."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_calibrate_cli import Workspace, small_case


def test_the_text_report_ends_with_the_plot_it_wrote(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    small_case(ws)
    png = tmp_path / "confusion.png"
    plain = ws.invoke("calibrate", "--no-store")
    result = ws.invoke("calibrate", "--no-store", "--plot", str(png))
    assert result.exit_code == 0, result.output
    assert result.stdout == plain.stdout + f"wrote the confusion matrix to {png}\n"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_json_and_markdown_stay_pure(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    small_case(ws)
    png = tmp_path / "confusion.png"
    for flag in ("--json", "--md"):
        png.unlink(missing_ok=True)
        plain = ws.invoke("calibrate", "--no-store", flag)
        result = ws.invoke("calibrate", "--no-store", flag, "--plot", str(png))
        assert result.exit_code == 0, result.output
        assert result.stdout == plain.stdout
        assert result.stderr == plain.stderr + f"wrote the confusion matrix to {png}\n"
        assert png.is_file()
    json.loads(ws.invoke("calibrate", "--no-store", "--json", "--plot", str(png)).stdout)
