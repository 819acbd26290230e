"""``judgekit align``'s report as text: the candidates' table, dev and test kappa before
and after, and what was written."""

from __future__ import annotations

from judgekit._util.number_format import bracketed_interval, confidence, dollars, statistic
from judgekit._util.terminal_text import visible
from judgekit.alignment.figures import CandidateResult
from judgekit.alignment.report import TEST_HELD_OUT, AlignmentReport

__all__ = ["render_text"]


def render_text(report: AlignmentReport) -> str:
    level = confidence(report.confidence)
    lines = [
        f"align {report.rubric_id} (version {report.version}, judge {report.model})",
        f"dev: {report.n_dev} labelled runs compared ({_left_out(report)}), {report.folds} "
        f"folds, seed {report.seed}; {report.n_disagreements} disagreements with the current "
        "rubric",
        f"test: {report.n_test} labelled runs {TEST_HELD_OUT}",
        "",
    ]
    rows = [("candidate", "examples", "n", f"dev kappa [{level} CI]", f"gain [{level} CI]", "")]
    rows += [_row(result) for result in report.results]
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    for row in rows:
        cells = [
            cell.rjust(width) if index in (1, 2) else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        lines.append("  ".join(cells).rstrip())
    lines += ["", *_before_after(report), "", _spending(report), visible(report.outcome)]
    if report.written is not None:
        lines.append(
            f"wrote {visible(report.written)}: version {report.version} → {report.new_version}, "
            f"a draft until `judgekit promote --rubric {visible(report.rubric_id)}` measures it "
            "on the test labels"
        )
    return "\n".join(lines)


def _left_out(report: AlignmentReport) -> str:
    parts = [f"of {report.n_dev_labelled} labelled"]
    if report.n_tied:
        parts.append(f"{report.n_tied} tied")
    if report.n_without_run:
        parts.append(f"{report.n_without_run} not in the runs file")
    return ", ".join(parts)


def _row(result: CandidateResult) -> tuple[str, str, str, str, str, str]:
    if result.dropped is not None:
        return (result.name, "—", "—", "—", "—", f"dropped: {visible(result.dropped)}")
    kappa = f"{statistic(result.kappa)} {bracketed_interval(*result.kappa_ci)}"
    if result.name == "current":
        return (result.name, "0", str(result.n), kappa, "—", "")
    gain = f"{statistic(result.gain)} {bracketed_interval(*result.gain_ci)}"
    verdict = "better" if result.significant else "not shown better"
    return (result.name, str(result.examples_added), str(result.n), kappa, gain, verdict)


def _before_after(report: AlignmentReport) -> list[str]:
    test = report.test_kappa_before
    test_before = (
        TEST_HELD_OUT
        if test is None
        else f"{statistic(test.kappa)} {bracketed_interval(*test.kappa_ci)} on {test.n} labels "
        f"(measured at promotion, {test.promoted_at})"
    )
    before = f"before: dev kappa {statistic(report.current.kappa)}; test kappa {test_before}"
    best = report.best
    if report.chosen is None or best is None:
        return [before, "after:  unchanged (nothing written)"]
    return [
        before,
        f"after:  dev kappa {statistic(best.kappa)} ({best.name}, out of fold); "
        f"test kappa {TEST_HELD_OUT}",
    ]


def _spending(report: AlignmentReport) -> str:
    spent = report.spending
    text = (
        f"asked the judge {_times(spent.judge_calls)} ({spent.cache_hits} answers from the cache)"
    )
    if spent.optimizer_calls:
        text += f" and the optimizer {_times(spent.optimizer_calls)}"
    if spent.not_judged:
        text += f"; {spent.not_judged} runs got no answer"
    cost = "unknown" if spent.unknown_cost else dollars(spent.cost_usd)
    return f"{text}; judge cost {cost}"


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"
