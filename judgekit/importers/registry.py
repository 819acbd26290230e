"""Every source ``judgekit import`` reads, one :class:`Importer` each, and format sniffing.

A new source is one module defining ``IMPORTER = Importer(...)`` (the classes live in
:mod:`judgekit.importers.interface`, re-exported here) plus one line in ``_TABLE``. The modules are imported when this module is (never by ``judgekit --help``: the
CLI imports the registry inside its commands), so an importer module imports only the
standard library and judgekit at its top; a producer's SDK, if ever needed, lazily.

::

    from judgekit.importers.registry import IMPORTERS, ImportOptions, sniff

    name = sniff(path)  # "otel", "openai-responses", ... or None
    for run in IMPORTERS["otel"].read(path, ImportOptions()):
        print(run.run_id, len(run.tool_calls))
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from judgekit.errors import DataError
from judgekit.importers.interface import DEFAULT_ERROR_PATTERN, Importer, ImportOptions
from judgekit.importers.json_values import file_head

__all__ = [
    "DEFAULT_ERROR_PATTERN",
    "IMPORTERS",
    "ImportOptions",
    "Importer",
    "importer_named",
    "register",
    "sniff",
    "sniff_head",
    "wrong_kind_error",
]

# Name → "module:attribute". Sniffing tries them in this order, so the formats whose heads
# are the most distinctive come first and chat transcripts (which many logs resemble) last.
_TABLE = {
    "openai-responses": "judgekit.importers.openai_responses:IMPORTER",
    "openinference": "judgekit.importers.openinference:IMPORTER",
    "otel": "judgekit.importers.otel_genai:IMPORTER",
    "bfcl": "judgekit.importers.known_formats:BFCL",
    "taubench": "judgekit.importers.known_formats:TAUBENCH",
    "tau2bench": "judgekit.importers.tau2bench:IMPORTER",
    "promptfoo": "judgekit.importers.promptfoo:IMPORTER",
    "inspect": "judgekit.importers.inspect_log:IMPORTER",
    "mlflow": "judgekit.importers.mlflow_traces:IMPORTER",
    "langsmith": "judgekit.importers.langsmith_runs:IMPORTER",
    "langfuse": "judgekit.importers.langfuse_traces:IMPORTER",
}
_CHAT_TABLE = {
    "anthropic": "judgekit.importers.known_formats:ANTHROPIC",
    "openai": "judgekit.importers.known_formats:OPENAI",
}

IMPORTERS: dict[str, Importer] = {}


def register(importer: Importer) -> Importer:
    """Add ``importer`` to IMPORTERS under its name (a later one of the same name replaces it)."""
    IMPORTERS[importer.name] = importer
    return importer


def _load_table() -> None:
    for reference in (*_TABLE.values(), *_CHAT_TABLE.values()):
        module_name, attribute = reference.split(":")
        module = sys.modules.get(module_name) or importlib.import_module(module_name)
        importer = getattr(module, attribute, None)
        # None: that module is still being imported (it imported this one); the next
        # look-up completes the table.
        if isinstance(importer, Importer) and importer.name not in IMPORTERS:
            register(importer)


def _ordered() -> list[Importer]:
    if len(IMPORTERS) < len(_TABLE) + len(_CHAT_TABLE):
        _load_table()
    order = [*_TABLE, *_CHAT_TABLE]
    return sorted(IMPORTERS.values(), key=lambda imp: _rank(order, imp.name))


def _rank(order: list[str], name: str) -> int:
    return order.index(name) if name in order else len(order)


def importer_named(name: str) -> Importer | None:
    """The importer called ``name``, None when there is none."""
    return next((imp for imp in _ordered() if imp.name == name), None)


def sniff(path: Path) -> str | None:
    """The name of the first importer whose ``looks_like`` accepts the file's head, else None
    (also when the file cannot be read or its head is not JSON)."""
    try:
        head = file_head(path)
    except DataError:
        return None
    return sniff_head(head)


def sniff_head(head: object) -> str | None:
    """The name of the first importer whose ``looks_like`` accepts ``head``, else None."""
    return next((imp.name for imp in _ordered() if imp.looks_like(head)), None)


def wrong_kind_error(path: Path, chosen: str) -> DataError | None:
    """The error for importing ``path`` as ``chosen`` when it looks like another format:
    "this looks like <what>; try `judgekit import <name>`". None when it does not."""
    try:
        head = file_head(path)
    except DataError:
        return None
    chosen_importer = importer_named(chosen)
    if chosen_importer is not None and chosen_importer.looks_like(head):
        return None
    other = sniff_head(head)
    if other is None or other == chosen:
        return None
    return DataError(
        f"this looks like {IMPORTERS[other].what}; try `judgekit import {other}`", path=path
    )


_load_table()
