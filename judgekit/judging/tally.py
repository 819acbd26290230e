"""What a judging session counts (:class:`JudgeTally`), and one answer of the judge model as
the judge reads it (:class:`Answer`)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from judgekit.judging.confidence import ScoreTokens

__all__ = ["Answer", "JudgeTally"]


@dataclass
class JudgeTally:
    """What a judging session did: verdicts, runs not judged and why, cache use, money."""

    verdicts: int = 0
    kept: int = 0  # of the verdicts, those an earlier session had already written
    not_judged: int = 0
    not_judged_reasons: Counter[str] = field(default_factory=Counter)
    over_budget: int = 0  # runs started but not judged: their next request had no budget
    unscored: int = 0
    # Each unscored verdict's reason by its kind (verdict_parsing.unscored_kind), kept ones too.
    unscored_reasons: Counter[str] = field(default_factory=Counter)
    # Scored verdicts below the promoted confidence threshold (`abstain_below`, when the
    # rubric was promoted selectively): counted apart, neither pass nor fail.
    abstained: int = 0
    abstain_below: float | None = None
    # Said once: the rubric asks for log-probabilities and some answer came without them.
    confidence_note: str | None = None
    api_calls: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    unknown_cost: bool = False
    price_source: str | None = None  # where the price came from: a price file or genai-prices
    unpriced_model: str | None = None  # a model the price table lacks (a jury's juror)
    stopped_by_budget: bool = False
    # With --max-cost-per-day, once its cap stopped the judging: the cap, the day's spend
    # and when it resets.
    day_cap_stop: str | None = None
    scores: Counter[str] = field(default_factory=Counter)
    # Earlier lines of verdicts.jsonl moved to the earlier-verdicts file, not reused, by why.
    set_apart: Counter[str] = field(default_factory=Counter)
    # A jury's: each juror's own tally (its verdicts, calls and money), in the rubric's order.
    jurors: list[tuple[str, JudgeTally]] = field(default_factory=list)

    @property
    def scored(self) -> int:
        return self.verdicts - self.unscored - self.abstained


@dataclass
class Answer:
    """One parsed (or failed) answer of the model, with what it cost and, when log-
    probabilities were asked for and given, the score token's alternatives."""

    score: Any = None
    reason: str | None = None
    error: str | None = None
    tokens: ScoreTokens | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    cached: bool = True
