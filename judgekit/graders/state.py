"""State: did the world end up right, and did nothing else change?

``expect_state`` checks dotted paths of the run's ``final_state`` with the argument
matchers; ``only_changes`` diffs the initial and final state and fails on any change
outside the listed paths, naming it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from msgspec.json import encode as _encode

from judgekit.formats.grade import GraderResult
from judgekit.formats.matchers import render_value
from judgekit.formats.task import StatePath, Task
from judgekit.graders.run_view import RunView


class _Missing:
    """The side of a change where the value does not exist."""

    def __repr__(self) -> str:
        return "<missing>"


_MISSING: Any = _Missing()
_MAX_SHOWN = 3


def resolve(state: Any, path: StatePath) -> Any:
    """The value at ``path`` (list items by index), or ``_MISSING``."""
    value = state
    for part in path:
        if isinstance(value, dict):
            if part not in value:
                return _MISSING
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def changes(
    before: Any,
    after: Any,
    *,
    skip: frozenset[StatePath] = frozenset(),
    json_values: bool = False,
) -> list[tuple[StatePath, Any, Any]]:
    """Every changed leaf as ``(path, before, after)``, in path order; an added or removed
    value is ``_MISSING`` on its other side. Subtrees at a path in ``skip`` are not visited.
    ``json_values`` says both sides hold only what JSON or YAML decodes to, which lets
    equal subtrees be confirmed by their JSON encoding (faster than by ``repr``).

    >>> changes({"a": 1, "b": [1]}, {"a": 1.0, "b": [1, 2]})
    [(('b', '1'), <missing>, 2)]
    """
    found: list[tuple[StatePath, Any, Any]] = []
    unchanged = _same_json if json_values else _same_repr
    _collect(before, after, (), skip, found, unchanged)
    found.sort(key=lambda change: change[0])
    return found


def _same_repr(before: Any, after: Any) -> bool:
    return repr(before) == repr(after)


def _same_json(before: Any, after: Any) -> bool:
    """For two ``==`` values decoded from JSON or YAML: True only when walking them would
    find no change, i.e. no leaf where a bool meets a number. Equal encodings rule that out
    (``true`` is never ``1``); a differing type or encoding leaves it to the walk."""
    kind = type(before)
    if kind is not type(after):
        return False
    if kind is dict or kind is list:
        try:
            return _encode(before) == _encode(after)
        except (TypeError, ValueError):  # a value msgspec cannot encode: repr decides
            return _same_repr(before, after)
    return True


def _collect(
    before: Any,
    after: Any,
    path: StatePath,
    skip: frozenset[StatePath],
    found: list[tuple[StatePath, Any, Any]],
    unchanged: Callable[[Any, Any], bool],
) -> None:
    # Equal subtrees are the common case: compare them in C. Python's == holds True == 1,
    # so a subtree only counts as unchanged when ``unchanged`` agrees too (1 and 1.0 differ
    # in repr and are then walked, where _same treats them as equal numbers).
    if before == after and unchanged(before, after):
        return
    if isinstance(before, dict) and isinstance(after, dict):
        for key in before.keys() | after.keys():
            old, new = before.get(key, _MISSING), after.get(key, _MISSING)
            if old == new and unchanged(old, new):
                continue  # the check _collect starts with, without the call
            child = (*path, str(key))
            if child not in skip:
                _collect(old, new, child, skip, found, unchanged)
    elif isinstance(before, list) and isinstance(after, list):
        for index in range(max(len(before), len(after))):
            child = (*path, str(index))
            if child not in skip:
                old = before[index] if index < len(before) else _MISSING
                new = after[index] if index < len(after) else _MISSING
                _collect(old, new, child, skip, found, unchanged)
    elif not _same(before, after):
        found.append((path, before, after))


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return bool(a == b)
    return type(a) is type(b) and bool(a == b)


def _describe_change(path: StatePath, before: Any, after: Any) -> str:
    dotted = ".".join(path)
    if before is _MISSING:
        return f"{dotted} added ({render_value(after)})"
    if after is _MISSING:
        return f"{dotted} removed (was {render_value(before)})"
    return f"{dotted} changed from {render_value(before)} to {render_value(after)}"


_SKIPS: dict[int, tuple[list[StatePath], frozenset[StatePath]]] = {}


def _skipped(allowed: list[StatePath]) -> frozenset[StatePath]:
    """``frozenset(allowed)``, made once per task's list rather than once per run."""
    kept = _SKIPS.get(id(allowed))
    if kept is None or kept[0] is not allowed:  # a new list, or another one at that address
        if len(_SKIPS) >= 1024:
            _SKIPS.clear()
        kept = _SKIPS[id(allowed)] = (allowed, frozenset(allowed))
    return kept[1]


def grade_state(run: RunView, task: Task) -> GraderResult | None:
    """Grade the end state of ``run``; ``None`` when the task configures no State check."""
    if not task.has_state:
        return None
    final = run.final_state
    if final is None:
        return GraderResult(passed=False, reason="the run has no final_state to check")
    failures: list[str] = []
    for path, matcher in task.state_matchers:
        value = resolve(final, path)
        if value is _MISSING:
            if not (matcher.optional or matcher.absent):
                failures.append(
                    f"{'.'.join(path)}: missing from final_state (expected {matcher.describe()})"
                )
            continue
        mismatch = matcher.check(value)
        if mismatch is not None:
            failures.append(f"{mismatch.dotted('.'.join(path))}: {mismatch.message}")
    if task.only_changes is not None:
        initial = run.initial_state if run.initial_state is not None else task.initial_state
        if initial is None:
            failures.append(
                "only_changes needs the initial state: the run has no initial_state "
                "and the task none"
            )
        else:
            skip = _skipped(task.allowed_changes)
            json_values = getattr(run, "json_values", False)
            outside = [
                _describe_change(path, before, after)
                for path, before, after in changes(
                    initial, final, skip=skip, json_values=json_values
                )
            ]
            if outside:
                listed = ", ".join(task.only_changes) or "nothing"
                shown = outside[:_MAX_SHOWN]
                more = f" and {len(outside) - _MAX_SHOWN} more" if len(outside) > _MAX_SHOWN else ""
                failures.append(f"{', '.join(shown)}{more}: outside only_changes [{listed}]")
    if failures:
        return GraderResult(passed=False, reason="; ".join(failures))
    return _passing_result(task)


# The passing result of each task's checks, made once: by the identity of the lists it tells
# of (held, so no other list takes their address meanwhile).
_PASSES: dict[tuple[int, int], tuple[object, object, GraderResult]] = {}


def _passing_result(task: Task) -> GraderResult:
    matchers, listed = task.state_matchers, task.only_changes
    key = (id(matchers), id(listed))
    kept = _PASSES.get(key)
    if kept is None or kept[0] is not matchers or kept[1] is not listed:
        if len(_PASSES) >= 1024:
            _PASSES.clear()
        checked = []
        if matchers:
            checked.append(f"{len(matchers)} state check{'s' if len(matchers) != 1 else ''} passed")
        if listed is not None:
            checked.append(f"no change outside [{', '.join(listed)}]")
        kept = _PASSES[key] = (
            matchers,
            listed,
            GraderResult(passed=True, reason="; ".join(checked)),
        )
    return kept[2]
