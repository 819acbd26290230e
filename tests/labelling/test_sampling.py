"""Which runs come first: seeded, balanced across the judge's classes, or by disagreement."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime

import pytest

from judgekit.formats.verdict import Verdict, VerdictSample
from judgekit.labelling.sampling import STRATEGIES, order_for_labelling

AT = datetime(2026, 11, 29, tzinfo=UTC)


def verdict(run_id: str, score: str, model: str = "openai/gpt-4o-mini", **extra: object) -> Verdict:
    return Verdict(
        run_id=run_id,
        rubric_id="goal_completion",
        rubric_version="v1",
        model=model,
        status="scored",
        score=score,
        at=AT,
        **extra,  # type: ignore[arg-type]
    )


def split(common: int, rare: int) -> tuple[list[str], dict[str, list[Verdict]]]:
    runs = [f"r{i}" for i in range(common + rare)]
    verdicts = {run: [verdict(run, "fail" if i < rare else "pass")] for i, run in enumerate(runs)}
    return runs, verdicts


@pytest.mark.parametrize(("common", "rare", "expected_rare"), [(380, 20, 20), (570, 30, 20)])
def test_stratified_sample_of_40_from_a_95_5_split_holds_at_least_15_rare(
    common: int, rare: int, expected_rare: int
) -> None:
    runs, verdicts = split(common, rare)
    for seed in range(5):
        sample = order_for_labelling(runs, verdicts, "stratified", seed=seed)[:40]
        classes = Counter(verdicts[run][0].score for run in sample)
        assert classes["fail"] >= 15
        assert classes == {"fail": expected_rare, "pass": 40 - expected_rare}


def test_stratified_takes_every_rare_run_when_fewer_exist() -> None:
    runs, verdicts = split(190, 10)  # 95/5 with only 10 rare runs
    sample = order_for_labelling(runs, verdicts, "stratified", seed=0)[:40]
    assert Counter(verdicts[run][0].score for run in sample) == {"fail": 10, "pass": 30}


def test_a_random_sample_would_not_balance() -> None:
    runs, verdicts = split(380, 20)
    sample = order_for_labelling(runs, verdicts, "random", seed=0)[:40]
    assert Counter(verdicts[run][0].score for run in sample)["fail"] < 15


@pytest.mark.parametrize("strategy", [s for s in STRATEGIES if s != "abstained"])
def test_every_strategy_is_a_seeded_permutation(strategy: str) -> None:
    runs, verdicts = split(30, 10)
    first = order_for_labelling(runs, verdicts, strategy, seed=3)  # type: ignore[arg-type]
    assert sorted(first) == sorted(runs)
    assert first == order_for_labelling(runs, verdicts, strategy, seed=3)  # type: ignore[arg-type]


def samples(*scores: str) -> list[VerdictSample]:
    return [VerdictSample(score=s) for s in scores]


def test_disagreement_puts_split_samples_and_split_models_first() -> None:
    runs = ["calm1", "samples", "calm2", "models", "calm3", "none"]
    verdicts = {
        "calm1": [verdict("calm1", "pass")],
        "samples": [verdict("samples", "pass", samples=samples("pass", "fail", "pass"))],
        "calm2": [verdict("calm2", "fail"), verdict("calm2", "fail", model="anthropic/x")],
        "models": [verdict("models", "pass"), verdict("models", "fail", model="anthropic/x")],
        "calm3": [verdict("calm3", "pass", samples=samples("pass", "pass"))],
    }
    for seed in range(5):
        order = order_for_labelling(runs, verdicts, "disagreement", seed=seed)
        assert set(order[:2]) == {"samples", "models"}


def test_uncertain_orders_by_lowest_agreement() -> None:
    runs = ["sure", "third", "half", "none"]
    verdicts = {
        "sure": [verdict("sure", "pass", samples=samples("pass", "pass", "pass", "pass"))],
        "third": [verdict("third", "pass", samples=samples("pass", "pass", "fail", "pass"))],
        "half": [verdict("half", "pass", samples=samples("pass", "fail", "fail", "pass"))],
    }
    for seed in range(5):
        assert order_for_labelling(runs, verdicts, "uncertain", seed=seed) == [
            "half",
            "third",
            "sure",
            "none",
        ]


def test_abstained_queues_only_abstained_runs_least_confident_first() -> None:
    runs = ["kept", "low", "unknown", "high", "two_models", "none"]

    def abstained(run: str, confidence: float | None, model: str = "openai/gpt-4o-mini") -> Verdict:
        return verdict(run, "pass", model, confidence=confidence).model_copy(
            update={"status": "abstained"}
        )

    verdicts = {
        "kept": [verdict("kept", "pass", confidence=0.2)],  # scored: never queued
        "low": [abstained("low", 0.3)],
        "unknown": [abstained("unknown", None)],
        "high": [abstained("high", 0.6)],
        # Scored by one judge, abstained by another at 0.45: queued at 0.45.
        "two_models": [
            verdict("two_models", "pass", confidence=0.1),
            abstained("two_models", 0.45, "openai/gpt-4o"),
        ],
    }
    for seed in range(5):
        assert order_for_labelling(runs, verdicts, "abstained", seed=seed) == [
            "unknown",
            "low",
            "two_models",
            "high",
        ]
