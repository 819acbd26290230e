"""The Verdict format: what a judge says about one run under one rubric version, and its
one loader for a ``verdicts.jsonl`` file (:func:`iter_verdict_lines`, and
:func:`load_verdicts` over it).

The judge appends to the file a line at a time, so its last line is read as every
append-only file's (:func:`judgekit._util.jsonl.append_only_lines`): one a crash cut short
is ignored with a warning naming the file and line, by every command that reads the file
(a rerun of ``judge``, ``calibrate --verdicts``, ``import``, ``store``); a malformed line
anywhere else is an error naming the file, line and field."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from judgekit._util.jsonl import iter_appended_models, warn_on_stderr
from judgekit.formats.numbers import Count, NonNegativeFloat, Share

__all__ = [
    "JurorVerdict",
    "Verdict",
    "VerdictCheck",
    "VerdictSample",
    "iter_verdict_lines",
    "load_verdicts",
]


class VerdictSample(BaseModel):
    """One answer of a judge asked several times (``samples: k``)."""

    model_config = ConfigDict(extra="forbid")

    score: Any = None
    reason: str | None = None
    status: Literal["scored", "unscored"] = "scored"


class JurorVerdict(BaseModel):
    """What one juror of a jury said about the run, kept inside the jury's verdict."""

    model_config = ConfigDict(extra="forbid")

    model: str
    status: Literal["scored", "unscored"]
    score: Any = None
    reason: str | None = None
    unscored_reason: str | None = None
    input_tokens: Count = 0
    output_tokens: Count = 0
    cost_usd: NonNegativeFloat | None = None
    latency_s: NonNegativeFloat | None = None
    cached: bool = False
    endpoint: str | None = None


class Verdict(BaseModel):
    """A judge's verdict. ``unscored`` is neither a pass nor a fail: the judge's answer could
    not be read as a verdict on the rubric's scale, and ``unscored_reason`` says why.
    ``abstained`` is neither either: the rubric was promoted selectively and the judge's
    ``confidence`` fell below the promoted threshold, so the score is kept for reading but
    counts for nothing, and the run is left for people (``judgekit label --strategy
    abstained``)."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    rubric_id: str
    rubric_version: str
    model: str
    status: Literal["scored", "unscored", "abstained"]
    score: Any = None
    reason: str | None = None
    samples: list[VerdictSample] | None = None
    agreement: Share | None = Field(
        default=None, description="Share of samples agreeing with the majority (samples > 1)."
    )
    confidence: Share | None = Field(
        default=None,
        description=(
            "The judge's confidence in its verdict, in [0, 1]: the agreement of its samples "
            "(samples > 1) or the probability of the chosen score (logprobs); None when unknown."
        ),
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
    jurors: list[JurorVerdict] | None = Field(
        default=None,
        description=(
            "A jury's verdict: each juror's, in the rubric's order; the tokens and cost above "
            "are their sums. None for one judge."
        ),
    )
    endpoint: str | None = Field(
        default=None,
        description=(
            "Where the judge was asked: the provider's base URL, normalised, with no "
            "credentials, query or fragment; None for a provider with one fixed endpoint, "
            "or a verdict written before verdicts recorded it."
        ),
    )
    input_digest: str | None = Field(
        default=None,
        description=(
            "The sha256 (hex) of the run's and task's text the prompt was filled from "
            "(judgekit.judging.judged_input): a rerun reuses the verdict only for the same "
            "content. None in verdicts written before it was recorded: never reused."
        ),
    )


class VerdictCheck(Protocol):
    """Checks one verdict read from a file (such as
    :class:`~judgekit.formats.verdict_scores.ScaleCheck`), raising a DataError at its line."""

    def check(self, verdict: Verdict, *, path: str | Path | None, line: int | None) -> None: ...


def iter_verdict_lines(
    path: str | Path, *, warn: Callable[[str], None] = warn_on_stderr
) -> Iterator[tuple[int, str, Verdict]]:
    """``(line_number, line, verdict)`` for every verdict of a ``verdicts.jsonl`` file (or a
    ``.gz``), streamed, each line as written (its line ending included, none on a last line
    without one). A torn last line is left out and ``warn`` told; a malformed line is a
    :class:`~judgekit.errors.DataError` naming the file, the line and the field."""
    return iter_appended_models(path, Verdict, warn=warn)


def load_verdicts(
    path: str | Path,
    *,
    check: VerdictCheck | None = None,
    warn: Callable[[str], None] = warn_on_stderr,
) -> list[Verdict]:
    """The verdicts of a ``verdicts.jsonl`` file, in file order (oldest first).

    A malformed line is a :class:`~judgekit.errors.DataError` naming the file, the line and
    the field; with ``check``, so is a verdict it refuses (a score off its rubric's scale).
    A last line a crash cut short is left out, and ``warn`` (stderr) told.
    """
    verdicts: list[Verdict] = []
    for line, _, verdict in iter_verdict_lines(path, warn=warn):
        if check is not None:
            check.check(verdict, path=path, line=line)
        verdicts.append(verdict)
    return verdicts
