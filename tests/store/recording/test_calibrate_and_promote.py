"""`judgekit calibrate` records its report and `judgekit promote` its promotion."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import select

from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.store import open_store, schema
from tests.conftest import REPO
from tests.store.recording.conftest import counts, invoke, rows, store_file

MODEL = "openai/gpt-4o-mini"
T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def workspace(root: Path, n_per_class: int, side: str = "dev") -> list[str]:
    """A rubric, verdicts and labels where the judge misses 2 runs per class, every labelled
    run recorded on ``side`` of the split (calibrate measures dev, promote test); the
    options that point the commands at them."""
    rubric = root / "rubrics" / "goal_completion.yaml"
    rubric.parent.mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", rubric)
    version = rubric_version(load_rubric(rubric))
    verdicts, labels = [], []
    for cls, other in (("pass", "fail"), ("fail", "pass")):
        for i in range(n_per_class):
            at = (T0 + timedelta(minutes=i)).isoformat()
            run = f"{cls}-{i}"
            verdicts.append(
                {
                    "run_id": run,
                    "rubric_id": "goal_completion",
                    "rubric_version": version,
                    "model": MODEL,
                    "status": "scored",
                    "score": other if i < 2 else cls,
                    "at": at,
                }
            )
            labels.append(
                {
                    "run_id": run,
                    "rubric_id": "goal_completion",
                    "label": cls,
                    "labeler": "ana",
                    "at": at,
                }
            )
    (root / "verdicts.jsonl").write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    (root / "labels.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    split = [
        {
            "run_id": x["run_id"],
            "side": side,
            "test_share": 1.0 if side == "test" else 0.0,
            "at": x["at"],
        }
        for x in labels
    ]
    (root / "labels.split.jsonl").write_text("".join(json.dumps(x) + "\n" for x in split))
    return [
        "--rubric",
        str(rubric),
        "--verdicts",
        str(root / "verdicts.jsonl"),
        "--labels",
        str(root / "labels.jsonl"),
    ]


def test_calibrate_records_the_report_once(tmp_path: Path) -> None:
    options = workspace(tmp_path, n_per_class=30)
    code, out, _ = invoke("calibrate", *options, "--json")
    assert code == 0
    report = json.loads(out)
    assert invoke("calibrate", *options)[0] == 0  # the same report: kept once
    assert counts() == rows(calibrations=1)
    table = schema.calibrations
    with open_store() as store, store.engine.connect() as connection:
        row = connection.execute(select(table)).mappings().one()
    assert (row["rubric_id"], row["model"], row["n"], row["promotable"]) == (
        "goal_completion",
        MODEL,
        60,
        True,
    )
    assert row["kappa"] == report["kappa"]
    assert row["data"] == report


def test_calibrate_no_store(tmp_path: Path) -> None:
    options = workspace(tmp_path, n_per_class=30)
    assert invoke("calibrate", *options, "--no-store", "--md")[0] == 0
    assert not store_file().exists()


def test_calibrate_records_nothing_on_error(tmp_path: Path) -> None:
    options = workspace(tmp_path, n_per_class=30)
    (tmp_path / "labels.jsonl").unlink()
    code, _, err = invoke("calibrate", *options)
    assert code == 2
    assert err.startswith("judgekit: error: ")
    assert not store_file().exists()


def test_promote_records_the_promotion(tmp_path: Path) -> None:
    options = workspace(tmp_path, n_per_class=30, side="test")
    code, out, _ = invoke("promote", *options)
    assert code == 0, out
    record = json.loads((tmp_path / "rubrics" / "goal_completion.promotion.json").read_text())
    assert counts() == rows(promotions=1)
    table = schema.promotions
    with open_store() as store, store.engine.connect() as connection:
        row = connection.execute(select(table)).mappings().one()
    assert (row["rubric_version"], row["model"], row["status"], row["kappa"]) == (
        record["rubric_version"],
        MODEL,
        "promoted",
        record["kappa"],
    )
    assert row["at"] == datetime.fromisoformat(record["promoted_at"])
    assert row["data"] == record


def test_a_refused_promotion_records_nothing(tmp_path: Path) -> None:
    options = workspace(tmp_path, n_per_class=8, side="test")
    assert invoke("promote", *options)[0] == 1
    assert not store_file().exists()


def test_promote_no_store(tmp_path: Path) -> None:
    options = workspace(tmp_path, n_per_class=30, side="test")
    assert invoke("promote", *options, "--no-store")[0] == 0
    assert (tmp_path / "rubrics" / "goal_completion.promotion.json").exists()
    assert not store_file().exists()
