"""A GradeRow tells the same first failure as its Grade."""

from __future__ import annotations

import random

import pytest

from judgekit.formats.grade import GraderResult
from judgekit.graders.grade_rows import GradeRow

TEXTS = [
    "",
    "plain",
    'quote " and back\\slash /',
    "controls \x00\x01\x08\t\n\x0b\x0c\r\x1b\x1f\x7f\x85",
    "ünïcödé 日本語 🚀 \u2028\u2029 \u202e",
    "lone \ud800 surrogate",
    "refund.amount: expected 40 (±0.01), got '40.5'",
]
FLOATS = [0.0, 1.0, 0.5, 0.0016, 1e-4, 1e-5, 2.5e-7, 123456.789, 1e15, 1e16, 3.14e20, 5e-324]


def _result(rng: random.Random) -> GraderResult | None:
    if rng.random() < 0.25:
        return None
    return GraderResult(passed=rng.random() < 0.5, reason=rng.choice(TEXTS))


def _row(rng: random.Random) -> GradeRow:
    maybe = rng.random
    return GradeRow(
        run_id=rng.choice(TEXTS) + str(rng.randint(0, 10**6)),
        task_id=rng.choice(TEXTS),
        trial=None if maybe() < 0.2 else rng.choice([0, 1, 7, 2**40, 10**30]),
        passed=maybe() < 0.5,
        truth=_result(rng),
        path=_result(rng),
        state=_result(rng),
        answer=_result(rng),
        claimed_success=rng.choice([None, True, False]),
        violations=rng.sample(TEXTS, rng.randint(0, 3)),
        turns=None if maybe() < 0.2 else rng.randint(0, 50),
        cost_usd=None if maybe() < 0.2 else rng.choice(FLOATS) * rng.choice([1, 3, 0.1]),
        stop_reason=rng.choice([None, "completed", "max_turns", "max_tool_calls", "error"]),
        tool_calls=rng.randint(0, 30),
        tool_errors=rng.randint(0, 3),
    )


@pytest.mark.parametrize("seed", range(4))
def test_a_row_tells_the_first_failure_its_grade_tells(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(2_000):
        row = _row(rng)
        assert row.first_failure == row.grade().first_failure
