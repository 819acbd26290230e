"""``judgekit init [DIR]``: a working skeleton — a suite with a stub agent and its tools, a
rubric, an empty labels folder, a CI workflow and a README saying the next commands.

Nothing existing is overwritten: every file of the skeleton is checked first, and one
that exists stops the command before anything is written. The files are then written as
one set (each to a temporary file, all renamed into place at the end), so an error part
way leaves the folder as it was.
"""

from __future__ import annotations

from pathlib import Path

from judgekit._util.atomic_files import atomic_files, remove_empty_folders
from judgekit._util.version import __version__
from judgekit.errors import OutputError
from judgekit.scaffold.rubric_templates import rubric_template
from judgekit.scaffold.templates import template_text

# Where each file of the skeleton goes -> the template it is copied from ("" : empty file).
# Template files carry no leading dot and no .py suffix of their own: the package's tools
# (pytest, mypy, the layer check) must not take them for judgekit's own code.
PROJECT_FILES: dict[str, str] = {
    "agent.py": "project/agent.py.tmpl",
    "tasks/support.yaml": "project/support.yaml",
    "rubrics/goal_completion.yaml": "rubrics/goal_completion.yaml",
    "labels/.gitkeep": "",
    ".github/workflows/judgekit.yml": "project/workflow.yml",
    ".gitignore": "project/gitignore",
    "README.md": "project/README.md",
}
# Stands in a template for the version of the judgekit writing it: the workflow installs
# exactly that one, so CI grades with the judgekit the project was made and tried with.
VERSION_MARK = "@JUDGEKIT_VERSION@"


def init_project(folder: Path) -> list[Path]:
    """Write the skeleton into ``folder`` (created if missing); return the files written.

    Raises :class:`OutputError` naming every file that is already there, writing nothing.
    """
    if folder.exists() and not folder.is_dir():
        raise OutputError(f"cannot init {folder}: it is a file, not a folder")
    existing = [name for name in PROJECT_FILES if _taken(folder / name)]
    if existing:
        raise OutputError(
            f"{folder} already has {', '.join(existing)}; judgekit init never overwrites a "
            "file: move them away, or init an empty folder (judgekit init NEW_FOLDER)"
        )
    new_folder = not folder.exists()
    written = []
    try:
        with atomic_files() as files:
            for name, template in PROJECT_FILES.items():
                files.text(folder / name).write(_content(template))
                written.append(folder / name)
    except BaseException:
        if new_folder:  # its subfolders are gone by now; an empty folder left is ours
            remove_empty_folders([folder])
        raise
    return written


def _taken(path: Path) -> bool:
    return path.exists() or path.is_symlink()  # a broken link is there too


def _content(template: str) -> str:
    if not template:
        return ""
    kind, name = template.split("/")
    if kind == "rubrics":
        return rubric_template(name.removesuffix(".yaml"))
    return template_text(kind, name).replace(VERSION_MARK, __version__)
