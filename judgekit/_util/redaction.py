"""Keeping API keys out of every text judgekit writes or prints.

A provider may echo the key it rejected ("Incorrect API key provided: sk-…"), and an error
text travels to the console, to files and to the store. :func:`redact` replaces the keys
this process was configured with (:func:`add_secret`) and anything shaped like a provider's
key with ``[REDACTED]``. It sits at the bottom of the package so that every error can use it.

>>> add_secret("local-server-token-123")
>>> redact("HTTP 401: Incorrect API key provided: sk-proj-abcDEF0123456789xyz; "
...        "token local-server-token-123")
'HTTP 401: Incorrect API key provided: [REDACTED]; token [REDACTED]'

A key of :data:`MIN_KEY_LENGTH` characters or more is redacted wherever it occurs. A short
one ("EMPTY", "ollama": what local servers are given) is redacted where it stands as a word
of its own, so that a key "test" leaves "latest" and "tested" whole:

>>> add_secret("EMPTY")
>>> redact("key EMPTY rejected; EMPTYING the queue")
'key [REDACTED] rejected; EMPTYING the queue'

A key shorter than :data:`MIN_KEY_LENGTH` would take ordinary letters out of every text:
the providers refuse to send one (``judgekit.providers.keys``), and it is never registered.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Final

__all__ = ["MIN_KEY_LENGTH", "REDACTED", "add_secret", "redact"]

REDACTED: Final = "[REDACTED]"

# Shapes of provider keys: OpenAI (sk-…, sk-proj-…), Anthropic (sk-ant-…), Google (AIza…),
# Hugging Face (hf_…), xAI (xai-…), Groq (gsk_…), and a bearer token in an echoed header.
# Each needs a long run of key characters, so ordinary words ("sk-learn") stay as they are.
_KEY_SHAPES: Final = re.compile(
    r"\b(?:sk-[A-Za-z0-9_\-]{16,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|xai-[A-Za-z0-9]{30,}"
    r"|gsk_[A-Za-z0-9]{30,})"
    r"|(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{16,}"
)

# What every shape starts with: a text holding none of them (most answers) skips the scan,
# which every answer and every cached answer goes through.
_SHAPE_STARTS: Final = ("sk-", "AIza", "hf_", "xai-", "gsk_")

MIN_KEY_LENGTH: Final = 4
"""The fewest characters a key may have: a shorter one ("a", "ok") cannot be cut out of
what judgekit writes without cutting ordinary words too."""

# From this length on, a key is cut out wherever it occurs; a shorter one only where it
# stands as a word (neither neighbour a letter, a digit, ``_`` or ``-``).
_SUBSTRING_LENGTH: Final = 8
_WORD_EDGE: Final = "A-Za-z0-9_\\-"


@dataclass(frozen=True)
class _Secrets:
    """What :func:`redact` cuts out, replaced whole when a secret is added, so that reading
    it takes no lock: every answer goes through :func:`redact`."""

    anywhere: tuple[str, ...] = ()  # longest first: a key containing another goes first
    words: tuple[str, ...] = ()
    word_pattern: re.Pattern[str] | None = None


_current = _Secrets()
_lock = threading.Lock()


def add_secret(secret: str | None) -> None:
    """Redact ``secret`` from every text :func:`redact` sees in this process from now on
    (one shorter than :data:`MIN_KEY_LENGTH` is never sent, so it is not registered)."""
    global _current
    if not secret or len(secret) < MIN_KEY_LENGTH:
        return
    with _lock:
        anywhere, words = set(_current.anywhere), set(_current.words)
        (anywhere if len(secret) >= _SUBSTRING_LENGTH else words).add(secret)
        by_length = sorted(words, key=len, reverse=True)
        pattern = None
        if by_length:
            alternatives = "|".join(re.escape(word) for word in by_length)
            edge = _WORD_EDGE
            pattern = re.compile(f"(?<![{edge}])(?:{alternatives})(?![{edge}])")
        _current = _Secrets(
            tuple(sorted(anywhere, key=len, reverse=True)), tuple(by_length), pattern
        )


def redact(text: str) -> str:
    """``text`` with every configured secret and every key-shaped string replaced."""
    secrets = _current
    for secret in secrets.anywhere:
        if secret in text:
            text = text.replace(secret, REDACTED)
    if secrets.word_pattern is not None and _holds_any(text, secrets.words):
        text = secrets.word_pattern.sub(REDACTED, text)
    if _holds_any(text, _SHAPE_STARTS) or "bearer" in text.lower():
        text = _KEY_SHAPES.sub(REDACTED, text)
    return text


def _holds_any(text: str, parts: tuple[str, ...]) -> bool:
    """Whether ``text`` holds one of ``parts``: substring tests, far cheaper than a regular
    expression's scan, decide whether the scan is needed at all."""
    for part in parts:  # noqa: SIM110 -- any() over a generator costs more than the tests
        if part in text:
            return True
    return False
