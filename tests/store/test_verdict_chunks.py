"""A long call on SQLite makes each chunk's rows in a thread while the previous chunk is
written: the verdicts are still read in the caller's thread, in order, the rows written in
order, and a failure on either side ends the call with nothing written and no thread left.
The transaction's statement journals are kept in memory, the connection's ``temp_store`` set
back as soon as the transaction began."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import StoreError
from judgekit.formats.verdict import Verdict
from judgekit.store import Store, open_store, sqlite_verdicts
from tests.store.factories import make_verdict


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(f"sqlite:///{tmp_path / 'store.sqlite'}") as opened:
        yield opened


@pytest.mark.parametrize("cores", [1, 2])
def test_the_verdicts_are_read_in_the_callers_thread_and_written_in_order(
    store: Store, monkeypatch: pytest.MonkeyPatch, cores: int
) -> None:
    monkeypatch.setattr(sqlite_verdicts, "_cores", lambda: cores)  # one: no thread
    readers: set[threading.Thread] = set()

    def stream() -> Iterator[Verdict]:
        for i in range(2_345):
            readers.add(threading.current_thread())
            yield make_verdict(f"shop/task/{i}", samples=None, score=i % 7)

    before = threading.active_count()
    assert store.record_verdicts(stream()) == 2_345
    assert readers == {threading.current_thread()}
    assert threading.active_count() == before
    with store.engine.connect() as connection:
        runs = connection.exec_driver_sql("SELECT run_id, score FROM verdicts ORDER BY id")
        assert runs.fetchall() == [(f"shop/task/{i}", i % 7) for i in range(2_345)]


def test_a_row_failing_in_a_later_chunk_writes_nothing(store: Store) -> None:
    store.record_verdicts([make_verdict("first")])
    stream: list[Any] = [make_verdict(f"run/{i}") for i in range(1_800)]
    stream[1_234] = {"run_id": "not a verdict"}
    before = threading.active_count()
    with pytest.raises(AttributeError):
        store.record_verdicts(stream)
    assert threading.active_count() == before
    assert store.count("verdicts") == 1
    assert store.record_verdicts(stream[:1_234]) == 1_234  # the store is usable after


def test_a_statement_failing_while_rows_are_made_writes_nothing(store: Store) -> None:
    before = threading.active_count()
    with pytest.raises(StoreError, match="FOREIGN KEY"):
        store.record_verdicts([make_verdict(f"run/{i}") for i in range(3_000)], batch_id=99)
    assert threading.active_count() == before
    assert store.count("verdicts") == 0


@pytest.mark.parametrize("setting", [0, 1])
def test_the_connections_temp_store_is_set_back_once_the_transaction_began(
    store: Store, monkeypatch: pytest.MonkeyPatch, setting: int
) -> None:
    with store.engine.connect() as connection:
        driver = connection.connection.driver_connection
        driver.execute(f"PRAGMA temp_store = {setting}")
    record = sqlite_verdicts._record
    during: list[int] = []

    def spied(connection: Any, verdicts: Any, batch_id: int) -> int:
        driver = connection.connection.driver_connection
        during.append(driver.execute("PRAGMA temp_store").fetchone()[0])
        return record(connection, verdicts, batch_id)

    monkeypatch.setattr(sqlite_verdicts, "_record", spied)
    assert store.record_verdicts([make_verdict(f"run/{i}") for i in range(700)]) == 700
    with store.engine.connect() as connection:
        driver = connection.connection.driver_connection
        assert driver.execute("PRAGMA temp_store").fetchone()[0] == setting
    assert during == [setting]


def test_a_long_call_while_the_interpreter_exits_makes_its_rows_in_the_callers_thread(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("cannot schedule new futures after interpreter shutdown")

    monkeypatch.setattr(ThreadPoolExecutor, "submit", refused)
    assert store.record_verdicts([make_verdict(f"run/{i}") for i in range(1_200)]) == 1_200
    assert store.count("verdicts") == 1_200
