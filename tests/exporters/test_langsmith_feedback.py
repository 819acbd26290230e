"""Verdicts as LangSmith feedback: each line is handed, as it is, to the real LangSmith
SDK's ``Client.create_feedback``, whose request a local server records and the SDK's own
``FeedbackCreate`` schema reads back."""

from __future__ import annotations

from pathlib import Path

import pytest
from langsmith.schemas import FeedbackCreate, FeedbackSourceBase

from judgekit import __version__
from judgekit.exporters.items import from_verdict
from judgekit.exporters.judge_standing import NOT_CHECKED
from judgekit.exporters.langsmith_feedback import feedback_record
from judgekit.exporters.trace_links import TraceLink
from tests.exporters.langsmith_recorder import sent_feedback
from tests.exporters.world import (
    LS_PROJECT,
    LS_RUN,
    LS_TRACE,
    NO_RUBRIC,
    VERDICTS,
    export_verdicts,
    json_lines,
)


@pytest.mark.filterwarnings("ignore:Creating feedback for a run without session_id")
def test_each_line_is_a_create_feedback_call(tmp_path: Path, langsmith_server: str) -> None:
    result, out = export_verdicts(tmp_path, "langsmith", "feedback.jsonl")
    assert result.exit_code == 0, result.output
    records = json_lines(out)
    feedback = sent_feedback(records, langsmith_server)
    passed, failed = feedback
    # The OpenTelemetry trace id is a UUID's 128 bits; its 16-digit span id is no run id,
    # so the feedback goes on the trace's root run.
    assert str(passed.trace_id) == "5b8efff7-9803-8103-d269-b633813fc60c"
    assert passed.run_id == passed.trace_id
    assert (passed.key, passed.score, passed.value) == ("goal_completion", 1, "pass")
    assert passed.feedback_source.type == "model"
    assert passed.feedback_source.metadata == {
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
    assert (str(failed.run_id), str(failed.trace_id)) == (LS_RUN, LS_TRACE)
    # The LangSmith run's project, as its import recorded it; the OpenTelemetry run has none.
    assert (str(failed.session_id), passed.session_id) == (LS_PROJECT, None)
    assert (failed.score, failed.value) == (0, "fail")
    assert failed.comment == '=HYPERLINK("http://evil")'
    # The same verdict gets the same feedback id on every export.
    assert [str(f.id) for f in feedback] == [r["feedback_id"] for r in records]
    # The SDK refuses feedback on no run: those without a link are left out, and said.
    assert result.stderr == (
        f"exported 2 verdicts (2 scored) as langsmith to {out}\n"
        "judgekit: warning: 2 left out (LangSmith feedback needs the run's LangSmith id): "
        "1 whose run is not among the runs of --runs; 1 whose run carries no trace id "
        "langsmith takes\n"
        "judgekit: warning: 1 exported without the LangSmith project their run was traced to "
        "(create_feedback's session_id, which LangSmith deprecates leaving out; `judgekit "
        "import langsmith` records it)\n"
    )


def test_unscored_and_abstained_feedback_has_no_score(tmp_path: Path) -> None:
    records = [
        feedback_record(from_verdict(v, TraceLink(LS_TRACE, LS_RUN), NOT_CHECKED))
        for v in VERDICTS[2:]
    ]
    unscored, abstained = (
        FeedbackCreate(
            id=r["feedback_id"],
            run_id=r["run_id"],
            trace_id=r["trace_id"],
            key=r["key"],
            score=r["score"],
            value=r["value"],
            comment=r["comment"],
            error=r.get("error"),
            feedback_source=FeedbackSourceBase(
                type=r["feedback_source_type"], metadata=r["source_info"]
            ),
        )
        for r in records
    )
    assert (unscored.score, unscored.value, unscored.error) == (None, "unscored", True)
    assert unscored.comment == "not JSON after one retry: 'I think it passes'"
    assert (abstained.score, abstained.value, abstained.error) == (None, "abstained", None)
    assert abstained.feedback_source.metadata["confidence"] == 0.4
    assert str(abstained.run_id) == LS_RUN


def test_a_second_export_repeats_the_feedback_ids(tmp_path: Path) -> None:
    first, out = export_verdicts(tmp_path, "langsmith", "a.jsonl")
    again, out_again = export_verdicts(tmp_path, "langsmith", "b.jsonl")
    assert first.exit_code == again.exit_code == 0
    assert out.read_bytes() == out_again.read_bytes()
    ids = [r["feedback_id"] for r in json_lines(out)]
    assert len(set(ids)) == 2
