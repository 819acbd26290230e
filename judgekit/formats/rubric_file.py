"""Loading rubrics (``rubrics/<id>.yaml``) and computing their versions.

Every problem in a rubric file is reported on one line naming the file, the line and the
field, and saying what would be valid::

    rubrics/x.yaml:7: prompt: unknown placeholder {answr}; valid placeholders are {input}, ...

A rubric's *version* is a hash of everything that changes a verdict, so a verdict, a hand
label comparison or a promotion record can say exactly which rubric it is about.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from judgekit._util.input_paths import is_dir, is_file, read_text, reading
from judgekit._util.yamlfile import LineMap, Location, load_yaml
from judgekit.errors import ConfigError, DataError
from judgekit.formats.jury import Juror
from judgekit.formats.rubric import (
    ChoicesScale,
    JudgeSettings,
    LikertScale,
    PromotionPolicy,
    Rubric,
    RubricExample,
    RubricSpecError,
    scale_kind,
    scale_values,
)

__all__ = [
    "find_rubric",
    "juror_rubric",
    "load_rubric",
    "load_rubrics",
    "one_judge",
    "rubric_version",
]

_SUFFIXES = (".yaml", ".yml")


def load_rubric(ref: str | Path, *, rubrics_dir: Path = Path("rubrics")) -> Rubric:
    """Load a rubric from a file path, or by id from ``rubrics_dir/<id>.yaml``.

    A ``Path``, or a string with a folder separator or a ``.yaml``/``.yml`` suffix, is a
    file; any other string is an id::

        load_rubric("goal_completion")                  # rubrics/goal_completion.yaml
        load_rubric("elsewhere/tone.yaml")              # that file

    Raises :class:`judgekit.errors.DataError` naming the file, line and field.
    """
    return _load_file(_rubric_path(ref, Path(rubrics_dir)))


def find_rubric(rubric_id: str, rubrics_dir: Path) -> Rubric | None:
    """The rubric of id ``rubric_id`` in ``rubrics_dir`` (its file is named by its id), or
    None when it has no file there; an id that would name a path elsewhere has none."""
    separators = {"/", "\\", os.sep} | ({os.altsep} if os.altsep else set())
    if rubric_id in ("", ".", "..") or any(sep in rubric_id for sep in separators):
        return None
    for suffix in _SUFFIXES:
        path = rubrics_dir / f"{rubric_id}{suffix}"
        if is_file(path):
            return _load_file(path)
    return None


def load_rubrics(rubrics_dir: str | Path) -> list[Rubric]:
    """Every rubric in a folder (``*.yaml`` and ``*.yml``), sorted by id.

    >>> [r.id for r in load_rubrics("rubrics")]  # doctest: +SKIP
    ['answer_quality', 'goal_completion', 'preference']
    """
    folder = Path(rubrics_dir)
    if not is_dir(folder):
        raise DataError("no such folder", path=folder)
    rubrics: dict[str, Rubric] = {}
    for path in _rubric_files(folder):
        rubric = _load_file(path)
        if rubric.id in rubrics:
            raise DataError(
                f"rubric id {rubric.id!r} is also defined by {rubrics[rubric.id].source}; "
                "keep one of the two files",
                path=path,
            )
        rubrics[rubric.id] = rubric
    return [rubrics[rubric_id] for rubric_id in sorted(rubrics)]


def rubric_version(rubric: Rubric) -> str:
    """The first 12 hex digits of the sha256 of everything that changes a verdict.

    That is the prompt, the scale, what the rubric applies to, the few-shot examples, the
    judge's model (a jury's name: its rule and jurors' models; not where they are reached), temperature, samples and confidence measure (when not ``samples``), and
    ``max_chars`` when set, as canonical JSON.
    The description, the id and the promotion policy are left out: editing them does not
    change what a judge says, so it must not orphan the verdicts and promotion record of the
    rubric. The scale is hashed by its values, so ``likert`` and ``{likert: [1, 5]}`` are
    the same version.

    >>> rubric = Rubric(id="ok", scale="binary", prompt="Polite? {final_answer}",
    ...                 judge={"model": "openai/gpt-4o-mini"})
    >>> rubric_version(rubric)
    '089dc3ba9e0a'
    >>> rubric_version(rubric.model_copy(update={"description": "Is it polite?"}))
    '089dc3ba9e0a'
    """
    content: dict[str, Any] = {
        "prompt": rubric.prompt,
        "scale": {"kind": scale_kind(rubric.scale), "values": list(scale_values(rubric.scale))},
        "applies_to": rubric.applies_to,
        "examples": [
            example.model_dump(mode="json", exclude_none=True) for example in rubric.examples
        ],
        "judge": {
            "model": rubric.judge.model,
            "temperature": float(rubric.judge.temperature),
            "samples": rubric.judge.samples,
        },
    }
    if rubric.judge.confidence != "samples":
        # Asking for log-probabilities changes the request; only when set, so that rubrics
        # written before the option existed keep their versions.
        content["judge"]["confidence"] = rubric.judge.confidence
    if rubric.max_chars is not None:
        # Only when set, so that rubrics written before the cap existed keep their versions.
        content["max_chars"] = rubric.max_chars
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12]


def _rubric_path(ref: str | Path, rubrics_dir: Path) -> Path:
    if isinstance(ref, Path):
        return ref
    separators = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    if any(sep in ref for sep in separators) or ref.endswith(_SUFFIXES):
        return Path(ref)
    for suffix in _SUFFIXES:
        candidate = rubrics_dir / f"{ref}{suffix}"
        if is_file(candidate):
            return candidate
    known = [p.stem for p in _rubric_files(rubrics_dir)] if is_dir(rubrics_dir) else []
    where = f"{rubrics_dir} holds {', '.join(known)}" if known else f"{rubrics_dir} holds none"
    raise DataError(
        f"no rubric {ref!r}; pass a rubric file or the id of one ({where})",
        path=rubrics_dir / f"{ref}.yaml",
    )


def _rubric_files(folder: Path) -> list[Path]:
    with reading(folder):
        os.listdir(folder)  # a folder that cannot be listed would look empty to glob
    return sorted(p for suffix in _SUFFIXES for p in folder.glob(f"*{suffix}") if is_file(p))


def _load_file(path: Path) -> Rubric:
    with reading(path):
        raw, lines = load_yaml(path)
    if not isinstance(raw, dict):
        raise DataError(
            "a rubric is a mapping with id, scale, prompt and judge",
            path=path,
            line=lines.line_of(()),
        )
    try:
        rubric = Rubric.model_validate(raw)
    except ValidationError as exc:
        raise _rubric_error(exc, path, lines) from None
    if rubric.id != path.stem:
        # `--rubric goal_completion` finds rubrics/goal_completion.yaml by its name, and
        # labels and promotion records are filed by id: the two must not drift apart.
        raise DataError(
            f"id {rubric.id!r} does not match the file name {path.name!r}; rename one",
            path=path,
            line=lines.line_of(("id",)),
            field="id",
        )
    rubric.attach_source(path, lines)
    return rubric


def _model_at(parent: Location, scale_tag: str | int | None) -> type[BaseModel]:
    """The model whose fields an unknown key at ``parent`` should have been one of."""
    head = parent[0] if parent else None
    if parent[:2] == ("judge", "jury") and len(parent) == 3:
        return Juror
    if head == "scale":
        return ChoicesScale if scale_tag == "choices" else LikertScale
    nested: dict[str | int | None, type[BaseModel]] = {
        "judge": JudgeSettings,
        "promotion": PromotionPolicy,
        "examples": RubricExample,
    }
    return nested.get(head, Rubric)


def _render_location(location: Location) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _token_line(path: Path, start: int | None, token: str) -> int | None:
    """The line, from ``start`` until the next top-level key, where ``token`` first appears:
    a placeholder error points into a multi-line prompt, not at its ``prompt:`` key."""
    if start is None:
        return None
    text = read_text(path).splitlines()
    for number in range(start, len(text) + 1):
        line = text[number - 1]
        if number > start and line[:1].strip() and not line.startswith("#"):
            break
        if token in line:
            return number
    return None


def _rubric_error(exc: ValidationError, path: Path, lines: LineMap) -> DataError:
    error = exc.errors(include_url=False)[0]
    location: Location = tuple(error["loc"])
    scale_tag = None
    if location[:1] == ("scale",) and len(location) > 1:
        # Errors inside the scale union carry the member's tag right after "scale".
        scale_tag = location[1]
        location = ("scale", *location[2:])
    cause = error.get("ctx", {}).get("error")
    got = error.get("input")
    line = None
    if isinstance(cause, RubricSpecError):
        location = (*location, *cause.where)
        message = cause.message
        if cause.token is not None:
            line = _token_line(path, lines.line_of(location), cause.token)
    elif error["type"] == "missing":
        message = "required field is missing"
    elif error["type"] == "extra_forbidden":
        fields = _model_at(location[:-1], scale_tag).model_fields
        message = f"unknown field; valid fields are {', '.join(fields)}"
    else:
        message = error["msg"].removeprefix("Value error, ")
        if got is not None and not isinstance(got, dict | list):
            message += f" (got {got!r})"
    return DataError(
        message,
        path=path,
        line=line or lines.line_of(location),
        field=_render_location(location) or None,
    )


def effective_rubric(rubric: Rubric, model: str | None, *, option: str = "--model") -> Rubric:
    """The rubric as it will be judged: ``--model`` (``option``) replaces the rubric's judge
    model, and so changes the rubric version (the model is part of what a verdict depends
    on). A jury's rubric takes no model: its jurors are named in the rubric."""
    if model is None or model == rubric.judge.model:
        return rubric
    if rubric.judge.jury is not None:
        raise ConfigError(
            f"{option} {model}: the rubric {rubric.id} names a jury ({rubric.judge.model}); "
            "change its jurors in the rubric, or judge with one model in a rubric of its own"
        )
    return rubric.model_copy(update={"judge": rubric.judge.model_copy(update={"model": model})})


def juror_rubric(rubric: Rubric, juror: Juror) -> Rubric:
    """The rubric as one juror of its jury judges it: a single judge, ``juror``'s model with
    the jury's temperature, samples and confidence. Its version depends on that juror alone,
    so a juror's cached answers outlive a change to the other jurors.

    >>> jury = Rubric(id="ok", scale="binary", prompt="Polite? {final_answer}",
    ...               judge={"jury": [{"model": "openai/a"}, {"model": "openai/b"},
    ...                               {"model": "openai/c"}], "combine": "majority"})
    >>> juror = juror_rubric(jury, jury.judge.jury[0])
    >>> juror.judge.model, juror.judge.jury
    ('openai/a', None)
    """
    settings = rubric.judge.model_dump(exclude={"jury", "combine", "model"})
    judge = JudgeSettings(model=juror.model, **settings)
    return rubric.model_copy(update={"judge": judge})


def one_judge(rubric: Rubric, command: str) -> Rubric:
    """``rubric``, when it names one judge model; a :class:`ConfigError` saying that
    ``command`` asks one model when it names a jury (``judge`` and ``calibrate`` take juries)."""
    if rubric.judge.jury is not None:
        raise ConfigError(
            f"{command} asks one judge model, and the rubric {rubric.id} names a jury "
            f"({rubric.judge.model}); judge and calibrate the jury, or give {command} a rubric "
            "of one of its jurors"
        )
    return rubric
