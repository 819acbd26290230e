"""One spelling of a JSON value, to hash it: keys sorted, no spaces, text as is.

>>> canonical_json({"b": 1, "a": [1.5, "é"]})
b'{"a":[1.5,"\\xc3\\xa9"],"b":1}'
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

__all__ = ["canonical_json", "json_digest", "json_lines_digest"]


def canonical_json(value: Any) -> bytes:
    """``value`` as canonical JSON, UTF-8."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8")


def json_digest(value: Any) -> str:
    """The sha256 (hex) of ``value``'s canonical JSON."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def json_lines_digest(values: Iterable[Any]) -> str:
    """The sha256 (hex) of the values' canonical JSON, one line each, in order."""
    digest = hashlib.sha256()
    for value in values:
        digest.update(canonical_json(value) + b"\n")
    return digest.hexdigest()
