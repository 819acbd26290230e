"""An abstained verdict is compared with the labels on its score: calibration measures the
judge on every answer it gave; it is not counted as unscored."""

from __future__ import annotations

from datetime import UTC, datetime

from judgekit.calibration.selection import verdict_score
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.verdict import Verdict
from tests.conftest import REPO

AT = datetime(2026, 11, 29, tzinfo=UTC)


def test_an_abstained_verdict_keeps_its_score_and_an_unscored_one_has_none() -> None:
    rubric = load_rubric(REPO / "rubrics" / "goal_completion.yaml")

    def verdict(status: str, score: object) -> Verdict:
        return Verdict.model_validate(
            {
                "run_id": "r",
                "rubric_id": rubric.id,
                "rubric_version": "v",
                "model": "m/x",
                "status": status,
                "score": score,
                "confidence": 0.3,
                "at": AT,
            }
        )

    scores = [
        verdict_score(rubric, verdict("abstained", "fail")),
        verdict_score(rubric, verdict("scored", "pass")),
        verdict_score(rubric, verdict("unscored", None)),
    ]
    assert scores == ["fail", "pass", None]
