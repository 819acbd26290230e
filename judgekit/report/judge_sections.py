"""The report's sections on the LLM judges: rubric status, calibration, disagreements."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import repeat
from typing import Any

from judgekit._util.number_format import confidence, significant
from judgekit.report.cells import figure, figure_ci
from judgekit.report.html_blocks import DASH, empty_note, escape, paragraph, table
from judgekit.report.report_data import RubricRow, RunEvidence
from judgekit.report.run_evidence import run_evidence

__all__ = [
    "MAX_DISAGREEMENTS",
    "calibrations_section",
    "disagreements_section",
    "rubrics_section",
]

MAX_DISAGREEMENTS = 50  # per rubric; the rest are counted


def rubrics_section(rubrics: Sequence[RubricRow]) -> str:
    if not rubrics:
        return empty_note()
    rows = [[r.id, r.version or DASH, r.model or DASH, r.status, r.reason] for r in rubrics]
    return table(["rubric", "version", "judge model", "status", "why"], rows, text=True)


def calibrations_section(calibrations: Sequence[Mapping[str, Any]]) -> str:
    if not calibrations:
        return empty_note()
    return "\n".join(_calibration(c) for c in calibrations)


def _failed_criteria(criteria: Mapping[str, Mapping[str, Any]]) -> str:
    failed = []
    for name, c in criteria.items():
        if c.get("met"):
            continue
        text = f"{name}: {c.get('what', '')} {significant(c.get('value'))}, bar {c.get('bar')}"
        if c.get("short_by") is not None:
            text += f" ({significant(c['short_by'])} short)"
        failed.append(text)
    return "; ".join(failed) or "none"


def _calibration(c: Mapping[str, Any]) -> str:
    percent = confidence(c.get("confidence", 0.95))
    figures = [
        ["runs compared", c.get("n", 0)],
        ["agreement", figure(c.get("agreement"))],
        [f"Cohen's kappa ({percent} CI)", figure_ci(c.get("kappa"), c.get("kappa_ci"))],
        [
            f"false-pass rate ({percent} CI)",
            figure_ci(c.get("false_pass_rate"), c.get("false_pass_ci")),
        ],
        [
            f"false-fail rate ({percent} CI)",
            figure_ci(c.get("false_fail_rate"), c.get("false_fail_ci")),
        ],
        ["promotable", "yes" if c.get("promotable") else "no"],
        ["criteria not met", _failed_criteria(c.get("criteria", {}))],
    ]
    parts = [
        f"<h3>{escape(c.get('rubric_id', ''))}</h3>",
        paragraph(f"version {c.get('rubric_version', '?')}, judge {c.get('model', '?')}", "meta"),
        table(["figure", "value"], figures),
        _confusion(c.get("confusion") or {}),
        *(paragraph(f"warning: {w}") for w in c.get("warnings", [])),
    ]
    return "\n".join(parts)


def _confusion(confusion: Mapping[str, Mapping[str, int]]) -> str:
    if not confusion:
        return empty_note("no confusion matrix")
    columns = list(dict.fromkeys(col for row in confusion.values() for col in row))
    rows = [[human, *(row.get(col, 0) for col in columns)] for human, row in confusion.items()]
    caption = paragraph(
        "confusion matrix: rows the human label, columns the judge's verdict", "meta"
    )
    return caption + "\n" + table(["human \\ judge", *columns], rows)


def disagreements_section(
    calibrations: Sequence[Mapping[str, Any]], evidence: Mapping[str, RunEvidence]
) -> str:
    """Per rubric, the runs where the judge and the humans disagree: listed, then each
    unfolded from ``evidence`` with the judge's reason beside the graders'."""
    if not calibrations:
        return empty_note()
    parts = []
    for c in calibrations:
        found: list[Mapping[str, Any]] = list(c.get("disagreements", []))
        parts.append(f"<h3>{escape(c.get('rubric_id', ''))}</h3>")
        if not found:
            parts.append(empty_note("no disagreements"))
            continue
        rows = [
            [d.get("run_id", ""), d.get("human", ""), d.get("judge", ""), d.get("reason") or ""]
            for d in found[:MAX_DISAGREEMENTS]
        ]
        parts.append(table(["run", "human", "judge", "judge's reason"], rows, text=True))
        if len(found) > MAX_DISAGREEMENTS:
            parts.append(paragraph(f"and {len(found) - MAX_DISAGREEMENTS} more", "meta"))
        parts.extend(block for block in map(_unfolded, rows, repeat(evidence)) if block)
    return "\n".join(parts)


def _unfolded(row: Sequence[Any], evidence: Mapping[str, RunEvidence]) -> str:
    """A disagreement's run unfolded: its evidence, with the judge's verdict and reason."""
    run_id, human, judge, reason = row
    verdict = f"human {human}, judge {judge}"
    judged = f"{judge}: {reason}" if reason else f"{judge} (no reason given)"
    return run_evidence(run_id, evidence.get(run_id), summary=verdict, judge=judged)
