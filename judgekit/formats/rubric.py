"""The rubric format (``rubrics/<id>.yaml``): what an LLM judge is asked and how it answers.

Three things define what a rubric *means*, whoever reads it (judges, labelling,
calibration), so they live in ``formats/`` beside the model:

- the **scale**: which scores exist, and how a loosely written score (``true``, ``"4"``,
  ``"Partial"``) maps onto exactly one of them (:mod:`judgekit.formats.scale`);
- the **template language** of the prompt: ``{name}`` with a known name is a placeholder,
  every other brace is literal text (:mod:`judgekit.formats.template`);
- the **model** here, which checks a rubric as a whole (a pairwise prompt shows both
  answers, an example's label is on the scale, ...), so a rubric built in code is checked
  like a file.

The scale's and the template's names are importable from here too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from judgekit._util.yamlfile import LineMap, Location
from judgekit.formats.jury import (
    Combine,
    Juror,
    check_combine,
    check_jurors,
    check_provider_model,
    jury_name,
)
from judgekit.formats.scale import (
    ChoicesScale,
    LikertScale,
    RubricSpecError,
    Scale,
    ScaleKind,
    Score,
    describe_scores,
    likert_bounds,
    normalise_score,
    scale_kind,
    scale_values,
)
from judgekit.formats.template import fill_template, placeholder_names

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

RUN_PLACEHOLDERS = (
    "input", "final_answer", "transcript", "tool_calls", "conversation", "reference",
)  # fmt: skip
PAIRWISE_PLACEHOLDERS = ("input", "answer_a", "answer_b", "reference")


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
    """The judge to ask: ``provider/model`` or a ``jury`` of several (:mod:`.jury`), its
    temperature, how many samples to take, and how to measure its confidence in a verdict.

    For a jury, ``model`` is the jury's name (:func:`~judgekit.formats.jury.jury_name`),
    filled in on loading: everything keyed on a judge model keys on the jury as one judge.
    """

    model_config = ConfigDict(extra="forbid")

    model: str = Field(
        default="",
        description="provider/model, e.g. openai/gpt-4o-mini; not with jury",
    )
    jury: list[Juror] | None = Field(
        default=None, description="Several judge models asked alike (not with model)."
    )
    combine: Combine | None = Field(
        default=None, description="How a jury's verdicts combine: majority, mean or unanimous."
    )
    temperature: float = Field(default=0.0, ge=0, allow_inf_nan=False)
    samples: int = Field(default=1, ge=1)
    confidence: Literal["samples", "logprobs"] = Field(
        default="samples",
        description=(
            "How a verdict's confidence is measured: the agreement of its samples (samples > 1), "
            "or the probability of the score's token where the provider returns log-probabilities "
            "(OpenAI-compatible APIs)."
        ),
    )

    @field_validator("model")
    @classmethod
    def _provider_slash_model(cls, value: str) -> str:
        return check_provider_model(value)

    @model_validator(mode="after")
    def _model_or_jury(self) -> JudgeSettings:
        if self.jury is None:
            if "model" not in self.model_fields_set:
                raise RubricSpecError(
                    "a judge names a model (one judge) or a jury (several); required field "
                    "is missing",
                    ("model",),
                )
            if self.combine is not None:
                raise RubricSpecError("combine is for a jury; one model needs none", ("combine",))
            return self
        check_jurors(self.jury)
        if self.combine is None:
            raise RubricSpecError(
                "a jury says how to combine its verdicts: combine: majority, mean or unanimous",
                ("combine",),
            )
        name = jury_name(self.combine, [juror.model for juror in self.jury])
        # A dumped jury (its name beside its jurors) reads back; any other model is a clash.
        if "model" in self.model_fields_set and self.model != name:
            raise RubricSpecError(
                "a judge names a model (one judge) or a jury (several), not both", ("model",)
            )
        if self.confidence == "logprobs":
            raise RubricSpecError(
                "a jury's confidence is its jurors' agreement; confidence: logprobs is for "
                "one judge",
                ("confidence",),
            )
        # Not through setattr: the name is derived, not given, so a dump read back is valid.
        self.__dict__["model"] = name
        return self


class SelectivePolicy(BaseModel):
    """Promote the judge selectively: keep a verdict only when its confidence reaches a
    threshold chosen on the labels so that agreement on the kept verdicts is at least
    ``1 - alpha`` with probability at least ``1 - delta``; the others are abstained."""

    model_config = ConfigDict(extra="forbid")

    alpha: float = Field(default=0.1, gt=0, lt=1, allow_inf_nan=False)
    delta: float = Field(default=0.1, gt=0, lt=1, allow_inf_nan=False)


class FlipRateBars(BaseModel):
    """The most a bias probe (``judgekit probe --bias B``) may move the judge: the upper
    bound of the probe's interval must be at or below the bar."""

    model_config = ConfigDict(extra="forbid")

    verbosity: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    position: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    self: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)

    def bars(self) -> dict[str, float]:
        """The biases given a bar, in the order verbosity, position, self."""
        values = {"verbosity": self.verbosity, "position": self.position, "self": self.self}
        return {bias: bar for bias, bar in values.items() if bar is not None}


class PromotionPolicy(BaseModel):
    """What calibration must show before the rubric may gate CI or be monitored."""

    model_config = ConfigDict(extra="forbid")

    min_labels: int = Field(default=50, ge=1)
    min_per_class: int = Field(default=10, ge=0)
    min_kappa: float = Field(default=0.6, ge=-1, le=1, allow_inf_nan=False)
    confidence: float = Field(default=0.95, gt=0, lt=1, allow_inf_nan=False)
    max_flip_rate: FlipRateBars | None = None  # bias probes; none by default
    max_ece: float | None = Field(
        default=None,
        ge=0,
        le=1,
        allow_inf_nan=False,
        description=(
            "The most the upper bound of the expected calibration error's bootstrap interval "
            "may be on the held-out labels (the judge's confidence against whether it agreed); "
            "none by default."
        ),
    )
    test_share: float = Field(
        default=0.5,
        gt=0,
        lt=1,
        allow_inf_nan=False,
        description="The share of labelled runs held out as test, measured only by promote.",
    )
    selective: SelectivePolicy | None = Field(
        default=None,
        description="Promote selectively: abstain below a confidence threshold (alpha, delta).",
    )


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
    applies_to: Literal["final_answer", "transcript", "tool_calls", "conversation"] = "final_answer"
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
        if self.judge.jury is not None and self.judge.combine is not None:
            try:
                check_combine(self.judge.combine, self.kind, len(self.judge.jury))
            except RubricSpecError as exc:
                raise RubricSpecError(exc.message, ("judge", *exc.where)) from None
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
            "final_answer": ("final_answer", "transcript", "conversation"),
            "tool_calls": ("tool_calls", "transcript"),
            "transcript": ("transcript",),
            "conversation": ("conversation",),
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
