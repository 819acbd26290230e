"""The ``judgekit`` command: a thin layer over the Python API, one module per command."""

from __future__ import annotations

from judgekit.cli.main import main

__all__ = ["main"]
