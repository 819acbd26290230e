"""calibrate on verdicts that carry a confidence: the ECE and Brier section in the text, the
Markdown and --json, the reliability diagram (--plot-reliability), and what each says when no
verdict has a confidence. Verdicts are written with the real verdict model, labels as the
labeller writes them; the figures expected come from scikit-learn and judgekit.stats."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss

from judgekit.cli import main
from judgekit.formats.label import Label
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.stats import calibration_errors
from tests.conftest import REPO

AT = datetime(2026, 11, 1, tzinfo=UTC)
N = 40
CONFIDENCES = (0.55, 0.65, 0.75, 0.85, 0.95, 1.0)
NONE_LINE = (
    "confidence: no compared verdict has a confidence: judge with samples > 1, or "
    "judge.confidence: logprobs"
)


def human(i: int) -> str:
    return "pass" if i % 2 else "fail"


def judged(i: int) -> tuple[str, float]:
    """Run i's score and confidence: the judge errs on every fourth run (overconfident)."""
    wrong = i % 4 == 3
    score = ("fail" if human(i) == "pass" else "pass") if wrong else human(i)
    return score, CONFIDENCES[i % len(CONFIDENCES)]


def write_project(root: Path, *, with_confidence: bool = True) -> None:
    (root / "rubrics").mkdir()
    (root / "labels").mkdir()
    (root / "rubrics" / "goal_completion.yaml").write_text(
        (REPO / "rubrics" / "goal_completion.yaml").read_text()
    )
    rubric = load_rubric(root / "rubrics" / "goal_completion.yaml")
    labels = [
        Label(run_id=f"r{i:02d}", rubric_id=rubric.id, label=human(i), labeler="ana", at=AT)
        for i in range(N)
    ]
    (root / "labels" / "goal_completion.jsonl").write_text(
        "".join(label.model_dump_json(exclude_none=True) + "\n" for label in labels)
    )
    verdicts = [
        Verdict(
            run_id=f"r{i:02d}",
            rubric_id=rubric.id,
            rubric_version=rubric_version(rubric),
            model=rubric.judge.model,
            status="scored",
            score=judged(i)[0],
            confidence=judged(i)[1] if with_confidence else None,
            at=AT,
        )
        for i in range(N)
    ]
    (root / "verdicts.jsonl").write_text("".join(v.model_dump_json() + "\n" for v in verdicts))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path)
    return tmp_path


def calibrate(*args: str) -> Result:
    base = ["calibrate", "--rubric", "goal_completion", "--verdicts", "verdicts.jsonl"]
    return CliRunner().invoke(main, [*base, "--split", "all", "--no-store", *args])


def outcomes(runs: range) -> tuple[list[bool], list[float]]:
    return [judged(i)[0] == human(i) for i in runs], [judged(i)[1] for i in runs]


def shown(errors: Any) -> str:
    ece, brier = errors.ece_ci, errors.brier_ci
    return (
        f"ECE {errors.ece:.3f} [{ece[0]:.3f}, {ece[1]:.3f}], "
        f"Brier {errors.brier:.3f} [{brier[0]:.3f}, {brier[1]:.3f}]"
    )


def test_json_carries_the_figures_overall_and_by_score(project: Path) -> None:
    result = calibrate("--json")
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)["confidence_calibration"]
    y, p = outcomes(range(N))
    prob_true, prob_pred = calibration_curve(y, p, n_bins=10, strategy="uniform")
    filled = [b for b in figures["bins"] if b["count"]]
    assert [b["accuracy"] for b in filled] == prob_true.tolist()
    assert [b["mean_confidence"] for b in filled] == prob_pred.tolist()
    assert [b["count"] for b in figures["bins"]] == [0, 0, 0, 0, 0, 7, 7, 7, 7, 12]
    counts = [b["count"] for b in filled]
    ece = math.fsum(
        c / N * abs(t - q) for c, t, q in zip(counts, prob_true, prob_pred, strict=True)
    )
    assert figures["ece"] == ece
    assert figures["brier"] == pytest.approx(brier_score_loss(y, p), rel=1e-12)
    expected = calibration_errors(y, p)
    assert figures["ece_ci"] == list(expected.ece_ci)
    assert figures["brier_ci"] == list(expected.brier_ci)
    names = ("n_compared", "n_with_confidence", "n", "n_bins", "n_resamples", "seed")
    assert {k: figures[k] for k in names} == {
        "n_compared": N,
        "n_with_confidence": N,
        "n": N,
        "n_bins": 10,
        "n_resamples": 2000,
        "seed": 0,
    }
    assert (figures["confidence"], figures["absent"]) == (0.95, None)
    # by the score given: of the verdicts that said pass (or fail), confidence vs. agreement
    for score in ("pass", "fail"):
        runs = [i for i in range(N) if judged(i)[0] == score]
        y_s, p_s = [judged(i)[0] == human(i) for i in runs], [judged(i)[1] for i in runs]
        assert figures["by_score"][score] == {
            **calibration_errors(y_s, p_s).as_dict(),
            "absent": None,
        }


def test_text_and_markdown_show_the_section(project: Path) -> None:
    y, p = outcomes(range(N))
    errors = calibration_errors(y, p)
    by = {
        s: calibration_errors(
            [judged(i)[0] == human(i) for i in range(N) if judged(i)[0] == s],
            [judged(i)[1] for i in range(N) if judged(i)[0] == s],
        )
        for s in ("pass", "fail")
    }
    rows = [(b, e) for b, e in zip(errors.bins, range(10), strict=True) if b.count]
    table = [
        f"  {'(' + format(e / 10, 'g') + ', ' + format((e + 1) / 10, 'g') + ']':<10}  "
        f"{b.count:<8}  {b.mean_confidence:<15.3f}  {b.accuracy:.3f}"
        for b, e in rows
    ]
    section = [
        f"confidence: {shown(errors)} on the 40 of 40 compared runs whose verdict has a "
        "confidence (10 equal-width bins; 95% bootstrap intervals, 2000 resamples, seed 0)",
        "  bin         verdicts  mean confidence  accuracy",
        *table,
        f"  gave pass: {shown(by['pass'])} on {by['pass'].n} verdicts",
        f"  gave fail: {shown(by['fail'])} on {by['fail'].n} verdicts",
    ]
    text = calibrate()
    assert text.exit_code == 0, text.output
    assert "\n" + "\n".join(section) + "\nstale labels:" in text.output
    md = calibrate("--md").stdout
    assert (
        f"\n\n**Confidence calibration** — {shown(errors)} on the 40 of 40 compared runs whose "
        "verdict has a confidence (10 equal-width bins; 95% bootstrap intervals, 2000 "
        "resamples, seed 0).\n\n| bin | verdicts | mean confidence | accuracy |\n"
        "| --- | --- | --- | --- |\n"
        f"| (0.5, 0.6] | 7 | 0.550 | {errors.bins[5].accuracy:.3f} |\n"
    ) in md
    assert f"\n- gave fail: {shown(by['fail'])} on {by['fail'].n} verdicts\n" in md


def test_without_confidence_the_section_says_why_and_nothing_is_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write_project(tmp_path, with_confidence=False)
    text = calibrate()
    assert text.exit_code == 0, text.output
    assert f"\n{NONE_LINE}\nstale labels:" in text.output
    md = calibrate("--md").stdout
    assert (
        "\n\n**Confidence calibration** — no compared verdict has a confidence: judge with "
        "samples > 1, or judge.confidence: logprobs.\n"
    ) in md
    figures = json.loads(calibrate("--json").stdout)["confidence_calibration"]
    assert (figures["n_compared"], figures["n_with_confidence"]) == (N, 0)
    assert {k: figures[k] for k in ("n", "ece", "ece_ci", "brier", "brier_ci", "bins")} == {
        "n": 0,
        "ece": None,
        "ece_ci": None,
        "brier": None,
        "brier_ci": None,
        "bins": [],
    }
    assert figures["absent"] == NONE_LINE.removeprefix("confidence: ")
    assert figures["by_score"]["pass"]["absent"] == (
        "no compared verdict that gave pass has a confidence"
    )
    refused = calibrate("--plot-reliability", "rel.png", "--plot-coverage", "cov.png")
    assert refused.exit_code == 2
    assert refused.stderr == (
        "judgekit: error: no reliability diagram to draw: no compared verdict has a "
        "confidence: judge with samples > 1, or judge.confidence: logprobs\n"
    )
    assert not Path("rel.png").exists() and not Path("cov.png").exists()


def test_plot_reliability_writes_a_png_and_refuses_a_folder(project: Path) -> None:
    drawn = calibrate("--plot-reliability", "rel.png")
    assert drawn.exit_code == 0, drawn.output
    assert drawn.output.endswith("\nwrote the reliability diagram to rel.png\n")
    png = Path("rel.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png[12:16] == b"IHDR"
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (700, 500)
    assert calibrate("--plot-reliability", "again.png").exit_code == 0
    assert Path("again.png").read_bytes() == png  # the same figures, the same bytes
    # beside --json the line goes to stderr, so stdout stays JSON
    quiet = calibrate("--json", "--plot-reliability", "rel.png")
    assert quiet.stderr == "wrote the reliability diagram to rel.png\n"
    json.loads(quiet.stdout)
    Path("folder").mkdir()
    refused = calibrate("--plot-reliability", "folder")
    assert refused.exit_code == 2
    assert "Invalid value for '--plot-reliability': File 'folder' is a directory." in (
        refused.stderr
    )
    assert list(Path("folder").iterdir()) == []
