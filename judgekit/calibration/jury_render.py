"""The jury's part of ``judgekit calibrate``: each juror's figures, the jury's, and the jury
against its best juror (:mod:`judgekit.calibration.jury_figures`)."""

from __future__ import annotations

from judgekit._util.number_format import (
    bracketed_interval,
    confidence,
    p_equation,
    rate,
    statistic,
)
from judgekit.calibration.jury_figures import BEST_BY, JurorFigures
from judgekit.calibration.report import CalibrationReport

__all__ = ["jury_lines"]


def jury_lines(report: CalibrationReport) -> list[str]:
    """The jurors' table and the paired comparison; none for one judge."""
    jury = report.jury
    if jury is None:
        return []
    width = max(len(f.model) for f in jury.jurors) if jury.jurors else 4
    lines = [f"jurors of {jury.jury.model}, on the runs shown:"]
    lines += [_juror_line(figures, width) for figures in jury.jurors]
    lines.append(_juror_line(jury.jury, width, name="jury"))
    c = jury.comparison
    if jury.best_juror is None or c is None:
        lines.append("best juror: none, no juror scored a run shown")
        return lines
    best = jury.best_juror
    lines += [
        f"best juror: {best} ({BEST_BY})",
        f"jury vs best juror, {c.n} runs both scored: kappa {statistic(c.kappa_b)} vs "
        f"{statistic(c.kappa_a)}, difference {statistic(c.kappa_difference)} "
        f"{bracketed_interval(*c.kappa_difference_ci)} ({confidence(c.confidence)}, paired "
        f"bootstrap, {c.n_resamples} resamples, seed {c.seed})",
        f"  accuracy {statistic(c.accuracy_b)} vs {statistic(c.accuracy_a)}; only the jury right "
        f"{c.only_b_correct}, only {best} right {c.only_a_correct}; McNemar exact "
        f"{p_equation(c.mcnemar_p)}",
    ]
    return lines


def _juror_line(figures: JurorFigures, width: int, *, name: str | None = None) -> str:
    shown = (name or figures.model).ljust(width)
    if figures.figures is None:
        return f"  {shown}  n 0: scored none of the runs shown"
    f = figures.figures
    text = (
        f"  {shown}  n {figures.n}, agreement {statistic(f.agreement)}, kappa "
        f"{statistic(f.kappa)} {bracketed_interval(*f.kappa_ci)}"
    )
    rates = figures.error_rates
    if rates is not None:
        text += (
            f", false pass {rate(rates.false_pass_rate)} "
            f"{bracketed_interval(*rates.false_pass_ci, decimals=2)}, false fail "
            f"{rate(rates.false_fail_rate)} {bracketed_interval(*rates.false_fail_ci, decimals=2)}"
        )
    return text
