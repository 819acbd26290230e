"""The calibration report keeps every rate and its interval in [0, 1] whatever the labels and
verdicts (by the rule of :mod:`tests.rate_fields`), and its text says which corrected rate
was clipped to get there."""

from __future__ import annotations

import warnings

from hypothesis import example, given, settings
from hypothesis import strategies as st

from judgekit.calibration import build_report
from judgekit.calibration.render import render_text
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.verdict import Verdict
from tests.calibration.test_report import label, verdict
from tests.conftest import REPO
from tests.rate_fields import out_of_range

RUBRIC = load_rubric(REPO / "rubrics" / "goal_completion.yaml")
COUNTS = st.one_of(st.just(0), st.just(1), st.integers(0, 4), st.integers(0, 40))
CONFIDENCES = st.one_of(st.none(), st.sampled_from([0.0, 0.5, 0.9, 1.0]))


def with_confidence(made: Verdict, confidence: float | None) -> Verdict:
    return made.model_copy(update={"confidence": confidence})


@settings(max_examples=150, deadline=None)
@given(st.tuples(COUNTS, COUNTS, COUNTS, COUNTS).filter(any), COUNTS, COUNTS, CONFIDENCES)
@example((20, 0, 0, 20), 2, 0, 1.0)  # all agree
@example((0, 20, 20, 0), 2, 2, 0.5)  # all disagree
@example((1, 0, 0, 0), 0, 3, None)  # n = 1
@example((0, 0, 2, 0), 2, 0, None)  # PPI 1 + 1: wholly past 1
@example((3, 0, 2, 3), 5, 2, None)  # PPI 0.964 [0.481, 1.448] before clipping
@example((2, 0, 1, 1), 5, 0, None)  # Rogan-Gladen 7/6 before clipping
@example((0, 4, 0, 6), 0, 9, 0.9)  # humans fail everything
def test_every_rate_of_the_report_lies_in_0_1(
    confusion: tuple[int, int, int, int],
    unlabelled_passes: int,
    unlabelled_fails: int,
    confidence: float | None,
) -> None:
    tp, fp, fn, tn = confusion
    human = ["pass"] * tp + ["fail"] * fp + ["pass"] * fn + ["fail"] * tn
    judge = ["pass"] * (tp + fp) + ["fail"] * (fn + tn)
    others = ["pass"] * unlabelled_passes + ["fail"] * unlabelled_fails
    verdicts = [
        with_confidence(verdict(RUBRIC, f"r{i}", s), confidence) for i, s in enumerate(judge)
    ]
    verdicts += [verdict(RUBRIC, f"u{i}", s) for i, s in enumerate(others)]
    labels = dict(label(RUBRIC, f"r{i}", h) for i, h in enumerate(human))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an undefined figure is null, never a warned nan
        report = build_report(RUBRIC, verdicts, labels)
    document = report.as_dict()
    assert out_of_range(document) == []
    text = render_text(report).splitlines()
    ppi = document["ppi_pass_rate"]
    for name, clipped in (
        ("pass rate corrected (Rogan-Gladen)", document["corrected_pass_rate_clipped"]),
        ("pass rate, prediction-powered", ppi and ppi["clipped"]),
    ):
        line = next(line for line in text if line.startswith(name))
        assert line.endswith("clipped to [0, 1])") == bool(clipped), line
