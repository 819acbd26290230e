"""The judge cache: what its key depends on, hits and misses, and what it keeps."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import StoreError
from judgekit.judging.cache import CacheStats, JudgeCache
from judgekit.providers.chat import ChatMessage, ChatRequest, ChatResponse, TokenLogprob

MESSAGES = (
    ChatMessage(role="system", content="You grade an AI agent's final answer."),
    ChatMessage(role="user", content="<answer>Refund of $40 issued.</answer>"),
)
REQUEST = ChatRequest(model="gpt-4o-mini", messages=MESSAGES)
ANSWER = ChatResponse(
    text='{"reason": "refund issued", "score": "pass"}',
    model="gpt-4o-mini-2024-07-18",
    input_tokens=812,
    output_tokens=17,
    latency_s=0.84,
)


def key(
    provider: str = "openai",
    request: ChatRequest = REQUEST,
    rubric_version: str = "3f2a9c",
    sample_index: int = 0,
    endpoint: str = "https://api.openai.com/v1",
) -> str:
    return JudgeCache.key_for(
        provider,
        request,
        rubric_version=rubric_version,
        sample_index=sample_index,
        endpoint=endpoint,
    )


def changed(**fields: Any) -> ChatRequest:
    return REQUEST.model_copy(update=fields)


def test_the_key_is_a_sha256_of_a_fixed_canonical_form() -> None:
    # Pinned: changing the form silently empties every user's cache, so do it on purpose
    # (and bump KEY_FORMAT).
    canonical = (
        '{"endpoint":"https://api.openai.com/v1","json_output":true,"key_format":2,'
        '"max_tokens":1024,'
        '"messages":[["system","You grade an AI agent\'s final answer."],'
        '["user","<answer>Refund of $40 issued.</answer>"]],'
        '"model":"gpt-4o-mini","provider":"openai","rubric_version":"3f2a9c",'
        '"sample_index":0,"temperature":0.0}'
    )
    assert key() == hashlib.sha256(canonical.encode()).hexdigest()
    assert key() == "b14d00f64433b181d6f1d2c2cc445f418a79304d9e06ece3aae99ef418094629"


def test_the_key_changes_with_each_component() -> None:
    variants = {
        "base": key(),
        "provider": key(provider="anthropic"),
        "model": key(request=changed(model="gpt-4o")),
        "temperature": key(request=changed(temperature=0.7)),
        "max_tokens": key(request=changed(max_tokens=512)),
        "json_output": key(request=changed(json_output=False)),
        "rubric_version": key(rubric_version="9b1d00"),
        "sample_index": key(sample_index=1),
        "endpoint": key(endpoint="http://127.0.0.1:8080/v1"),
        "endpoint path": key(endpoint="https://api.openai.com/v2"),
        "no endpoint": key(endpoint=""),
        "message text": key(
            request=changed(messages=(MESSAGES[0], ChatMessage(role="user", content="other")))
        ),
        "message role": key(
            request=changed(
                messages=(ChatMessage(role="user", content=MESSAGES[0].content), MESSAGES[1])
            )
        ),
        "message order": key(request=changed(messages=MESSAGES[::-1])),
        "one message fewer": key(request=changed(messages=MESSAGES[1:])),
    }
    assert len(set(variants.values())) == len(variants), variants


def test_message_boundaries_are_part_of_the_key() -> None:
    split_one = (ChatMessage(role="user", content="ab"), ChatMessage(role="user", content="c"))
    split_two = (ChatMessage(role="user", content="a"), ChatMessage(role="user", content="bc"))
    assert key(request=changed(messages=split_one)) != key(request=changed(messages=split_two))


def test_the_key_depends_on_nothing_else(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    rebuilt = ChatRequest(
        model="gpt-4o-mini",
        messages=tuple(ChatMessage(role=m.role, content=m.content) for m in MESSAGES),
        temperature=0,
        max_tokens=1024,
        json_output=True,
    )
    assert key(request=rebuilt) == key()
    assert key(request=changed(temperature=-0.0)) == key()
    # One endpoint, spelled differently, is one endpoint.
    assert key(endpoint="HTTPS://API.openai.com:443/v1/") == key()
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-other")
    with JudgeCache(tmp_path / "elsewhere.sqlite") as cache:
        assert (
            cache.key_for(
                "openai",
                REQUEST,
                rubric_version="3f2a9c",
                sample_index=0,
                endpoint="https://api.openai.com/v1",
            )
            == key()
        )


def test_a_negative_sample_index_is_refused() -> None:
    with pytest.raises(ValueError, match="sample_index must be 0 or more, got -1"):
        key(sample_index=-1)


def test_a_miss_then_a_hit(tmp_path: Path) -> None:
    with JudgeCache(tmp_path / "cache.sqlite") as cache:
        assert cache.get(key()) is None
        cache.put(key(), ANSWER)
        assert cache.get(key()) == ANSWER
        assert cache.get(key(sample_index=1)) is None
        assert cache.stats() == CacheStats(entries=1, hits=1, misses=2)


def test_put_is_idempotent_and_the_latest_answer_wins(tmp_path: Path) -> None:
    better = ANSWER.model_copy(update={"text": '{"reason": "r", "score": "fail"}'})
    with JudgeCache(tmp_path / "cache.sqlite") as cache:
        cache.put(key(), ANSWER)
        cache.put(key(), ANSWER)
        assert cache.stats().entries == 1
        cache.put(key(), better)
        assert cache.get(key()) == better
        assert cache.stats().entries == 1


def test_answers_survive_reopening_and_counters_are_per_object(tmp_path: Path) -> None:
    with JudgeCache(tmp_path / "cache.sqlite") as cache:
        cache.put(key(), ANSWER)
        cache.get(key())
    with JudgeCache(tmp_path / "cache.sqlite") as reopened:
        assert reopened.stats() == CacheStats(entries=1, hits=0, misses=0)
        assert reopened.get(key()) == ANSWER


def test_a_put_is_committed_at_once(tmp_path: Path) -> None:
    with JudgeCache(tmp_path / "cache.sqlite") as cache:
        cache.put(key(), ANSWER)
        # Another connection (another process) sees it before the cache is closed.
        other = sqlite3.connect(tmp_path / "cache.sqlite")
        try:
            assert other.execute("SELECT COUNT(*) FROM responses").fetchone() == (1,)
        finally:
            other.close()


def test_the_default_cache_lives_in_judgekit_home(tmp_path: Path) -> None:
    with JudgeCache() as cache:
        assert cache.path == tmp_path / ".judgekit" / "cache.sqlite"
        cache.put(key(), ANSWER)
    assert (tmp_path / ".judgekit" / "cache.sqlite").is_file()


def test_the_file_keeps_only_the_answer_in_wal_mode(tmp_path: Path) -> None:
    with JudgeCache(tmp_path / "cache.sqlite"):
        pass
    db = sqlite3.connect(tmp_path / "cache.sqlite")
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(responses)")}
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    finally:
        db.close()
    assert columns == {
        "key",
        "text",
        "model",
        "input_tokens",
        "output_tokens",
        "latency_s",
        "tokens",
    }


def test_a_file_from_before_log_probabilities_gains_their_column(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, text TEXT NOT NULL, model TEXT NOT NULL,"
        " input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, latency_s REAL NOT NULL)"
    )
    db.execute("INSERT INTO responses VALUES ('old', 'kept', 'm', 1, 2, 0.5)")
    db.commit()
    db.close()
    with JudgeCache(path) as cache:
        assert cache.get("old") == ChatResponse(
            text="kept", model="m", input_tokens=1, output_tokens=2, latency_s=0.5
        )
        with_tokens = ANSWER.model_copy(
            update={"tokens": (TokenLogprob(token="pass", logprob=-0.25, top=(("fail", -2.0),)),)}
        )
        cache.put("new", with_tokens)
        assert cache.get("new") == with_tokens


def test_asking_for_log_probabilities_is_another_key() -> None:
    request = REQUEST.model_copy(update={"logprobs": True})
    assert key(request=request) != key(request=REQUEST)


def test_threads_share_one_cache(tmp_path: Path) -> None:
    threads, per_thread = 8, 50
    errors: list[BaseException] = []

    with JudgeCache(tmp_path / "cache.sqlite") as cache:

        def work(thread: int) -> None:
            try:
                for i in range(per_thread):
                    k = key(sample_index=thread * per_thread + i)
                    assert cache.get(k) is None
                    cache.put(k, ANSWER)
                    assert cache.get(k) == ANSWER
            except BaseException as exc:
                errors.append(exc)

        workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        assert errors == []
        total = threads * per_thread
        assert cache.stats() == CacheStats(entries=total, hits=total, misses=total)


def test_a_damaged_cache_file_is_a_store_error_saying_it_can_be_deleted(tmp_path: Path) -> None:
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"not a database" * 500)
    with pytest.raises(StoreError, match=r"cache\.sqlite: file is not a database; delete the file"):
        JudgeCache(path)
