"""grade_json writes exactly the results.jsonl line Grade.model_dump_json writes, and a
GradeRow tells the same first failure as its Grade."""

from __future__ import annotations

import random

import pytest

from judgekit.formats.grade import GraderResult
from judgekit.graders import grade_rows
from judgekit.graders.grade_rows import GradeRow, grade_json

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


def _pydantic(row: GradeRow) -> str:
    try:
        return row.grade().model_dump_json()
    except Exception as error:  # a lone surrogate: both ways must fail alike
        return f"raised {type(error).__name__}: {error}"


def _fast(row: GradeRow) -> str:
    try:
        return grade_json(row)
    except Exception as error:
        return f"raised {type(error).__name__}: {error}"


@pytest.mark.parametrize("seed", range(4))
def test_grade_json_is_model_dump_json_byte_for_byte(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(2_000):
        row = _row(rng)
        assert _fast(row) == _pydantic(row), row
        assert row.first_failure == row.grade().first_failure


def test_the_common_line_is_written_without_pydantic(monkeypatch: pytest.MonkeyPatch) -> None:
    row = GradeRow(
        "shop/refund/1",
        "refund_full",
        1,
        False,
        GraderResult(passed=False, reason="issue_refund.amount: expected 40, got 45"),
        None,
        GraderResult(passed=True, reason="1 state check passed"),
        None,
        True,
        [],
        3,
        0.0016,
        "completed",
        2,
        0,
    )
    expected = row.grade().model_dump_json()
    monkeypatch.setattr(GradeRow, "grade", lambda self: pytest.fail("pydantic was asked"))
    assert grade_json(row) == expected
    assert expected == (
        '{"run_id":"shop/refund/1","task_id":"refund_full","trial":1,"passed":false,'
        '"truth":{"passed":false,"reason":"issue_refund.amount: expected 40, got 45"},'
        '"path":null,"state":{"passed":true,"reason":"1 state check passed"},"answer":null,'
        '"claimed_success":true,"violations":[],"turns":3,"cost_usd":0.0016,'
        '"stop_reason":"completed","tool_calls":2,"tool_errors":0}'
    )


def test_an_exponent_float_is_left_to_pydantic() -> None:
    row = GradeRow("r", "t", None, True, None, None, None, None, None, [], None, 2e-6, None, 0, 0)
    with pytest.raises(grade_rows._Unsure):
        grade_rows._line(row)
    assert '"cost_usd":2e-6,' in grade_json(row)
