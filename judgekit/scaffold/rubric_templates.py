"""``judgekit rubrics new ID --template NAME``: a rubric file to start from.

Every template is a complete rubric (it loads and has a version); the new file differs from
it only in its ``id``, so the prompt, scale and examples are the template's until edited.
"""

from __future__ import annotations

import re
from pathlib import Path

from judgekit._util.atomic_files import atomic_writer
from judgekit.errors import ConfigError, OutputError
from judgekit.scaffold.templates import template_text

# name -> what it judges, for --help
RUBRIC_TEMPLATES: dict[str, str] = {
    "goal_completion": "binary: did the final answer reach the user's goal",
    "answer_quality": "likert 1-5: accurate to the tool results, complete",
    "preference": "pairwise A/B/tie: which answer follows the request",
    "tool_use": "binary, on the tool calls: right tools and arguments",
}

# A rubric id becomes a file name (rubrics/<id>.yaml) and is typed on command lines.
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*")
_ID_LINE = re.compile(r"^id: .*$", re.MULTILINE)


def rubric_template(name: str, rubric_id: str | None = None) -> str:
    """The YAML text of template ``name``, with its ``id`` set to ``rubric_id`` if given.

    >>> print(rubric_template("tool_use", "my_tools").split("id: ")[1].splitlines()[0])
    my_tools
    """
    if name not in RUBRIC_TEMPLATES:
        raise ConfigError(
            f"no rubric template {name!r}; templates are {', '.join(RUBRIC_TEMPLATES)}"
        )
    text = template_text("rubrics", f"{name}.yaml")
    if rubric_id is None:
        return text
    check_rubric_id(rubric_id)
    return _ID_LINE.sub(f"id: {rubric_id}", text, count=1)


def check_rubric_id(rubric_id: str) -> None:
    """Refuse an id that would not make a plain file name (a slash, a leading dot, a space)."""
    if not _ID.fullmatch(rubric_id) or rubric_id.endswith((".yaml", ".yml")):
        raise ConfigError(
            f"rubric id {rubric_id!r}: use letters, digits, '_', '-' and '.', starting with a "
            "letter or digit, without .yaml (the file is named after it)"
        )


def new_rubric(rubric_id: str, template: str, rubrics_dir: Path) -> Path:
    """Write ``rubrics_dir/<rubric_id>.yaml`` from ``template``; never over an existing file."""
    text = rubric_template(template, rubric_id)
    target = rubrics_dir / f"{rubric_id}.yaml"
    for existing in (target, target.with_suffix(".yml")):
        if existing.exists():
            raise OutputError(f"{existing} already exists; pick another id or edit that file")
    with atomic_writer(target) as fh:
        fh.write(text)
    return target
