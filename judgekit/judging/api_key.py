"""``--api-key-env``: the name of the variable holding a key, never the key itself."""

from __future__ import annotations

import os

from judgekit.errors import ConfigError
from judgekit.providers.keys import check_key


def api_key_from_env(variable: str | None) -> str | None:
    """The key held by ``variable``; the key itself never goes on the command line, where
    shell history and process listings would keep it."""
    if variable is None:
        return None
    key = os.environ.get(variable)
    if not key:
        raise ConfigError(f"--api-key-env {variable}: that environment variable is not set")
    return check_key(key, source=variable)
