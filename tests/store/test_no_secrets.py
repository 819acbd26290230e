"""No API key ever reaches the files judgekit keeps: the verdict store and the judge cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.judging.cache import JudgeCache
from judgekit.providers.chat import ChatMessage, ChatRequest, ChatResponse
from judgekit.store import open_store
from tests.store.factories import make_verdict

SECRET = "sk-test-SECRET-123"


def _files_holding_the_secret(home: Path) -> list[Path]:
    return [p for p in home.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]


def test_no_api_key_in_the_store_or_cache_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)
    home = tmp_path / ".judgekit"
    request = ChatRequest(
        model="gpt-4o-mini", messages=(ChatMessage(role="user", content="Grade this."),)
    )
    answer = ChatResponse(text='{"reason": "ok", "score": "pass"}', model="gpt-4o-mini")

    with JudgeCache() as cache, open_store() as store:
        for sample in range(3):
            key = cache.key_for("openai", request, rubric_version="3f2a9c", sample_index=sample)
            assert cache.get(key) is None
            cache.put(key, answer)
            assert cache.get(key) == answer
        batch = store.new_batch(git_sha="abc123", tags={"env": "ci"})
        store.record_verdicts([make_verdict(f"run/{i}") for i in range(20)], batch_id=batch)
        # While open, the write-ahead logs hold the newest pages: check them too.
        assert any(p.name.endswith("-wal") for p in home.iterdir())
        assert _files_holding_the_secret(home) == []

    assert {"cache.sqlite", "judgekit.sqlite"} <= {p.name for p in home.iterdir()}
    assert _files_holding_the_secret(home) == []
