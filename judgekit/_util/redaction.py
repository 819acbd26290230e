"""Keeping API keys out of every text judgekit writes or prints.

A provider may echo the key it rejected ("Incorrect API key provided: sk-…"), and an error
text travels to the console, to files and to the store. :func:`redact` replaces the keys
this process was configured with (:func:`add_secret`) and anything shaped like a provider's
key with ``[REDACTED]``. It sits at the bottom of the package so that every error can use it.

>>> add_secret("local-server-token-123")
>>> redact("HTTP 401: Incorrect API key provided: sk-proj-abcDEF0123456789xyz; "
...        "token local-server-token-123")
'HTTP 401: Incorrect API key provided: [REDACTED]; token [REDACTED]'
"""

from __future__ import annotations

import re
import threading
from typing import Final

__all__ = ["REDACTED", "add_secret", "redact"]

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

# Shorter than this, a configured "key" ("test", "none") is too likely to be an ordinary
# word to be cut out of every message.
_MIN_SECRET_LENGTH: Final = 8

_secrets: set[str] = set()
_lock = threading.Lock()


def add_secret(secret: str | None) -> None:
    """Redact ``secret`` from every text :func:`redact` sees in this process from now on."""
    if secret and len(secret) >= _MIN_SECRET_LENGTH:
        with _lock:
            _secrets.add(secret)


def redact(text: str) -> str:
    """``text`` with every configured secret and every key-shaped string replaced."""
    with _lock:
        secrets = sorted(_secrets, key=len, reverse=True)  # a key containing another first
    for secret in secrets:
        if secret in text:
            text = text.replace(secret, REDACTED)
    return _KEY_SHAPES.sub(REDACTED, text)
