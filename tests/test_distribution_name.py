"""The distribution's extras name the distribution itself: ``judgekit`` on PyPI is another
author's project, so ``judgekit[postgres]`` in an extra would install it."""

from __future__ import annotations

import tomllib

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO


def test_no_extra_requires_a_project_named_judgekit() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    own = canonicalize_name(project["name"])
    assert own == "judgekit-agents"
    named = {
        canonicalize_name(Requirement(line).name)
        for lines in [project.get("dependencies", []), *project["optional-dependencies"].values()]
        for line in lines
    }
    assert "judgekit" not in named
    assert own in named  # the dev extra takes the postgres extra by the project's own name
