"""The API key a provider sends, and how a user gives it one.

A provider class names the environment variable it reads its key from once, as
``key_variable`` (:class:`~judgekit.providers.chat.ChatProvider`); the registry registers
those variables' values for redaction and error messages name them from there.

>>> key_hint("OPENAI_API_KEY")
'set OPENAI_API_KEY (or pass --api-key-env) or --base-url for a local server'
>>> key_hint(None)
"pass --api-key-env naming the variable that holds the server's key"
"""

from __future__ import annotations

import os
from typing import Final

from judgekit.errors import ConfigError

__all__ = ["PLACEHOLDER_API_KEY", "api_key", "key_hint"]

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
    key = explicit or (os.environ.get(key_variable) if key_variable else None)
    if key:
        return key
    if base_url is not None:
        return PLACEHOLDER_API_KEY
    raise ConfigError(f"{key_variable} is not set: {key_hint(key_variable)}")
