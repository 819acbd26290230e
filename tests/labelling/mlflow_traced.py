"""MLflow traces of ``n`` agent calls made by MLflow's tracing SDK itself (``@mlflow.trace``),
each holding a person's feedback and an LLM judge's, written one ``Trace.to_json()`` per
line: one file that is both the runs export (``judgekit import mlflow``) and the labels export
(``judgekit labels import mlflow``), as ``mlflow.search_traces`` gives a team both.

Run as a program (``python -m tests.labelling.mlflow_traced OUT N``), not imported: MLflow's
tracing sets the process's global OpenTelemetry tracer provider, which the other tests' own
providers must not meet. No tracking server is reached: the exporter takes each finished trace
from MLflow's in-memory trace manager, as MLflow's own exporters do before sending it.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import mlflow
from mlflow.entities import AssessmentSource, Feedback, SpanType, Trace
from mlflow.entities.trace_location import MlflowExperimentLocation
from mlflow.tracing.processor.mlflow_v3 import MlflowV3SpanProcessor
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import TracerProvider

from examples.traces.record_mlflow import KeepTraces
from tests.labelling.platform_exports import answer, at, correct, question


@mlflow.trace(span_type=SpanType.AGENT)
def agent(question: str) -> str:
    return answer(int(question.removeprefix("Refund order A").removesuffix("?")))


def feedback(i: int, trace_id: str, value: bool, source: AssessmentSource) -> Feedback:
    made = Feedback(name="correctness", value=value, trace_id=trace_id, source=source)
    made.create_time_ms = made.last_update_time_ms = int(at(i).timestamp() * 1000)
    return made


def record(n: int) -> list[Trace]:
    os.environ["MLFLOW_USE_DEFAULT_TRACER_PROVIDER"] = "false"
    mlflow.set_tracking_uri("http://127.0.0.1:9")  # never reached: the exporter keeps traces
    mlflow.tracing.set_destination(MlflowExperimentLocation("1"))
    exporter = KeepTraces()
    provider = TracerProvider()
    provider.add_span_processor(MlflowV3SpanProcessor(span_exporter=exporter, export_metrics=False))
    otel_trace.set_tracer_provider(provider)
    person = AssessmentSource(source_type="HUMAN", source_id="ana@example.com")
    judge = AssessmentSource(source_type="LLM_JUDGE", source_id="gpt-4o")
    for i in range(n):
        agent(question(i))
    for i, trace in enumerate(exporter.traces):
        trace_id = trace.info.trace_id
        trace.info.assessments = [
            feedback(i, trace_id, correct(i), person),
            feedback(i, trace_id, True, judge),
        ]
    return exporter.traces


def main() -> None:
    out, n = Path(sys.argv[1]), int(sys.argv[2])
    out.write_text("".join(trace.to_json() + "\n" for trace in record(n)), encoding="utf-8")


if __name__ == "__main__":
    main()
