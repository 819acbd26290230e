"""`judgekit export` end to end: its sources (a file, the store, the labels folder), and
what it does with bad input (exit 2 naming the file, line and field; nothing written)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from judgekit.exporters import FORMAT_NAMES
from judgekit.exporters.export import FORMATS
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.store import open_store
from tests.conftest import REPO
from tests.exporters.world import (
    OTEL_SPAN,
    OTEL_TRACE,
    RUBRIC,
    RUNS,
    VERDICTS,
    export,
    files,
    json_lines,
    verdict,
    write_jsonl,
)


def test_the_help_lists_every_format_and_only_those() -> None:
    assert tuple(FORMATS) == FORMAT_NAMES == ("otel", "langsmith", "langfuse", "csv")


def test_a_malformed_verdict_line_is_exit_2_and_nothing_is_written(tmp_path: Path) -> None:
    verdicts, _ = files(tmp_path)
    with verdicts.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(verdict("shop/x").model_dump(mode="json") | {"status": "maybe"}))
        fh.write("\n")
    out = tmp_path / "scores.jsonl"
    out.write_text("kept\n", encoding="utf-8")
    result = export("verdicts", "--format", "langfuse", "--verdicts", verdicts, "-o", out)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"judgekit: error: {verdicts}:5: status: ")
    assert "'scored', 'unscored' or 'abstained'" in result.stderr
    assert out.read_text(encoding="utf-8") == "kept\n"


def test_a_malformed_runs_file_is_exit_2(tmp_path: Path) -> None:
    verdicts, runs = files(tmp_path)
    runs.write_text('{"run_id": "r", "task_id": "t", "tool_calls": {}}\n', encoding="utf-8")
    out = tmp_path / "out.csv"
    result = export(
        "verdicts", "--format", "csv", "--verdicts", verdicts, "--runs", runs, "-o", out
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: {runs}:1: tool_calls: Input should be a valid array\n"
    )
    assert not out.exists()


def test_a_score_off_the_rubric_scale_is_exit_2(tmp_path: Path) -> None:
    version = rubric_version(load_rubric(RUBRIC))  # judged under the rubric at hand
    path = write_jsonl(
        tmp_path / "v.jsonl",
        [verdict("a", rubric_version=version), verdict("b", rubric_version=version, score=7)],
    )
    result = export(
        "verdicts", "--format", "csv", "--rubric", RUBRIC, "--verdicts", path, "-o", tmp_path / "o"
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: {path}:2: score: 7 is not on the binary scale of goal_completion; "
        'a scored verdict\'s score is one of: "pass", "fail"\n'
    )


def test_no_verdicts_of_the_rubric_is_exit_2(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "v.jsonl", [verdict("a", rubric_id="tone")])
    out = tmp_path / "o.csv"
    result = export(
        "verdicts", "--format", "csv", "--rubric", RUBRIC, "--verdicts", path, "-o", out
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: {path}: no verdicts of rubric goal_completion to export\n"
    )
    assert not out.exists()


def test_verdicts_from_the_store_link_to_the_stored_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", f"sqlite:///{tmp_path / 'store.db'}")
    with open_store() as store:
        store.record_runs(RUNS, store.batch(key="runs"))
        store.record_verdicts(VERDICTS)
    out = tmp_path / "events.csv"
    result = export("verdicts", "--format", "csv", "-o", out)
    assert result.exit_code == 0, result.output
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["run_id"], r["status"], r["trace_id"], r["span_id"]) for r in rows] == [
        ("shop/otel", "scored", OTEL_TRACE, OTEL_SPAN),
        (
            "shop/langsmith",
            "scored",
            "0b1e9c3a-6d2f-4a8b-9c1d-2e3f4a5b6c7d",
            "7d6c5b4a-3f2e-4d1c-8b9a-0f1e2d3c4b5a",
        ),
        ("shop/bare", "unscored", "", ""),
        ("shop/unknown", "abstained", "", ""),
    ]
    assert result.stderr == (
        f"exported 4 verdicts (1 abstained, 2 scored, 1 unscored) as csv to {out}\n"
        "judgekit: warning: 2 exported without a trace link: 1 whose run is not among the "
        "runs read (the store's, --runs); 1 whose run carries no trace id csv takes\n"
    )


def test_labels_export_each_labellers_current_label(tmp_path: Path) -> None:
    labels = tmp_path / "goal_completion.jsonl"
    lines = [
        {"run_id": "shop/otel", "label": "fail", "labeler": "ana", "at": "2026-01-01T00:00:00Z"},
        {
            "run_id": "shop/otel",
            "label": "pass",
            "labeler": "ana",
            "at": "2026-01-02T00:00:00Z",
            "note": "-misread at first",
        },
        {"run_id": "shop/otel", "label": "true", "labeler": "bo", "at": "2026-01-03T00:00:00Z"},
        {"run_id": "shop/gone", "label": "fail", "labeler": "bo", "at": "2026-01-04T00:00:00Z"},
    ]
    labels.write_text(
        "".join(json.dumps(line | {"rubric_id": "goal_completion"}) + "\n" for line in lines),
        encoding="utf-8",
    )
    runs = write_jsonl(tmp_path / "runs.jsonl", RUNS)
    out = tmp_path / "labels.jsonl"
    result = export(
        "labels", "--rubric", RUBRIC, "--labels", labels, "--runs", runs,
        "--format", "langfuse", "-o", out,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    records = json_lines(out)
    assert [(r["metadata"]["labeler"], r["value"], r.get("traceId")) for r in records] == [
        ("ana", 1.0, OTEL_TRACE),  # the relabel supersedes "fail"
        ("bo", 1.0, OTEL_TRACE),  # "true" read as the scale's "pass"
        ("bo", 0.0, None),
    ]
    assert records[0]["comment"] == "-misread at first"  # JSON is not a spreadsheet
    assert {r["source"] for r in records} == {"ANNOTATION"}
    assert result.stderr == (
        f"exported 3 labels (3 labelled) as langfuse to {out}\n"
        "judgekit: warning: 1 exported without a trace link: 1 whose run is not among the "
        "runs of --runs\n"
    )


def test_the_repository_labels_export_from_the_labels_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(REPO)
    out = tmp_path / "labels.csv"
    result = export("labels", "--rubric", "goal_completion", "--format", "csv", "-o", out)
    assert result.exit_code == 0, result.output
    with out.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 120
    assert sum(r["score"] == "pass" for r in rows) == 68
    assert {r["by"] for r in rows} == {"demo-truth"}
    assert result.stderr == (
        f"exported 120 labels (120 labelled) as csv to {out}\n"
        "judgekit: warning: 120 exported without a trace link: 120 whose run is not among "
        "any runs (pass --runs to link them)\n"
    )


def test_labels_of_a_rubric_with_no_file_is_exit_2(tmp_path: Path) -> None:
    result = export(
        "labels", "--rubric", RUBRIC, "--labels-dir", tmp_path, "--format", "csv",
        "-o", tmp_path / "o.csv",
    )  # fmt: skip
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: {tmp_path / 'goal_completion.jsonl'}: no such file: no labels of "
        "rubric goal_completion to export\n"
    )


def test_a_label_off_the_scale_is_exit_2_and_nothing_is_written(tmp_path: Path) -> None:
    labels = tmp_path / "goal_completion.jsonl"
    good = {"run_id": "a", "rubric_id": "goal_completion", "label": "pass", "labeler": "ana"}
    bad = good | {"run_id": "b", "label": "maybe"}
    labels.write_text(
        "".join(json.dumps(line | {"at": "2026-01-01T00:00:00Z"}) + "\n" for line in (good, bad)),
        encoding="utf-8",
    )
    out = tmp_path / "labels.csv"
    result = export("labels", "--rubric", RUBRIC, "--labels", labels, "--format", "csv", "-o", out)
    assert result.exit_code == 2
    assert result.stderr == (
        f'judgekit: error: {labels}:2: label: unknown label "maybe" for the binary scale of '
        'goal_completion; valid labels are "pass", "fail"\n'
    )
    assert not out.exists()
