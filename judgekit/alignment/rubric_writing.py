"""Writing the new rubric version: the rubric's own file with its ``prompt`` and
``examples`` replaced, everything else (comments, the judge, the promotion policy) kept as
written, and the result checked to load as exactly the rubric align chose before it is
written, atomically.

An example's texts come from runs and labellers' notes, so they are written as YAML values
only (PyYAML quotes whatever would read as a key, a list item, a comment or another type).
A text holding an invisible character (a control but newline and tab, a bidi override such
as U+202E, a zero-width character, a line separator: see
:func:`judgekit.judging.prompts.is_hidden`) is written on one line, double-quoted, with
every character outside ASCII escaped (``"\\u202E"``): it loads back as the very same
text, and a person reading the file or its diff sees it as it is, never reordered or
hidden."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.input_paths import read_text
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import rubric_version
from judgekit.judging.prompts import is_hidden

__all__ = ["rubric_text", "write_rubric"]

_TOP_LEVEL_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")


class _BlockDumper(yaml.SafeDumper):
    """Multi-line strings as ``|`` blocks, as a person writes a prompt; strings holding an
    invisible character double-quoted, escaped (see the module)."""

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        if not _has_hidden(text):
            super().write_double_quoted(text, split)
            return
        # PyYAML escapes in double quotes every character its allow_unicode does not let
        # through raw, and lets U+202E through: without it, nothing outside ASCII is raw.
        # Not split either, so that no escape is cut from the text it stands in.
        allow_unicode, self.allow_unicode = self.allow_unicode, False
        try:
            super().write_double_quoted(text, split=False)
        finally:
            self.allow_unicode = allow_unicode


def _has_hidden(text: str) -> bool:
    return any(is_hidden(char) for char in text)


def _string(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if _has_hidden(value):
        style: str | None = '"'
    else:
        style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_BlockDumper.add_representer(str, _string)


def _dump(key: str, value: Any) -> list[str]:
    text = yaml.dump(
        {key: value}, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100
    )
    return text.splitlines(keepends=True)


def _blocks(lines: list[str]) -> list[tuple[str | None, list[str]]]:
    """The file as top-level blocks: a key and its lines (its value's lines, and the
    comments above the next key go with that key)."""
    blocks: list[tuple[str | None, list[str]]] = [(None, [])]
    pending: list[str] = []  # comments at the margin: they belong to what follows
    for line in lines:
        match = _TOP_LEVEL_KEY.match(line)
        if match:
            blocks.append((match.group(1), [*pending, line]))
            pending = []
        elif line.startswith("#"):
            pending.append(line)
        else:
            blocks[-1][1].extend([*pending, line])
            pending = []
    blocks[-1][1].extend(pending)
    return blocks


def rubric_text(original: str, rubric: Rubric) -> str:
    """``original`` (a rubric file's text) with ``rubric``'s prompt and examples."""
    examples = [e.model_dump(mode="json", exclude_none=True) for e in rubric.examples]
    new = {"prompt": _dump("prompt", rubric.prompt), "examples": _dump("examples", examples)}
    blocks = _blocks(original.splitlines(keepends=True))
    if blocks[-1][1] and not blocks[-1][1][-1].endswith("\n"):
        blocks[-1][1][-1] += "\n"
    out: list[str] = []
    for key, lines in blocks:
        if key in new:
            out += lines[: _leading(lines)] + new.pop(key)
        else:
            out += lines
    for lines in new.values():  # a rubric without examples gets them at its end
        out += lines
    return "".join(out)


def _leading(lines: list[str]) -> int:
    """How many of a block's first lines are comments."""
    count = 0
    for line in lines:
        if not line.startswith("#"):
            break
        count += 1
    return count


def write_rubric(rubric: Rubric, target: Path, *, source: Path | None) -> str:
    """Write ``rubric`` to ``target`` (from the text of ``source`` when given) atomically;
    returns its new version. The text is checked to load as ``rubric`` first."""
    original = read_text(source) if source is not None else ""
    text = rubric_text(original, rubric) if original else _whole(rubric)
    reloaded = type(rubric).model_validate(yaml.safe_load(text))
    if rubric_version(reloaded) != rubric_version(rubric):
        raise AssertionError("the written rubric would not load as the rubric chosen")
    with atomic_writer(target) as fh:
        fh.write(text)
    return rubric_version(rubric)


def _whole(rubric: Rubric) -> str:
    data = rubric.model_dump(mode="json", exclude_none=True, exclude_defaults=True)
    data = {"id": rubric.id, **data}
    return yaml.dump(data, Dumper=_BlockDumper, sort_keys=False, allow_unicode=True, width=100)
