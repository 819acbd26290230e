"""Judging with a jury on one fake server: each juror cached on its own, the cost of each
juror before anything is sent, one budget over them all, and what a jury refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.judging.dry_run import TokenCounter
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
    world = JuryWorld(tmp_path, N)
    budget = 0.025
    with world.serving(monkeypatch) as server:
        result = world.judge_runs("--max-cost", str(budget), "--concurrency", "1", "--json")
    assert result.exit_code == 1, result.output
    summary = json.loads(result.stdout)
    verdicts = world.verdicts()
    # Every request was priced for its juror's model before it went out, against what all
    # the jurors spent and hold reserved: the sum stays within the budget.
    assert summary["cost_usd"] <= budget
    # The jurors that answered about a run the budget then stopped were paid too (and are
    # cached, so a rerun with a higher budget does not pay for them again).
    assert summary["cost_usd"] == pytest.approx(0.0074715, rel=1e-9)
    assert sum_costs_all(verdicts) == pytest.approx(0.0067795, rel=1e-9)
    assert (summary["stopped_by_budget"], summary["verdicts"], summary["over_budget"]) == (
        True, 6, 6,
    )  # fmt: skip
    assert len(verdicts) == 6 and server.calls == summary["api_calls"] == 22
    assert "stopped at the --max-cost budget: 6 of 12 runs not judged" in result.stderr


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
