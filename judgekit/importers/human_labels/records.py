"""What every platform's human labels become: one :class:`PlatformLabel` per score,
feedback, annotation or assessment read, in platform-neutral terms, and the checks of the
fields they are read from.

A label names what it labels by ``targets`` (a trace, a span, a session or a run of the
platform, the most precise first); :mod:`judgekit.labelling.imported_labels` joins them to
runs, maps the value to a rubric's scale and writes the labels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Literal

from judgekit.importers.locations import Location, describe_json

__all__ = [
    "PlatformLabel",
    "Target",
    "TargetKind",
    "aliased",
    "label_time",
    "value_text",
]

TargetKind = Literal["trace", "span", "session", "run"]
Target = tuple[TargetKind, str]


@dataclass(frozen=True)
class PlatformLabel:
    """One label read from a platform's export.

    ``value`` is the label's canonical text (``"true"``, ``"1"``, ``"0.5"``, a category),
    which ``--map`` maps to the rubric's scale; ``where`` is the value's place in the file.
    ``labeller`` is prefixed with the platform (``langfuse:<user>``), so it never collides
    with a terminal labeller's name; None when the record names nobody. ``human`` says
    whether a person gave it (the platform's source or annotator kind), and ``left_out``
    why a human label cannot count, before any join (a queue item still pending, a label
    of one step of a trace rather than of the trace).
    """

    where: Location
    name: str
    value: str
    targets: tuple[Target, ...]
    labeller: str | None
    at: datetime
    note: str | None
    human: bool
    left_out: str | None = None


def aliased(data: dict[str, Any], *names: str) -> Any:
    """The first of ``names`` present (not null) in ``data``: the platforms' APIs spell
    fields in camelCase, their SDK models dumped without aliases in snake_case."""
    for name in names:
        value = data.get(name)
        if value is not None:
            return value
    return None


def value_text(value: Any, where: Location) -> str:
    """A label's value as the text ``--map`` matches: true/false, a number without a
    needless ``.0`` (1.0 is ``"1"``), a string as it is.

    >>> from pathlib import Path
    >>> here = Location(Path("scores.json"), 3)
    >>> value_text(True, here), value_text(1.0, here), value_text(0.25, here), value_text("ok", here)
    ('true', '1', '0.25', 'ok')
    >>> value_text([1], here.key("value"))
    Traceback (most recent call last):
    ...
    judgekit.errors.DataError: scores.json:3: value: expected a number, true/false or a string, got a list
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value):
        return str(int(value)) if value.is_integer() else repr(value)
    if isinstance(value, str) and value.strip():
        return value
    raise where.error(f"expected a number, true/false or a string, got {describe_json(value)}")


def label_time(value: Any, where: Location) -> datetime:
    """A platform's time (ISO 8601, or milliseconds since the epoch) as an aware datetime;
    a time without a zone is UTC, as the platforms write it."""
    if value is None:
        raise where.error("required field is missing (expected an ISO 8601 time)")
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value):
        try:
            return datetime.fromtimestamp(value / 1000, UTC)
        except (OverflowError, OSError, ValueError):
            pass
    elif isinstance(value, str):
        try:
            at = datetime.fromisoformat(value)
        except ValueError:
            pass
        else:
            return at if at.tzinfo is not None else at.replace(tzinfo=UTC)
    raise where.error(
        f"expected an ISO 8601 time or milliseconds since 1970, got {describe_json(value)}"
    )
