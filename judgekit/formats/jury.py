"""A jury in a rubric: several judge models asked the same question, their verdicts combined.

A rubric's ``judge`` names either one ``model`` or a ``jury`` of at least two jurors and how
to ``combine`` them::

    judge:
      jury:
        - {model: openai/gpt-4o-mini}
        - {model: anthropic/claude-haiku-4-5}
        - {model: local/llama3.1, base_url: "http://127.0.0.1:8000/v1"}
      combine: majority        # majority | mean | unanimous
      temperature: 0

Which combine rule fits which scale (:func:`check_combine`):

- ``majority`` — binary, choices and pairwise scales: the most common score. The jury has an
  odd number of jurors, so that two halves cannot tie; a tie left by unscored jurors, or by a
  choices scale split three ways, is unscored.
- ``mean`` — likert scales: the mean of the jurors' scores, rounded to a whole score, a half
  rounded down (the jury never rates higher than its jurors' mean).
- ``unanimous`` — binary scales: a pass only when every juror passes.

The jury is one judge to everything that keys on a judge model (verdict reuse, calibration,
promotion): its name (:func:`jury_name`) lists the combine rule and the jurors' models, sorted,
so reordering the jurors names the same jury.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from judgekit.formats.scale import RubricSpecError, ScaleKind

__all__ = ["COMBINE_RULES", "Combine", "Juror", "check_combine", "check_jurors", "jury_name"]

Combine = Literal["majority", "mean", "unanimous"]
COMBINE_RULES: tuple[Combine, ...] = ("majority", "mean", "unanimous")

# The scales each rule is defined on, and what to use elsewhere.
_SCALES: dict[Combine, tuple[ScaleKind, ...]] = {
    "majority": ("binary", "choices", "pairwise"),
    "mean": ("likert",),
    "unanimous": ("binary",),
}
_WHY: dict[Combine, str] = {
    "majority": "the most common of distinct answers",
    "mean": "the mean of numeric scores",
    "unanimous": "a pass only when every juror passes",
}


def check_provider_model(value: str) -> str:
    """``value`` when it is ``provider/model``, else a :class:`RubricSpecError` saying so."""
    provider, slash, name = value.partition("/")
    if not (provider and slash and name):
        raise RubricSpecError(
            f"a judge model is provider/model, e.g. openai/gpt-4o-mini (got {value!r})"
        )
    return value


class Juror(BaseModel):
    """One judge model of a jury, with where to reach it when it is not its provider's
    usual endpoint (an OpenAI-compatible local server beside a hosted model)."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="provider/model, e.g. openai/gpt-4o-mini")
    base_url: str | None = Field(
        default=None,
        min_length=1,
        description="The juror's endpoint, as --base-url gives one judge's; not part of the "
        "rubric version (the verdict records the endpoint).",
    )
    api_key_env: str | None = Field(
        default=None,
        min_length=1,
        description="The environment variable holding the juror's API key (never the key).",
    )

    @field_validator("model")
    @classmethod
    def _provider_slash_model(cls, value: str) -> str:
        return check_provider_model(value)


def jury_name(combine: Combine, models: Sequence[str]) -> str:
    """The jury as one judge model: its rule and its jurors' models, sorted.

    >>> jury_name("majority", ["openai/c", "anthropic/b", "openai/a"])
    'jury:majority(anthropic/b,openai/a,openai/c)'
    """
    return f"jury:{combine}({','.join(sorted(models))})"


def check_jurors(jurors: Sequence[Juror]) -> None:
    """At least two jurors, no model twice; :class:`RubricSpecError` at the fault."""
    if len(jurors) < 2:
        raise RubricSpecError(
            f"a jury has at least 2 jurors (got {len(jurors)}); for one judge write "
            "judge: {model: provider/model}",
            ("jury",),
        )
    first: dict[str, int] = {}
    for index, juror in enumerate(jurors):
        if juror.model in first:
            raise RubricSpecError(
                f"juror {juror.model} is also juror {first[juror.model] + 1}; a juror asked "
                "twice repeats itself (ask it several times with samples)",
                ("jury", index, "model"),
            )
        first[juror.model] = index


def check_combine(combine: Combine, kind: ScaleKind, jurors: int) -> None:
    """``combine`` fits a ``kind`` scale and a jury of ``jurors``; else a
    :class:`RubricSpecError` at ``combine`` saying what would.

    >>> check_combine("mean", "binary", 3)
    Traceback (most recent call last):
    ...
    judgekit.formats.scale.RubricSpecError: combine mean is the mean of numeric scores, for a likert scale; for a binary scale use majority or unanimous
    """
    where = ("combine",)
    if kind not in _SCALES[combine]:
        fitting = [rule for rule in COMBINE_RULES if kind in _SCALES[rule]]
        raise RubricSpecError(
            f"combine {combine} is {_WHY[combine]}, for a {' or '.join(_SCALES[combine])} "
            f"scale; for a {kind} scale use {' or '.join(fitting)}",
            where,
        )
    if combine == "majority" and jurors % 2 == 0:
        raise RubricSpecError(
            f"a majority jury has an odd number of jurors (got {jurors}), so that two halves "
            "cannot tie; add or remove a juror",
            where,
        )
