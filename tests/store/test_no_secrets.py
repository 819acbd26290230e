"""No API key ever reaches what judgekit keeps: the verdict store (a SQLite file or a
PostgreSQL database) and the judge cache."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from judgekit.judging.cache import JudgeCache
from judgekit.providers.chat import ChatMessage, ChatRequest, ChatResponse
from judgekit.store import Store, open_store, schema
from tests.store.conftest import backend
from tests.store.factories import make_verdict

SECRET = "sk-test-SECRET-123"


def _files_holding_the_secret(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def _rows_holding_the_secret(store: Store) -> list[str]:
    """Every row of every table, as text, that holds the secret."""
    found = []
    with store.engine.connect() as connection:
        for table in schema.metadata.sorted_tables:
            for row in connection.execute(select(table)):
                if SECRET in repr(tuple(row)):
                    found.append(f"{table.name}: {row}")
    return found


def test_no_api_key_in_the_store_or_cache(
    store_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.setenv("JUDGEKIT_DB", store_url)
    home = tmp_path / ".judgekit"
    request = ChatRequest(
        model="gpt-4o-mini", messages=(ChatMessage(role="user", content="Grade this."),)
    )
    answer = ChatResponse(text='{"reason": "ok", "score": "pass"}', model="gpt-4o-mini")

    with JudgeCache() as cache, open_store() as store:
        for sample in range(3):
            key = cache.key_for(
                "openai", request, rubric_version="3f2a9c", sample_index=sample, endpoint=""
            )
            assert cache.get(key) is None
            cache.put(key, answer)
            assert cache.get(key) == answer
        batch = store.new_batch(git_sha="abc123", tags={"env": "ci"})
        store.record_verdicts([make_verdict(f"run/{i}") for i in range(20)], batch_id=batch)
        assert store.count("verdicts") == 20
        # While open, the write-ahead logs hold the newest pages: check them too.
        assert "cache.sqlite-wal" in {p.name for p in home.iterdir()}
        if backend(store_url) == "sqlite":
            assert (tmp_path / "store.sqlite-wal").is_file()
        # tmp_path holds the cache (in JUDGEKIT_HOME) and a SQLite store's files.
        assert _files_holding_the_secret(tmp_path) == []
        assert _rows_holding_the_secret(store) == []

    assert "cache.sqlite" in {p.name for p in home.iterdir()}
    assert _files_holding_the_secret(tmp_path) == []
    with open_store(store_url) as store:
        assert _rows_holding_the_secret(store) == []
        # The scan does see what the store holds.
        store.record_verdicts([make_verdict("run/leaky", reason=f"key {SECRET}")])
        assert len(_rows_holding_the_secret(store)) == 1


def test_no_api_key_in_the_default_store_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)
    home = tmp_path / ".judgekit"
    with open_store() as store:
        store.record_verdicts([make_verdict(f"run/{i}") for i in range(20)])
        assert "judgekit.sqlite-wal" in {p.name for p in home.iterdir()}
        assert _files_holding_the_secret(home) == []
    assert (home / "judgekit.sqlite").is_file()
    assert _files_holding_the_secret(home) == []
