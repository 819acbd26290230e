"""One exported thing, a verdict or a label, in the shape every exporter reads, and its score
read as the other tools read scores: a pass/fail, a number or a category."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from judgekit._util.endpoint_url import shown_endpoint
from judgekit._util.version import __version__
from judgekit.exporters.judge_standing import Standing, promotion_details
from judgekit.exporters.trace_links import TraceLink
from judgekit.formats.label import Label
from judgekit.formats.verdict import Verdict

__all__ = [
    "ExportItem",
    "ScoreKind",
    "boolean_value",
    "from_label",
    "from_verdict",
    "item_details",
    "item_uuid",
    "score_kind",
]

ItemKind = Literal["verdict", "label"]
ScoreKind = Literal["boolean", "numeric", "categorical"]

# A hand label has no status of its own: it is what a person said.
LABELLED = "labelled"


@dataclass(frozen=True)
class ExportItem:
    """A verdict or a label. ``score`` is None unless the verdict is scored (an unscored or
    abstained verdict counts as neither pass nor fail, so no tool is told it did);
    ``source`` is the judge model or the labeller; ``reason`` the judge's reason (or why
    it is unscored) or the labeller's note. A verdict also carries the ``endpoint`` its
    judge was asked at (as shown: no credentials or query) and its ``standing``: the
    promotion it stands on, or why none (None for a label)."""

    kind: ItemKind
    run_id: str
    rubric_id: str
    rubric_version: str | None
    source: str
    status: str
    score: str | int | None
    reason: str | None
    confidence: float | None
    at: datetime
    trace: TraceLink | None = None
    endpoint: str | None = None
    standing: Standing | None = None

    @property
    def counts_as_score(self) -> bool:
        return self.score is not None


def from_verdict(verdict: Verdict, trace: TraceLink | None, standing: Standing) -> ExportItem:
    """A verdict as exported: its score only when it is scored, with its standing."""
    scored = verdict.status == "scored" and isinstance(verdict.score, str | int)
    reason = verdict.unscored_reason if verdict.status == "unscored" else verdict.reason
    return ExportItem(
        kind="verdict",
        run_id=verdict.run_id,
        rubric_id=verdict.rubric_id,
        rubric_version=verdict.rubric_version,
        source=verdict.model,
        status=verdict.status,
        score=verdict.score if scored and not isinstance(verdict.score, bool) else None,
        reason=reason if reason is not None else verdict.reason,
        confidence=verdict.confidence,
        at=verdict.at,
        trace=trace,
        endpoint=shown_endpoint(verdict.endpoint),
        standing=standing,
    )


def from_label(label: Label, trace: TraceLink | None) -> ExportItem:
    """A hand label (already on its rubric's scale) as exported."""
    value = label.label if isinstance(label.label, str | int) else str(label.label)
    return ExportItem(
        kind="label",
        run_id=label.run_id,
        rubric_id=label.rubric_id,
        rubric_version=None,
        source=label.labeler,
        status=LABELLED,
        score=value,
        reason=label.note,
        confidence=None,
        at=label.at,
        trace=trace,
    )


def score_kind(score: str | int) -> ScoreKind:
    """pass/fail (a binary scale) is boolean, a whole number (likert) numeric, anything
    else (a choice, A/B/tie) categorical.

    >>> score_kind("pass"), score_kind(4), score_kind("tie")
    ('boolean', 'numeric', 'categorical')
    """
    if isinstance(score, int):
        return "numeric"
    return "boolean" if score in ("pass", "fail") else "categorical"


def boolean_value(score: str) -> float:
    """1 for pass, 0 for fail: how the other tools count a boolean score."""
    return 1.0 if score == "pass" else 0.0


# Fixed, so the same verdict or label gets the same id in every export: a tool that
# upserts by id (Langfuse) replaces the score rather than adding a second one.
_ID_NAMESPACE = uuid.UUID("0f6c1d2e-5a4b-4c3d-9e8f-7a6b5c4d3e2f")


def item_uuid(item: ExportItem) -> str:
    """A stable UUID for one verdict (run, rubric version, judge model) or one labeller's
    label of a run, the same on every export."""
    key = "\0".join(
        [item.kind, item.run_id, item.rubric_id, item.rubric_version or "", item.source]
    )
    return str(uuid.uuid5(_ID_NAMESPACE, key))


def item_details(item: ExportItem) -> dict[str, Any]:
    """What a tool's free-form field (Langfuse ``metadata``, LangSmith ``source_info``)
    carries of an item: its run and status, and who gave it — the labeller, or the judge
    (rubric id and version, model, endpoint when known, judgekit's version) and its
    standing (:func:`~judgekit.exporters.judge_standing.promotion_details`)."""
    details: dict[str, Any] = {"judgekit_run_id": item.run_id, "status": item.status}
    if item.kind == "label":
        return details | {"labeler": item.source}
    details |= {
        "rubric_id": item.rubric_id,
        "rubric_version": item.rubric_version,
        "model": item.source,
    }
    if item.endpoint is not None:
        details["endpoint"] = item.endpoint
    details["judgekit_version"] = __version__
    if item.confidence is not None:
        details["confidence"] = item.confidence
    if item.standing is not None:
        details |= promotion_details(item.standing)
    return details
