"""A long call on SQLite, chunk after chunk: the verdicts are read in the caller's thread, in
order, the rows written in order, and a failure in any chunk ends the call with nothing
written and no thread left."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import StoreError
from judgekit.formats.verdict import Verdict
from judgekit.store import Store, open_store
from tests.store.factories import make_verdict


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with open_store(f"sqlite:///{tmp_path / 'store.sqlite'}") as opened:
        yield opened


def test_the_verdicts_are_read_in_the_callers_thread_and_written_in_order(store: Store) -> None:
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
