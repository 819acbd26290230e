"""A provider's base URL in one spelling, with nothing secret in it: what the judge cache
keys on, what a verdict records as its ``endpoint`` and what an export shows of it."""

from __future__ import annotations

import functools
import urllib.parse
from typing import Final

from judgekit._util.redaction import redact

__all__ = ["normalise_endpoint", "server_of", "shown_endpoint"]

_DEFAULT_PORTS: Final = {"http": 80, "https": 443}


@functools.lru_cache(maxsize=64)  # one endpoint per judge, asked once per key
def normalise_endpoint(url: str) -> str:
    """One spelling per endpoint: scheme and host lower-cased, a default port dropped, no
    trailing slash, no credentials, query or fragment ("" stays "").

    >>> normalise_endpoint("HTTP://LocalHost:80/v1/")
    'http://localhost/v1'
    >>> normalise_endpoint("https://api.openai.com/v1") == normalise_endpoint("https://api.openai.com:443/v1/")
    True
    """
    if not url:
        return ""
    parts = urllib.parse.urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"  # an IPv6 literal keeps its brackets
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    return urllib.parse.urlunsplit((scheme, netloc, parts.path.rstrip("/"), "", ""))


def shown_endpoint(url: str | None) -> str | None:
    """``url`` as an export shows it: normalised (no user, password, query or fragment) and
    any key-shaped text left in its path redacted; None for none.

    >>> shown_endpoint("https://user:sk-proj-abcdefghijklmnop1234@Proxy.example:443/v1?key=s3cret")
    'https://proxy.example/v1'
    >>> shown_endpoint("http://gw.internal/keys/sk-proj-abcdefghijklmnop1234/v1")
    'http://gw.internal/keys/[REDACTED]/v1'
    >>> shown_endpoint("") is None
    True
    """
    return redact(normalise_endpoint(url)) if url else None


def server_of(url: str) -> tuple[str, int | None] | None:
    """The host and port a URL reaches (the scheme's default port when it names none; None
    for a scheme without one), or None when it names no host.

    >>> server_of("https://api.openai.com/v1"), server_of("http://[::1]:8080/v1")
    (('api.openai.com', 443), ('::1', 8080))
    """
    parts = urllib.parse.urlsplit(url)
    if not parts.hostname:
        return None
    try:
        port = parts.port
    except ValueError:
        port = None
    return parts.hostname, port if port is not None else _DEFAULT_PORTS.get(parts.scheme)
