"""Spans recorded with the real OpenTelemetry SDK, written as the SDK's console exporter and
the OTLP JSON encoding write them: the files the span importers' tests read."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

trace_sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="needs opentelemetry-sdk")
in_memory = pytest.importorskip(
    "opentelemetry.sdk.trace.export.in_memory_span_exporter", reason="needs opentelemetry-sdk"
)
export = pytest.importorskip("opentelemetry.sdk.trace.export", reason="needs opentelemetry-sdk")

Recorder = Callable[[Any], None]


def record_spans(script: Recorder) -> Sequence[Any]:
    """The finished spans of ``script(tracer)``, recorded by a real TracerProvider."""
    exporter = in_memory.InMemorySpanExporter()
    provider = trace_sdk.TracerProvider()
    provider.add_span_processor(export.SimpleSpanProcessor(exporter))
    script(provider.get_tracer("judgekit-tests"))
    provider.shutdown()
    return exporter.get_finished_spans()


def write_console(spans: Sequence[Any], path: Path) -> Path:
    """As the SDK's ConsoleSpanExporter writes them: span.to_json() objects one after another."""
    with path.open("w", encoding="utf-8") as out:
        export.ConsoleSpanExporter(out=out).export(spans)
    return path


def write_otlp_json(spans: Sequence[Any], path: Path) -> Path:
    """As OTLP JSON: the SDK's OTLP protobuf encoding, in protobuf's JSON mapping, one line."""
    encoder = pytest.importorskip(
        "opentelemetry.exporter.otlp.proto.common.trace_encoder",
        reason="needs opentelemetry-exporter-otlp-proto-common",
    )
    json_format = pytest.importorskip("google.protobuf.json_format", reason="needs protobuf")
    document = json_format.MessageToDict(encoder.encode_spans(spans))
    path.write_text(json.dumps(document) + "\n")
    return path
