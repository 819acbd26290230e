"""Judging with a jury on one fake server: each juror cached on its own, the cost of each
juror before anything is sent, one budget over them all, and what a jury refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.judging.dry_run import TokenCounter
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.judging.conftest import SECRET
from tests.judging.jury_world import JuryWorld, asked

JURY = "jury:majority(anthropic/b,openai/a,openai/c)"
N = 12


def test_a_rerun_asks_nothing_and_a_changed_juror_alone_is_asked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = JuryWorld(tmp_path, N)
    with world.serving(monkeypatch) as server:
        first = world.judge_runs()
        assert first.exit_code == 0, first.output
        assert asked(server) == {"openai/a": N, "anthropic/b": N, "openai/c": N}
        assert first.output.splitlines()[1].startswith(f"{3 * N} API calls, 0 cache hits")
        assert first.output.splitlines()[2:5] == [
            # 2,364 input tokens each, at $1, $3 and $0.50 a million, and their outputs.
            f"  juror openai/a: {N} scored, 0 unscored; {N} API calls, 0 cache hits, cost $0.0027",
            f"  juror anthropic/b: {N} scored, 0 unscored; {N} API calls, 0 cache hits, cost "
            "$0.0094",
            f"  juror openai/c: {N} scored, 0 unscored; {N} API calls, 0 cache hits, cost $0.0014",
        ]
        written = (world.out / "verdicts.jsonl").read_bytes()

        again = world.judge_runs()
        assert again.exit_code == 0, again.output
        assert server.calls == 3 * N  # every verdict kept: no request at all
        assert f"{N} of the verdicts were already in the output folder" in again.output
        assert (world.out / "verdicts.jsonl").read_bytes() == written

        world.set_jurors(["openai/a", "anthropic/b", "openai/d"])
        changed = world.judge_runs()
        assert changed.exit_code == 0, changed.output
        # A new jury, so no jury verdict is reused; the jurors it kept answer from the cache.
        assert asked(server) == {"openai/a": N, "anthropic/b": N, "openai/c": N, "openai/d": N}
        assert changed.output.splitlines()[1].startswith(f"{N} API calls, {2 * N} cache hits")
        assert changed.output.splitlines()[4].startswith(
            f"  juror openai/d: {N} scored, 0 unscored; {N} API calls, 0 cache hits"
        )
        assert changed.output.splitlines()[2].startswith(
            f"  juror openai/a: {N} scored, 0 unscored; 0 API calls, {N} cache hits"
        )
    verdicts = world.verdicts()
    assert {v["model"] for v in verdicts} == {"jury:majority(anthropic/b,openai/a,openai/d)"}
    cached = [[juror["cached"] for juror in v["jurors"]] for v in verdicts]
    assert cached == [[True, True, False]] * N
    assert all(v["cached"] is False and v["cost_usd"] == sum_costs(v) for v in verdicts)


def sum_costs(verdict: dict[str, object]) -> float:
    jurors = verdict["jurors"]
    assert isinstance(jurors, list)
    return sum(juror["cost_usd"] for juror in jurors)


def test_each_juror_is_priced_at_its_own_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = JuryWorld(tmp_path, N)
    with world.serving(monkeypatch):
        judged = world.judge_runs()
    assert judged.exit_code == 0, judged.output
    verdict = world.verdicts()[0]
    per_million = {"openai/a": (1.0, 2.0), "anthropic/b": (3.0, 15.0), "openai/c": (0.5, 1.5)}
    for juror in verdict["jurors"]:
        price_in, price_out = per_million[juror["model"]]
        expected = (juror["input_tokens"] * price_in + juror["output_tokens"] * price_out) / 1e6
        assert juror["cost_usd"] == pytest.approx(expected, rel=1e-12)
    assert verdict["input_tokens"] == sum(j["input_tokens"] for j in verdict["jurors"])
    assert verdict["output_tokens"] == sum(j["output_tokens"] for j in verdict["jurors"])


def test_the_dry_run_prices_every_juror_and_the_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from judgekit.judging import jury_dry_run

    # Tokens counted as one per character, so the figures do not depend on tiktoken.
    counter = TokenCounter("characters", len)
    monkeypatch.setattr(jury_dry_run, "token_counter", lambda model, loaded=None: counter)
    world = JuryWorld(tmp_path, N)
    result = world.judge_runs("--dry-run", "--limit", "4")
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-5:] == [
        f"4 runs × 1 sample to each of 3 jurors of {JURY}:",
        # 4,704 input tokens at $1, $3 and $0.50 a million; 4,096 output at $2, $15, $1.50.
        "  openai/a: 4 requests, input 4,704 tokens (counted by characters), output at most "
        "4,096 tokens; $0.0047 input + at most $0.0082 output = at most $0.0129",
        "  anthropic/b: 4 requests, input 4,704 tokens (counted by characters), output at most "
        "4,096 tokens; $0.0141 input + at most $0.0614 output = at most $0.0756",
        "  openai/c: 4 requests, input 4,704 tokens (counted by characters), output at most "
        "4,096 tokens; $0.0024 input + at most $0.0061 output = at most $0.0085",
        "total: 12 requests; projected cost at most $0.0969 (before the cache and the verdicts "
        "already in --out; a repair retry costs a request more)",
    ]
    assert not world.out.exists()
    plan = json.loads(world.judge_runs("--dry-run", "--limit", "4", "--json").output)
    assert [(j["model"], j["requests"], j["input_tokens"]) for j in plan["jurors"]] == [
        ("openai/a", 4, 4704),
        ("anthropic/b", 4, 4704),
        ("openai/c", 4, 4704),
    ]
    assert plan["requests"] == 12
    assert plan["input_cost_usd"] == pytest.approx(4704 * (1.0 + 3.0 + 0.5) / 1e6)
    assert plan["max_output_cost_usd"] == pytest.approx(4096 * (2.0 + 15.0 + 1.5) / 1e6)


def test_max_cost_stops_before_the_sum_of_the_jurors_passes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs, budget = 40, 0.025
    unbounded = JuryWorld(tmp_path / "unbounded", runs)
    world = JuryWorld(tmp_path / "bounded", runs)
    with unbounded.serving(monkeypatch):
        everything = unbounded.judge_runs("--json")
    with world.serving(monkeypatch) as server:
        result = world.judge_runs("--max-cost", str(budget), "--concurrency", "2", "--json")
    full = json.loads(everything.stdout)["cost_usd"]
    assert full == pytest.approx(sum_costs_all(unbounded.verdicts()), rel=1e-9)
    assert full > budget  # judging every run would pass the budget
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    verdicts = world.verdicts()
    # Every request was priced for its juror's model before it went out, against what all
    # the jurors spent and hold reserved: the sum stays within the budget. Jurors that
    # answered about a run the budget then stopped were paid too (and cached, so a rerun
    # with a higher budget does not pay for them again).
    assert sum_costs_all(verdicts) <= summary["cost_usd"] <= budget
    assert summary["stopped_by_budget"] is True
    assert 0 < summary["verdicts"] == len(verdicts) < runs
    assert summary["over_budget"] == runs - len(verdicts)
    assert server.calls == summary["api_calls"] < 3 * runs
    assert (
        f"stopped at the --max-cost budget: {runs - len(verdicts)} of {runs} runs" in result.stderr
    )


def sum_costs_all(verdicts: list[dict[str, object]]) -> float:
    return sum(sum_costs(verdict) for verdict in verdicts)


def test_model_and_batch_are_refused_for_a_jury(tmp_path: Path) -> None:
    world = JuryWorld(tmp_path, 2)
    model = world.judge_runs("--model", "openai/gpt-4o")
    assert model.exit_code == 2
    assert model.output.strip().endswith(
        f"--model openai/gpt-4o: the rubric jury names a jury ({JURY}); change its jurors in "
        "the rubric, or judge with one model in a rubric of its own"
    )
    batch = world.judge_runs("--batch")
    assert batch.exit_code == 2
    assert batch.output.strip().endswith(
        "--batch: the rubric jury names a jury; judge a jury without --batch (each juror's "
        "batch would finish on its own)"
    )
    base_url = world.judge_runs("--base-url", "http://127.0.0.1:9/v1")
    assert base_url.exit_code == 2
    assert base_url.output.strip().endswith(
        "--base-url: the rubric jury names a jury; give each juror its own base_url or "
        "api_key_env in the rubric"
    )


def test_a_juror_without_an_answer_leaves_its_runs_unjudged_and_a_rerun_asks_it_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = JuryWorld(tmp_path, N)
    down = {"b"}  # the server fails (HTTP 500) every request for these models
    answer = world.judge.reply

    def reply(request: FakeRequest) -> str:
        if request.model in down:
            raise RuntimeError("overloaded")
        return answer(request)

    world.judge.reply = reply  # type: ignore[method-assign]
    with world.serving(monkeypatch) as server:
        failed = world.judge_runs("--max-attempts", "1")
        assert failed.exit_code == 1
        assert failed.stderr.splitlines()[0] == (
            f"{N} runs not judged: {JURY} gave no answer after retries; rerun to finish (it "
            "asks only for those)"
        )
        assert failed.stderr.splitlines()[1].startswith(f"  {N} × juror anthropic/b: ")
        assert not (world.out / "verdicts.jsonl").exists()  # no jury verdict without b
        down.clear()
        finished = world.judge_runs()
        assert finished.exit_code == 0, finished.output
        answered = asked(server, server.replied)
    # The other jurors' answers were cached: over both sessions each is asked once a run.
    assert answered == {"openai/a": N, "anthropic/b": N, "openai/c": N}
    assert len(world.verdicts()) == N


def test_a_juror_whose_key_is_refused_stops_the_jury(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = JuryWorld(tmp_path, N)
    world.set_jurors(["openai/a", "{model: anthropic/b, api_key_env: B_KEY}", "openai/c"])
    monkeypatch.setenv("B_KEY", "sk-wrong-key-for-b")
    with world.serving(monkeypatch, expect_api_key=SECRET):
        stopped = world.judge_runs()
    assert stopped.exit_code == 2
    assert stopped.output.startswith(
        "judgekit: error: juror anthropic/b: Anthropic rejected the API key (HTTP 401"
    )
    assert stopped.output.strip().endswith(
        "judging stopped with 12 of 12 runs not judged (nothing recorded for them)"
    )
    assert not (world.out / "verdicts.jsonl").exists()


def test_an_unscored_juror_leaves_the_others_to_decide(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = JuryWorld(tmp_path, 2)
    answers = {"a": "pass", "b": "fail", "c": "not a verdict"}

    def reply(request: FakeRequest) -> str:
        score = answers[request.model]
        return score if score == "not a verdict" else json.dumps({"reason": "r", "score": score})

    world.judge.reply = reply  # type: ignore[method-assign]
    with world.serving(monkeypatch):
        tied = world.judge_runs()
        assert tied.exit_code == 1  # every verdict unscored: judging failed
        (first, _) = world.verdicts()
        world.set_jurors(["openai/a", "anthropic/b", "openai/c", "openai/d", "openai/e"])
        answers.update(d="not a verdict", e="pass")
        decided = world.judge_runs()
    assert (first["status"], first["score"], first["confidence"]) == ("unscored", None, None)
    assert first["unscored_reason"] == "no majority: fail and pass tied at 1 juror each"
    assert decided.exit_code == 0, decided.output
    (verdict, _) = world.verdicts()
    assert (verdict["status"], verdict["score"], verdict["confidence"]) == ("scored", "pass", 2 / 3)
    assert verdict["reason"] == "majority: pass from 2 of 3 scored jurors (5 on the jury)"
    assert [(j["model"], j["status"]) for j in verdict["jurors"]] == [
        ("openai/a", "scored"),
        ("anthropic/b", "scored"),
        ("openai/c", "unscored"),
        ("openai/d", "unscored"),
        ("openai/e", "scored"),
    ]


def test_a_jury_verdict_is_reused_only_while_each_juror_is_asked_where_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    world = JuryWorld(tmp_path, N)
    with world.serving(monkeypatch) as server, FakeLLMServer(reply=world.judge.reply) as elsewhere:
        first = world.judge_runs()
        assert first.exit_code == 0, first.output
        # The same jury, one juror now reached at another server: the rubric version is the
        # same, but no jury verdict answers for it, and that juror alone is asked again.
        moved = f"{{model: openai/a, base_url: '{elsewhere.openai_base_url}'}}"
        world.set_jurors([moved, "anthropic/b", "openai/c"])
        rerun = world.judge_runs()
        assert rerun.exit_code == 0, rerun.output
        assert f"{N} earlier verdicts kept apart" in rerun.output
        assert "from another endpoint" in rerun.output
        assert asked(server) == {"openai/a": N, "anthropic/b": N, "openai/c": N}
        assert asked(elsewhere) == {"openai/a": N}
        again = world.judge_runs()
        assert again.exit_code == 0 and elsewhere.calls == N and server.calls == 3 * N
        urls = (elsewhere.openai_base_url, server.anthropic_base_url, server.openai_base_url)
    endpoints = [tuple(juror["endpoint"] for juror in v["jurors"]) for v in world.verdicts()]
    assert endpoints == [urls] * N


def test_a_mean_jury_on_a_likert_scale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = JuryWorld(tmp_path, 2)
    text = world.rubric.read_text().replace("scale: binary", "scale: likert")
    world.rubric.write_text(text.replace("combine: majority", "combine: mean"))
    scores = {"a": 4, "b": 5, "c": "5.0"}  # a whole number written as text reads as one

    def reply(request: FakeRequest) -> str:
        return json.dumps({"reason": "r", "score": scores[request.model]})

    world.judge.reply = reply  # type: ignore[method-assign]
    with world.serving(monkeypatch):
        judged = world.judge_runs()
    assert judged.exit_code == 0, judged.output
    verdict = world.verdicts()[0]
    assert verdict["model"] == "jury:mean(anthropic/b,openai/a,openai/c)"
    assert (verdict["score"], verdict["confidence"]) == (5, None)
    assert verdict["reason"] == "mean: 4.667 of 3 scored jurors (3 on the jury), rounded to 5"
    assert [juror["score"] for juror in verdict["jurors"]] == [4, 5, 5]
