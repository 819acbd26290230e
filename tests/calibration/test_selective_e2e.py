"""Selective judging end to end: a simulated judge on the fake server answers five samples
per run, and errs where its samples split; the real pipeline judges the runs, calibrate
prints the coverage table and promote writes the selective record. The expected threshold
and coverage are worked out here from the simulated judge, with scipy's binomial tail."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from threading import Lock
from typing import Any

import pytest
from click.testing import CliRunner
from scipy.stats import binom

from judgekit.cli import main
from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_llm_server import FakeRequest

N_RUNS = 200
RUBRIC = """id: sel
scale: binary
prompt: |
  Is this answer right? Reply with pass or fail.
  <answer>{final_answer}</answer>
judge: {model: openai/gpt-4o-mini, temperature: 1, samples: 5}
promotion: {min_labels: 20, min_per_class: 5, min_kappa: 0.5, selective: {alpha: 0.1, delta: 0.1}}
"""


def truth(i: int) -> str:
    return "pass" if i % 2 == 0 else "fail"


def wrong_samples(i: int) -> int:
    """How many of the judge's five samples are wrong on run ``i``: none on the easy runs
    (six in ten), one on i % 10 in {6, 7} save four on i % 40 == 7, three on i % 10 == 8
    and two on i % 10 == 9. The majority is wrong only where the samples split."""
    kind = i % 10
    if kind < 6:
        return 0
    if kind in (6, 7):
        return 4 if i % 40 == 7 else 1
    return 3 if kind == 8 else 2


def simulated_judge() -> Any:
    asked: Counter[str] = Counter()
    lock = Lock()

    def reply(request: FakeRequest) -> str:
        i = int(re.search(r"item (\d+): an answer", request.text).group(1))  # type: ignore[union-attr]
        with lock:
            asked[f"{i}"] += 1
            nth = asked[f"{i}"]
        right = truth(i)
        score = right if nth > wrong_samples(i) else {"pass": "fail", "fail": "pass"}[right]
        return json.dumps({"reason": "simulated", "score": score})

    return reply


def expected(runs: list[int], alpha: float, delta: float) -> tuple[float | None, int, int]:
    """Fixed-sequence testing as the module says, on the simulated judge's known answers:
    (threshold, kept, errors)."""
    rows = sorted(((max(w, 5 - w) / 5, w >= 3) for w in map(wrong_samples, runs)), reverse=True)
    chosen: tuple[float | None, int, int] = (None, 0, 0)
    for level in sorted({c for c, _ in rows}, reverse=True):
        kept = [wrong for c, wrong in rows if c >= level]
        if binom.cdf(sum(kept), len(kept), alpha) > delta:
            break
        chosen = (level, len(kept), sum(kept))
    return chosen


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / "sel.yaml").write_text(RUBRIC)
    runs = [
        {
            "run_id": f"r{i:03d}",
            "task_id": "t",
            "tool_calls": [],
            "final_answer": f"item {i}: an answer",
        }
        for i in range(N_RUNS)
    ]
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    (tmp_path / "labels").mkdir()
    labels = [
        {
            "run_id": f"r{i:03d}",
            "rubric_id": "sel",
            "label": truth(i),
            "labeler": "ana",
            "at": "2026-11-30T10:00:00+00:00",
        }
        for i in range(N_RUNS)
    ]
    (tmp_path / "labels" / "sel.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    return tmp_path


def invoke(*args: str) -> Any:
    return CliRunner().invoke(main, list(args))


def test_judge_calibrate_promote_selectively(workspace: Path) -> None:
    with FakeLLMServer(reply=simulated_judge()) as server:
        judged = invoke(
            "judge",
            "runs.jsonl",
            "--rubric",
            "rubrics/sel.yaml",
            "--base-url",
            server.openai_base_url,
            "--out",
            "out",
            "--no-store",
        )
        assert judged.exit_code == 0, judged.output
        assert server.calls == 5 * N_RUNS
    verdicts = [json.loads(line) for line in Path("out/verdicts.jsonl").read_text().splitlines()]
    confidence = {v["run_id"]: v["confidence"] or v["agreement"] for v in verdicts}
    assert Counter(confidence.values()) == {1.0: 120, 0.8: 40, 0.6: 40}

    calibrated = invoke(
        "calibrate",
        "--rubric",
        "rubrics/sel.yaml",
        "--verdicts",
        "out/verdicts.jsonl",
        "--no-store",
        "--json",
    )
    assert calibrated.exit_code == 0, calibrated.output
    report = json.loads(calibrated.stdout)
    measured = [int(d) for d in _measured_runs(report)]
    threshold, kept, _ = expected(measured, 0.1, 0.1)
    policy = report["selective"]["policy"]
    assert (policy["threshold"], policy["kept"]) == (threshold, kept)
    text = invoke(
        "calibrate",
        "--rubric",
        "rubrics/sel.yaml",
        "--verdicts",
        "out/verdicts.jsonl",
        "--no-store",
    ).output
    assert "  α     threshold  coverage  agreement on kept  guaranteed agreement\n" in text

    promoted = invoke(
        "promote",
        "--rubric",
        "rubrics/sel.yaml",
        "--verdicts",
        "out/verdicts.jsonl",
        "--no-store",
    )
    assert promoted.exit_code == 0, promoted.output
    record = json.loads(Path("rubrics/sel.promotion.json").read_text())
    on = [int(r[1:]) for r in (record.get("split") or {}).get("test_runs") or _all()]
    threshold, kept, errors = expected(on, 0.1, 0.1)
    assert threshold is not None
    selective = record["selective"]
    assert (selective["threshold"], selective["n"]) == (threshold, len(on))
    assert selective["coverage"] == kept / len(on)
    assert selective["agreement_on_kept"] == 1 - errors / kept
    assert (selective["alpha"], selective["delta"]) == (0.1, 0.1)
    line = (
        f"promoted at α = 0.1: coverage {kept / len(on):.2f} (threshold {threshold:g}, "
        "agreement on kept ≥ 0.90 with probability 0.9)"
    )
    assert line in promoted.output


def _all() -> list[str]:
    return [f"r{i:03d}" for i in range(N_RUNS)]


def _measured_runs(report: dict[str, Any]) -> list[str]:
    """The runs calibrate measured on: the dev side of the split file when there is one."""
    if report.get("split") is None:
        return [r[1:] for r in _all()]
    sides: dict[str, str] = {}
    for line in Path("labels/sel.split.jsonl").read_text().splitlines():
        entry = json.loads(line)
        if "side" in entry:
            sides.setdefault(entry["run_id"], entry["side"])
    return [r[1:] for r, side in sorted(sides.items()) if side == "dev"]


def test_plot_coverage_draws_the_curve_or_says_why_not(workspace: Path) -> None:
    with FakeLLMServer(reply=simulated_judge()) as server:
        args = ["runs.jsonl", "--rubric", "rubrics/sel.yaml", "--base-url"]
        assert (
            invoke("judge", *args, server.openai_base_url, "--out", "out", "--no-store").exit_code
            == 0
        )
    calibrate = ["calibrate", "--rubric", "rubrics/sel.yaml", "--no-store"]
    drawn = invoke(*calibrate, "--verdicts", "out/verdicts.jsonl", "--plot-coverage", "cov.png")
    assert drawn.exit_code == 0, drawn.output
    assert drawn.output.endswith("\nwrote the coverage curve to cov.png\n")
    png = Path("cov.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (700, 500)
    # Verdicts sampled once have no confidence: nothing is drawn, nothing is written.
    once = [json.loads(line) for line in Path("out/verdicts.jsonl").read_text().splitlines()]
    for verdict in once:
        verdict.update(samples=None, agreement=None, confidence=None)
    Path("once.jsonl").write_text("".join(json.dumps(v) + "\n" for v in once))
    refused = invoke(*calibrate, "--verdicts", "once.jsonl", "--plot-coverage", "none.png")
    assert refused.exit_code == 2
    assert refused.stderr == (
        "judgekit: error: no compared verdict has a confidence, so there is no coverage curve "
        "to draw: judge with samples > 1 (judge: {samples: 5}) or judge.confidence: logprobs\n"
    )
    assert not Path("none.png").exists()
