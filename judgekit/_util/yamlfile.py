"""YAML reading that remembers where every value came from.

Errors in task and rubric files must name the line of the offending field, so the loader
returns, beside the data, the line of every mapping key and list item. Dates are kept as
the strings they were written as (``2024-05-20`` stays a string), since agents pass dates
to tools as strings.

Every YAML file judgekit reads comes through :func:`load_yaml`, which reads it within
bounds (:mod:`judgekit._util.yamlcompose`): alias bombs, deep nesting, duplicate keys and
unreadable scalars are one-line errors naming the file and line.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import yaml

from judgekit._util.gc_pause import gc_paused
from judgekit._util.input_paths import open_regular
from judgekit._util.yamlcompose import LineNode, PlainLoader, read_yaml
from judgekit.errors import DataError, ErrorTable, map_exceptions

Location = tuple[str | int, ...]


class LineMap:
    """The line (1-based) of each location in a YAML document: a mapping key's line, a list
    item's first line. Looked up in the tree of lines composing built, which aliases share,
    so its size is the file's, however often aliases repeat a part."""

    def __init__(self, root: LineNode | None = None, root_line: int | None = None) -> None:
        self._root = root
        self._root_line = root_line

    def line_of(self, location: Location) -> int | None:
        """The line of ``location``, or of its nearest ancestor that has one."""
        line, node = self._root_line, self._root
        for part in location:
            found = node.child(part) if node is not None else None
            if found is None:
                break
            line, node = found
        return line


def _syntax_error(exc: yaml.MarkedYAMLError, path: Path) -> DataError:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark is not None else None
    problem = exc.problem or exc.context or "invalid YAML"
    return DataError(f"YAML syntax error: {problem}", path=path, line=line)


YAML_FILE_ERRORS: ErrorTable[Path] = {
    FileNotFoundError: lambda exc, path: DataError("no such file", path=path),
    IsADirectoryError: lambda exc, path: DataError("is a folder, expected a YAML file", path=path),
    UnicodeDecodeError: lambda exc, path: DataError(f"not UTF-8 text ({exc.reason})", path=path),
    yaml.MarkedYAMLError: _syntax_error,
    yaml.YAMLError: lambda exc, path: DataError(f"YAML error: {exc}", path=path),
}
"""What goes wrong reading a YAML file, by its path. (Any other OSError, a permission
refused say, is left to the reader's caller.)"""


_CParser: Any = getattr(getattr(yaml, "cyaml", None), "CParser", None)


class _LibyamlLoader(_CParser or object, PlainLoader):  # type: ignore[misc]
    """:class:`PlainLoader` reading libyaml's events (its C parser, which reads faster)."""

    def __init__(self, stream: str) -> None:
        _CParser.__init__(self, stream)
        yaml.constructor.SafeConstructor.__init__(self)
        yaml.resolver.Resolver.__init__(self)


def load_yaml(path: str | Path) -> tuple[Any, LineMap]:
    """Parse a YAML file; return its data and the line of every key and item.

    A syntax error becomes a :class:`DataError` naming the file and line, as does YAML
    beyond judgekit's bounds (see :mod:`judgekit._util.yamlcompose`). Composed from
    libyaml's parser events where PyYAML has libyaml; a file it refuses (a syntax error, a
    bound) is read again with the pure-Python parser only to word the refusal, so errors
    read the same with or without libyaml.
    """
    p = Path(path)
    with map_exceptions(YAML_FILE_ERRORS, p), gc_paused():
        with io.TextIOWrapper(open_regular(p), encoding="utf-8") as fh:
            text = fh.read()
        return _read(text, p)


def _read(text: str, path: Path) -> tuple[Any, LineMap]:
    if _CParser is not None:
        try:
            return _with_lines(read_yaml(text, path, loader_class=_LibyamlLoader))
        except Exception:  # refused: the pure parser says what is wrong, and where
            pass
    return _with_lines(read_yaml(text, path))


def _with_lines(read: tuple[Any, LineNode | None, int | None]) -> tuple[Any, LineMap]:
    data, root, root_line = read
    return data, LineMap(root, root_line)
