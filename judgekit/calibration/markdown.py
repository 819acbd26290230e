"""The calibration report as Markdown, for a pull-request comment: figures, confusion,
criteria, disagreements. Text read from labels or verdicts is escaped for a table cell and
shown on one line."""

from __future__ import annotations

from judgekit._util.number_format import confidence, statistic
from judgekit._util.terminal_text import visible
from judgekit.calibration.class_scores_render import class_score_markdown
from judgekit.calibration.confidence_render import confidence_markdown
from judgekit.calibration.labellers import Disagreement
from judgekit.calibration.render import (
    comparison_lines,
    criterion_mark,
    disagreement_order,
    interval,
    labels_needed_line,
    pass_rate_figures,
    scale_error_figures,
    short_reason,
    split_line,
)
from judgekit.calibration.report import CalibrationReport
from judgekit.calibration.selective_render import selective_markdown
from judgekit.calibration.split_render import assignment_lines

__all__ = ["COMMENT_LIMIT", "render_markdown"]

# GitHub refuses a pull-request comment longer than this many characters.
COMMENT_LIMIT = 65_536


def _md_cell(text: str) -> str:
    return visible(text.replace("|", "\\|").replace("\n", " "), one_line=True)


def render_markdown(report: CalibrationReport) -> str:
    """The report as a pull-request comment: figures, confusion, criteria, disagreements."""
    word = "✅ promotable" if report.promotable else "⏳ not yet promotable"
    counts = report.counts
    lines = [
        f"### Judge calibration: `{report.rubric_id}` — {word}",
        "",
        f"Rubric version `{report.rubric_version}`, judge `{report.model}`: "
        f"**{counts.n}** runs compared ({counts.n_unscored} unscored and {counts.n_tied} tied "
        f"left out; {counts.n_other_versions} verdicts of other versions left out).",
        "",
        *[line for line in [split_line(report)] if line is not None],
        *(f"- {_md_cell(line)}" for line in assignment_lines(report.split)),
        *([""] if report.split is not None else []),
        *_figure_rows(report),
        *class_score_markdown(report),
        *_confusion(report),
        *selective_markdown(report),
        *confidence_markdown(report),
    ]
    compared = comparison_lines(report)
    if compared:
        lines += ["", "**Comparison**", "", *(f"- {line.strip()}" for line in compared)]
    lines += ["", "**Promotion policy**", ""]
    for criterion in report.criteria:
        lines.append(f"- {criterion_mark(criterion, md=True)} {criterion.explain()}")
    needed = None if report.promotable else labels_needed_line(report)
    if needed is not None:
        lines += ["", needed]
    if report.stale_labels:
        lines += ["", f"⚠️ {len(report.stale_labels)} stale labels (relabel them)."]
    head = "\n".join(lines)
    # The disagreements table is the only part that grows with the data: it gets what is left,
    # less the newline printed after the comment.
    return head + _disagreements(report, COMMENT_LIMIT - 1 - len(head))


def _figure_rows(report: CalibrationReport) -> list[str]:
    figures, rates = report.figures, report.error_rates
    percent = confidence(report.policy.confidence)
    lines = [
        "| figure | value |",
        "| --- | --- |",
        f"| agreement | {statistic(figures.agreement)} |",
        f"| Cohen's kappa | {statistic(figures.kappa)} {interval(figures.kappa_ci)} ({percent}) |",
        f"| Gwet's AC1 | {statistic(figures.ac1)} |",
    ]
    if rates is not None:
        false_pass = f"{statistic(rates.false_pass_rate)} {interval(rates.false_pass_ci)}"
        false_fail = f"{statistic(rates.false_fail_rate)} {interval(rates.false_fail_ci)}"
        lines.append(f"| false pass rate | {false_pass} |")
        lines.append(f"| false fail rate | {false_fail} |")
    lines.append(f"| unscored rate | {statistic(report.counts.unscored_rate)} |")
    for name, value in scale_error_figures(report) + pass_rate_figures(report):
        lines.append(f"| {name} | {_md_cell(value)} |")
    if report.self_agreement is not None:
        lines.append(f"| judge self-agreement | {statistic(report.self_agreement.mean)} |")
    if report.position_bias is not None:
        bias = report.position_bias
        lines.append(
            f"| position bias | {statistic(bias.rate)} {interval(bias.ci)} "
            f"({bias.flipped} of {bias.checked} flipped) |"
        )
    return lines


def _confusion(report: CalibrationReport) -> list[str]:
    names = [str(c) for c in report.classes]
    lines = [
        "",
        "**Confusion** (rows: human, columns: judge)",
        "",
        "| human \\ judge | " + " | ".join(names) + " |",
        "| --- |" + " --- |" * len(names),
    ]
    for h in names:
        lines.append(f"| {h} | " + " | ".join(str(report.confusion[h][j]) for j in names) + " |")
    return lines


def _row(d: Disagreement) -> str:
    notes = "; ".join(f"{who}: {note}" for who, note in d.notes.items())
    return (
        f"| `{_md_cell(d.run_id)}` | {_md_cell(str(d.human))} | {_md_cell(str(d.judge))} | "
        f"{_md_cell(short_reason(d.reason))} | {_md_cell(notes)} |"
    )


def cut_note(report: CalibrationReport, shown: int) -> str:
    """What the Markdown leaves out when the disagreements would not fit in a comment."""
    total = len(report.disagreements)
    return (
        f"{total - shown} more disagreements not shown: a comment holds {COMMENT_LIMIT:,} "
        f"characters ({shown} of {total} shown, {disagreement_order(report)}; "
        "`judgekit calibrate --json` lists every one)."
    )


def _disagreements(report: CalibrationReport, room: int) -> str:
    """The disagreements table in at most ``room`` characters, rows cut with a note."""
    total = len(report.disagreements)
    if not total:
        return ""
    head = [
        "",
        f"<details><summary>{total} disagreements</summary>",
        "",
        "| run | human | judge | judge's reason | labeller's note |",
        "| --- | --- | --- | --- | --- |",
    ]
    rows = [_row(d) for d in report.disagreements]
    full = "\n" + "\n".join([*head, *rows, "", "</details>"])
    if len(full) <= room:
        return full
    # The note's two counts have at most as many digits as the total: room for the longest.
    note = len(cut_note(report, total)) + len(str(total)) - 1
    used = len("\n" + "\n".join(head)) + len("\n\n") + note + len("\n\n</details>")
    shown = 0
    for row in rows:
        if used + 1 + len(row) > room:
            break
        used += 1 + len(row)
        shown += 1
    return "\n" + "\n".join([*head, *rows[:shown], "", cut_note(report, shown), "", "</details>"])
