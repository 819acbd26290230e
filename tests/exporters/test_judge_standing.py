"""Who judged and whether that judge can be trusted, carried by every export: a rubric
promoted for real (``judgekit promote``) lends its promotion to verdicts of its promoted
version and judge model only; a verdict of another version or judge, of a rubric never
promoted, or under an edited promotion record carries ``promoted: false`` and why. Each
output is read back by its tool's own classes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from sklearn.metrics import cohen_kappa_score

from judgekit import __version__
from judgekit.formats.promotion import record_digest
from tests.conftest import REPO
from tests.exporters.langsmith_recorder import sent_feedback
from tests.exporters.test_langfuse_scores import _request
from tests.exporters.test_otel_events import _as_proto_json, _attributes
from tests.exporters.world import LS_RUN, LS_TRACE, OTEL_TRACE, export, json_lines, verdict
from tests.promoted import balanced, promote_for_real

# Asked through a proxy whose URL holds a user, a key and a key-like query: none of it leaves.
ENDPOINT = (
    "https://ci-bot:sk-proj-0123456789abcdefXYZ@Gateway.Example.com:8443/v1/?api-key=s3cr3t#x"
)
SHOWN = "https://gateway.example.com:8443/v1"
RECORD = "rubrics/goal_completion.promotion.json"
WRONG = ("p0", "p1", "p2")  # the judge's three disagreements with the 60 test labels


def _promoted(tmp_path: Path) -> dict[str, Any]:
    """goal_completion promoted in ``tmp_path`` (the test's folder) on 60 held-out labels,
    three of which the judge got wrong."""
    (tmp_path / "rubrics").mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", tmp_path / "rubrics")
    human = balanced()
    judged = {r: ("fail" if h == "pass" else "pass") if r in WRONG else h for r, h in human.items()}
    record = promote_for_real(tmp_path / "rubrics" / "goal_completion.yaml", human, judged)
    assert record["kappa"] == pytest.approx(
        cohen_kappa_score(list(human.values()), list(judged.values())), abs=1e-12
    )
    return record


def _verdicts(tmp_path: Path, version: str) -> Path:
    """Verdicts of the promoted version and judge (through the proxy), of an older version,
    and of another judge model, on runs that name their trace."""
    rows = [
        verdict("shop/otel", rubric_version=version, endpoint=ENDPOINT, confidence=0.9),
        verdict("shop/langsmith", rubric_version="0ld0ld0ld0ld", score="fail"),
        verdict("shop/other-judge", rubric_version=version, model="anthropic/claude-haiku-4-5"),
    ]
    path = tmp_path / "verdicts.jsonl"
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    runs = [
        {"run_id": "shop/otel", "task_id": "shop", "metadata": {"trace_id": OTEL_TRACE}},
        {"run_id": "shop/langsmith", "task_id": "shop", "metadata": {"trace_id": LS_TRACE}},
        {
            "run_id": "shop/other-judge",
            "task_id": "shop",
            "metadata": {"trace_id": LS_TRACE, "span_id": LS_RUN},
        },
    ]
    (tmp_path / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    return path


def _export(tmp_path: Path, fmt: str, *extra: str) -> Path:
    out = tmp_path / f"out.{fmt}"
    result = export(
        "verdicts", "--format", fmt, "--verdicts", tmp_path / "verdicts.jsonl",
        "--runs", tmp_path / "runs.jsonl", "-o", out, *extra,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return out


def _events(tmp_path: Path, *extra: str) -> list[dict[str, object]]:
    document = json.loads(_export(tmp_path, "otel", *extra).read_text(encoding="utf-8"))
    request = json_format.Parse(_as_proto_json(document), ExportLogsServiceRequest())
    return [_attributes(r) for r in request.resource_logs[0].scope_logs[0].log_records]


def _promotion(record: dict[str, Any]) -> dict[str, object]:
    return {
        "kappa": 0.9,
        "kappa_ci_low": record["kappa_ci"][0],
        "kappa_ci_high": 1.0,
        "interval_method": "analytic",
        "n_held_out": 60,
        "promoted_at": record["promoted_at"],
        "record": RECORD,
        "digest": record["digest"],
    }


def test_otel_events_carry_the_judge_and_only_its_own_promotion(tmp_path: Path) -> None:
    record = _promoted(tmp_path)
    version = record["rubric_version"]
    _verdicts(tmp_path, version)
    promoted, older, other_judge = _events(tmp_path)
    # A reader can check the promotion: the digest is that of the record file's content.
    on_disk = json.loads((tmp_path / RECORD).read_text(encoding="utf-8"))
    assert record_digest(on_disk) == on_disk["digest"] == record["digest"]
    assert 0.7 < record["kappa_ci"][0] < 0.9
    assert promoted == {
        "gen_ai.evaluation.name": "goal_completion",
        "gen_ai.evaluation.score.value": 1.0,
        "gen_ai.evaluation.score.label": "pass",
        "gen_ai.evaluation.explanation": "The refund of $40 was issued, as asked.",
        "judgekit.kind": "verdict",
        "judgekit.run_id": "shop/otel",
        "judgekit.status": "scored",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "server.address": "gateway.example.com",
        "server.port": 8443,
        "judgekit.rubric.version": version,
        "judgekit.judge.model": "openai/gpt-4o-mini",
        "judgekit.judge.endpoint": SHOWN,
        "judgekit.version": __version__,
        "judgekit.confidence": 0.9,
        "judgekit.promotion.promoted": True,
        **{f"judgekit.promotion.{k}": v for k, v in _promotion(record).items()},
    }
    # Never a borrowed promotion: another version, another judge.
    assert {k: v for k, v in older.items() if k.startswith("judgekit.promotion.")} == {
        "judgekit.promotion.promoted": False,
        "judgekit.promotion.reason": (
            f"judged at rubric version 0ld0ld0ld0ld; goal_completion is promoted at version "
            f"{version}"
        ),
    }
    assert older["judgekit.rubric.version"] == "0ld0ld0ld0ld"
    assert "server.address" not in older  # the verdict recorded no endpoint
    assert other_judge["gen_ai.provider.name"] == "anthropic"
    assert other_judge["gen_ai.request.model"] == "claude-haiku-4-5"
    assert other_judge["judgekit.promotion.reason"] == (
        "judged by anthropic/claude-haiku-4-5; goal_completion is promoted with openai/gpt-4o-mini"
    )
    assert "judgekit.promotion.kappa" not in other_judge
    # The key and the query are nowhere in the file.
    text = (tmp_path / "out.otel").read_text(encoding="utf-8")
    assert "sk-proj" not in text and "s3cr3t" not in text and "ci-bot" not in text


def test_langfuse_and_langsmith_metadata_carry_the_same(
    tmp_path: Path, langsmith_server: str
) -> None:
    record = _promoted(tmp_path)
    version = record["rubric_version"]
    _verdicts(tmp_path, version)
    judge = {
        "rubric_id": "goal_completion",
        "rubric_version": version,
        "model": "openai/gpt-4o-mini",
        "endpoint": SHOWN,
        "judgekit_version": __version__,
        "confidence": 0.9,
    }
    promoted = {"judgekit_run_id": "shop/otel", "status": "scored", **judge, "promoted": True}
    promoted["promotion"] = _promotion(record)
    langfuse = [_request(score) for score in json_lines(_export(tmp_path, "langfuse"))]
    assert langfuse[0].metadata == promoted
    assert langfuse[1].metadata["promoted"] is False
    assert langfuse[1].metadata["not_promoted"] == (
        f"judged at rubric version 0ld0ld0ld0ld; goal_completion is promoted at version {version}"
    )
    feedback = sent_feedback(json_lines(_export(tmp_path, "langsmith")), langsmith_server)
    assert [f.feedback_source.metadata for f in feedback] == [s.metadata for s in langfuse]
    assert feedback[2].feedback_source.metadata["not_promoted"] == (
        "judged by anthropic/claude-haiku-4-5; goal_completion is promoted with openai/gpt-4o-mini"
    )


def test_a_rubric_never_promoted_lends_nothing(tmp_path: Path) -> None:
    (tmp_path / "rubrics").mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", tmp_path / "rubrics")
    _verdicts(tmp_path, "0ld0ld0ld0ld")
    events = _events(tmp_path, "--rubric", "goal_completion")
    assert [e["judgekit.promotion.reason"] for e in events] == [
        "goal_completion is draft: not calibrated yet"
    ] * 3
    assert {e["judgekit.promotion.promoted"] for e in events} == {False}


@pytest.mark.parametrize(
    ("edit", "reason"),
    [
        # Only the date changed: the digest no longer matches the content.
        (
            lambda record: record | {"promoted_at": "2026-01-01T00:00:00+00:00"},
            "its digest is not that of its content: it was edited after promotion",
        ),
        # A kappa raised and the digest sealed again: the evidence gives another kappa.
        (
            lambda record: _sealed(record | {"kappa": 0.99}),
            "kappa 0.99 in the record, 0.900 recomputed from its 60 pairs",
        ),
    ],
    ids=["digest-mismatch", "resealed-kappa"],
)
def test_an_edited_promotion_record_is_not_carried(tmp_path: Path, edit: Any, reason: str) -> None:
    record = _promoted(tmp_path)
    (tmp_path / RECORD).write_text(json.dumps(edit(record), indent=2), encoding="utf-8")
    _verdicts(tmp_path, record["rubric_version"])
    promoted, *_ = _events(tmp_path)
    assert promoted["judgekit.promotion.promoted"] is False
    assert promoted["judgekit.promotion.reason"] == f"goal_completion is invalid: {reason}"
    assert "judgekit.promotion.kappa" not in promoted


def _sealed(record: dict[str, Any]) -> dict[str, Any]:
    return record | {"digest": record_digest(record)}
