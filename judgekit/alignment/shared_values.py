"""Refusing, before any judge is asked, a rubric whose prompt or examples align could not
write back: values shared through YAML anchors (``&name``) and aliases (``*name``).

align writes the new version by replacing the file's ``prompt`` and ``examples`` blocks
(:mod:`judgekit.alignment.rubric_writing`). An anchor inside them would go with the old
text, leaving any alias to it undefined, and the written file would not load; an alias
there would silently stop sharing. Either used to surface only at the end, as PyYAML's
``ComposerError``, after every judge call had been paid for.
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import yaml

from judgekit._util.input_paths import read_text
from judgekit._util.yamlcompose import PlainLoader
from judgekit.errors import DataError

__all__ = ["refuse_shared_values"]

_REWRITTEN: Final = ("prompt", "examples")
_OPEN: Final = (yaml.MappingStartEvent, yaml.SequenceStartEvent)
_CLOSE: Final = (yaml.MappingEndEvent, yaml.SequenceEndEvent)


def refuse_shared_values(source: Path) -> None:
    """A DataError naming the file, line and field of the first anchor or alias in the
    rubric file's top-level ``prompt`` or ``examples``; nothing when there is none."""
    found = _first_shared_value(read_text(source))
    if found is None:
        return
    key, line, mark = found
    kind = "alias" if mark.startswith("*") else "anchor"
    raise DataError(
        f"align rewrites the prompt and examples and cannot keep the YAML {kind} {mark} in "
        f"them: write the {key} out in full, without anchors (&) or aliases (*)",
        path=source,
        line=line,
        field=key,
    )


def _first_shared_value(text: str) -> tuple[str, int | None, str] | None:
    """(the top-level key, the line, ``&name`` or ``*name``) of the first anchor or alias
    within a value align rewrites. The file has loaded as a rubric: its root is a mapping."""
    depth, key, expecting_key = 0, None, True
    for event in yaml.parse(text, Loader=PlainLoader):
        if depth == 1 and expecting_key and isinstance(event, yaml.ScalarEvent):
            key, expecting_key = event.value, False
            continue
        if key in _REWRITTEN and (depth > 1 or (depth == 1 and not expecting_key)):
            line = event.start_mark.line + 1 if event.start_mark is not None else None
            if isinstance(event, yaml.AliasEvent):
                return key, line, f"*{event.anchor}"
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                return key, line, f"&{anchor}"
        if isinstance(event, _OPEN):
            depth += 1
        elif isinstance(event, _CLOSE):
            depth -= 1
        if (
            depth == 1
            and not expecting_key
            and isinstance(event, (yaml.ScalarEvent, yaml.AliasEvent, *_CLOSE))
        ):
            expecting_key = True  # the value is complete
    return None
