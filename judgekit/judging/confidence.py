"""A verdict's confidence: how sure the judge was of the score it gave, in [0, 1].

Two measures, as the rubric's ``judge.confidence`` says:

- ``samples`` (the default): the share of the judge's answers that gave the verdict's score —
  its k samples (``samples: k`` > 1), and for a pairwise rubric the answers in both orders
  (a verdict that flips when A and B swap places is half sure). Unknown for one answer.
- ``logprobs``: the probability the model gave the score's first token, read from the
  token log-probabilities OpenAI-compatible APIs return — summed over the likeliest
  alternatives that spell the same score (``pass``, `` pass``, ``Pass``), and averaged
  over the answers (a sample that chose another score adds the probability it gave this
  one). Where the provider returns none (Anthropic), the samples' measure stands in.

>>> tokens = ScoreTokens(chosen="pass", probs={"pass": 0.8, "fail": 0.15})
>>> logprob_confidence([("pass", tokens)], "pass", label="pass")
0.8
>>> samples_confidence(["pass", "pass", "fail", "pass"], "pass")
0.75
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from judgekit.providers.chat import ChatResponse

__all__ = ["ScoreTokens", "logprob_confidence", "samples_confidence", "score_tokens"]

# Where the score's value starts: after `"score":` and an opening quote, if any (a key
# inside a JSON string would be escaped, `\"score\"`, so the lookbehind skips it).
_SCORE_VALUE = re.compile(r'(?<!\\)"score"\s*:\s*"?')


@dataclass(frozen=True)
class ScoreTokens:
    """At the score's first token: the token chosen, and each spelling's probability (the
    alternatives normalised: spaces and quotes stripped, lower-cased, and summed)."""

    chosen: str
    probs: dict[str, float]


def _normalised(token: str) -> str:
    return token.strip().strip('"').strip().lower()


def score_tokens(response: ChatResponse) -> ScoreTokens | None:
    """The score's first token in ``response`` and its alternatives; None when the answer
    has no log-probabilities, no ``"score"`` key, or tokens that do not spell its text."""
    if not response.tokens or "".join(t.token for t in response.tokens) != response.text:
        return None
    match = _SCORE_VALUE.search(response.text)
    if match is None:
        return None
    start = 0
    for token in response.tokens:
        end = start + len(token.token)
        if start <= match.end() < end:
            chosen = _normalised(token.token[match.end() - start :])
            if not chosen:
                return None
            probs: dict[str, float] = {}
            for alternative, logprob in token.top:
                key = _normalised(alternative)
                if key:
                    probs[key] = probs.get(key, 0.0) + math.exp(logprob)
            probs.setdefault(chosen, math.exp(token.logprob))
            return ScoreTokens(chosen=chosen, probs=probs)
        start = end
    return None


def samples_confidence(scores: Sequence[Any], score: Any) -> float:
    """The share of ``scores`` (the answers that gave one) equal to ``score``."""
    return sum(str(s) == str(score) for s in scores) / len(scores)


def logprob_confidence(
    answers: Sequence[tuple[Any, ScoreTokens | None]], score: Any, *, label: Any
) -> float | None:
    """The mean probability the ``answers`` (score and score tokens) gave ``score``, whose
    label in their prompt was ``label`` (a pairwise answer asked in swapped order wrote
    ``B`` for A); None when one of them has no log-probabilities."""
    if any(tokens is None for _, tokens in answers):
        return None
    target = next(
        (tokens.chosen for s, tokens in answers if tokens is not None and str(s) == str(score)),
        None,
    )
    total = 0.0
    for _, tokens in answers:
        assert tokens is not None  # checked above
        key = target if target is not None else _longest_prefix(tokens, str(label))
        total += tokens.probs.get(key, 0.0) if key is not None else 0.0
    return min(1.0, total / len(answers))


def _longest_prefix(tokens: ScoreTokens, label: str) -> str | None:
    """The likeliest-looking first token of ``label`` among the alternatives: the longest
    that begins it (no answer chose it, so its own first token is not known)."""
    spelled = _normalised(label)
    keys = [key for key in tokens.probs if spelled.startswith(key)]
    return max(keys, key=len) if keys else None
