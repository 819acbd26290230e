"""The rubric format (``rubrics/<id>.yaml``): what an LLM judge is asked and how it answers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ChoicesScale(BaseModel):
    """A scale of labelled choices, e.g. ``{choices: [correct, partial, wrong]}``."""

    model_config = ConfigDict(extra="forbid")

    choices: list[str] = Field(min_length=2)


class RubricExample(BaseModel):
    """A few-shot example shown to the judge."""

    model_config = ConfigDict(extra="forbid")

    input: str
    output: str
    label: Any
    why: str | None = None


class JudgeSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    model: str = Field(description="provider/model, e.g. openai/gpt-4o-mini")
    temperature: float = Field(default=0.0, ge=0)
    samples: int = Field(default=1, ge=1)


class PromotionPolicy(BaseModel):
    """What calibration must show before the rubric may gate CI or be monitored."""

    model_config = ConfigDict(extra="forbid")

    min_labels: int = Field(default=50, ge=1)
    min_per_class: int = Field(default=10, ge=0)
    min_kappa: float = Field(default=0.6, ge=-1, le=1)
    confidence: float = Field(default=0.95, gt=0, lt=1)


class Rubric(BaseModel):
    """One rubric: the question, the scale, the prompt template and the judge to ask."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    description: str | None = None
    scale: Literal["binary", "likert", "pairwise"] | ChoicesScale
    applies_to: Literal["final_answer", "transcript", "tool_calls"] = "final_answer"
    prompt: str = Field(min_length=1)
    examples: list[RubricExample] = Field(default_factory=list)
    judge: JudgeSettings
    promotion: PromotionPolicy = Field(default_factory=PromotionPolicy)
