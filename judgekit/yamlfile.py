"""YAML reading that remembers where every value came from.

Errors in task and rubric files must name the line of the offending field, so the loader
returns, beside the data, the line of every mapping key and list item. Dates are kept as
the strings they were written as (``2024-05-20`` stays a string), since agents pass dates
to tools as strings.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from judgekit.errors import DataError

Location = tuple[str | int, ...]


class _PlainLoader(yaml.SafeLoader):
    """SafeLoader without the timestamp resolver: dates stay strings."""


_PlainLoader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:timestamp"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


class LineMap:
    """The line (1-based) of each location in a YAML document."""

    def __init__(self, lines: dict[Location, int]) -> None:
        self._lines = lines

    def line_of(self, location: Location) -> int | None:
        """The line of ``location``, or of its nearest ancestor that has one."""
        for end in range(len(location), -1, -1):
            line = self._lines.get(tuple(location[:end]))
            if line is not None:
                return line
        return None


def _record_lines(node: yaml.Node, location: Location, lines: dict[Location, int]) -> None:
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key: str | int = key_node.value
            child = (*location, key)
            lines[child] = key_node.start_mark.line + 1
            _record_lines(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            child = (*location, index)
            lines[child] = item.start_mark.line + 1
            _record_lines(item, child, lines)


def load_yaml(path: str | Path) -> tuple[Any, LineMap]:
    """Parse a YAML file; return its data and the line of every key and item.

    A syntax error becomes a :class:`DataError` naming the file and line.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DataError("no such file", path=p) from None
    except IsADirectoryError:
        raise DataError("is a folder, expected a YAML file", path=p) from None
    except UnicodeDecodeError as exc:
        raise DataError(f"not UTF-8 text ({exc.reason})", path=p) from None
    try:
        node = yaml.compose(text, Loader=_PlainLoader)
        data = yaml.load(text, Loader=_PlainLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        problem = exc.problem or exc.context or "invalid YAML"
        raise DataError(f"YAML syntax error: {problem}", path=p, line=line) from None
    except yaml.YAMLError as exc:
        raise DataError(f"YAML error: {exc}", path=p) from None
    lines: dict[Location, int] = {}
    if node is not None:
        lines[()] = node.start_mark.line + 1
        _record_lines(node, (), lines)
    return data, LineMap(lines)
