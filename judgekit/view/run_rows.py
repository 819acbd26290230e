"""The runs page's rows: one per run, under one rubric, filtered, searched, sorted and cut
into pages — everything the query string asks for, computed from the files as they are now.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.calibration.labellers import natural_key
from judgekit.calibration.selection import run_label, verdict_score
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric, Score
from judgekit.formats.verdict import Verdict
from judgekit.view.data import ViewData, ViewRun
from judgekit.view.held_out import HeldOut, held_out

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
    rows = [
        _row(run, rubric, latest.get(run_id, []), labels_by_run.get(run_id, []), held)
        for run_id, run in data.runs.items()
    ]
    rows = [row for row in rows if _matches(row, query)]
    rows.sort(key=_sort_key(query.sort))
    pages = max(1, -(-len(rows) // PAGE_SIZE))
    page = min(max(1, query.page), pages)
    shown = rows[(page - 1) * PAGE_SIZE : page * PAGE_SIZE]
    return RunRows(shown, len(rows), pages, page, rubric, held)


def _row(
    run: ViewRun,
    rubric: Rubric | None,
    verdicts: Sequence[Verdict],
    labels: list[Label],
    held: HeldOut | None,
) -> RunRow:
    grade = run.grade
    outcome = "ungraded" if grade is None else ("pass" if grade.passed else "fail")
    scores = [(v.model, _score_text(rubric, v)) for v in verdicts] if rubric is not None else []
    hidden = held is not None and bool(labels) and held.hides(run.item.run.run_id)
    visible = [] if hidden else sorted(labels, key=lambda label: label.labeler)
    people = run_label(visible) if visible else None
    independent = [label for label in visible if not label.settles]
    judged = _judge_scores(rubric, verdicts)
    return RunRow(
        run=run,
        outcome=outcome,
        scores=scores,
        labels=visible,
        held=hidden,
        judge_disagrees=people is not None and any(score != people for score in judged),
        labellers_disagree=not any(label.settles for label in visible)
        and len({_key(label.label) for label in independent}) > 1,
    )


def _score_text(rubric: Rubric | None, verdict: Verdict) -> str:
    score = verdict_score(rubric, verdict) if rubric is not None else None
    return "unscored" if score is None else str(score)


def _judge_scores(rubric: Rubric | None, verdicts: Sequence[Verdict]) -> list[Score]:
    if rubric is None:
        return []
    return [s for s in (verdict_score(rubric, v) for v in verdicts) if s is not None]


def _key(score: Score) -> str:
    return repr(score)


def _matches(row: RunRow, query: RowQuery) -> bool:
    run = row.run.item.run
    checks = (
        not query.source or row.run.source.parent.name == query.source,
        not query.task or run.task_id == query.task,
        not query.outcome or row.outcome == query.outcome,
        not query.score or any(score == query.score for _, score in row.scores),
        _label_matches(row, query.label),
        not query.labeler or any(label.labeler == query.labeler for label in row.labels),
        _disagreement_matches(row, query.disagreement),
        not query.q or _found(query.q, row.run),
    )
    return all(checks)


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
    fields = (run.item.run.run_id, run.item.run.input or "", run.item.run.final_answer or "")
    return any(wanted in value.casefold() for value in fields)


_OUTCOME_ORDER: Mapping[str, int] = {"fail": 0, "pass": 1, "ungraded": 2}


def _sort_key(sort: str) -> Callable[[RunRow], Any]:
    """Rows in natural order of run id, after the column asked for (fails first)."""

    def key(row: RunRow) -> Any:
        run = row.run.item.run
        first: Any = ()
        if sort == "task":
            first = run.task_id or ""
        elif sort == "outcome":
            first = _OUTCOME_ORDER[row.outcome]
        elif sort == "score":
            first = [score for _, score in row.scores]
        return (first, natural_key(run.run_id))

    return key
