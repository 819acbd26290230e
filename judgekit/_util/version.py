"""judgekit's version, written here only: ``pyproject.toml`` reads it for the distribution
(``[tool.setuptools.dynamic]``), ``judgekit --version`` prints it, and ``judgekit init`` pins
the CI workflow it writes to it."""

from __future__ import annotations

__version__ = "0.1.0"
