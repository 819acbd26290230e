"""A request set past a batch API's limits goes out as several batches, split the same way
on every run: judged whole, and resumed part by part after a kill.

The limits (50,000 requests and 200 MB for OpenAI, 100,000 requests and 256 MB for
Anthropic) are lowered on judgekit's own batch classes, so 50 runs pass them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from judgekit.providers import batch_calls
from judgekit.providers.batch_parts import split_batches
from judgekit.testing import FakeLLMServer
from tests.judging.conftest import SHOP_RUNS, judge_args, verdict_json
from tests.judging.test_batch import fifty_runs, judge, verdicts
from tests.judging.test_batch_cli import read_submitted_line

# `python -m judgekit` with OpenAI's batches limited to 20 requests.
LIMITED_TO_20 = (
    "import runpy, sys; from judgekit.providers import batch_calls; "
    "batch_calls._OpenAIBatches.max_requests = 20; "
    "runpy.run_module('judgekit', run_name='__main__', alter_sys=True)"
)


def test_openai_past_its_request_limit_gets_three_batches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(batch_calls._OpenAIBatches, "max_requests", 20)
    runs = fifty_runs(tmp_path)
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        tally = judge(runs, server, tmp_path / "out")
        sizes = [size for _, _, size in server.batches.creates]
        assert server.calls == 0  # nothing asked one by one
    assert sorted(sizes) == [10, 20, 20]  # submitted side by side, in any order
    assert (tally.verdicts, tally.not_judged, tally.api_calls) == (50, 0, 50)
    assert sorted(verdicts(tmp_path / "out")) == [f"batch/{i:02d}" for i in range(50)]
    assert not os.listdir(tmp_path / ".judgekit" / "batches")  # every part's record spent


def uniform_runs(folder: Path) -> Path:
    """50 runs of one shop task, their final answers of one length: requests of one size."""
    shop = json.loads(SHOP_RUNS.read_text(encoding="utf-8").splitlines()[0])
    path = folder / "runs.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for index in range(50):
            run = {**shop, "run_id": f"same/{index:02d}"}
            run["final_answer"] = f"{shop['final_answer']} (copy {index:02d}.)"
            fh.write(json.dumps(run) + "\n")
    return path


def test_anthropic_past_its_byte_limit_gets_batches_within_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    limit = 20_000
    monkeypatch.setattr(batch_calls._AnthropicBatches, "max_bytes", limit)
    runs = uniform_runs(tmp_path)
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        tally = judge(runs, server, tmp_path / "out", model="anthropic/claude-haiku-4-5")
        sizes = [size for _, _, size in server.batches.creates]
        params = [request.body for request in server.batches.answered]
    assert (tally.verdicts, tally.not_judged) == (50, 0)
    # Each item as the batch carries it: a 42-character custom id and the params received.
    items = {len(json.dumps({"custom_id": "0" * 42, "params": p}).encode()) + 1 for p in params}
    [item] = items
    per_batch = limit // item
    assert per_batch < 50  # the limit is passed
    expected = [per_batch] * (50 // per_batch) + ([50 % per_batch] if 50 % per_batch else [])
    assert sorted(sizes) == sorted(expected)


def test_a_kill_while_three_parts_are_polled_resumes_each_part(tmp_path: Path) -> None:
    runs, out = fifty_runs(tmp_path), tmp_path / "out"
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        args = [*judge_args(runs, server.openai_base_url, out, "--no-store", "--batch")]
        slow = [sys.executable, "-c", LIMITED_TO_20, *args, "--poll-interval", "3600"]
        process = subprocess.Popen(slow, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        try:
            submitted = [read_submitted_line(process).decode() for _ in range(3)]
        finally:
            process.kill()
            process.communicate()
        first = list(server.batches.creates)
        assert sorted(size for _, _, size in first) == [10, 20, 20]
        assert sorted(submitted) == sorted(
            f"submitted batch {batch_id} ({size} requests)\n" for _, batch_id, size in first
        )
        fast = [sys.executable, "-c", LIMITED_TO_20, *args, "--poll-interval", "0.01"]
        rerun = subprocess.run(fast, capture_output=True, text=True, timeout=120, check=False)
        assert server.batches.creates == first  # each part polled, none submitted again
    assert rerun.returncode == 0, rerun.stderr
    assert sorted(rerun.stderr.splitlines()) == sorted(
        [f"polling batch {b} ({n} requests), submitted before" for _, b, n in first]
        + [f"batch {b} completed: {n} answered, 0 not" for _, b, n in first]
    )
    summary = json.loads(rerun.stdout)
    assert (summary["verdicts"], summary["api_calls"]) == (50, 50)
    assert list((tmp_path / ".judgekit" / "batches").iterdir()) == []


def test_the_split_is_by_custom_id_whatever_the_order_asked() -> None:
    sizes = [(f"id{i:02d}", 10) for i in range(7)]
    forward = split_batches(sizes, max_requests=3, max_bytes=1_000)
    backward = split_batches(reversed(sizes), max_requests=3, max_bytes=1_000)
    assert forward == backward == [["id00", "id01", "id02"], ["id03", "id04", "id05"], ["id06"]]
    assert split_batches(sizes, max_requests=100, max_bytes=25) == [
        ["id00", "id01"],
        ["id02", "id03"],
        ["id04", "id05"],
        ["id06"],
    ]
    # A request larger than the limit alone: the provider says why it refuses it.
    assert split_batches([("big", 50), ("a", 5)], max_requests=10, max_bytes=20) == [
        ["a"],
        ["big"],
    ]
    assert split_batches([], max_requests=1, max_bytes=1) == []


def test_an_anthropic_part_is_found_past_another_part_of_its_size() -> None:
    """Two parts of one size, both in progress: by size alone either could be the one a kill
    left unheard; the other part's batch, known from its record, is never taken for it."""
    import asyncio

    from judgekit.providers.chat import ChatMessage, ChatRequest
    from judgekit.providers.registry import make_provider

    question = ChatRequest(model="m", messages=(ChatMessage(role="user", content="q"),))
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        server.batches.turnaround_s = 3600.0  # both stay in progress

        async def look_ups() -> list[str | None]:
            provider = make_provider(
                "anthropic", base_url=server.anthropic_base_url, api_key="sk-test"
            )
            api = batch_calls.batch_api(provider)
            mine = await api.submit([("a-0", question), ("b-0", question)], tag="t")
            other = await api.submit([("c-0", question), ("d-0", question)], tag="t")
            ids = {"a-0", "b-0"}
            found = [
                await api.find("t", since=0.0, custom_ids=ids),
                await api.find("t", since=0.0, custom_ids=ids, taken=frozenset({other})),
            ]
            await provider.aclose()
            return [mine, *found]

        mine, alone, past_the_other = asyncio.run(look_ups())
    assert alone is None  # two candidates: submitted again rather than guessed
    assert past_the_other == mine
