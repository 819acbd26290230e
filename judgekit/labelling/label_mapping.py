"""The mapping of a platform's label values onto a rubric's scale (``--map VALUE=SCORE``).

A value maps by its text as the platform reader gives it (``true``, ``1``, ``0.5``, a
category), exactly as spelled. A value the mapping does not name maps to itself when it
already is one of the scale's values (``pass``, ``4`` on 1..5, a listed choice), and is an
error otherwise: a label is never guessed onto the scale (a numeric ``1`` is not a pass
unless ``--map 1=pass`` says so).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from judgekit.errors import ConfigError
from judgekit.formats.rubric import Rubric, Score, normalise_score, scale_kind, scale_values
from judgekit.importers.human_labels import PlatformLabel

__all__ = ["map_value", "parse_mapping"]


def parse_mapping(entries: Sequence[str], rubric: Rubric) -> dict[str, Score]:
    """``VALUE=SCORE`` entries as value → score on ``rubric``'s scale (a ConfigError for an
    entry without ``=``, a score off the scale, or a value mapped twice to different scores).

    >>> from judgekit.formats.rubric import Rubric
    >>> rubric = Rubric(id="ok", scale="binary", prompt="{final_answer}", judge={"model": "m"})
    >>> parse_mapping(["correct=pass", "1=PASS", "x=y=fail"], rubric)
    {'correct': 'pass', '1': 'pass', 'x=y': 'fail'}
    """
    mapping: dict[str, Score] = {}
    for entry in entries:
        value, equals, score = entry.rpartition("=")
        if not equals or not value:
            raise ConfigError(f"--map {entry!r}: expected VALUE=SCORE, e.g. correct=pass")
        try:
            mapped = normalise_score(rubric.scale, score)
        except ValueError as exc:
            raise ConfigError(f"--map {entry!r}: {exc} (the scale of {rubric.id})") from None
        if mapping.get(value, mapped) != mapped:
            raise ConfigError(f"--map maps {value!r} twice: to {mapping[value]} and to {mapped}")
        mapping[value] = mapped
    return mapping


def map_value(label: PlatformLabel, mapping: Mapping[str, Score], rubric: Rubric) -> Score:
    """The score ``label``'s value maps to, or a DataError naming the file, the line, the
    field, the value and the values that would be valid."""
    if label.value in mapping:
        return mapping[label.value]
    own = _scale_value(label.value, rubric)
    if own is not None:
        return own
    mapped = ", ".join(json.dumps(value) for value in mapping) or "none"
    scale = ", ".join(json.dumps(value) for value in scale_values(rubric.scale))
    raise label.where.error(
        f"value {json.dumps(label.value)} of {label.name!r} is not mapped to the scale of "
        f"{rubric.id}: valid values are those mapped ({mapped}) and the scale's own ({scale}); "
        f"add --map {label.value}=SCORE"
    )


def _scale_value(text: str, rubric: Rubric) -> Score | None:
    """``text`` as the scale value it already is, or None (binary: only pass and fail)."""
    if scale_kind(rubric.scale) == "binary" and text.strip().casefold() not in ("pass", "fail"):
        return None
    try:
        return normalise_score(rubric.scale, text)
    except ValueError:
        return None
