"""The rubric format (``rubrics/<id>.yaml``): what an LLM judge is asked and how it answers.

Three things define what a rubric *means*, whoever reads it (judges, labelling,
calibration), so they live here beside the model:

- the **scale**: which scores exist, and how a loosely written score (``true``, ``"4"``,
  ``"Partial"``) maps onto exactly one of them (:func:`normalise_score`);
- the **template language** of the prompt: ``{name}`` with a known name is a placeholder,
  every other brace is literal text (:func:`placeholder_names`, :func:`fill_template`);
- the **model** that checks a rubric as a whole (a pairwise prompt shows both answers, an
  example's label is on the scale, ...), so a rubric built in code is checked like a file.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    PrivateAttr,
    Tag,
    field_validator,
    model_validator,
)

from judgekit._util.yamlfile import LineMap, Location

__all__ = [
    "PAIRWISE_PLACEHOLDERS",
    "RUN_PLACEHOLDERS",
    "ChoicesScale",
    "JudgeSettings",
    "LikertScale",
    "PromotionPolicy",
    "Rubric",
    "RubricExample",
    "RubricSpecError",
    "Scale",
    "ScaleKind",
    "Score",
    "describe_scores",
    "fill_template",
    "likert_bounds",
    "normalise_score",
    "placeholder_names",
    "scale_kind",
    "scale_values",
]

Score = str | int
ScaleKind = Literal["binary", "likert", "choices", "pairwise"]

RUN_PLACEHOLDERS = ("input", "final_answer", "transcript", "tool_calls", "reference")
PAIRWISE_PLACEHOLDERS = ("input", "answer_a", "answer_b", "reference")

# Only a brace, an identifier and a brace with nothing between is a placeholder: a JSON
# example such as {"reason": "...", "score": 1} or a set {a, b} never matches, so prompt
# authors need no escaping. `{ name }` (with spaces) is the way to write a literal name.
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")

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


class RubricSpecError(ValueError):
    """A rubric is invalid; ``where`` is the location below the failing field, and
    ``token`` the exact text at fault (loaders use it to point at the line inside a
    multi-line prompt)."""

    def __init__(self, message: str, where: Location = (), *, token: str | None = None) -> None:
        self.message = message
        self.where = where
        self.token = token
        super().__init__(message)


# --- the template language ----------------------------------------------------------


def placeholder_names(template: str) -> list[str]:
    """The names of every ``{identifier}`` in ``template``, in order, known or not.

    >>> placeholder_names('Task: {input}. Answer {"score": 1} in {final_answer}')
    ['input', 'final_answer']
    """
    return _PLACEHOLDER.findall(template)


def fill_template(template: str, values: Mapping[str, str]) -> str:
    """Replace each ``{name}`` whose name is in ``values``; leave every other brace alone.

    One pass: a value containing ``{input}`` is inserted as it is, never expanded again.

    >>> fill_template('Grade {final_answer} as {"score": 1}', {"final_answer": "{input}"})
    'Grade {input} as {"score": 1}'
    """

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        return values[name] if name in values else match.group(0)

    return _PLACEHOLDER.sub(substitute, template)


# --- scales ---------------------------------------------------------------------------


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

    >>> from judgekit.formats.rubric import LikertScale
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


# --- the rubric -----------------------------------------------------------------------


class RubricExample(BaseModel):
    """A few-shot example shown to the judge: what was asked, what was answered, the score
    the rubric's author gives it (``label``, on the rubric's scale) and optionally why.

    A pairwise rubric's examples give ``answer_a`` and ``answer_b`` instead of ``output``.
    """

    model_config = ConfigDict(extra="forbid")

    input: str
    output: str | None = None
    answer_a: str | None = None
    answer_b: str | None = None
    label: Any
    why: str | None = None


class JudgeSettings(BaseModel):
    """The judge to ask: ``provider/model``, its temperature, and how many samples to take."""

    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="provider/model, e.g. openai/gpt-4o-mini")
    temperature: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    samples: int = Field(default=1, ge=1)

    @field_validator("model")
    @classmethod
    def _provider_slash_model(cls, value: str) -> str:
        provider, slash, name = value.partition("/")
        if not (provider and slash and name):
            raise RubricSpecError(
                f"a judge model is provider/model, e.g. openai/gpt-4o-mini (got {value!r})"
            )
        return value


class PromotionPolicy(BaseModel):
    """What calibration must show before the rubric may gate CI or be monitored."""

    model_config = ConfigDict(extra="forbid")

    min_labels: int = Field(default=50, ge=1)
    min_per_class: int = Field(default=10, ge=0)
    min_kappa: float = Field(default=0.6, ge=-1, le=1, allow_inf_nan=False)
    confidence: float = Field(default=0.95, gt=0, lt=1, allow_inf_nan=False)


def _listed(names: tuple[str, ...]) -> str:
    return ", ".join("{" + name + "}" for name in names)


class Rubric(BaseModel):
    """One rubric: the question, the scale, the prompt template and the judge to ask.

    >>> rubric = Rubric(id="ok", scale="binary", prompt="Is {final_answer} polite?",
    ...                 judge={"model": "openai/gpt-4o-mini"})
    >>> rubric.placeholders
    ('final_answer',)
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    description: str | None = None
    scale: Scale
    applies_to: Literal["final_answer", "transcript", "tool_calls"] = "final_answer"
    prompt: str = Field(min_length=1)
    examples: list[RubricExample] = Field(default_factory=list)
    judge: JudgeSettings
    promotion: PromotionPolicy = Field(default_factory=PromotionPolicy)
    max_chars: int | None = Field(
        default=None,
        ge=100,
        description=(
            "The most characters of agent text one placeholder may fill (default 32,000); "
            "the middle of a longer text is cut, saying how much."
        ),
    )

    _path: Path | None = PrivateAttr(default=None)
    _lines: LineMap | None = PrivateAttr(default=None)

    @model_validator(mode="after")
    def _check(self) -> Rubric:
        self._check_placeholders()
        for index, example in enumerate(self.examples):
            self._check_example(index, example)
        return self

    def _check_placeholders(self) -> None:
        pairwise = self.kind == "pairwise"
        valid = PAIRWISE_PLACEHOLDERS if pairwise else RUN_PLACEHOLDERS
        for name in self.placeholders:
            if name not in valid:
                message = f"unknown placeholder {{{name}}}; valid placeholders are {_listed(valid)}"
                if name in PAIRWISE_PLACEHOLDERS:
                    message += f" ({{{name}}} is for pairwise rubrics)"
                elif name in RUN_PLACEHOLDERS:
                    message += " (a pairwise rubric shows the two answers)"
                raise RubricSpecError(message, ("prompt",), token=f"{{{name}}}")
        used = set(self.placeholders)
        if pairwise:
            missing = tuple(n for n in ("answer_a", "answer_b") if n not in used)
            if missing:
                raise RubricSpecError(
                    f"a pairwise prompt shows both answers; add {' and '.join(_listed((n,)) for n in missing)}",
                    ("prompt",),
                )
            return
        # A prompt that never shows what the rubric judges makes the judge guess.
        shows = {
            "final_answer": ("final_answer", "transcript"),
            "tool_calls": ("tool_calls", "transcript"),
            "transcript": ("transcript",),
        }[self.applies_to]
        if not used.intersection(shows):
            raise RubricSpecError(
                f"the rubric applies to the {self.applies_to} but the prompt never shows it; "
                f"add {' or '.join(_listed((n,)) for n in shows)}",
                ("prompt",),
            )

    def _check_example(self, index: int, example: RubricExample) -> None:
        where: Location = ("examples", index)
        pair = (example.answer_a, example.answer_b)
        if self.kind == "pairwise":
            if None in pair or example.output is not None:
                raise RubricSpecError(
                    "a pairwise example gives answer_a and answer_b (and no output)", where
                )
        elif example.output is None or pair != (None, None):
            raise RubricSpecError(
                "an example gives output (answer_a and answer_b are for pairwise rubrics)", where
            )
        try:
            # Stored normalised, so `label: true` and `label: pass` give one rubric version.
            example.label = normalise_score(self.scale, example.label)
        except ValueError as exc:
            raise RubricSpecError(str(exc), (*where, "label")) from None

    @property
    def kind(self) -> ScaleKind:
        """The kind of scale: binary, likert, choices or pairwise."""
        return scale_kind(self.scale)

    @property
    def placeholders(self) -> tuple[str, ...]:
        """The placeholder names the prompt uses, each once, in order of first use."""
        return tuple(dict.fromkeys(placeholder_names(self.prompt)))

    @property
    def source(self) -> Path | None:
        """The file the rubric was loaded from (None for a rubric built in code)."""
        return self._path

    def line_of(self, location: Location) -> int | None:
        """The line of ``location`` (``("prompt",)``) in the rubric's file, when known."""
        return self._lines.line_of(location) if self._lines is not None else None

    def attach_source(self, path: Path, lines: LineMap) -> None:
        """Remember the file and line map the rubric came from, for later error messages."""
        self._path = path
        self._lines = lines
