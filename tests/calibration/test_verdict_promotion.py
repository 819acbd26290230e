"""Which promotion a verdict stands on: its rubric's, found by id in rubrics/, and only for
the promoted version and judge model; a rubric id that would name a file elsewhere finds
none."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from judgekit.calibration.verdict_promotion import VerdictPromotions
from judgekit.formats.verdict import Verdict
from tests.conftest import REPO
from tests.promoted import balanced, promote_for_real


def _verdict(rubric_id: str, version: str, model: str = "openai/gpt-4o-mini") -> Verdict:
    return Verdict(
        run_id="r1",
        rubric_id=rubric_id,
        rubric_version=version,
        model=model,
        status="scored",
        score="pass",
        at=datetime(2026, 11, 1, tzinfo=UTC),
    )


def test_only_the_promoted_version_and_judge_stand_on_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rubrics").mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", tmp_path / "rubrics")
    # A copy of the rubric somewhere else, which a hostile id might point at.
    (tmp_path / "elsewhere").mkdir()
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", tmp_path / "elsewhere")
    record = promote_for_real(tmp_path / "rubrics" / "goal_completion.yaml", balanced())
    version = record["rubric_version"]
    promotions = VerdictPromotions()
    found = promotions(_verdict("goal_completion", version))
    assert not isinstance(found, str)
    on, path = found
    assert (on.digest, on.kappa, on.n) == (record["digest"], 1.0, 60)
    assert path == Path("rubrics/goal_completion.promotion.json")
    assert promotions(_verdict("goal_completion", version, "openai/gpt-4o")) == (
        "judged by openai/gpt-4o; goal_completion is promoted with openai/gpt-4o-mini"
    )
    assert promotions(_verdict("goal_completion", "abc")) == (
        f"judged at rubric version abc; goal_completion is promoted at version {version}"
    )
    for hostile in ("../elsewhere/goal_completion", "..", "tone"):
        assert promotions(_verdict(hostile, version)) == (
            f"no rubric file of {hostile} in rubrics to check a promotion by"
        )
