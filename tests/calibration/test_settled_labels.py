"""A label that settles labellers' disagreement stands for its run: a tie that was left out
is compared with the settled label, a majority is overruled, the latest settling wins — and
labeller agreement is measured on the labellers' own labels, which settling never replaces."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from judgekit.calibration import build_report
from judgekit.calibration.selection import run_label
from judgekit.formats.label import LabelLog
from judgekit.formats.rubric import Rubric
from judgekit.labelling.summary import summarise_labels
from tests.calibration.test_report import AT, label, rubric, verdict

__all__ = ["rubric"]  # the fixture


def test_a_settled_label_decides_a_tie_and_overrules_a_majority(rubric: Rubric) -> None:
    tie = [label(rubric, "r0", "pass", "ana")[1], label(rubric, "r0", "fail", "bo")[1]]
    assert run_label(tie) is None
    settled = label(rubric, "r0", "fail", "lead", settles=["ana", "bo"])[1]  # type: ignore[arg-type]
    assert run_label([*tie, settled]) == "fail"
    majority = [*tie, label(rubric, "r0", "pass", "cy")[1]]
    assert run_label(majority) == "pass"
    assert run_label([*majority, settled]) == "fail"
    later = settled.model_copy(update={"label": "pass", "at": AT + timedelta(hours=1)})
    assert run_label([*majority, settled, later]) == "pass"


def test_calibration_compares_a_settled_run_it_left_out_as_tied(rubric: Rubric) -> None:
    verdicts = [verdict(rubric, "r0", "fail"), verdict(rubric, "r1", "pass")]
    labels = dict(
        [
            label(rubric, "r0", "pass", "ana"),
            label(rubric, "r0", "fail", "bo"),
            label(rubric, "r1", "pass", "ana"),
        ]
    )
    before = build_report(rubric, verdicts, labels)
    assert (before.n, before.counts.n_tied) == (1, 1)
    labels.update([label(rubric, "r0", "fail", "lead", settles=["ana", "bo"])])  # type: ignore[arg-type]
    after = build_report(rubric, verdicts, labels)
    assert (after.n, after.counts.n_tied) == (2, 0)
    assert after.figures.agreement == 1.0


def test_labeller_agreement_leaves_settled_labels_out(rubric: Rubric, tmp_path: Path) -> None:
    lines = [
        label(rubric, "r0", "pass", "ana")[1],
        label(rubric, "r0", "fail", "bo")[1],
        label(rubric, "r1", "pass", "ana")[1],
        label(rubric, "r1", "pass", "bo")[1],
    ]
    settled = label(rubric, "r0", "fail", "ana", settles=["ana", "bo"])[1]  # type: ignore[arg-type]
    before = summarise_labels(LabelLog(tmp_path / "l.jsonl", lines), rubric)
    after = summarise_labels(LabelLog(tmp_path / "l.jsonl", [*lines, settled]), rubric)
    assert before.shared_runs == after.shared_runs == 2
    assert before.agreement == after.agreement
    # ana's settling is kept apart from her own label of r0, which still counts.
    log = LabelLog(tmp_path / "l.jsonl", [*lines, settled])
    assert log.current[("r0", "ana")].label == "pass"
    assert log.current[("r0", "ana (settled)")].label == "fail"
    assert log.by_labeler("ana") == {"r0": lines[0], "r1": lines[2]}
