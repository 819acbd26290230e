"""`judgekit monitor` and `judgekit report` on a real SQLite store holding simulated days."""

from __future__ import annotations

import base64
import json
import random
import re
import struct
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.grade import Grade, GraderResult
from judgekit.store import open_store

TODAY = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)


def record_days(rates: list[float], runs: int = 500, seed: int = 4) -> None:
    """One batch per day ending yesterday, ``runs`` graded runs at each day's pass rate."""
    rng = random.Random(seed)
    with open_store() as store:
        for day, rate in enumerate(rates):
            at = TODAY - timedelta(days=len(rates) - day)
            batch = store.batch(key=f"runs:day{day}", branch="main", source="run")
            grades = []
            for i in range(runs):
                ok = rng.random() < rate
                grades.append(
                    Grade(
                        run_id=f"shop/refund/{i}",
                        task_id=["refund", "cancel"][i % 2],
                        passed=ok,
                        truth=GraderResult(passed=ok, reason="r"),
                        turns=4 + i % 3,
                        cost_usd=0.002,
                    )
                )
            store.record_grades(grades, batch, at=at)


def monitor(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["monitor", *args])
    assert result.exit_code in (0, 1), (result.output, result.exception)
    return result.exit_code, result.stdout


def test_a_quiet_week_exits_0(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    record_days([0.8] * 8)
    code, out = monitor()
    assert code == 0
    assert out.splitlines()[-1] == "monitor: no alerts (4 gating metrics tested)"


def test_a_ten_point_drop_alerts_and_exits_1_with_json_and_plots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    record_days([0.8] * 7 + [0.7])
    code, out = monitor("--json", "--plot", str(tmp_path / "scores.png"))
    assert code == 1
    report = json.loads(out)
    assert [alert["metric"] for alert in report["alerts"]] == ["pass_rate", "truth"]
    by_metric = {s["metric"]: s for s in report["series"]}
    latest = by_metric["pass_rate"]["points"][-1]
    assert latest["n"] == 500
    assert latest["label"] == (TODAY - timedelta(days=1)).date().isoformat()
    assert by_metric["cost_usd"]["alert"] is None
    assert report["plots"] == [
        str(tmp_path / "scores.png"),
        str(tmp_path / "scores.cost_turns.png"),
    ]
    png = (tmp_path / "scores.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1000, 80 + 260 * 2)  # pass rate and Truth

    code, out = monitor()
    assert code == 1
    lines = out.splitlines()
    assert lines[-1] == "monitor: 2 alerts"
    assert any(
        re.match(r"ALERT pass_rate: pass rate dropped 0\.\d+ → 0\.\d+ ", line) for line in lines
    )


def test_by_batch_and_since(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    record_days([0.8] * 8)
    since = (TODAY - timedelta(days=3)).date().isoformat()
    _, out = monitor("--json", "--by", "batch", "--since", since)
    [passes] = [s for s in json.loads(out)["series"] if s["metric"] == "pass_rate"]
    assert [p["label"] for p in passes["points"]] == ["batch 6", "batch 7", "batch 8"]


def test_a_bad_since_is_a_usage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["monitor", "--since", "last week"])
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: Invalid value for '--since': 'last week' is not a date; expected "
        "YYYY-MM-DD or a number of days such as 90d (see judgekit monitor --help)\n"
    )


def test_the_report_is_one_self_contained_html_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    record_days([0.8] * 7 + [0.7])
    result = CliRunner().invoke(main, ["report", "-o", "weekly.html", "--batch", "latest:main"])
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "wrote weekly.html: 500 runs of batch 8, 4 metrics, 2 alerts, 0 calibrations, 2 plots\n"
    )
    html = (tmp_path / "weekly.html").read_text()
    assert re.search(r"<tr><td>cancel</td><td>250</td><td>\d+</td>", html)
    assert re.search(r"<tr><td>refund</td><td>250</td><td>\d+</td>", html)
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', html)
    assert len(images) == 2
    assert all(base64.b64decode(image)[:4] == b"\x89PNG" for image in images)
    assert not re.search(r'(src|href)="https?:', html)
    assert "<script" not in html
    assert "pass rate dropped" in html


def test_an_empty_store_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out = monitor("--since", "2026-11-01")
    assert code == 0
    assert out == (
        f"monitor: nothing recorded since 2026-11-01 in sqlite:///{tmp_path}/.judgekit/"
        "judgekit.sqlite; `judgekit run`, `grade` and `judge` record what they do\n"
    )


def test_the_report_can_summarise_a_results_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    record_days([0.8] * 2, runs=40)
    results = tmp_path / "pr" / "results.jsonl"
    results.parent.mkdir()
    results.write_text(
        "".join(
            Grade(run_id=f"shop/refund/{i}", task_id="refund", passed=i < 3).model_dump_json()
            + "\n"
            for i in range(4)
        )
    )
    result = CliRunner().invoke(main, ["report", "-o", "pr.html", "--results", str(results)])
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("wrote pr.html: 4 runs, ")
    html = (tmp_path / "pr.html").read_text()
    assert "<tr><td>refund</td><td>4</td><td>3</td>" in html
