"""Position bias in the calibration report: pairwise verdicts that flipped with the order."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from judgekit.calibration import build_report, render_text
from judgekit.formats.label import Label
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import Verdict
from judgekit.stats.proportions import wilson_interval
from tests.conftest import REPO

AT = datetime(2026, 11, 29, tzinfo=UTC)


def _case(biases: list[bool | None]) -> tuple[list[Verdict], dict[tuple[str, str], Label]]:
    rubric = load_rubric(REPO / "rubrics" / "preference.yaml")
    verdicts, labels = [], {}
    for i, bias in enumerate(biases):
        run_id = f"pair/{i}"
        choice = "A" if i % 2 else "B"
        verdicts.append(
            Verdict(
                run_id=run_id,
                rubric_id=rubric.id,
                rubric_version=rubric_version(rubric),
                model=rubric.judge.model,
                status="scored",
                score=choice,
                position_bias=bias,
                at=AT,
            )
        )
        labels[(run_id, "ana")] = Label(
            run_id=run_id, rubric_id=rubric.id, label=choice, labeler="ana", at=AT
        )
    return verdicts, labels


def test_the_share_of_flipped_choices_with_its_interval() -> None:
    rubric = load_rubric(REPO / "rubrics" / "preference.yaml")
    verdicts, labels = _case([True, False, True, False, False, None])
    report = build_report(rubric, verdicts, labels)
    assert report.position_bias is not None
    assert report.position_bias.as_dict() == {
        "checked": 5,
        "flipped": 2,
        "rate": 0.4,
        "ci": pytest.approx(list(wilson_interval(2, 5))),
    }
    assert (
        "position bias 0.400 [0.118, 0.769]: the choice flipped when the answers swapped "
        "places on 2 of 5 runs" in render_text(report)
    )


def test_no_verdict_asked_in_both_orders_means_no_figure() -> None:
    rubric = load_rubric(REPO / "rubrics" / "preference.yaml")
    verdicts, labels = _case([None, None])
    report = build_report(rubric, verdicts, labels)
    assert report.position_bias is None
    assert report.as_dict()["position_bias"] is None
    assert "position bias" not in render_text(report)
