"""A runs file that is really another tool's transcript: the error says to import it first.

``grade`` and ``judge`` read runs.jsonl; given an OpenAI or Anthropic conversation (or any
format an importer recognises) they used to say only "tool_calls: required field is
missing". The importers' format sniffing names the file's kind and the command to run.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judgekit.errors import DataError


@contextmanager
def import_first_hint(runs: Path) -> Iterator[None]:
    """Re-raise a :class:`DataError` about ``runs`` with "import it first" when the file
    looks like a format `judgekit import` reads; any other error passes unchanged."""
    try:
        yield
    except DataError as exc:
        if exc.path is None or Path(exc.path) != runs:
            raise
        hint = import_hint(runs)
        if hint is None:
            raise
        raise DataError(
            f"{exc.message}; {hint}", path=exc.path, line=exc.line, field=exc.field
        ) from exc


def import_hint(runs: Path) -> str | None:
    """ "this looks like …; import it first: `judgekit import NAME FILE -o runs.jsonl`", or
    None when the file does not look like anything an importer reads."""
    # The importers load only on this error path: `judgekit --help` stays light.
    from judgekit.importers.json_values import file_head
    from judgekit.importers.registry import IMPORTERS, sniff_head

    try:
        head = file_head(runs)
    except DataError:
        return None
    if isinstance(head, dict) and {"run_id", "tool_calls"} <= head.keys():
        return None  # a runs file with a bad line further on, not a transcript
    name = sniff_head(head)
    if name is None:
        return None
    what = IMPORTERS[name].what
    return (
        f"this looks like {what}, not runs; import it first: "
        f"`judgekit import {name} {runs} -o runs.jsonl`"
    )
