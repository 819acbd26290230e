"""A first project: ``judgekit init`` writes a working skeleton and ``judgekit rubrics new``
a rubric, both from templates shipped inside the package (``templates/``)."""

from __future__ import annotations

from judgekit.scaffold.project import PROJECT_FILES, init_project
from judgekit.scaffold.rubric_templates import RUBRIC_TEMPLATES, new_rubric, rubric_template

__all__ = ["PROJECT_FILES", "RUBRIC_TEMPLATES", "init_project", "new_rubric", "rubric_template"]
