"""Verdicts and labels as Langfuse scores, read by the Langfuse SDK's own API classes: each
line, taken from the wire spelling (camelCase) as the SDK reads it, is a
``CreateScoreRequest``, and written back by the SDK it is the same line."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from langfuse.api import CreateScoreRequest, ScoreDataType
from langfuse.api.core.jsonable_encoder import jsonable_encoder
from langfuse.api.core.serialization import convert_and_respect_annotation_metadata

from judgekit import __version__
from judgekit.exporters.items import ExportItem
from judgekit.exporters.langfuse_scores import score_record
from judgekit.exporters.trace_links import TraceLink
from tests.exporters.world import NO_RUBRIC, OTEL_SPAN, OTEL_TRACE, export_verdicts, json_lines


def _request(record: dict[str, Any]) -> CreateScoreRequest:
    fields = convert_and_respect_annotation_metadata(
        object_=record, annotation=CreateScoreRequest, direction="read"
    )
    return CreateScoreRequest(**fields)


def _wire(request: CreateScoreRequest) -> dict[str, Any]:
    written = convert_and_respect_annotation_metadata(
        object_=request, annotation=CreateScoreRequest, direction="write"
    )
    assert isinstance(written, CreateScoreRequest)
    # How the SDK puts a request on the wire: its aliases, its JSON encoding.
    encoded = jsonable_encoder(written.dict(by_alias=True, exclude_none=True))
    assert isinstance(encoded, dict)
    return encoded


def test_verdicts_are_create_score_requests(tmp_path: Path) -> None:
    result, out = export_verdicts(tmp_path, "langfuse", "scores.jsonl")
    assert result.exit_code == 0, result.output
    records = json_lines(out)
    passed, failed, unscored, abstained = (_request(r) for r in records)
    assert passed.trace_id == OTEL_TRACE
    assert passed.observation_id == OTEL_SPAN
    assert (passed.name, passed.value, passed.data_type) == (
        "goal_completion",
        1.0,
        ScoreDataType.BOOLEAN,
    )
    assert passed.comment == "The refund of $40 was issued, as asked."
    assert passed.source == "API"
    assert passed.timestamp == datetime(2026, 11, 29, 10, 2, 11, 123456, tzinfo=UTC)
    assert passed.metadata == {
        "judgekit_run_id": "shop/otel",
        "status": "scored",
        "rubric_id": "goal_completion",
        "rubric_version": "3f2a9c",
        "model": "openai/gpt-4o-mini",
        "judgekit_version": __version__,
        "confidence": 0.9,
        "promoted": False,
        "not_promoted": NO_RUBRIC,
    }
    assert (failed.value, failed.data_type) == (0.0, ScoreDataType.BOOLEAN)
    # Neither pass nor fail: a TEXT score holding the status, and no trace to link.
    assert (unscored.value, unscored.data_type) == ("unscored", ScoreDataType.TEXT)
    assert (abstained.value, abstained.data_type) == ("abstained", ScoreDataType.TEXT)
    assert unscored.trace_id is None and abstained.trace_id is None
    # The SDK writes each request back as exactly the line judgekit wrote.
    for record in records:
        assert _wire(_request(record)) == record
    assert result.stderr.splitlines()[1] == (
        "judgekit: warning: 2 exported without a trace link: 1 whose run is not among the "
        "runs of --runs; 1 whose run carries no trace id langfuse takes"
    )


def _item(score: str | int, kind: str = "label") -> ExportItem:
    return ExportItem(
        kind="label" if kind == "label" else "verdict",
        run_id="r1",
        rubric_id="tone",
        rubric_version=None,
        source="ana",
        status="labelled",
        score=score,
        reason="@SUM(A1)",
        confidence=None,
        at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        trace=TraceLink("lf-trace-1"),
    )


def test_likert_is_numeric_and_a_choice_categorical() -> None:
    likert = _request(score_record(_item(4)))
    choice = _request(score_record(_item("tie")))
    assert (likert.value, likert.data_type) == (4.0, ScoreDataType.NUMERIC)
    assert (choice.value, choice.data_type) == ("tie", ScoreDataType.CATEGORICAL)
    assert choice.trace_id == "lf-trace-1" and choice.observation_id is None
    assert choice.source == "ANNOTATION"  # a person's label
    assert choice.metadata == {"judgekit_run_id": "r1", "status": "labelled", "labeler": "ana"}
    assert score_record(_item("tie"))["timestamp"] == "2026-01-02T03:04:05Z"
