"""The Verdict format: what a judge says about one run under one rubric version."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judgekit.formats.numbers import Count, NonNegativeFloat, Share


class VerdictSample(BaseModel):
    """One answer of a judge asked several times (``samples: k``)."""

    model_config = ConfigDict(extra="forbid")

    score: Any = None
    reason: str | None = None
    status: Literal["scored", "unscored"] = "scored"


class Verdict(BaseModel):
    """A judge's verdict. ``unscored`` is neither a pass nor a fail: the judge's answer could
    not be read as a verdict on the rubric's scale, and ``unscored_reason`` says why."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    rubric_id: str
    rubric_version: str
    model: str
    status: Literal["scored", "unscored"]
    score: Any = None
    reason: str | None = None
    samples: list[VerdictSample] | None = None
    agreement: Share | None = Field(
        default=None, description="Share of samples agreeing with the majority (samples > 1)."
    )
    position_bias: bool | None = Field(
        default=None, description="Pairwise only: the verdict flipped when A and B swapped places."
    )
    unscored_reason: str | None = None
    input_tokens: Count = 0
    output_tokens: Count = 0
    cost_usd: NonNegativeFloat | None = None
    latency_s: NonNegativeFloat | None = None
    cached: bool = False
    at: datetime
