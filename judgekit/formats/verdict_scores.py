"""Checking the scores of verdicts read back from a file or the store.

A verdict that says *scored* must carry a score on its rubric's scale: a judge's answer off
the scale is recorded as *unscored* when it is judged, so a scored ``123`` on a 1..5 scale or
a scored ``"PASS!!"`` can only come from a file edited or made elsewhere, and counting it
(or silently dropping it) would change the figures. The rubric is known when the verdict's
``rubric_version`` is the version of a rubric at hand (under the verdict's judge model);
without it, only what holds on every scale is checked: a score is a string or a whole
number. The message names the field and the valid scores::

    verdicts.jsonl:3: score: 123 is not on the likert scale of goal_completion; a scored
    verdict's score is one of: 1, 2, 3, 4, 5
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from judgekit.errors import DataError
from judgekit.formats.rubric import Rubric, describe_scores, normalise_score
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.verdict import Verdict

__all__ = ["ScaleCheck"]

# The rubric as judged by another model (another rubric version, the same scale).
Variant = Callable[[Rubric, str], Rubric]


class ScaleCheck:
    """Checks scored verdicts against the scale of their rubric version, where it is known.

    ``rubrics`` are the rubrics at hand; with ``variant`` (the rubric as judged by a given
    model, e.g. ``--model``), a verdict of any judge model of those rubrics is matched too::

        verdicts = load_verdicts("verdicts.jsonl", check=ScaleCheck([rubric]))
    """

    def __init__(self, rubrics: Iterable[Rubric] = (), *, variant: Variant | None = None) -> None:
        self._rubrics: dict[str, list[Rubric]] = {}
        self._by_version: dict[tuple[str, str], Rubric] = {}
        self._variant = variant
        self._tried: set[tuple[str, str]] = set()
        for rubric in rubrics:
            self._rubrics.setdefault(rubric.id, []).append(rubric)
            self._by_version[(rubric.id, rubric_version(rubric))] = rubric

    def rubric_of(self, verdict: Verdict) -> Rubric | None:
        """The rubric whose version the verdict was judged under, if it is at hand."""
        key = (verdict.rubric_id, verdict.rubric_version)
        if key not in self._by_version and self._variant is not None:
            model_key = (verdict.rubric_id, verdict.model)
            if model_key not in self._tried:
                self._tried.add(model_key)
                for rubric in self._rubrics.get(verdict.rubric_id, []):
                    judged = self._variant(rubric, verdict.model)
                    self._by_version.setdefault((rubric.id, rubric_version(judged)), judged)
        return self._by_version.get(key)

    def check(self, verdict: Verdict, *, path: str | Path | None, line: int | None) -> None:
        """Raise a :class:`DataError` at ``path:line`` when a scored score is off the scale."""
        rubric = self.rubric_of(verdict)
        scored = [("score", verdict.status, verdict.score)]
        scored += [
            (f"samples.{index}.score", sample.status, sample.score)
            for index, sample in enumerate(verdict.samples or [])
        ]
        for field, status, score in scored:
            if status == "unscored":  # an abstained verdict holds a score too: checked
                continue
            problem = _off_scale(score, rubric) if rubric is not None else _not_a_score(score)
            if problem is not None:
                raise DataError(problem, path=path, line=line, field=field)


def _off_scale(score: Any, rubric: Rubric) -> str | None:
    try:
        normalise_score(rubric.scale, score)
    except ValueError:
        return (
            f"{_shown(score)} is not on the {rubric.kind} scale of {rubric.id}; a scored "
            f"verdict's score is {describe_scores(rubric.scale)}"
        )
    return None


def _not_a_score(score: Any) -> str | None:
    """What no scale accepts: nothing, a fraction, a list or an object."""
    if isinstance(score, str | bool | int):
        return None
    if isinstance(score, float) and math.isfinite(score) and score.is_integer():
        return None
    return (
        f"{_shown(score)} is not a score on any scale; a scored verdict's score is a string "
        "or a whole number"
    )


def _shown(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
