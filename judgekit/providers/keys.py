"""The API key a provider sends, and how a user gives it one.

A provider class names the environment variable it reads its key from once, as
``key_variable`` (:class:`~judgekit.providers.chat.ChatProvider`); the registry registers
those variables' values for redaction and error messages name them from there.

>>> key_hint("OPENAI_API_KEY")
'set OPENAI_API_KEY (or pass --api-key-env) or --base-url for a local server'
>>> key_hint(None)
"pass --api-key-env naming the variable that holds the server's key"

A key is checked before anything is sent: a pasted placeholder (``…``), a space copied with
the key or a key of a few characters is one line naming where it came from, not an SDK's
traceback or a connection error.

>>> check_key("sk-… ", source="OPENAI_API_KEY")
Traceback (most recent call last):
judgekit.errors.ConfigError: OPENAI_API_KEY holds a character that cannot be sent in an HTTP header (U+2026, HORIZONTAL ELLIPSIS, character 4 of 5): paste the key itself
"""

from __future__ import annotations

import os
import unicodedata
from typing import Final

from judgekit._util.redaction import MIN_KEY_LENGTH
from judgekit.errors import ConfigError

__all__ = ["PLACEHOLDER_API_KEY", "api_key", "check_key", "key_hint"]

PLACEHOLDER_API_KEY: Final = "not-needed"
"""Sent when a server at --base-url needs no key: the SDKs refuse to start without one."""


def key_hint(key_variable: str | None) -> str:
    """How to give a provider a key it will accept; ``key_variable`` is None for a provider
    that reads none (``local/<model>``: the key is the server's, named by --api-key-env)."""
    if key_variable is None:
        return "pass --api-key-env naming the variable that holds the server's key"
    return f"set {key_variable} (or pass --api-key-env) or --base-url for a local server"


def api_key(explicit: str | None, *, key_variable: str | None, base_url: str | None) -> str:
    """The key to send: ``explicit``, else the value of ``key_variable``, else, for a server
    at ``base_url``, :data:`PLACEHOLDER_API_KEY`; with none of them, a ConfigError."""
    if explicit:
        return check_key(explicit, source="the API key given")
    key = os.environ.get(key_variable) if key_variable else None
    if key:
        return check_key(key, source=str(key_variable))
    if base_url is not None:
        return PLACEHOLDER_API_KEY
    raise ConfigError(f"{key_variable} is not set: {key_hint(key_variable)}")


def check_key(key: str, *, source: str) -> str:
    """``key`` if it can be sent as a key; else a ConfigError naming ``source`` (the
    variable it was read from) and never the key. Keys are visible ASCII: a space, a control
    character or a non-ASCII one cannot go into an HTTP header as it is."""
    for position, character in enumerate(key, start=1):
        if not "!" <= character <= "~":
            control = unicodedata.category(character) == "Cc"
            name = "a control character" if control else unicodedata.name(character, "unassigned")
            raise ConfigError(
                f"{source} holds a character that cannot be sent in an HTTP header "
                f"(U+{ord(character):04X}, {name}, character {position} of {len(key)}): "
                "paste the key itself"
            )
    if len(key) < MIN_KEY_LENGTH:
        raise ConfigError(
            f"{source} holds {len(key)} character{'s' if len(key) > 1 else ''}, too few for a "
            "key judgekit can keep out of what it writes: paste the key itself (a server at "
            "--base-url that needs none is sent a placeholder when it is unset)"
        )
    return key
