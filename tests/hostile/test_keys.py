"""A key is never kept: not when a server echoes it in a verdict it answers, not when it is
short, and a key that cannot be sent is refused before any request.

A server (a proxy, a gateway) that quoted the key it was sent inside a successful answer
used to put it in verdicts.jsonl, the judge cache and the store, for OpenAI and Anthropic
alike: only error texts were redacted, and only keys of 8 characters or more. A pasted
placeholder (``OPENAI_API_KEY=…``) ended in a 60-line UnicodeEncodeError traceback, and a
key with a trailing space in "could not reach OpenAI … check --base-url".
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_request import FakeRequest, api_key_of
from tests.conftest import REPO

RUNS = REPO / "examples" / "runs" / "shop.jsonl"
RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
TASKS = REPO / "tasks"
# Not shaped like any provider's key: only being configured gets it redacted.
LONG_KEY = "proxy-token-5d1e9b7a"
SHORT_KEY = "tk42x"  # what a local server may be given


def echo_the_key(request: FakeRequest) -> str:
    """A passing verdict whose reason quotes the key the request came with."""
    return json.dumps({"reason": f"checked with key {api_key_of(request)}.", "score": "pass"})


def judge(tmp_path: Path, base_url: str, *extra: str) -> Result:
    args = ["judge", str(RUNS), "--rubric", str(RUBRIC), "--tasks", str(TASKS)]
    args += ["--base-url", base_url, "--out", str(tmp_path / "out"), *extra]
    result = CliRunner().invoke(main, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def files_holding(folder: Path, secret: str) -> list[str]:
    """Every file under ``folder`` (verdicts, cache and store, their logs too) holding it."""
    return sorted(
        str(path.relative_to(folder))
        for path in folder.rglob("*")
        if path.is_file() and secret.encode() in path.read_bytes()
    )


@pytest.fixture(autouse=True)
def _store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEKIT_DB", f"sqlite:///{tmp_path / 'store.sqlite'}")
    for name in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize(
    ("provider", "model", "key"),
    [
        ("openai", "openai/gpt-4o-mini", LONG_KEY),
        ("anthropic", "anthropic/claude-haiku-4-5", LONG_KEY),
        ("openai", "openai/gpt-4o-mini", SHORT_KEY),
        ("anthropic", "anthropic/claude-haiku-4-5", SHORT_KEY),
    ],
)
def test_a_key_echoed_in_a_verdict_is_kept_nowhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, provider: str, model: str, key: str
) -> None:
    monkeypatch.setenv(f"{provider.upper()}_API_KEY", key)
    with FakeLLMServer(reply=echo_the_key, expect_api_key=key) as server:
        base_url = server.openai_base_url if provider == "openai" else server.anthropic_base_url
        result = judge(tmp_path, base_url, "--model", model)
        again = judge(tmp_path, base_url, "--model", model, "--out", str(tmp_path / "again"))
    assert result.exit_code == 0, result.output
    assert server.calls == 7  # one per distinct prompt; the rerun is the cache's
    verdicts = [json.loads(line) for line in (tmp_path / "out/verdicts.jsonl").open()]
    assert {v["reason"] for v in verdicts} == {"checked with key [REDACTED]."}
    assert {v["score"] for v in verdicts} == {"pass"}
    assert again.exit_code == 0 and "0 API calls, 18 cache hits" in again.stdout
    assert (tmp_path / "store.sqlite").is_file() and (tmp_path / ".judgekit/cache.sqlite").is_file()
    assert files_holding(tmp_path, key) == []
    assert key not in result.output + again.output


def test_a_short_key_is_redacted_as_a_word_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "test")
    reason = "test passed; the latest tested order is refunded (key test)."
    with FakeLLMServer(reply=lambda r: json.dumps({"reason": reason, "score": "pass"})) as server:
        result = judge(tmp_path, server.openai_base_url)
    assert result.exit_code == 0, result.output
    verdict = json.loads((tmp_path / "out/verdicts.jsonl").open().readline())
    assert verdict["reason"] == (
        "[REDACTED] passed; the latest tested order is refunded (key [REDACTED])."
    )


def test_a_key_written_with_json_escapes_is_redacted_once_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", LONG_KEY)
    escaped = "".join(f"\\u{ord(c):04x}" for c in LONG_KEY)
    answer = '{"reason": "key ' + escaped + '", "score": "pass"}'
    with FakeLLMServer(reply=lambda r: answer) as server:
        result = judge(tmp_path, server.openai_base_url)
    assert result.exit_code == 0, result.output
    verdicts = [json.loads(line) for line in (tmp_path / "out/verdicts.jsonl").open()]
    assert {v["reason"] for v in verdicts} == {"key [REDACTED]"}
    assert files_holding(tmp_path, LONG_KEY) == []


@pytest.mark.parametrize(
    ("key", "what"),
    [
        ("…", "U+2026, HORIZONTAL ELLIPSIS, character 1 of 1"),
        ("sk-proj-abc123def456 ", "U+0020, SPACE, character 21 of 21"),
        (" sk-proj-abc123def456", "U+0020, SPACE, character 1 of 21"),
        ("sk-proj-abc123\tdef456", "U+0009, a control character, character 15 of 21"),
        ("sk-prój-abc123def456", "U+00F3, LATIN SMALL LETTER O WITH ACUTE, character 6 of 20"),
    ],
)
def test_a_key_that_cannot_be_sent_is_one_line_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, what: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FakeLLMServer() as server:
        result = judge(tmp_path, server.openai_base_url)
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: OPENAI_API_KEY holds a character that cannot be sent in an HTTP "
        f"header ({what}): paste the key itself\n"
    )
    assert server.calls == 0
    assert not (tmp_path / "out").exists()


def test_the_variable_api_key_env_names_is_checked_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GATEWAY_KEY", "gw-…")
    with FakeLLMServer() as server:
        result = judge(tmp_path, server.openai_base_url, "--api-key-env", "GATEWAY_KEY")
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: GATEWAY_KEY holds a character that cannot be sent in an HTTP header "
        "(U+2026, HORIZONTAL ELLIPSIS, character 4 of 4): paste the key itself\n"
    )
    assert server.calls == 0


@pytest.mark.parametrize(("key", "count"), [("k", "1 character"), ("abc", "3 characters")])
def test_a_key_too_short_to_redact_is_refused_before_any_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str, count: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", key)
    with FakeLLMServer() as server:
        result = judge(tmp_path, server.openai_base_url)
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: OPENAI_API_KEY holds {count}, too few for a key judgekit can keep "
        "out of what it writes: paste the key itself (a server at --base-url that needs none "
        "is sent a placeholder when it is unset)\n"
    )
    assert server.calls == 0
    assert not (tmp_path / "out").exists()
