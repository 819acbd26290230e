"""JSON Schemas of judgekit's file formats, for users' editors and validators."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from judgekit.formats.grade import Grade
from judgekit.formats.label import Label
from judgekit.formats.rubric import Rubric
from judgekit.formats.run import Run
from judgekit.formats.task import Suite
from judgekit.formats.verdict import Verdict

FORMATS: dict[str, type[BaseModel]] = {
    "run": Run,
    "task": Suite,
    "grade": Grade,
    "rubric": Rubric,
    "label": Label,
    "verdict": Verdict,
}


def json_schema(name: str) -> dict[str, Any]:
    """The JSON Schema of format ``name`` (one of :data:`FORMATS`).

    >>> json_schema("run")["required"]
    ['run_id']
    """
    model = FORMATS[name]
    schema = model.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = f"judgekit {name}"
    return schema
