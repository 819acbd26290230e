"""Each sample file is claimed by its own importer alone, so `judgekit import X` on it
names that importer and no other."""

from __future__ import annotations

import json
from pathlib import Path

from judgekit.importers.json_values import file_head
from judgekit.importers.registry import IMPORTERS
from tests.importers import test_openai_responses_import as responses
from tests.importers import test_openinference_import as openinference
from tests.importers import test_otel_import as otel
from tests.importers.otel_spans import record_spans, write_console, write_otlp_json

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "transcripts"
TRACES = Path(__file__).resolve().parents[2] / "examples" / "traces"


def _claimants(path: Path) -> list[str]:
    head = file_head(path)
    return [name for name, importer in IMPORTERS.items() if importer.looks_like(head)]


def test_each_sample_is_claimed_by_its_importer_alone(tmp_path: Path) -> None:
    chain = responses._refund_chain()
    (tmp_path / "r.jsonl").write_text("".join(json.dumps(record) + "\n" for record in chain))
    (tmp_path / "r.json").write_text(json.dumps(chain, indent=2))
    samples = {
        write_console(record_spans(otel._refund_agent), tmp_path / "o1.json"): "otel",
        write_otlp_json(record_spans(otel._refund_agent), tmp_path / "o2.json"): "otel",
        write_console(record_spans(openinference._refund_agent), tmp_path / "i1.json"): (
            "openinference"
        ),
        write_otlp_json(record_spans(openinference._refund_agent), tmp_path / "i2.json"): (
            "openinference"
        ),
        tmp_path / "r.jsonl": "openai-responses",
        tmp_path / "r.json": "openai-responses",
        TRACES / "mlflow_traces.jsonl": "mlflow",
        TRACES / "mlflow_traces.json": "mlflow",
        TRACES / "mlflow_anthropic.json": "mlflow",
        EXAMPLES / "shop_openai.jsonl": "openai",
        EXAMPLES / "shop_anthropic.json": "anthropic",
    }
    assert {path.name: _claimants(path) for path in samples} == {
        path.name: [name] for path, name in samples.items()
    }
