"""Token log-probabilities for the fake server's OpenAI answers: a reply that says how sure
the model was of its score.

A ``reply`` function may return a :class:`Reply` instead of text: ``probs`` gives the
probability of each token that could stand at the score's place (the chosen one among them).
When the request asks for ``logprobs``, the answer's text is cut into tokens (words,
punctuation runs and spaces), every token gets probability 1 except the score's — the first
token that is a key of ``probs`` after ``"score"`` (anywhere when the text has no such key) —
which gets ``probs[token]`` and, as its ``top_logprobs``, the likeliest ``top_logprobs`` keys.

>>> tokens = token_logprobs(Reply('{"score": "pass"}', {"pass": 0.75, "fail": 0.25}), top=5)
>>> [t["token"] for t in tokens]
['{"', 'score', '":', ' ', '"', 'pass', '"}']
>>> round(math.exp(tokens[5]["logprob"]), 2), [a["token"] for a in tokens[5]["top_logprobs"]]
(0.75, ['pass', 'fail'])
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Reply", "token_logprobs"]

_TOKEN = re.compile(r"\w+|[^\w\s]+|\s+")


@dataclass(frozen=True)
class Reply:
    """The assistant's ``text`` and, for the score's token, each candidate's probability.

    ``tool_calls`` (OpenAI chat ``tool_calls`` entries) and ``content_blocks`` (Anthropic
    content blocks, sent after the text block: ``tool_use``, ``server_tool_use``,
    ``web_search_tool_result``, ...) go into the answer as given, for recording transcripts
    of agents that call tools; an answer with tool calls ends with ``tool_calls`` /
    ``tool_use``. ``text`` may then be empty (no text is sent).
    """

    text: str
    probs: Mapping[str, float] = field(default_factory=dict)
    tool_calls: tuple[Mapping[str, Any], ...] = ()
    content_blocks: tuple[Mapping[str, Any], ...] = ()

    def __post_init__(self) -> None:
        for token, p in self.probs.items():
            if not 0 < p <= 1:
                raise ValueError(f"probs[{token!r}] must be in (0, 1], got {p}")
        if sum(self.probs.values()) > 1 + 1e-9:
            raise ValueError(f"probs must sum to at most 1, got {sum(self.probs.values())}")


def token_logprobs(reply: Reply, *, top: int) -> list[dict[str, Any]]:
    """The ``logprobs.content`` list of an OpenAI choice answering with ``reply``."""
    tokens = _TOKEN.findall(reply.text)
    at = _score_token(tokens, reply) if reply.probs else None
    content: list[dict[str, Any]] = []
    for index, token in enumerate(tokens):
        if index == at:
            ranked = sorted(reply.probs.items(), key=lambda item: -item[1])[:top]
            alternatives = [(t, math.log(p)) for t, p in ranked]
            logprob = math.log(reply.probs[token])
        else:
            alternatives = [(token, 0.0)][:top]
            logprob = 0.0
        content.append(
            {
                "token": token,
                "logprob": logprob,
                "bytes": list(token.encode()),
                "top_logprobs": [
                    {"token": t, "logprob": lp, "bytes": list(t.encode())} for t, lp in alternatives
                ],
            }
        )
    return content


def _score_token(tokens: list[str], reply: Reply) -> int:
    start = tokens.index("score") if "score" in tokens else 0
    for index in range(start, len(tokens)):
        if tokens[index] in reply.probs:
            return index
    raise ValueError(f"no token of {reply.text!r} is one of probs' keys {sorted(reply.probs)}")
