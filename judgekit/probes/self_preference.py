"""Self-preference: does the judge go easier on answers its own model wrote?

Nothing is perturbed: on labelled runs of a binary rubric, the judge's false-pass rate
(the share of runs humans fail that the judge passes) on runs whose ``metadata.model`` is
the judge's own model (the name after the provider prefix: ``gpt-4o`` for
``openai/gpt-4o``) is compared with its false-pass rate on runs by other models. The
difference (own − others) has Newcombe's interval; above 0, the judge passes its own
model's failures more often. The two groups differ in more than authorship (their tasks
and answers), so a difference is a warning to read the runs, not proof of bias.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.calibration.selection import majority
from judgekit.errors import DataError, SpecError
from judgekit.formats.label import Label
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.stats.proportion_difference import proportion_difference

__all__ = ["SelfPreference", "self_preference"]


@dataclass(frozen=True)
class SelfPreference:
    """False passes of human-failed runs, by the judge's own model and by the others."""

    model: str
    own_failed: int  # labelled fail by humans, scored by the judge
    own_false_passes: int
    other_failed: int
    other_false_passes: int
    difference: float | None
    ci: tuple[float | None, float | None]

    @property
    def n(self) -> int:
        return self.own_failed + self.other_failed

    def as_dict(self) -> dict[str, Any]:
        return {
            "own_model": self.model,
            "own_failed": self.own_failed,
            "own_false_passes": self.own_false_passes,
            "other_failed": self.other_failed,
            "other_false_passes": self.other_false_passes,
        }


def _number(value: float) -> float | None:
    return None if math.isnan(value) else value


def self_preference(
    runs: Sequence[Run],
    verdicts: Mapping[str, Verdict],
    labels: Mapping[tuple[str, str], Label],
    *,
    judge_model: str,
    kind: str,
    confidence: float,
) -> SelfPreference:
    """The false-pass rates of the judge on its own model's runs and on the others'."""
    if kind != "binary":
        raise SpecError(
            f"the self probe compares false-pass rates against human labels: binary rubrics "
            f"only (this one is {kind})"
        )
    model = judge_model.partition("/")[2]
    by_run: dict[str, list[Any]] = {}
    for (run_id, _), label in labels.items():
        by_run.setdefault(run_id, []).append(label.label)
    own = [r for r in runs if r.metadata.get("model") == model]
    others = [r for r in runs if r.metadata.get("model") != model]
    if not own:
        raise DataError(
            f"no runs by {model} among the {len(runs)} runs probed (the self probe needs runs "
            f"whose metadata.model is the judge's own model, {model}, beside runs by others)"
        )
    if not others:
        raise DataError(f"every run probed is by {model}: no runs by other models to compare")

    def failed_and_passed(group: list[Run]) -> tuple[int, int]:
        failed = passed = 0
        for run in group:
            verdict = verdicts.get(run.run_id)
            human = majority(by_run.get(run.run_id, []) or [None])
            if human != "fail" or verdict is None or verdict.status == "unscored":
                continue
            failed += 1
            passed += verdict.score == "pass"
        return failed, passed

    own_failed, own_passed = failed_and_passed(own)
    other_failed, other_passed = failed_and_passed(others)
    difference = proportion_difference(
        own_passed,
        own_failed,
        other_passed,
        other_failed,
        confidence=confidence,
        replace_undefined_by=math.nan,
    )
    return SelfPreference(
        model=model,
        own_failed=own_failed,
        own_false_passes=own_passed,
        other_failed=other_failed,
        other_false_passes=other_passed,
        difference=_number(difference.difference),
        ci=(_number(difference.low), _number(difference.high)),
    )
