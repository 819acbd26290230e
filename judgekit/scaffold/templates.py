"""The template files shipped as package data, read through importlib.resources so an
installed wheel (or a zip) serves them as well as a checkout."""

from __future__ import annotations

from importlib.resources import files


def template_text(*parts: str) -> str:
    """The text of ``templates/<parts...>``, e.g. ``template_text("rubrics", "tool_use.yaml")``."""
    resource = files("judgekit.scaffold").joinpath("templates", *parts)
    return resource.read_text(encoding="utf-8")
