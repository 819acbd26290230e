"""The runs page's rows: one per run, under one rubric, filtered, searched, sorted and cut
into pages — everything the query string asks for, computed from the files as they are now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.calibration.selection import run_label, verdict_score
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric
from judgekit.formats.verdict import Verdict
from judgekit.view.data import ViewData, ViewRun
from judgekit.view.held_out import HeldOut, held_out
from judgekit.view.settling import own_labels_differ

__all__ = ["PAGE_SIZE", "RowQuery", "RunRow", "RunRows", "run_rows"]

PAGE_SIZE = 50
OUTCOMES = ("pass", "fail", "ungraded")
DISAGREEMENTS = ("judge", "labellers", "any")
SORTS = ("run", "task", "outcome", "score")


@dataclass(frozen=True)
class RowQuery:
    """What the query string asks for; an empty field filters nothing."""

    rubric: str = ""
    source: str = ""
    task: str = ""
    outcome: str = ""  # pass, fail, ungraded
    score: str = ""  # the judge's score under the rubric
    label: str = ""  # a label's score, "none" (unlabelled) or "held" (held out)
    labeler: str = ""
    disagreement: str = ""  # judge (judge vs people), labellers, any
    q: str = ""  # text in the run id, the input or the final answer
    sort: str = "run"
    page: int = 1


@dataclass(frozen=True)
class RunRow:
    run: ViewRun
    outcome: str
    scores: list[tuple[str, str]]  # (judge model, its score or "unscored")
    labels: list[Label]  # visible labels, empty when held out
    held: bool  # the run's labels are held out
    judge_disagrees: bool
    labellers_disagree: bool


@dataclass(frozen=True)
class RunRows:
    rows: list[RunRow]  # this page's
    total: int  # rows matching, on every page
    pages: int
    page: int
    rubric: Rubric | None
    held: HeldOut | None


def run_rows(data: ViewData, query: RowQuery) -> RunRows:
    """The rows ``query`` asks for, on its page (clamped to the pages there are)."""
    rubric = data.rubrics.get(query.rubric) if query.rubric else None
    labels_by_run: dict[str, list[Label]] = {}
    held: HeldOut | None = None
    if rubric is not None:
        log = data.labels(rubric)
        current = log.current if log is not None else {}
        for (run_id, _), label in current.items():
            labels_by_run.setdefault(run_id, []).append(label)
        held = held_out(rubric, data.labels_file(rubric), current)
    latest = data.latest.get(rubric.id, {}) if rubric is not None else {}
    # The filters on the run alone first: most runs never need their verdicts and labels.
    runs = [run for run in data.runs.values() if _run_matches(run, query)]

    def row_of(run: ViewRun) -> RunRow:
        run_id = run.run_id
        return _row(run, rubric, latest.get(run_id, []), labels_by_run.get(run_id, []), held)

    needs_rows = any((query.score, query.label, query.labeler, query.disagreement))
    if not needs_rows and query.sort in ("run", "task", "outcome"):
        # Nothing asked of the verdicts or labels: only the page's rows are built.
        if query.sort != "run":  # the runs are in natural order of run id already
            runs.sort(key=_run_sort_key(query.sort))
        total = len(runs)
        pages, page = _pages(total, query.page)
        shown = [row_of(run) for run in runs[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]]
        return RunRows(shown, total, pages, page, rubric, held)
    rows = [row for row in map(row_of, runs) if _row_matches(row, query)]
    if query.sort == "score":
        rows.sort(key=lambda row: [score for _, score in row.scores])  # stable: natural order
    elif query.sort != "run":
        order = _run_sort_key(query.sort)
        rows.sort(key=lambda row: order(row.run))
    pages, page = _pages(len(rows), query.page)
    shown = rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return RunRows(shown, len(rows), pages, page, rubric, held)


def _row(
    run: ViewRun,
    rubric: Rubric | None,
    verdicts: Sequence[Verdict],
    labels: list[Label],
    held: HeldOut | None,
) -> RunRow:
    outcome = _outcome(run)
    judged = [(v, verdict_score(rubric, v)) for v in verdicts] if rubric is not None else []
    scores = [(v.model, "unscored" if score is None else str(score)) for v, score in judged]
    hidden = held is not None and bool(labels) and held.hides(run.run_id)
    visible = [] if hidden else sorted(labels, key=lambda label: label.labeler)
    people = run_label(visible) if visible else None
    return RunRow(
        run=run,
        outcome=outcome,
        scores=scores,
        labels=visible,
        held=hidden,
        judge_disagrees=people is not None
        and any(score is not None and score != people for _, score in judged),
        labellers_disagree=not any(label.settles for label in visible)
        and own_labels_differ(visible),
    )


def _run_matches(run: ViewRun, query: RowQuery) -> bool:
    return (
        (not query.source or run.source.parent.name == query.source)
        and (not query.task or run.task_id == query.task)
        and (not query.outcome or _outcome(run) == query.outcome)
        and (not query.q or _found(query.q, run))
    )


def _row_matches(row: RunRow, query: RowQuery) -> bool:
    return (
        (not query.score or any(score == query.score for _, score in row.scores))
        and _label_matches(row, query.label)
        and (not query.labeler or any(label.labeler == query.labeler for label in row.labels))
        and _disagreement_matches(row, query.disagreement)
    )


def _outcome(run: ViewRun) -> str:
    grade = run.grade
    return "ungraded" if grade is None else ("pass" if grade.passed else "fail")


def _label_matches(row: RunRow, wanted: str) -> bool:
    if not wanted:
        return True
    if wanted == "held":
        return row.held
    if wanted == "none":
        return not row.labels and not row.held
    return any(str(label.label) == wanted for label in row.labels)


def _disagreement_matches(row: RunRow, wanted: str) -> bool:
    if wanted == "judge":
        return row.judge_disagrees
    if wanted == "labellers":
        return row.labellers_disagree
    if wanted == "any":
        return row.judge_disagrees or row.labellers_disagree
    return True


def _found(text: str, run: ViewRun) -> bool:
    wanted = text.casefold()
    fields = (run.run_id, run.input or "", run.final_answer or "")
    return any(wanted in value.casefold() for value in fields)


_OUTCOME_ORDER: Mapping[str, int] = {"fail": 0, "pass": 1, "ungraded": 2}


def _pages(total: int, asked: int) -> tuple[int, int]:
    """How many pages ``total`` rows fill, and the page asked for, clamped to them."""
    pages = max(1, -(-total // PAGE_SIZE))
    return pages, min(max(1, asked), pages)


def _run_sort_key(sort: str) -> Callable[[ViewRun], Any]:
    """Runs by task or by outcome (fails first); sorted() is stable, so the natural order
    of run id decides within each."""
    if sort == "task":
        return lambda run: run.task_id or ""
    return lambda run: _OUTCOME_ORDER[_outcome(run)]
