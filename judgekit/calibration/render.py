"""The calibration report as text for a terminal (the Markdown is :mod:`.markdown`).

Labeller names, notes, run ids and the judge's reasons are data: each is shown through
:func:`~judgekit._util.terminal_text.visible` on one line, so none can move the cursor, clear the
screen or forge a line of the report.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from judgekit._util.number_format import (
    UNDEFINED,
    bracketed_interval,
    confidence,
    p_equation,
    percent,
    statistic,
)
from judgekit._util.terminal_text import visible
from judgekit.calibration.class_scores_render import class_score_lines
from judgekit.calibration.confidence_render import confidence_lines
from judgekit.calibration.criteria import Criterion
from judgekit.calibration.jury_render import jury_lines
from judgekit.calibration.report import CalibrationReport
from judgekit.calibration.scale_errors import LikertFigures
from judgekit.calibration.selective_render import selective_lines
from judgekit.calibration.split_render import assignment_lines

__all__ = [
    "DEFAULT_DISAGREEMENTS",
    "comparison_lines",
    "disagreement_order",
    "failure_lines",
    "fresh_labels_line",
    "labels_needed_line",
    "pass_rate_figures",
    "render_text",
    "scale_error_figures",
    "split_line",
]

_TERMINAL_WIDTH = 80  # the confusion matrix is laid out to fit it

MAX_REASON = 160


def interval(bounds: Sequence[float | None] | None) -> str:
    """A figure's interval as the report prints it: ``[0.735, 0.965]``."""
    return bracketed_interval(*(bounds or (None, None)))


def _data(value: object) -> str:
    """A value read from labels or verdicts, shown on one line."""
    return visible(str(value), one_line=True)


def short_reason(text: str | None) -> str:
    if not text:
        return "(no reason)"
    text = _data(" ".join(text.split()))
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 3] + "..."


def labels_needed_line(report: CalibrationReport) -> str | None:
    """What more labels would do, when the kappa criterion is not met (None otherwise)."""
    kappa_met = next(c.met for c in report.criteria if c.name == "min_kappa")
    needed = report.labels_needed
    if kappa_met:
        return None
    bar = report.policy.min_kappa
    if report.kappa is None:
        return "kappa is undefined (one class throughout): label runs of every class"
    kappa = statistic(report.kappa)
    if not needed.kappa_reachable:
        return (
            f"more labels will not clear the kappa bar: kappa is {kappa}, at or below "
            f"the bar {bar}; improve the rubric or the judge"
        )
    return (
        f"about {needed.for_kappa} more labels would bring the kappa interval's lower bound "
        f"to {bar} (if kappa stays at {kappa} and the class balance holds)"
    )


def split_line(report: CalibrationReport) -> str | None:
    """Which labelled runs were measured, and what is held out (None without a split)."""
    split = report.split
    if split is None:
        return None
    labelled = split.n_dev + split.n_test
    measured = len(split.runs)
    if report.measured_on == "dev":
        return (
            f"measured on dev: {measured} of {labelled} labelled runs; {split.n_test} test "
            f"labels held out for `judgekit promote` ({split.n_test_fresh} fresh)"
        )
    if report.measured_on == "test":
        return (
            f"measured on test: {measured} of {labelled} labelled runs ({split.n_test_fresh} "
            f"fresh, {split.n_test_spent} spent); every test label measured is now spent: "
            "`judgekit promote` no longer counts them"
        )
    return (
        f"measured on all {measured} labelled runs ({split.n_dev} dev, {split.n_test} test); "
        "every test label measured is now spent: `judgekit promote` no longer counts them"
    )


def fresh_labels_line(report: CalibrationReport) -> str | None:
    """How many more labels ``judgekit label`` must add for the fresh test labels to clear
    ``min_labels`` (None when they do, or the report has no split)."""
    split = report.split
    short = next((c.short_by for c in report.criteria if c.name == "min_labels"), None)
    if split is None or not short:
        return None
    more = math.ceil(short / split.test_share)
    return (
        f"measured on {split.n_test_fresh} fresh test labels ({split.n_test_spent} spent, "
        f"{split.n_dev} dev held for calibrate): `judgekit label` must add about {more} more "
        f"labels (a share {split.test_share} of new labels goes to test)"
    )


def failure_lines(report: CalibrationReport) -> list[str]:
    """One line per failed criterion, saying by how much it failed."""
    return [criterion.explain() for criterion in report.failed]


def _summary_lines(report: CalibrationReport) -> list[str]:
    counts = report.counts
    labelers = ", ".join(
        f"{_data(name)} {entry.compared} of {entry.labels}"
        for name, entry in report.labelers.items()
    )
    human = ", ".join(f"{c} {k}" for c, k in report.class_balance.human.items())
    judge = ", ".join(f"{c} {k}" for c, k in report.class_balance.judge.items())
    return [
        f"{report.rubric_id} (version {report.rubric_version}, judge {report.model}): "
        f"{counts.n} runs compared",
        f"labels: {counts.n_labelled_runs} runs labelled by {len(report.labelers)} "
        f"labeller(s) ({labelers} compared); {counts.n_tied} runs with tied labels left out"
        f"{_tied_against(counts.n_tied_against_judge)}; "
        f"{counts.n_labelled_without_verdict} labelled runs have no verdict",
        f"verdicts: {counts.n_verdicts} of this version; {counts.n_unscored} unscored left out "
        f"(unscored rate {percent(counts.unscored_rate, undefined=UNDEFINED)}); "
        f"{counts.n_other_versions} of other versions and {counts.n_other_models} of other "
        "models left out",
        f"class balance: human {human}; judge {judge}",
    ]


def _figure_lines(report: CalibrationReport) -> list[str]:
    figures = report.figures
    level = confidence(report.policy.confidence)
    lines = [
        f"agreement {statistic(figures.agreement)}",
        f"kappa {statistic(figures.kappa)} {interval(figures.kappa_ci)} "
        f"({level}, {figures.interval_method})",
        f"AC1 {statistic(figures.ac1)}",
    ]
    if figures.weighted_kappa is not None:
        lines.append(f"weighted kappa (quadratic) {statistic(figures.weighted_kappa)}")
    lines += _error_rate_lines(report)
    lines += [f"{name} {value}" for name, value in scale_error_figures(report)]
    lines += [f"{name} {value}" for name, value in pass_rate_figures(report)]
    if report.position_bias is not None:
        bias = report.position_bias
        lines.append(
            f"position bias {statistic(bias.rate)} {interval(bias.ci)}: the choice flipped when "
            f"the answers swapped places on {bias.flipped} of {bias.checked} runs"
        )
    if report.self_agreement is None:
        lines.append("judge self-agreement: not measured (sampled once per run)")
    else:
        sa = report.self_agreement
        lines.append(
            f"judge self-agreement {statistic(sa.mean)} over {sa.runs} runs "
            f"sampled up to {sa.samples} times"
        )
    return lines


def _error_rate_lines(report: CalibrationReport) -> list[str]:
    rates = report.error_rates
    if rates is None:
        return []
    fails = report.class_balance.human.get("fail", 0)
    passes = report.class_balance.human.get("pass", 0)
    return [
        f"false pass rate {statistic(rates.false_pass_rate)} {interval(rates.false_pass_ci)} "
        f"(judge passes what humans fail, of {fails})",
        f"false fail rate {statistic(rates.false_fail_rate)} {interval(rates.false_fail_ci)} "
        f"(judge fails what humans pass, of {passes})",
    ]


def scale_error_figures(report: CalibrationReport) -> list[tuple[str, str]]:
    """(name, value) of the Likert errors (none on other scales: the per-class scores of a
    choices or pairwise scale are a table of their own, :mod:`.class_scores_render`)."""
    errors = report.scale_errors
    if not isinstance(errors, LikertFigures):
        return []
    level = confidence(errors.confidence)
    mae, signed = errors.mean_absolute_error, errors.mean_signed_error
    return [
        (
            "mean absolute error",
            f"{statistic(mae.mean)} {interval([mae.low, mae.high])} ({level}, t)",
        ),
        (
            "mean signed error",
            f"{statistic(signed.mean)} {interval([signed.low, signed.high])} "
            f"({level}, t; judge − human: above 0, the judge scores higher)",
        ),
    ]


def pass_rate_figures(report: CalibrationReport) -> list[tuple[str, str]]:
    """(name, value) of the pass rates over every scored verdict (binary rubrics only)."""
    rates = report.pass_rates
    if rates is None:
        return []
    level = confidence(report.policy.confidence)
    ppi = "undefined (needs two labelled and two unlabelled runs)"
    if rates.ppi is None and report.n >= 2 and rates.n_unlabelled >= 2:
        ppi = (
            "undefined (its interval lies wholly outside [0, 1]: the judge's errors on the "
            "labelled runs do not fit its verdicts on the others)"
        )
    if rates.ppi is not None:
        bounded = rates.ppi
        ppi = (
            f"{statistic(bounded.estimate)} {interval([bounded.low, bounded.high])} "
            f"({level}, {rates.n_unlabelled} unlabelled{_CLIPPED if bounded.clipped else ''})"
        )
    corrected_clipped = _CLIPPED if rates.corrected_clipped else ""
    return [
        ("judge pass rate (raw)", f"{statistic(rates.raw)} (of {rates.n_scored} scored verdicts)"),
        (
            "pass rate corrected (Rogan-Gladen)",
            f"{statistic(rates.corrected)} (sensitivity {statistic(rates.sensitivity)}, "
            f"specificity {statistic(rates.specificity)}{corrected_clipped})",
        ),
        ("pass rate, prediction-powered", ppi),
    ]


# A corrected rate the method put outside [0, 1] is shown at the edge, and said to be.
_CLIPPED = "; clipped to [0, 1]"


def comparison_lines(report: CalibrationReport) -> list[str]:
    """The comparison with another judge (``--against`` / ``--against-model``), if asked."""
    c = report.comparison
    if c is None:
        return []
    other = c.against
    level = confidence(c.confidence)
    return [
        f"comparison with {other.model} ({other.rubric_id} version "
        f"{other.rubric_version}): {c.n} labelled runs scored by both",
        f"  kappa {statistic(c.kappa_a)} (this judge) vs {statistic(c.kappa_b)}, difference "
        f"{statistic(c.kappa_difference)} {interval(c.kappa_difference_ci)} ({level}, paired "
        f"bootstrap, {c.n_resamples} resamples, seed {c.seed})",
        f"  accuracy {statistic(c.accuracy_a)} vs {statistic(c.accuracy_b)}; only this judge right "
        f"{c.only_a_correct}, only the other right {c.only_b_correct}; McNemar exact "
        f"{p_equation(c.mcnemar_p)}",
    ]


def _confusion_lines(report: CalibrationReport) -> list[str]:
    names = [str(c) for c in report.classes]
    width = max(6, *(len(n) for n in names)) + 2
    widths = [width] * (len(names) + 1)
    if sum(widths) > _TERMINAL_WIDTH:
        # Many classes (a 1-10 scale): each column as wide as its own name and counts, so
        # the matrix still fits a terminal of 80 columns.
        counts = [[str(report.confusion[h][j]) for h in names] for j in names]
        widths = [max(len(n) for n in names)] + [
            2 + max(len(j), *(len(c) for c in column))
            for j, column in zip(names, counts, strict=True)
        ]
    lines = ["confusion (rows: human, columns: judge):"]
    lines.append(_row("", names, widths))
    for h in names:
        lines.append(_row(h, [str(report.confusion[h][j]) for j in names], widths))
    return lines


def _row(label: str, cells: list[str], widths: list[int]) -> str:
    return "".join(c.rjust(w) for c, w in zip([label, *cells], widths, strict=True))


def _stale_line(report: CalibrationReport) -> str:
    if report.stale_labels is None:
        return "stale labels: not checked (pass --runs to compare with the runs' text)"
    if not report.stale_labels:
        return "stale labels: none"
    listed = ", ".join(f"{_data(s.run_id)} ({_data(s.labeler)})" for s in report.stale_labels)
    return (
        f"stale labels: {len(report.stale_labels)} (the run changed since it was labelled; "
        f"relabel them): {listed}"
    )


def criterion_mark(criterion: Criterion, *, md: bool) -> str:
    if md:
        return "✅" if criterion.met else "❌"
    return "[met]    " if criterion.met else "[not met]"


DEFAULT_DISAGREEMENTS = 10


def disagreement_order(report: CalibrationReport) -> str:
    """How the report ranks disagreements (see :func:`~.labellers.disagreements`)."""
    if report.scale == "likert":
        return "largest difference first, then natural order of run id"
    return "natural order of run id"


def _disagreement_lines(report: CalibrationReport, limit: int | None) -> list[str]:
    shown = report.disagreements if limit is None else report.disagreements[:limit]
    more = len(report.disagreements) - len(shown)
    header = f"disagreements: {len(report.disagreements)}"
    if more:
        header += f" ({len(shown)} shown, {disagreement_order(report)})"
    lines = [header]
    for d in shown:
        notes = "; ".join(f"{who}: {note}" for who, note in d.notes.items()) or "(no note)"
        lines.append(f"  {_data(d.run_id)}: human {_data(d.human)}, judge {_data(d.judge)}")
        lines.append(f"    judge: {short_reason(d.reason)}")
        lines.append(f"    labeller: {short_reason(notes)}")
    if more:
        lines.append(
            f"  ... {more} more: --disagreements all lists every one; --json always has all"
        )
    return lines


def _tied_against(count: int) -> str:
    return f" ({count} test runs tied at assignment count against the judge)" if count else ""


def render_text(
    report: CalibrationReport, *, disagreements: int | None = DEFAULT_DISAGREEMENTS
) -> str:
    """The report for a terminal: summary, figures, confusion, the first ``disagreements``
    disagreements (None: all), verdict."""
    lines = _summary_lines(report)
    lines[1:1] = [line for line in [split_line(report)] if line is not None]
    lines[2:2] = assignment_lines(report.split)
    lines += _figure_lines(report) + class_score_lines(report) + _confusion_lines(report)
    lines += comparison_lines(report)
    lines += jury_lines(report)
    lines += selective_lines(report)
    lines += confidence_lines(report)
    lines.append(_stale_line(report))
    lines += _disagreement_lines(report, disagreements)
    lines.append(f"promotion: {'promotable' if report.promotable else 'not yet'}")
    for criterion in report.criteria:
        lines.append(f"  {criterion_mark(criterion, md=False)} {criterion.explain()}")
    if not report.promotable:
        needed = labels_needed_line(report)
        if needed is not None:
            lines.append(needed)
    return "\n".join(lines)
