"""Verdicts, runs and labels the exporter tests share: one of each case an export meets."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from tests.conftest import REPO

RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
AT = datetime(2026, 11, 29, 10, 2, 11, 123456, tzinfo=UTC)
OTEL_TRACE = "5b8efff798038103d269b633813fc60c"
OTEL_SPAN = "eee19b7ec3c1b174"
LS_TRACE = "0b1e9c3a-6d2f-4a8b-9c1d-2e3f4a5b6c7d"
LS_RUN = "7d6c5b4a-3f2e-4d1c-8b9a-0f1e2d3c4b5a"
LS_PROJECT = "3c2d1e0f-5a4b-4c6d-9e8f-1a2b3c4d5e6f"
# Why a verdict exported where no rubrics/ holds its rubric stands on no promotion.
NO_RUBRIC = "no rubric file of goal_completion in rubrics to check a promotion by"


def verdict(run_id: str, **changes: object) -> Verdict:
    fields: dict[str, object] = {
        "run_id": run_id,
        "rubric_id": "goal_completion",
        "rubric_version": "3f2a9c",
        "model": "openai/gpt-4o-mini",
        "status": "scored",
        "score": "pass",
        "reason": "The refund of $40 was issued, as asked.",
        "at": AT,
    }
    fields.update(changes)
    return Verdict.model_validate(fields)


# Scored pass on an OpenTelemetry span; scored fail on a LangSmith run; unscored on a run
# with no trace id; abstained on a run nobody gave.
VERDICTS = [
    verdict("shop/otel", confidence=0.9),
    verdict("shop/langsmith", score="fail", reason='=HYPERLINK("http://evil")'),
    verdict(
        "shop/bare",
        status="unscored",
        score=None,
        reason=None,
        unscored_reason="not JSON after one retry: 'I think it passes'",
    ),
    verdict("shop/unknown", status="abstained", score="pass", confidence=0.4),
]
RUNS = [
    Run(
        run_id="shop/otel",
        task_id="shop",
        tool_calls=[],
        metadata={"trace_id": OTEL_TRACE, "span_id": OTEL_SPAN},
    ),
    Run(
        run_id="shop/langsmith",
        task_id="shop",
        tool_calls=[],
        metadata={"trace_id": LS_TRACE, "span_id": LS_RUN, "langsmith_project_id": LS_PROJECT},
    ),
    Run(run_id="shop/bare", task_id="shop", tool_calls=[]),
]


def write_jsonl(path: Path, rows: list[Verdict] | list[Run]) -> Path:
    path.write_text("".join(row.model_dump_json() + "\n" for row in rows), encoding="utf-8")
    return path


def files(tmp_path: Path) -> tuple[Path, Path]:
    """The verdicts file and the runs file."""
    return write_jsonl(tmp_path / "verdicts.jsonl", VERDICTS), write_jsonl(
        tmp_path / "runs.jsonl", RUNS
    )


def export(*args: str | Path) -> Result:
    return CliRunner().invoke(main, ["export", *[str(a) for a in args]])


def export_verdicts(tmp_path: Path, fmt: str, name: str) -> tuple[Result, Path]:
    verdicts, runs = files(tmp_path)
    out = tmp_path / name
    result = export("verdicts", "--format", fmt, "--verdicts", verdicts, "--runs", runs, "-o", out)
    return result, out


def json_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
