"""Runs and human labels as each platform's own SDK classes make them, dumped as users dump
them: Langfuse observations and scores (``langfuse.api`` models, ``.json()``), LangSmith
runs and feedback (``langsmith.schemas``, ``model_dump_json``), Phoenix spans (the
OpenTelemetry SDK with OpenInference attributes, OTLP JSON) and span annotations
(``phoenix.client`` v1 types, as ``get_span_annotations`` returns them), MLflow traces
holding assessments (``mlflow.entities``, ``Trace.to_json()``).

Trace ``i`` asks ``Refund order A<i>?``; the person labels it correct when ``i`` is odd.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from judgekit.formats.run import Run
from tests.importers.otel_spans import record_spans, write_otlp_json

langfuse_api = pytest.importorskip("langfuse.api", reason="the langfuse SDK builds the export")
schemas = pytest.importorskip("langsmith.schemas", reason="the langsmith SDK builds the export")
v1 = pytest.importorskip("phoenix.client.__generated__.v1", reason="arize-phoenix-client")
mlflow_entities = pytest.importorskip("mlflow.entities", reason="mlflow-tracing")

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def question(i: int) -> str:
    return f"Refund order A{i}?"


def answer(i: int) -> str:
    return f"Order A{i} is refunded." if i % 2 else f"Order A{i} cannot be found."


def correct(i: int) -> bool:
    return i % 2 == 1


def at(i: int) -> datetime:
    return START + timedelta(minutes=i)


# Langfuse ------------------------------------------------------------------------------


def langfuse_trace_id(i: int) -> str:
    return f"{0xA000 + i:032x}"


def langfuse_runs(path: Path, n: int) -> Path:
    """One AGENT observation per trace, its input and output, in an API page."""
    observations = [
        langfuse_api.ObservationV2(
            id=f"obs-{i}", trace_id=langfuse_trace_id(i), project_id="proj", type="AGENT",
            name="refund_agent", start_time=at(i), end_time=at(i) + timedelta(seconds=2),
            input={"question": question(i)}, output=answer(i),
        )
        for i in range(n)
    ]  # fmt: skip
    page = langfuse_api.ObservationsV2Response(
        data=observations, meta=langfuse_api.ObservationsV2Meta(cursor=None)
    )
    path.write_text(page.json())
    return path


def langfuse_score(i: int, **fields: Any) -> Any:
    """A person's categorical score of trace ``i`` in an annotation queue, by user-ana."""
    base: dict[str, Any] = dict(
        id=f"score-{i}", trace_id=langfuse_trace_id(i), name="correctness",
        source="ANNOTATION", timestamp=at(i), created_at=at(i), updated_at=at(i),
        value=1 if correct(i) else 0, string_value="correct" if correct(i) else "incorrect",
        author_user_id="user-ana", environment="default", config_id="cfg-1", queue_id="q-1",
    )  # fmt: skip
    base.update(fields)
    kind = base.pop("data_type", "CATEGORICAL")
    if kind == "NUMERIC":
        base.pop("string_value")
    # The classes of the API's Score union, which `api.scores` returns (with dataType).
    model = {"NUMERIC": "Score_Numeric", "BOOLEAN": "Score_Boolean"}.get(kind, "Score_Categorical")
    return getattr(langfuse_api, model)(**base)


def langfuse_config() -> Any:
    return langfuse_api.ScoreConfig(
        id="cfg-1", name="correctness", created_at=START, updated_at=START, project_id="proj",
        data_type="CATEGORICAL", is_archived=False,
        categories=[langfuse_api.ConfigCategory(value=1, label="correct"),
                    langfuse_api.ConfigCategory(value=0, label="incorrect")],
    )  # fmt: skip


def langfuse_queue_item(i: int, status: str) -> Any:
    return langfuse_api.AnnotationQueueItem(
        id=f"item-{i}", queue_id="q-1", object_id=langfuse_trace_id(i), object_type="TRACE",
        status=status, created_at=START, updated_at=at(i),
    )  # fmt: skip


def langfuse_labels(path: Path, n: int) -> Path:
    """The scores (a judge's EVAL score beside each person's), the config and the queue's
    items, one object per line as ``.json()`` writes them."""
    objects: list[Any] = [langfuse_config()]
    for i in range(n):
        objects.append(langfuse_score(i))
        objects.append(langfuse_score(i, id=f"eval-{i}", source="EVAL", author_user_id=None,
                                      queue_id=None))  # fmt: skip
        objects.append(langfuse_queue_item(i, "COMPLETED"))
    path.write_text("".join(obj.json() + "\n" for obj in objects))
    return path


# LangSmith -----------------------------------------------------------------------------


LANGSMITH_PROJECT = uuid.UUID(int=4242)  # the project every trace was traced to


def langsmith_trace_id(i: int) -> uuid.UUID:
    return uuid.UUID(int=1000 + i)


def langsmith_runs(path: Path, n: int) -> Path:
    """One root chain run per trace."""
    runs = [
        schemas.Run(
            id=langsmith_trace_id(i), trace_id=langsmith_trace_id(i), parent_run_id=None,
            dotted_order=f"{at(i):%Y%m%dT%H%M%S%fZ}{langsmith_trace_id(i)}", name="agent",
            run_type="chain", start_time=at(i), end_time=at(i) + timedelta(seconds=2),
            inputs={"question": question(i)}, outputs={"output": answer(i)},
            session_id=LANGSMITH_PROJECT,
        )
        for i in range(n)
    ]  # fmt: skip
    path.write_text("".join(run.model_dump_json() + "\n" for run in runs))
    return path


def langsmith_feedback(i: int, **fields: Any) -> Any:
    """A person's feedback on trace ``i`` from the app, by ana."""
    base: dict[str, Any] = dict(
        id=uuid.UUID(int=5000 + i), run_id=langsmith_trace_id(i),
        trace_id=langsmith_trace_id(i), key="correctness", score=1 if correct(i) else 0,
        created_at=at(i), modified_at=at(i),
        feedback_source=schemas.FeedbackSourceBase(type="app", user_id="u-ana", user_name="ana"),
    )  # fmt: skip
    base.update(fields)
    return schemas.Feedback(**base)


def langsmith_labels(path: Path, n: int) -> Path:
    """Each trace's feedback from ana, and a model's beside it."""
    model = schemas.FeedbackSourceBase(type="model", metadata={"model": "gpt-4o"})
    feedback = []
    for i in range(n):
        feedback.append(langsmith_feedback(i))
        feedback.append(langsmith_feedback(i, id=uuid.UUID(int=9000 + i), feedback_source=model))
    path.write_text("".join(f.model_dump_json() + "\n" for f in feedback))
    return path


# Phoenix -------------------------------------------------------------------------------


def phoenix_spans(n: int) -> list[Any]:
    """Each trace one AGENT span, traced with OpenInference's attributes."""

    def script(tracer: Any) -> None:
        for i in range(n):
            with tracer.start_as_current_span(
                "agent",
                attributes={"openinference.span.kind": "AGENT", "input.value": question(i),
                            "output.value": answer(i)},
            ):  # fmt: skip
                pass

    return list(record_spans(script))


def phoenix_runs(path: Path, spans: list[Any]) -> Path:
    return write_otlp_json(spans, path)


def span_hex(span: Any) -> str:
    return format(span.context.span_id, "016x")


def phoenix_annotation(span: Any, i: int, **fields: Any) -> dict[str, Any]:
    """A person's annotation of the span, as ``get_span_annotations`` returns it."""
    base: dict[str, Any] = dict(
        id=f"QW5ub3RhdGlvbjo{i}", span_id=span_hex(span), name="correctness",
        annotator_kind="HUMAN", source="APP", user_id="VXNlcjox",
        result=v1.AnnotationResult(label="correct" if correct(i) else "incorrect"),
        created_at=at(i).isoformat(), updated_at=at(i).isoformat(),
    )  # fmt: skip
    base.update(fields)
    made: dict[str, Any] = v1.SpanAnnotation(**base)
    return made


def phoenix_labels(path: Path, spans: list[Any]) -> Path:
    """A person's and an LLM's annotation of each span, as one JSON list."""
    annotations = []
    for i, span in enumerate(spans):
        annotations.append(phoenix_annotation(span, i))
        llm = v1.AnnotationResult(label="correct", score=0.9)
        annotations.append(phoenix_annotation(span, i, annotator_kind="LLM", user_id=None,
                                              source="API", result=llm))  # fmt: skip
    path.write_text(json.dumps(annotations))
    return path


# MLflow --------------------------------------------------------------------------------


def mlflow_trace_id(i: int) -> str:
    return f"tr-{i:032x}"


def mlflow_runs(path: Path, n: int) -> Path:
    """Runs as `judgekit import mlflow` names them: the run id is the MLflow trace id."""
    runs = [
        Run(run_id=mlflow_trace_id(i), task_id="refund", input=question(i), final_answer=answer(i))
        for i in range(n)
    ]
    path.write_text("".join(run.model_dump_json(exclude_none=True) + "\n" for run in runs))
    return path


def mlflow_feedback(i: int, **fields: Any) -> Any:
    base: dict[str, Any] = dict(
        name="correctness", value=correct(i), rationale=None, trace_id=mlflow_trace_id(i),
        source=mlflow_entities.AssessmentSource(source_type="HUMAN", source_id="ana@example.com"),
    )  # fmt: skip
    base.update(fields)
    feedback = mlflow_entities.Feedback(**base)
    when = int(at(i).timestamp() * 1000)
    feedback.create_time_ms = feedback.last_update_time_ms = when
    return feedback


def mlflow_trace(i: int, assessments: list[Any]) -> Any:
    info = mlflow_entities.TraceInfo(
        trace_id=mlflow_trace_id(i),
        trace_location=mlflow_entities.TraceLocation.from_experiment_id("1"),
        request_time=int(at(i).timestamp() * 1000),
        state=mlflow_entities.TraceState.OK,
        assessments=assessments,
    )
    return mlflow_entities.Trace(info=info, data=mlflow_entities.TraceData(spans=[]))


def mlflow_labels(path: Path, n: int) -> Path:
    """Each trace (``to_json()``, one per line) with a person's feedback and a judge's."""
    judge = mlflow_entities.AssessmentSource(source_type="LLM_JUDGE", source_id="gpt-4o")
    traces = [
        mlflow_trace(i, [mlflow_feedback(i), mlflow_feedback(i, value=True, source=judge)])
        for i in range(n)
    ]
    path.write_text("".join(trace.to_json() + "\n" for trace in traces))
    return path


# The four, for the tests that run over each ----------------------------------------------

Maker = Callable[[Path, int], tuple[Path, Path]]


def _phoenix(folder: Path, n: int) -> tuple[Path, Path]:
    spans = phoenix_spans(n)
    return (phoenix_runs(folder / "spans.json", spans),
            phoenix_labels(folder / "annotations.json", spans))  # fmt: skip


EXPORTS: dict[str, Maker] = {
    "langfuse": lambda folder, n: (langfuse_runs(folder / "observations.json", n),
                                   langfuse_labels(folder / "scores.jsonl", n)),
    "langsmith": lambda folder, n: (langsmith_runs(folder / "runs.langsmith.jsonl", n),
                                    langsmith_labels(folder / "feedback.jsonl", n)),
    "phoenix": _phoenix,
    "mlflow": lambda folder, n: (mlflow_runs(folder / "runs.jsonl", n),
                                 mlflow_labels(folder / "traces.jsonl", n)),
}  # fmt: skip
# How each platform's human values map to the binary scale, and the run importer's command.
MAPS = {
    "langfuse": ["correct=pass", "incorrect=fail"],
    "langsmith": ["1=pass", "0=fail"],
    "phoenix": ["correct=pass", "incorrect=fail"],
    "mlflow": ["true=pass", "false=fail"],
}
RUN_IMPORTERS = {"langfuse": "langfuse", "langsmith": "langsmith", "phoenix": "openinference"}
