"""Importers: agent transcripts from other tools turned into judgekit Runs.

::

    from judgekit.importers import import_openai

    runs = list(import_openai("gpt-4o-airline.json.gz"))
"""

from __future__ import annotations

from judgekit.importers.anthropic_messages import import_anthropic
from judgekit.importers.bfcl import bfcl_run, bfcl_task
from judgekit.importers.openai_chat import import_openai

__all__ = ["bfcl_run", "bfcl_task", "import_anthropic", "import_openai"]
