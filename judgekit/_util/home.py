"""Where judgekit keeps its state: the verdict store and the judge cache.

``JUDGEKIT_HOME`` overrides the default ``.judgekit/`` in the working directory, so tests and
CI jobs can point it at a temporary folder.
"""

from __future__ import annotations

import os
from pathlib import Path

from judgekit.errors import ConfigError

HOME_ENV = "JUDGEKIT_HOME"


def judgekit_home_path() -> Path:
    """Where the state folder is (``$JUDGEKIT_HOME`` or ``./.judgekit``), absolute; not
    created (:func:`judgekit_home` creates it)."""
    raw = os.environ.get(HOME_ENV)
    return (Path(raw).expanduser() if raw else Path(".judgekit")).absolute()


def judgekit_home() -> Path:
    """The state folder (``$JUDGEKIT_HOME`` or ``./.judgekit``), created if missing.

    The path is absolute, so messages naming a file in it are unambiguous.
    """
    home = judgekit_home_path()
    try:
        home.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(
            f"cannot create judgekit's state folder {home}: {exc.strerror or exc}; "
            f"set {HOME_ENV} to a writable folder"
        ) from None
    return home
