"""The task-suite format (``tasks/<suite>.yaml``) and its loader.

A suite file holds tasks (:mod:`judgekit.formats.task_model`: what a right run looks like)
and the defaults they share (:mod:`judgekit.formats.suite`). The loader applies the
defaults, validates every task — compiling its matchers, so a bad matcher is reported
with its file and line before any grading starts — and names the file, line and field of
anything wrong. The task model's names are importable from here too.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from judgekit._util.close_names import did_you_mean
from judgekit._util.gc_pause import gc_paused
from judgekit._util.yamlfile import LineMap, Location, load_yaml
from judgekit.errors import DataError
from judgekit.formats.matchers import MatcherSpecError
from judgekit.formats.suite import Suite, TaskSet
from judgekit.formats.task_model import (
    DEFAULT_PROTECTED,
    PATH_FIELDS,
    ExpectedCall,
    LoopRule,
    OrderMode,
    StatePath,
    StepBudget,
    Task,
    parse_state_path,
)

__all__ = [
    "DEFAULT_PROTECTED",
    "PATH_FIELDS",
    "ExpectedCall",
    "LoopRule",
    "OrderMode",
    "StatePath",
    "StepBudget",
    "Suite",
    "Task",
    "TaskSet",
    "load_suite",
    "load_tasks",
    "parse_state_path",
    "suite_files",
]


def _apply_defaults(raw: Any, path: Path, lines: LineMap) -> Any:
    """Merge the suite's ``defaults`` and ``initial_state`` into each task mapping."""
    if not isinstance(raw, dict):
        return raw
    defaults = raw.get("defaults") or {}
    if not isinstance(defaults, dict):
        return raw
    for key in ("id", "input"):
        if key in defaults:
            raise DataError(
                f"{key} cannot have a default; set it on each task",
                path=path,
                line=lines.line_of(("defaults", key)),
                field=f"defaults.{key}",
            )
    unknown = [k for k in defaults if k not in Task.model_fields]
    if unknown:
        raise DataError(
            _unknown_field(unknown[0], Task.model_fields, "unknown task field"),
            path=path,
            line=lines.line_of(("defaults", unknown[0])),
            field=f"defaults.{unknown[0]}",
        )
    tasks = raw.get("tasks")
    if isinstance(tasks, list):
        shared = dict(defaults)
        if raw.get("initial_state") is not None:
            shared.setdefault("initial_state", raw["initial_state"])
        raw = {**raw, "tasks": [{**shared, **t} if isinstance(t, dict) else t for t in tasks]}
    return raw


def _unknown_field(name: str, fields: Iterable[str], unknown: str) -> str:
    """``unknown`` (what the field is not), the close field names, then every valid one."""
    valid = list(fields)
    close = did_you_mean(name, valid)
    return f"{unknown}{f' ({close})' if close else ''}; valid fields are {', '.join(valid)}"


def _error_location(error: dict[str, Any]) -> Location:
    location: Location = tuple(error["loc"])
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, MatcherSpecError):
        location = (*location, *cause.where)
    return location


def _render_location(location: Location) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _suite_error(exc: ValidationError, path: Path, lines: LineMap) -> DataError:
    error = exc.errors(include_url=False)[0]
    location = _error_location(dict(error))
    cause = error.get("ctx", {}).get("error")
    if isinstance(cause, MatcherSpecError):
        message = cause.message
    elif error["type"] == "missing":
        message = "required field is missing"
    elif error["type"] == "extra_forbidden":
        parent = location[:-1]
        model: type[BaseModel] = Suite
        if len(parent) >= 2 and parent[0] == "tasks":
            model = Task
        message = _unknown_field(str(location[-1]), model.model_fields, "unknown field")
    elif error["type"] == "literal_error":
        message = f"{error['msg']} (got {error.get('input')!r})"
    else:
        message = error["msg"].removeprefix("Value error, ")
        got = error.get("input")
        if got is not None and not isinstance(got, dict | list):
            message += f" (got {got!r})"
    return DataError(
        message, path=path, line=lines.line_of(location), field=_render_location(location) or None
    )


def load_suite(path: str | Path, *, resolve_code: bool = True) -> tuple[Suite, LineMap]:
    """Load and validate one suite file; errors name the file, line and field.

    ``resolve_code=False`` imports nothing the suite names (see :func:`load_tasks`)."""
    with gc_paused():  # every node and task stays alive: collecting would free nothing
        return _load_suite(Path(path), resolve_code)


def _load_suite(p: Path, resolve_code: bool) -> tuple[Suite, LineMap]:
    raw, lines = load_yaml(p)
    if not isinstance(raw, dict):
        raise DataError(
            "a task suite is a mapping with `suite:` and `tasks:`", path=p, line=lines.line_of(())
        )
    raw = _apply_defaults(raw, p, lines)
    try:
        suite = Suite.model_validate(raw, context={"resolve_code": resolve_code})
    except ValidationError as exc:
        raise _suite_error(exc, p, lines) from None
    base_dir = p.resolve().parent
    for task in suite.tasks:
        task._loaded_from(suite.suite, base_dir)
    return suite, lines


def suite_files(path: str | Path) -> list[Path]:
    """The suite files at ``path``: the file itself, or every *.yaml / *.yml in a folder."""
    p = Path(path)
    if p.is_dir():
        files = sorted([*p.glob("*.yaml"), *p.glob("*.yml")])
        if not files:
            raise DataError("folder holds no *.yaml task suites", path=p)
        return files
    if not p.exists():
        raise DataError("no such file or folder", path=p)
    return [p]


def load_tasks(path: str | Path, *, resolve_code: bool = True) -> TaskSet:
    """Load task suites from a YAML file or a folder of them.

    A suite that names code (``$custom`` matchers, ``tools:``) is code, like a conftest.py:
    loading it imports each ``$custom`` module. ``resolve_code=False`` reads the suite
    without importing anything, for what needs only its data (a task's input or reference
    answer): each ``$custom`` stays an unresolved reference, and grading with it raises
    :class:`~judgekit.errors.ConfigError`. (``tools:`` is imported only by ``judgekit run``.)

    >>> tasks = load_tasks("tasks/shop.yaml")   # doctest: +SKIP
    >>> tasks.get("refund_full").expect_tools[0].name   # doctest: +SKIP
    'lookup_order'
    """
    task_set = TaskSet()
    for file in suite_files(path):
        suite, lines = load_suite(file, resolve_code=resolve_code)
        with gc_paused():
            task_set.add(suite, file, lines)
    return task_set
