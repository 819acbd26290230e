"""The judge cache: a judge's answer to one exact request, kept so it is never paid for twice.

A key names everything that changes what the judge model sees or how it samples (provider,
the endpoint it is reached at, model, temperature, max_tokens, JSON mode, the rubric version,
the exact messages) plus the sample index. The endpoint matters: ``local/m`` on two servers,
or ``openai/gpt-4o`` through a proxy and directly, are different judges, and a hit from one
must never answer for the other. Rerunning an unchanged judge therefore hits; editing a rubric changes its version
and misses exactly the entries it affects; and the k samples of a ``samples: k`` judge are k
distinct entries, so they stay real, independent samples instead of one answer repeated.

The cache stores only what a provider answered (text, model, token counts, latency, and the
token log-probabilities when they were asked for), never a
request or its headers, so no API key can end up in the file.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from judgekit._util.closing import ClosesOnExit
from judgekit._util.endpoint_url import normalise_endpoint
from judgekit._util.home import judgekit_home
from judgekit.providers.chat import ChatRequest, ChatResponse, TokenLogprob
from judgekit.store.cache_file import CacheFile

# Bump when the key's canonical form changes, so old entries miss instead of colliding.
KEY_FORMAT: Final = 2


@dataclass(frozen=True)
class CacheStats:
    """``entries`` counts the whole file; ``hits`` and ``misses`` count this cache object's
    lookups, so a run can report how much it saved."""

    entries: int
    hits: int
    misses: int


class JudgeCache(ClosesOnExit):
    """A SQLite key → :class:`ChatResponse` store, safe to share between threads and processes.

    ``path`` defaults to ``cache.sqlite`` in :func:`judgekit._util.home.judgekit_home`. Every ``put``
    is committed at once, so a crash loses at most the answer in flight.

    >>> from judgekit.providers.chat import ChatMessage
    >>> request = ChatRequest(
    ...     model="gpt-4o-mini", messages=(ChatMessage(role="user", content="Grade this."),)
    ... )
    >>> key = JudgeCache.key_for(
    ...     "openai", request, rubric_version="3f2a", sample_index=0,
    ...     endpoint="https://api.openai.com/v1",
    ... )
    >>> len(key)
    64
    >>> key == JudgeCache.key_for(
    ...     "openai", request, rubric_version="3f2a", sample_index=0,
    ...     endpoint="http://proxy.internal:8080/v1",
    ... )
    False
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = path if path is not None else judgekit_home() / "cache.sqlite"
        self._file = CacheFile(self.path)
        # The counters are this object's, shared by its threads.
        self._lock = threading.Lock()
        self._hits = 0
        self._misses = 0

    @staticmethod
    def key_for(
        provider: str,
        request: ChatRequest,
        *,
        rubric_version: str,
        sample_index: int,
        endpoint: str,
    ) -> str:
        """The sha256 (hex) of the canonical JSON of everything that makes an answer differ.

        ``sample_index`` (0-based) separates the samples of a judge asked several times;
        ``endpoint`` is the provider's base URL (see :func:`normalise_endpoint`).
        """
        if sample_index < 0:
            raise ValueError(f"sample_index must be 0 or more, got {sample_index}")
        payload: dict[str, object] = {
            "key_format": KEY_FORMAT,
            "provider": provider,
            "endpoint": normalise_endpoint(endpoint),
            "model": request.model,
            # `or 0.0` folds -0.0 into 0.0: the same temperature must not make two keys.
            "temperature": float(request.temperature) or 0.0,
            "max_tokens": request.max_tokens,
            "json_output": request.json_output,
            "rubric_version": rubric_version,
            # A list of pairs, not a concatenation: ("ab", "c") and ("a", "bc") must differ.
            "messages": [[m.role, m.content] for m in request.messages],
            "sample_index": sample_index,
        }
        if request.logprobs:
            # Only when asked, so that keys made before the option existed still hit.
            payload["logprobs"] = True
        canonical = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def get(self, key: str) -> ChatResponse | None:
        """The cached answer for ``key``, or None; counts a hit or a miss."""
        row = self._file.get(key)
        with self._lock:
            if row is None:
                self._misses += 1
            else:
                self._hits += 1
        if row is None:
            return None
        text, model, input_tokens, output_tokens, latency_s, tokens = row
        return ChatResponse(
            text=text,
            model=model,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            latency_s=latency_s,
            tokens=None if tokens is None else _tokens_from_json(tokens),
        )

    def put(self, key: str, response: ChatResponse) -> None:
        """Store ``response`` under ``key``, replacing any earlier answer (idempotent)."""
        self._file.put(
            key,
            (
                response.text,
                response.model,
                response.input_tokens,
                response.output_tokens,
                response.latency_s,
                None if response.tokens is None else _tokens_json(response.tokens),
            ),
        )

    def stats(self) -> CacheStats:
        """How many entries the file holds, and this object's hits and misses so far."""
        entries = self._file.count()
        with self._lock:
            return CacheStats(entries=entries, hits=self._hits, misses=self._misses)

    def close(self) -> None:
        """Close the file; the cache cannot be used afterwards."""
        self._file.close()


def _tokens_json(tokens: tuple[TokenLogprob, ...]) -> str:
    return json.dumps([[t.token, t.logprob, [list(alt) for alt in t.top]] for t in tokens])


def _tokens_from_json(text: str) -> tuple[TokenLogprob, ...] | None:
    """The tokens as :func:`_tokens_json` wrote them; None (asked again) if unreadable."""
    try:
        return tuple(
            TokenLogprob(token=token, logprob=logprob, top=tuple((a, lp) for a, lp in top))
            for token, logprob, top in json.loads(text)
        )
    except (ValueError, TypeError):
        return None
