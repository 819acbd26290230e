"""A rubric's scale: which scores exist, and how a loosely written score maps onto one.

A scale is ``binary`` (pass/fail), ``likert`` (whole numbers, 1..5 unless ``{likert: [low,
high]}`` says otherwise), ``pairwise`` (A, B or tie) or ``{choices: [a, b, ...]}``. A score
written loosely (``true``, ``"4"``, ``"Partial"``) maps onto exactly one of its scale's
scores (:func:`normalise_score`), for judges, hand labels and examples alike.
"""

from __future__ import annotations

import json
import math
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator

from judgekit._util.yamlfile import Location
from judgekit.errors import SpecError

__all__ = [
    "ChoicesScale",
    "LikertScale",
    "RubricSpecError",
    "Scale",
    "ScaleKind",
    "Score",
    "describe_scores",
    "likert_bounds",
    "normalise_score",
    "scale_kind",
    "scale_values",
]

Score = str | int
ScaleKind = Literal["binary", "likert", "choices", "pairwise"]

DEFAULT_LIKERT = (1, 5)
_BINARY_SCORES: dict[str, str] = {
    "pass": "pass",
    "true": "pass",
    "yes": "pass",
    "1": "pass",
    "fail": "fail",
    "false": "fail",
    "no": "fail",
    "0": "fail",
}
_PAIRWISE_SCORES = ("A", "B", "tie")
_SCALE_HELP = (
    "unknown scale; valid scales are binary, likert, pairwise, {choices: [a, b, ...]} "
    "and {likert: [low, high]}"
)


# Defined here, the lowest module of a rubric, since a scale is the first part checked.
class RubricSpecError(SpecError):
    """A rubric is invalid; ``where`` is the location below the failing field, and
    ``token`` the exact text at fault (loaders use it to point at the line inside a
    multi-line prompt)."""

    def __init__(self, message: str, where: Location = (), *, token: str | None = None) -> None:
        self.message = message
        self.where = where
        self.token = token
        super().__init__(message)


def _choices_error(message: str, got: Any) -> RubricSpecError:
    return RubricSpecError(f"{message} (got {got!r})")


class ChoicesScale(BaseModel):
    """A scale of labelled choices, e.g. ``{choices: [correct, partial, wrong]}``.

    Judges' answers match a choice ignoring case, so two choices may not differ only in case.
    """

    model_config = ConfigDict(extra="forbid")

    choices: list[str] = Field(min_length=2)

    @field_validator("choices", mode="before")
    @classmethod
    def _two_distinct_strings(cls, value: Any) -> Any:
        if not isinstance(value, list) or len(value) < 2:
            raise _choices_error(
                "a choices scale lists at least two values, e.g. {choices: [correct, partial, wrong]}",
                value,
            )
        seen: dict[str, str] = {}
        for index, choice in enumerate(value):
            if not isinstance(choice, str) or not choice.strip():
                # PyYAML reads unquoted yes/no/on/off/true/false as booleans.
                hint = "; quote yes/no/true/false in YAML" if isinstance(choice, bool) else ""
                raise RubricSpecError(
                    f"a choice is a non-empty string{hint} (got {choice!r})", (index,)
                )
            key = choice.strip().casefold()
            if key in seen:
                raise RubricSpecError(
                    f"choices {seen[key]!r} and {choice!r} differ only in case or spaces; "
                    "judges' answers are matched ignoring both",
                    (index,),
                )
            seen[key] = choice
        return value


class LikertScale(BaseModel):
    """A likert scale with its own bounds, e.g. ``{likert: [1, 7]}``; plain ``likert`` is 1..5."""

    model_config = ConfigDict(extra="forbid")

    likert: tuple[int, int]

    @field_validator("likert", mode="before")
    @classmethod
    def _ordered_bounds(cls, value: Any) -> Any:
        whole = [v for v in value if _is_int(v)] if isinstance(value, list | tuple) else []
        # The cap keeps "every score of the scale" a short list to show the judge.
        if len(whole) != 2 or len(value) != 2 or not 0 < whole[1] - whole[0] <= 100:
            raise RubricSpecError(
                "likert bounds are [low, high], two whole numbers with low < high, at most "
                f"100 apart (got {value!r})"
            )
        return value


def _scale_tag(value: Any) -> str | None:
    if isinstance(value, str) and value in ("binary", "likert", "pairwise"):
        return "named"
    if isinstance(value, ChoicesScale) or (isinstance(value, dict) and "choices" in value):
        return "choices"
    if isinstance(value, LikertScale) or (isinstance(value, dict) and "likert" in value):
        return "likert"
    return None  # pydantic then raises the custom "scale" error below


# A callable discriminator picks the one form that applies, so a bad scale gets one
# precise error instead of a failure report from every member of the union.
Scale = Annotated[
    Annotated[Literal["binary", "likert", "pairwise"], Tag("named")]
    | Annotated[ChoicesScale, Tag("choices")]
    | Annotated[LikertScale, Tag("likert")],
    Discriminator(_scale_tag, custom_error_type="scale", custom_error_message=_SCALE_HELP),
]


def scale_kind(scale: Scale) -> ScaleKind:
    """``"binary"``, ``"likert"``, ``"choices"`` or ``"pairwise"``, whichever way it is written.

    >>> scale_kind(LikertScale(likert=(1, 7)))
    'likert'
    """
    if isinstance(scale, ChoicesScale):
        return "choices"
    if isinstance(scale, LikertScale):
        return "likert"
    return scale


def likert_bounds(scale: Scale) -> tuple[int, int]:
    """The lowest and highest score of a likert scale (``likert`` alone means 1..5)."""
    if isinstance(scale, LikertScale):
        return scale.likert
    if scale == "likert":
        return DEFAULT_LIKERT
    raise ValueError(f"{scale_kind(scale)} is not a likert scale")


def scale_values(scale: Scale) -> tuple[Score, ...]:
    """Every score of the scale, in its canonical spelling.

    >>> scale_values("binary"), scale_values("likert")
    (('pass', 'fail'), (1, 2, 3, 4, 5))
    """
    kind = scale_kind(scale)
    if kind == "binary":
        return ("pass", "fail")
    if kind == "pairwise":
        return _PAIRWISE_SCORES
    if isinstance(scale, ChoicesScale):
        return tuple(scale.choices)
    low, high = likert_bounds(scale)
    return tuple(range(low, high + 1))


# A likert scale with more points than this is described by its bounds, not listed.
_MAX_LISTED = 11


def describe_scores(scale: Scale) -> str:
    """The scores of ``scale`` in a few words, as the judge and error messages say them.

    >>> describe_scores("binary"), describe_scores(LikertScale(likert=(0, 100)))
    ('one of: "pass", "fail"', 'a whole number from 0 to 100')
    """
    values = scale_values(scale)
    if scale_kind(scale) == "likert" and len(values) > _MAX_LISTED:
        low, high = likert_bounds(scale)
        return f"a whole number from {low} to {high}"
    return "one of: " + ", ".join(json.dumps(v, ensure_ascii=False) for v in values)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shown(value: Any) -> str:
    """A value as the judge wrote it (JSON spelling), cut short for one-line errors."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _one_of(values: tuple[Score, ...]) -> str:
    return ", ".join(_shown(v) for v in values)


def _whole_number(value: Any) -> int | None:
    """``4``, ``4.0``, ``"4"`` and ``" 4.0 "`` are 4; ``4.5``, ``true`` and ``"four"`` are not."""
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                return None
    if _is_int(value):
        return int(value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    return None


def normalise_score(scale: Scale, value: Any) -> Score:
    """The score ``value`` stands for on ``scale``, or :class:`ValueError` saying why none.

    Binary accepts pass/fail, true/false, yes/no and 1/0 (values or strings, any case) and
    returns ``"pass"`` or ``"fail"``; likert a whole number in bounds (``"4"`` and ``4.0``
    too); choices and pairwise (A/B/tie) a listed value in any case, returned as listed.

    >>> normalise_score("binary", "Yes"), normalise_score("likert", "4"), normalise_score("pairwise", "a")
    ('pass', 4, 'A')
    >>> normalise_score("likert", 7)
    Traceback (most recent call last):
    ...
    ValueError: 7 is outside the scale 1..5
    """
    kind = scale_kind(scale)
    if kind == "binary":
        key = str(int(value)) if isinstance(value, bool) else None
        if key is None and isinstance(value, int | float) and value in (0, 1):
            key = str(int(value))
        if key is None and isinstance(value, str):
            key = value.strip().casefold()
        if key in _BINARY_SCORES:
            return _BINARY_SCORES[key]
        raise ValueError(f'{_shown(value)} is not a binary score; use "pass" or "fail"')
    if kind == "likert":
        low, high = likert_bounds(scale)
        number = _whole_number(value)
        if number is None:
            raise ValueError(f"{_shown(value)} is not a whole number on the scale {low}..{high}")
        if not low <= number <= high:
            raise ValueError(f"{_shown(value)} is outside the scale {low}..{high}")
        return number
    listed = scale_values(scale)
    text = str(value) if _is_int(value) else value
    if isinstance(text, str):
        for choice in listed:
            if isinstance(choice, str) and choice.strip().casefold() == text.strip().casefold():
                return choice
    raise ValueError(f"{_shown(value)} is not one of {_one_of(listed)}")
