"""The combine rules on every scale kind, with ties and unscored jurors."""

from __future__ import annotations

import pytest

from judgekit.judging.jury_combine import Combined, combine_scores


@pytest.mark.parametrize(
    ("rule", "scores", "expected"),
    [
        # binary, majority
        (
            "majority",
            ["pass", "fail", "pass"],
            Combined("pass", "majority: pass from 2 of 3 scored jurors (3 on the jury)", 2 / 3),
        ),
        (
            "majority",
            ["fail", "fail", "fail"],
            Combined("fail", "majority: fail from 3 of 3 scored jurors (3 on the jury)", 1.0),
        ),
        (
            "majority",
            ["pass", None, "pass"],
            Combined("pass", "majority: pass from 2 of 2 scored jurors (3 on the jury)", 1.0),
        ),
        (
            "majority",
            ["pass", None, "fail"],
            Combined(None, "no majority: fail and pass tied at 1 juror each", None),
        ),
        (
            "majority",
            ["pass", None, None],
            Combined(None, "no quorum: 1 of 3 jurors scored, more than half must", None),
        ),
        # choices and pairwise, majority
        (
            "majority",
            ["good", "bad", "ugly"],
            Combined(None, "no majority: bad and good and ugly tied at 1 juror each", None),
        ),
        (
            "majority",
            ["good", "bad", "bad", "ugly", "bad"],
            Combined("bad", "majority: bad from 3 of 5 scored jurors (5 on the jury)", 0.6),
        ),
        (
            "majority",
            ["A", "tie", "A"],
            Combined("A", "majority: A from 2 of 3 scored jurors (3 on the jury)", 2 / 3),
        ),
        # likert, mean: a half rounds down
        (
            "mean",
            [4, 5, 5],
            Combined(5, "mean: 4.667 of 3 scored jurors (3 on the jury), rounded to 5", None),
        ),
        (
            "mean",
            [4, 5, None],
            Combined(4, "mean: 4.5 of 2 scored jurors (3 on the jury), rounded to 4", None),
        ),
        (
            "mean",
            [1, 2],
            Combined(1, "mean: 1.5 of 2 scored jurors (2 on the jury), rounded to 1", None),
        ),
        (
            "mean",
            [2, 3, 2],
            Combined(2, "mean: 2.333 of 3 scored jurors (3 on the jury), rounded to 2", None),
        ),
        (
            "mean",
            [3, None],
            Combined(None, "no quorum: 1 of 2 jurors scored, more than half must", None),
        ),
        # binary, unanimous
        ("unanimous", ["pass", "pass"], Combined("pass", "unanimous: all 2 jurors passed it", 1.0)),
        (
            "unanimous",
            ["pass", "fail", "pass"],
            Combined("fail", "unanimous: 1 of 3 scored jurors failed it", 1 / 3),
        ),
        (
            "unanimous",
            ["pass", None, "pass"],
            Combined(
                None,
                "not unanimous: 2 of 3 jurors passed it and the others are unscored; a unanimous pass needs every juror",
                None,
            ),
        ),
        (
            "unanimous",
            ["fail", None, "pass"],
            Combined("fail", "unanimous: 1 of 2 scored jurors failed it", 0.5),
        ),
        (
            "unanimous",
            [None, None, "fail"],
            Combined(None, "no quorum: 1 of 3 jurors scored, more than half must", None),
        ),
    ],
)
def test_combine_rules(rule: str, scores: list[str | int | None], expected: Combined) -> None:
    assert combine_scores(rule, scores) == expected  # type: ignore[arg-type]


def test_majority_does_not_depend_on_the_jurors_order() -> None:
    scores = ["pass", "fail", "pass", None, "fail", "fail", "pass"]
    for shift in range(len(scores)):
        rotated = scores[shift:] + scores[:shift]
        assert combine_scores("majority", rotated) == combine_scores("majority", scores)
