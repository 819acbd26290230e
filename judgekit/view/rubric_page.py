"""A rubric's page: its calibration on the dev labels as ``judgekit calibrate`` prints it,
the runs where the judge and the people disagree, and its promotion status.

The figures are computed by calibrate's own code on the dev side only (the split recorded
first, as calibrate records it), so the held-out test labels are never read here; the
report is not recorded in the store.
"""

from __future__ import annotations

from typing import Any

from judgekit.calibration.load import JudgedVerdicts, load_calibration, spend_measured_test_labels
from judgekit.calibration.promotion import rubric_status
from judgekit.calibration.render import render_text
from judgekit.errors import JudgekitError
from judgekit.formats.probe_file import load_probes, probes_path
from judgekit.formats.rubric import Rubric
from judgekit.labelling.summary import summarise_labels
from judgekit.view.data import ViewData
from judgekit.view.settling import unsettled

__all__ = ["rubric_page_context"]


def rubric_page_context(data: ViewData, rubric: Rubric) -> dict[str, Any]:
    """What ``rubric.html`` shows: the calibration text and disagreements, or why there
    are none yet; the promotion status and why."""
    folder = data.sources.rubric_dirs.get(rubric.id, data.sources.labels_dir.parent / "rubrics")
    status, why = rubric_status(rubric, folder, labels_dir=data.sources.labels_dir)
    log = data.labels(rubric)
    probes_problem: str | None = None
    try:
        probes = load_probes(probes_path(rubric.id, folder))
    except JudgekitError as exc:  # a bad probes file: said on the page, as promote says it
        probes, probes_problem = None, str(exc)
    context: dict[str, Any] = {
        "probes": list(reversed(probes.probes)) if probes is not None else [],
        "probes_problem": probes_problem,
        "promotion": f"{status}: {why}",
        "problem": None,
        "calibration": "",
        "disagreements": [],
        "labellers": summarise_labels(log, rubric) if log is not None else None,
        "unsettled": len(unsettled(log)),
    }
    judged = JudgedVerdicts(data.verdicts.get(rubric.id, []), data.verdicts_source)
    try:
        report = load_calibration(
            rubric,
            labels_file=data.labels_file(rubric),
            judged=judged,
            # Reversed: where two files hold one run id, the first file's run is the one
            # shown, and its text is the one a label's hash is checked against.
            runs_files=tuple(reversed(data.sources.runs_files)),
            tasks_path=data.sources.tasks_path,
            measure_on="dev",
        )
    except JudgekitError as exc:
        context["problem"] = str(exc)
        return context
    spend_measured_test_labels(report)  # the dev side spends nothing; as calibrate does
    context["calibration"] = render_text(report, disagreements=0)
    context["disagreements"] = report.disagreements
    return context
