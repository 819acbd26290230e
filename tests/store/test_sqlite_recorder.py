"""The SQLite recorder (what judging records through, without SQLAlchemy) writes exactly the
rows the full store writes, opens only a store it may write as it is, and fails as the full
store fails."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import StoreError
from judgekit.store import Store, open_store, schema, sqlite_sql
from judgekit.store.run_recording import RunRecorder
from judgekit.store.sqlite_recorder import SqliteRecorder, _create_store, open_sqlite_recorder
from judgekit.store.sqlite_sql_source import rendered_values
from judgekit.testing import FakeLLMServer
from tests.store.factories import make_grade, make_run, make_verdict
from tests.store.test_bulk_writes import stored, varied_verdicts

REPO = Path(__file__).resolve().parents[2]
RUBRIC = """\
id: refunds
description: Did the agent refund the order?
scale: binary
applies_to: final_answer
prompt: |
  The user asked: <task>{input}</task>
  The agent answered: <answer>{final_answer}</answer>
  Score "pass" when the refund is reported done, else "fail".
judge: {model: openai/gpt-4o-mini, temperature: 0, samples: 1}
"""


def test_the_rendered_sql_is_the_store_s_sql_now() -> None:
    for name, value in rendered_values().items():
        assert getattr(sqlite_sql, name) == value, (
            f"judgekit/store/sqlite_sql.py is out of date ({name}): "
            "run python -m judgekit.store.sqlite_sql_source, then ruff format it"
        )


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("JUDGEKIT_HOME", str(tmp_path))
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)
    with open_store():
        pass  # created and migrated, as the first recording does
    yield tmp_path / "judgekit.sqlite"


def _record(recorder: RunRecorder, verdicts: Any) -> int:
    batch = recorder.batch(key="runs:abc", source="judge", branch="main", tags={"ci": "1"})
    assert recorder.batch(key="runs:abc", source="other") == batch  # found, details kept
    recorder.record_runs([make_run("r/1"), make_run("r/2"), make_run("r/1", trial=9)], batch)
    recorder.record_grades([make_grade("r/1"), make_grade("r/2")], batch)
    recorder.record_verdicts(verdicts, batch)  # type: ignore[attr-defined]
    # An unscored verdict never replaces a scored one; a scored one replaces it.
    unscored = make_verdict("v/0", status="unscored", score=None, unscored_reason="off")
    recorder.record_verdicts([unscored, make_verdict("v/4", score=3)], batch)  # type: ignore[attr-defined]
    return batch


def test_the_recorder_writes_the_rows_the_full_store_writes(home: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin.sqlite"
    with open_store(f"sqlite:///{twin}") as full:
        full_batch = _record(full, varied_verdicts())
    recorder = open_sqlite_recorder()
    assert recorder is not None
    with recorder:
        assert recorder.url == f"sqlite:///{home}"
        lean_batch = _record(recorder, varied_verdicts())
    with open_store(f"sqlite:///{twin}") as full, open_store() as lean:
        assert lean.url == recorder.url
        for table in (schema.runs, schema.grades, schema.verdicts):
            expected = stored(
                full, table, full_batch, leave_out=("at",) * (table is not schema.verdicts)
            )
            assert (
                stored(lean, table, lean_batch, leave_out=("at",) * (table is not schema.verdicts))
                == expected
            )
        assert _batch_details(lean) == _batch_details(full)
        assert _day_totals(lean) == _day_totals(full) != []
        assert len(stored(lean, schema.verdicts, lean_batch)) == 11
        assert lean.verdicts("goal_completion")[0].run_id == "v/0"


def _day_totals(store: Store) -> list[tuple[Any, ...]]:
    with store.engine.connect() as connection:
        query = "SELECT * FROM verdict_day_totals ORDER BY rubric_id, model, day, batch_id"
        return [tuple(row) for row in connection.exec_driver_sql(query)]


def _batch_details(store: Store) -> list[tuple[Any, ...]]:
    return [(b.batch_key, b.source, b.branch, b.tags) for b in store.batches()]


def test_a_new_store_is_made_as_the_migrations_make_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_HOME", str(tmp_path / "lean"))
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)
    (tmp_path / "lean").mkdir()
    recorder = open_sqlite_recorder()
    assert recorder is not None
    recorder.close()
    with open_store(f"sqlite:///{tmp_path / 'full.sqlite'}"):
        pass
    lean, full = (_contents(tmp_path / name) for name in ("lean/judgekit.sqlite", "full.sqlite"))
    assert lean == full
    assert [name for name, _ in lean["migrations"]] == list(sqlite_sql.MIGRATIONS)
    with open_store() as store:  # the full store finds nothing to do
        assert store.batches() == []


def _contents(path: Path) -> dict[str, Any]:
    """Every object's SQL, every table's rows (migrations: names, and whether timed), the
    journal mode."""
    with closing(sqlite3.connect(path)) as connection:
        found: dict[str, Any] = {
            "objects": sorted(
                connection.execute("SELECT type, name, tbl_name, sql FROM sqlite_master")
            ),
            "journal": connection.execute("PRAGMA journal_mode").fetchone(),
        }
        for (table,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'"):
            found[table] = connection.execute(f'SELECT * FROM "{table}" ORDER BY 1').fetchall()
    found["migrations"] = [(name, len(at) == 32) for name, at in found["migrations"]]
    return found


def test_a_store_made_meanwhile_by_another_process_is_left_as_it_is(home: Path) -> None:
    before = _contents(home)
    with closing(sqlite3.connect(home, isolation_level=None)) as connection:
        _create_store(connection)
    assert _contents(home) == before


def test_a_store_to_migrate_or_from_a_newer_judgekit_is_left_to_the_full_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_HOME", str(tmp_path))
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)
    path = tmp_path / "judgekit.sqlite"
    sqlite3.connect(path).close()  # an empty file: the full store migrates it
    assert open_sqlite_recorder() is None
    with open_store():
        pass
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM migrations WHERE name = '0004_verdicts_confidence'")
    assert open_sqlite_recorder() is None  # one to migrate
    with sqlite3.connect(path) as connection:
        connection.execute(
            "INSERT INTO migrations VALUES "
            "('0004_verdicts_confidence', '2026-12-01T00:00:00.000000+00:00')"
        )
        connection.execute(
            "INSERT INTO migrations VALUES "
            "('9999_from_a_newer_judgekit', '2026-12-01T00:00:00.000000+00:00')"
        )
    assert open_sqlite_recorder() is None  # the full store refuses it, saying why
    with pytest.raises(StoreError, match="9999_from_a_newer_judgekit"):
        open_store()


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://user@localhost/judgekit",
        "sqlite://",
        "sqlite:///relative.sqlite",
        "sqlite:////tmp/store.sqlite?mode=ro",
        "sqlite:////tmp/a%20b.sqlite",
        "sqlite:////tmp/no/such/folder/judgekit.sqlite",
    ],
)
def test_only_a_plain_sqlite_file_path_is_opened_without_sqlalchemy(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", url)
    assert open_sqlite_recorder() is None


def test_judgekit_db_naming_a_migrated_file_opens_it(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", f"sqlite:///{home}")
    recorder = open_sqlite_recorder()
    assert isinstance(recorder, SqliteRecorder)
    recorder.close()


def test_a_failed_write_says_what_the_full_store_says_and_writes_nothing(home: Path) -> None:
    with sqlite3.connect(home) as connection:
        connection.execute(
            "CREATE TRIGGER refuse BEFORE INSERT ON verdicts "
            "WHEN NEW.run_id = 'v/5' BEGIN SELECT RAISE(ABORT, 'verdict refused'); END"
        )
    messages = []
    with open_store() as full:
        batch = full.batch(key="k")
        with pytest.raises(StoreError) as raised:
            full.record_verdicts(varied_verdicts(), batch)
        messages.append(str(raised.value))
    recorder = open_sqlite_recorder()
    assert recorder is not None
    with recorder, pytest.raises(StoreError) as raised:
        recorder.record_verdicts(varied_verdicts(), batch)
    messages.append(str(raised.value))
    assert messages == [f"sqlite:///{home}: verdict refused"] * 2
    with sqlite3.connect(home) as connection:
        assert connection.execute("SELECT count(*) FROM verdicts").fetchone() == (0,)


def test_judging_again_from_the_cache_loads_no_sqlalchemy_sdk_or_price_table(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    run = {"task_id": "t", "tool_calls": [], "final_answer": "Refunded."}
    lines = [
        json.dumps({"run_id": f"r/{i}", "input": f"Refund order {i}.", **run}) + "\n"
        for i in range(5)
    ]
    runs.write_text("".join(lines), encoding="utf-8")
    env = {
        **os.environ,
        "JUDGEKIT_HOME": str(tmp_path / "home"),
        "OPENAI_API_KEY": "sk-test-startup",
    }
    env.pop("JUDGEKIT_DB", None)
    rubric = tmp_path / "refunds.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    verdict = json.dumps({"reason": "ok", "score": "pass"})
    with FakeLLMServer(reply=lambda request: verdict) as server:
        judge = [sys.executable, "-X", "importtime", "-m", "judgekit", "judge", str(runs)]
        judge += ["--rubric", str(rubric), "--base-url", server.openai_base_url]
        first = subprocess.run(
            [*judge, "--out", str(tmp_path / "a")],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert first.returncode == 0, first.stderr
        again = subprocess.run(
            [*judge, "--out", str(tmp_path / "b")],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
        )
        assert server.calls == 5
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[1:2] == [
        "0 API calls, 5 cache hits, 0 input + 0 output tokens, cost $0.0000"
    ]
    assert (
        f"in the store sqlite:///{tmp_path / 'home' / 'judgekit.sqlite'} (batch 1)" in again.stdout
    )
    imported = [_top_modules(run.stderr) for run in (first, again)]
    assert {"click", "openai", "genai_prices"} <= imported[0]  # it asked, and priced
    assert "sqlalchemy" not in imported[0]  # the new store made without it
    assert imported[1] & {"sqlalchemy", "openai", "genai_prices"} == set()


def _top_modules(importtime: str) -> set[str]:
    return {line.rpartition("|")[2].strip().split(".")[0] for line in importtime.splitlines()}
