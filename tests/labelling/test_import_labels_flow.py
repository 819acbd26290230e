"""The whole flow on each platform's human labels: runs imported from the platform's trace
export (MLflow's traces made by its tracing SDK, one file of traces holding their
assessments), the human labels imported, the runs judged by the simulated judge through the
real openai SDK, `calibrate` on the dev labels and `promote` on the held-out test labels, both
on the imported labels alone; then the verdicts exported as OpenTelemetry
``gen_ai.evaluation.result`` events (and, for Langfuse and LangSmith, as their scores and
feedback) carrying the judge and the promotion the verdicts stand on, each event linked to
the platform's trace."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from judgekit.formats.run import load_runs
from judgekit.formats.split_file import read_split_file
from judgekit.judging.fake_judge import FakeJudge
from judgekit.judging.prompt_runs import PromptRuns
from judgekit.testing import FakeLLMServer
from tests.exporters.langsmith_recorder import sent_feedback, serving
from tests.exporters.test_langfuse_scores import _request
from tests.exporters.test_otel_events import _as_proto_json, _attributes
from tests.labelling import platform_exports as px
from tests.labelling.import_world import World, invoke

N = 40


@pytest.mark.parametrize("platform", ["langfuse", "langsmith", "phoenix", "mlflow"])
def test_imported_labels_calibrate_and_promote(tmp_path: Path, platform: str) -> None:
    world = World(tmp_path, platform, N, traced=platform == "mlflow")
    code, out, err = world.import_labels()
    assert (code, err) == (0, ""), err
    split = read_split_file(world.split)
    sides = [line.side for line in split.assignments.values()]
    n_test = sides.count("test")
    assert (len(sides), n_test) == (N, 20)  # test_share 0.5, each class halved
    assert f"imported: {N} new into {world.labels} (dev 20, test 20)" in out

    runs = list(load_runs(world.runs))
    truth = {run.run_id: px.correct(int(str(run.input)[14:-1])) for run in runs}
    judge = FakeJudge(truth, PromptRuns(runs), error_rate=0.0)
    verdicts = tmp_path / "out" / "verdicts.jsonl"
    with FakeLLMServer(reply=judge.reply) as server:
        code, _, err = invoke(
            *("judge", world.runs, "--rubric", world.rubric, "--base-url", server.openai_base_url),
            *("--out", tmp_path / "out", "--no-store"),
        )
    assert code == 0, err
    assert judge.answered["unknown"] == 0
    labels = ("--verdicts", verdicts, "--labels", world.labels, "--no-store")
    code, out, err = invoke("calibrate", "--rubric", world.rubric, *labels, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["n"], report["kappa"]) == (N - n_test, 1.0)
    assert list(report["labelers"]) == [world.label_lines()[0]["labeler"]]
    code, out, err = invoke("promote", "--rubric", world.rubric, *labels)
    assert code == 0, out + err
    record = json.loads((tmp_path / "rubrics" / "correct.promotion.json").read_text())
    assert (record["n"], record["kappa"]) == (n_test, 1.0)
    _exports_carry_judge_and_promotion(tmp_path, world, record, platform)


def _exports_carry_judge_and_promotion(
    tmp_path: Path, world: World, record: dict[str, Any], platform: str
) -> None:
    runs = {run.run_id: run for run in load_runs(world.runs)}
    events = _otel_events(tmp_path, world)
    assert len(events) == N
    for event in events:
        run = runs[str(event["judgekit.run_id"])]
        assert event["judgekit.rubric.version"] == record["rubric_version"]
        assert event["judgekit.judge.model"] == "openai/gpt-4o-mini"
        assert event["judgekit.promotion.promoted"] is True
        assert event["judgekit.promotion.kappa"] == 1.0
        assert event["judgekit.promotion.n_held_out"] == record["n"] == 20
        assert event["judgekit.promotion.promoted_at"] == record["promoted_at"]
        assert event["judgekit.promotion.digest"] == record["digest"]
        assert event["judgekit.promotion.record"] == str(
            tmp_path / "rubrics" / "correct.promotion.json"
        )
        assert event["trace_id"] == _otel_trace_id(run.metadata["trace_id"])
    if platform in ("langfuse", "langsmith"):
        metadata = _native_metadata(tmp_path, world, platform)
        assert len(metadata) == N
        assert {(m["model"], m["promoted"], m["promotion"]["kappa"]) for m in metadata} == {
            ("openai/gpt-4o-mini", True, 1.0)
        }
        assert {m["promotion"]["digest"] for m in metadata} == {record["digest"]}


def _otel_trace_id(trace_id: str) -> str:
    """The event's trace id: MLflow's ``tr-<hex>`` and LangSmith's UUID as the 32 hex digits
    OpenTelemetry uses."""
    return trace_id.removeprefix("tr-").replace("-", "")


def _export(tmp_path: Path, world: World, fmt: str) -> Path:
    out = tmp_path / f"out.{fmt}"
    verdicts = tmp_path / "out" / "verdicts.jsonl"
    code, _, err = invoke(
        *("export", "verdicts", "--format", fmt, "--rubric", world.rubric),
        *("--verdicts", verdicts, "--runs", world.runs, "-o", out),
    )
    assert code == 0, err
    return out


def _otel_events(tmp_path: Path, world: World) -> list[dict[str, object]]:
    document = json.loads(_export(tmp_path, world, "otel").read_text(encoding="utf-8"))
    request = json_format.Parse(_as_proto_json(document), ExportLogsServiceRequest())
    records = request.resource_logs[0].scope_logs[0].log_records
    return [_attributes(r) | {"trace_id": r.trace_id.hex()} for r in records]


def _native_metadata(tmp_path: Path, world: World, fmt: str) -> list[dict[str, Any]]:
    """Each score's or feedback's metadata as the platform's SDK reads or sends it."""
    lines = _export(tmp_path, world, fmt).read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    if fmt == "langfuse":
        return [_request(record).metadata for record in records]
    with serving() as url:
        feedback = sent_feedback(records, url)
    # Each in the project its trace was imported from, as LangSmith asks of run feedback.
    assert {f.session_id for f in feedback} == {px.LANGSMITH_PROJECT}
    return [f.feedback_source.metadata for f in feedback]
