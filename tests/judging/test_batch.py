"""Judging through the batch APIs: the real openai and anthropic SDKs against the fake server."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from judgekit.errors import ConfigError, DataError, ProviderError
from judgekit.judging.batch.options import BatchOptions
from judgekit.judging.judge import JudgeTally
from judgekit.judging.pipeline import JudgeRequest, judging_session, prepare_judging
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.judging.conftest import RUBRIC, SHOP_RUNS, TASKS, verdict_json

FAST = BatchOptions(poll_interval_s=0.01)
FAILING = ("copy 07.", "copy 23.", "copy 41.")


def fifty_runs(folder: Path) -> Path:
    """50 runs of the shop suite, each with its own final answer (so its own prompt)."""
    shop = [json.loads(line) for line in SHOP_RUNS.read_text(encoding="utf-8").splitlines()]
    path = folder / "runs.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for index in range(50):
            run = dict(shop[index % len(shop)])
            run["run_id"] = f"batch/{index:02d}"
            run["final_answer"] = f"{run['final_answer']} (copy {index:02d}.)"
            fh.write(json.dumps(run) + "\n")
    return path


def judge(runs: Path, server: FakeLLMServer, out: Path, **options: object) -> JudgeTally:
    model = str(options.pop("model", "openai/gpt-4o-mini"))
    base_url = (
        server.anthropic_base_url if model.startswith("anthropic/") else server.openai_base_url
    )
    request = JudgeRequest(
        runs=runs,
        rubric_ref=str(RUBRIC),
        model=model,
        base_url=base_url,
        tasks_path=TASKS,
        batch=options.pop("batch", FAST),  # type: ignore[arg-type]
        **options,  # type: ignore[arg-type]
    )
    prepared = prepare_judging(request)
    with judging_session(prepared, out, provenance=None) as session:
        return session.judge()


def verdicts(out: Path) -> dict[str, dict[str, object]]:
    lines = (out / "verdicts.jsonl").read_text(encoding="utf-8").splitlines()
    return {verdict["run_id"]: verdict for verdict in map(json.loads, lines)}


def pass_unless_bad(request: FakeRequest) -> str:
    return verdict_json("fail" if "copy 1" in request.text else "pass")


def test_a_batch_of_50_with_3_failed_requests_leaves_those_for_a_rerun(tmp_path: Path) -> None:
    runs = fifty_runs(tmp_path)
    with FakeLLMServer(reply=pass_unless_bad) as server:
        server.batches.fail_when = lambda request: any(mark in request.text for mark in FAILING)
        first = judge(runs, server, tmp_path / "out")
        assert (first.verdicts, first.not_judged, first.api_calls) == (47, 3, 47)
        assert dict(first.not_judged_reasons) == {
            "OpenAI batch: HTTP 500: the server failed on this request": 3
        }
        assert dict(first.scores) == {"pass": 37, "fail": 10}
        assert sorted(verdicts(tmp_path / "out")) == [
            f"batch/{i:02d}" for i in range(50) if i not in (7, 23, 41)
        ]
        server.batches.fail_when = None
        second = judge(runs, server, tmp_path / "out")
        assert (second.verdicts, second.kept, second.not_judged, second.api_calls) == (50, 47, 0, 3)
        creates = [(api, size) for api, _, size in server.batches.creates]
        assert creates == [("openai", 50), ("openai", 3)]
        assert server.calls == 0  # nothing asked one by one
    assert sorted(verdicts(tmp_path / "out")) == [f"batch/{i:02d}" for i in range(50)]
    assert not os.listdir(tmp_path / ".judgekit" / "batches")  # every batch record spent


def test_an_expired_batch_leaves_its_unanswered_runs_for_a_new_batch(tmp_path: Path) -> None:
    runs = fifty_runs(tmp_path)
    with FakeLLMServer(reply=pass_unless_bad) as server:
        server.batches.expire_after = 20
        first = judge(runs, server, tmp_path / "out")
        assert (first.verdicts, first.not_judged) == (20, 30)
        assert dict(first.not_judged_reasons) == {
            "OpenAI batch: the batch expired before this request was answered": 30
        }
        assert sorted(verdicts(tmp_path / "out")) == [f"batch/{i:02d}" for i in range(20)]
        server.batches.expire_after = None
        second = judge(runs, server, tmp_path / "out")
        assert (second.verdicts, second.kept, second.not_judged) == (50, 20, 0)
        assert [size for _, _, size in server.batches.creates] == [50, 30]


def test_the_cache_is_consulted_first_so_only_new_items_are_sent(tmp_path: Path) -> None:
    runs = fifty_runs(tmp_path)
    with FakeLLMServer(reply=pass_unless_bad) as server:
        first = judge(runs, server, tmp_path / "first", limit=10)
        second = judge(runs, server, tmp_path / "second")
        assert [size for _, _, size in server.batches.creates] == [10, 40]
        sent = [request.text for request in server.batches.answered[10:]]
    assert (first.verdicts, first.api_calls) == (10, 10)
    assert (second.verdicts, second.cache_hits, second.api_calls) == (50, 10, 40)
    assert not any(f"(copy {i:02d}.)" in text for text in sent for i in range(10))
    assert verdicts(tmp_path / "second")["batch/03"]["cached"] is True
    assert verdicts(tmp_path / "second")["batch/33"]["cached"] is False


def test_batch_costs_are_half_the_list_price(tmp_path: Path) -> None:
    runs = fifty_runs(tmp_path)
    prices = tmp_path / "prices.yaml"
    prices.write_text("openai/gpt-4o-mini: {input: 1.0, output: 2.0}\n", encoding="utf-8")
    with FakeLLMServer(reply=pass_unless_bad) as server:
        batched = judge(runs, server, tmp_path / "batched", prices_path=prices, limit=5)
        direct = judge(
            runs,
            server,
            tmp_path / "direct",
            prices_path=prices,
            limit=5,
            use_cache=False,
            batch=None,
        )
    assert batched.price_source == f"{prices}, batch price (half)"
    assert direct.price_source == str(prices)
    for run_id, verdict in verdicts(tmp_path / "batched").items():
        tokens = (verdict["input_tokens"], verdict["output_tokens"])
        assert tokens == (
            verdicts(tmp_path / "direct")[run_id]["input_tokens"],
            verdicts(tmp_path / "direct")[run_id]["output_tokens"],
        )
        assert verdict["cost_usd"] == (tokens[0] * 1.0 + tokens[1] * 2.0) / 1_000_000 * 0.5
        assert verdict["cost_usd"] == verdicts(tmp_path / "direct")[run_id]["cost_usd"] / 2
    assert batched.cost_usd == pytest.approx(direct.cost_usd / 2, rel=1e-12)


def test_anthropic_message_batches(tmp_path: Path) -> None:
    runs = fifty_runs(tmp_path)
    with FakeLLMServer(reply=pass_unless_bad) as server:
        server.batches.fail_when = lambda request: "copy 07." in request.text
        tally = judge(runs, server, tmp_path / "out", model="anthropic/claude-haiku-4-5")
        assert [(api, size) for api, _, size in server.batches.creates] == [("anthropic", 50)]
        system = server.batches.answered[0].messages[0]
    assert (tally.verdicts, tally.not_judged) == (49, 1)
    assert dict(tally.not_judged_reasons) == {
        "Anthropic batch: the server failed on this request": 1
    }
    assert system["role"] == "system"
    assert verdicts(tmp_path / "out")["batch/00"]["model"] == "anthropic/claude-haiku-4-5"


def test_a_bad_answer_is_repaired_in_a_small_follow_up_batch(tmp_path: Path) -> None:
    runs = fifty_runs(tmp_path)

    def reply(request: FakeRequest) -> str:
        repairing = any(message["role"] == "assistant" for message in request.messages)
        if ("copy 05." in request.text or "copy 06." in request.text) and not repairing:
            return "I think it passes."
        return verdict_json("pass")

    with FakeLLMServer(reply=reply) as server:
        tally = judge(runs, server, tmp_path / "out")
        assert [size for _, _, size in server.batches.creates] == [50, 2]
    assert (tally.verdicts, tally.unscored, tally.api_calls) == (50, 0, 52)
    assert verdicts(tmp_path / "out")["batch/05"]["status"] == "scored"


def test_a_provider_without_a_batch_api_is_refused_before_anything_is_written(
    tmp_path: Path,
) -> None:
    request = JudgeRequest(
        runs=SHOP_RUNS,
        rubric_ref=str(RUBRIC),
        model="local/llama3",
        base_url="http://127.0.0.1:9/v1",
        tasks_path=TASKS,
        batch=FAST,
    )
    with pytest.raises(ConfigError) as raised:
        prepare_judging(request)
    assert str(raised.value) == (
        "--batch needs a provider with a batch API (openai or anthropic), not 'local': "
        "judge without --batch"
    )


def test_a_recorded_batch_the_provider_does_not_know_is_dropped_with_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judgekit.providers import batch_calls

    runs = fifty_runs(tmp_path)

    async def killed(self: object, batch_id: str) -> object:
        raise RuntimeError("killed while polling")

    with FakeLLMServer(reply=pass_unless_bad) as server:
        with monkeypatch.context() as patched:
            patched.setattr(batch_calls._OpenAIBatches, "state", killed)
            with pytest.raises(RuntimeError, match="killed while polling"):
                judge(runs, server, tmp_path / "out", limit=4)
        [record] = (tmp_path / ".judgekit" / "batches").iterdir()
        batch_id = json.loads(record.read_text(encoding="utf-8"))["batch_id"]
        server.batches.forget()
        with pytest.raises(ProviderError) as raised:
            judge(runs, server, tmp_path / "out", limit=4)
        assert len(server.batches.creates) == 1
        assert str(raised.value) == (
            f"OpenAI knows no batch {batch_id}, recorded in {record}; the record is removed: "
            f"rerun to submit the requests again (openai/gpt-4o-mini at "
            f"{server.openai_base_url}/); judging stopped with 4 of 4 runs not judged "
            "(nothing recorded for them)"
        )
        assert not record.exists()
        tally = judge(runs, server, tmp_path / "out", limit=4)
        assert [size for _, _, size in server.batches.creates] == [4, 4]
    assert tally.verdicts == 4


def test_a_malformed_batch_record_names_the_file_and_the_fix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judgekit.providers import batch_calls

    runs = fifty_runs(tmp_path)

    async def killed(self: object, batch_id: str) -> object:
        raise RuntimeError("killed while polling")

    with FakeLLMServer(reply=pass_unless_bad) as server:
        with monkeypatch.context() as patched:
            patched.setattr(batch_calls._OpenAIBatches, "state", killed)
            with pytest.raises(RuntimeError):
                judge(runs, server, tmp_path / "out", limit=2)
        [record] = (tmp_path / ".judgekit" / "batches").iterdir()
        record.write_text('{"batch_id": 7}\n', encoding="utf-8")
        with pytest.raises(DataError) as raised:
            judge(runs, server, tmp_path / "out", limit=2)
        assert str(raised.value) == (
            f"{record}: batch_id: a batch record needs a non-empty string batch_id: delete the "
            "file to submit the batch again"
        )
        record.write_text("{oops", encoding="utf-8")
        with pytest.raises(DataError, match=r"not JSON \(Expecting property name"):
            judge(runs, server, tmp_path / "out", limit=2)
        assert len(server.batches.creates) == 1
        record.unlink()
        assert judge(runs, server, tmp_path / "out", limit=2).verdicts == 2


def test_each_sample_of_a_run_is_its_own_item_of_the_batch(tmp_path: Path) -> None:
    runs = fifty_runs(tmp_path)
    with FakeLLMServer(reply=pass_unless_bad) as server:
        tally = judge(runs, server, tmp_path / "out", samples=3, limit=10)
        assert [size for _, _, size in server.batches.creates] == [30]
    assert (tally.verdicts, tally.api_calls) == (10, 30)
    assert verdicts(tmp_path / "out")["batch/02"]["agreement"] == 1.0
    assert len(verdicts(tmp_path / "out")["batch/02"]["samples"]) == 3  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ["openai", "anthropic"])
def test_a_batch_submitted_without_its_id_heard_is_found_and_no_other(name: str) -> None:
    """What a rerun looks up when a kill left only the intent: the batch of that intent (an
    OpenAI batch by its metadata tag, an ended Anthropic batch by its results' custom ids),
    never another batch, nor one made before the intent."""
    import asyncio
    import time

    from judgekit.providers.batch_calls import batch_api
    from judgekit.providers.chat import ChatMessage, ChatRequest
    from judgekit.providers.registry import make_provider

    question = ChatRequest(
        model="m", messages=(ChatMessage(role="user", content="q"),), max_tokens=16
    )
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        base = server.openai_base_url if name == "openai" else server.anthropic_base_url

        async def look_ups() -> list[str | None]:
            api = batch_api(make_provider(name, base_url=base, api_key="sk-test"))
            mine = await api.submit([("a-0", question), ("b-0", question)], tag="t-mine")
            other = await api.submit([("c-0", question), ("d-0", question)], tag="t-other")
            if name == "anthropic":  # once ended, a batch's custom ids can be read
                await api.state(mine)
                await api.state(other)
            now = time.time()
            found = [
                await api.find("t-mine", since=now, custom_ids={"a-0", "b-0"}),
                await api.find("t-none", since=now, custom_ids={"e-0", "f-0"}),
                await api.find("t-mine", since=now + 3600, custom_ids={"a-0", "b-0"}),
            ]
            await api.provider.aclose()
            return [mine, *found]

        mine, found, unknown, too_late = asyncio.run(look_ups())
    assert (found, unknown) == (mine, None)
    # A batch made before the intent (less the clock skew allowed) is not it.
    assert too_late is None
