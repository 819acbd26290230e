"""Which files ``judgekit view`` shows: the runs files, rubrics, labels, verdicts and suites
given, or found in a project folder by the layout judgekit writes.

A folder given as a path is a run's folder when it holds ``runs.jsonl``; otherwise every
``*/runs.jsonl`` one level down is a runs file (``judgekit-demo/shop``, ``.../travel``). The
first folder is the project: its ``rubrics/``, ``labels/`` and ``verdicts/`` are used when no
option names others, and each run folder's own ``verdicts.jsonl`` (what ``judge --out``
writes) is read beside it. With no verdicts file anywhere, verdicts come from the store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from judgekit._util.input_paths import is_dir, is_file
from judgekit.errors import ConfigError
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, load_rubrics
from judgekit.formats.runs_input import RUNS_FILE, runs_file_of

__all__ = ["ViewSources", "find_sources"]

VERDICTS_FILE = "verdicts.jsonl"


@dataclass(frozen=True)
class ViewSources:
    """The files one view reads; ``verdicts_files`` empty means the store's verdicts."""

    runs_files: tuple[Path, ...]
    rubrics: tuple[Rubric, ...]
    rubric_dirs: dict[str, Path]  # rubric id → the folder its file (and promotion) is in
    labels_dir: Path
    verdicts_files: tuple[Path, ...]
    tasks_path: Path | None


def find_sources(
    paths: Sequence[Path],
    *,
    rubric_refs: Sequence[str] = (),
    labels_dir: Path | None = None,
    verdicts: Sequence[Path] = (),
    tasks_path: Path | None = None,
) -> ViewSources:
    """The files to show for ``paths`` (the working folder when none) and the options; a
    path that names no runs is a :class:`ConfigError` saying what was looked for."""
    given = list(paths) or [Path(".")]
    runs_files = [file for path in given for file in _runs_files(path)]
    project = given[0] if is_dir(given[0]) else given[0].parent
    rubrics = _rubrics(rubric_refs, project)
    verdict_files = (
        [file for path in verdicts for file in _given_verdicts(path)]
        if verdicts
        else _found_verdicts(project, runs_files)
    )
    return ViewSources(
        runs_files=tuple(dict.fromkeys(runs_files)),
        rubrics=tuple(rubric for rubric, _ in rubrics),
        rubric_dirs={rubric.id: folder for rubric, folder in rubrics},
        labels_dir=labels_dir if labels_dir is not None else project / "labels",
        verdicts_files=tuple(dict.fromkeys(verdict_files)),
        tasks_path=tasks_path,
    )


def _runs_files(path: Path) -> list[Path]:
    if not is_dir(path) or is_file(path / RUNS_FILE):
        return [runs_file_of(path)]
    found = sorted(path.glob(f"*/{RUNS_FILE}"))
    if not found:
        raise ConfigError(
            f"{path}: no runs here: neither {path / 'runs.jsonl'} nor any */runs.jsonl one "
            "folder down; give a runs file or a run's folder"
        )
    return found


def _rubrics(refs: Sequence[str], project: Path) -> list[tuple[Rubric, Path]]:
    """The rubrics named (a file, an id in ``rubrics/``, or a folder of them), else the
    project's ``rubrics/`` folder, else none; each with the folder it was read from."""
    if not refs:
        folder = project / "rubrics"
        return [(rubric, folder) for rubric in load_rubrics(folder)] if is_dir(folder) else []
    rubrics: list[tuple[Rubric, Path]] = []
    for ref in refs:
        path = Path(ref)
        if is_dir(path):
            rubrics += [(rubric, path) for rubric in load_rubrics(path)]
        else:
            rubrics.append((load_rubric(ref), path.parent if is_file(path) else Path("rubrics")))
    return rubrics


def _found_verdicts(project: Path, runs_files: Sequence[Path]) -> list[Path]:
    beside = [file.parent / VERDICTS_FILE for file in runs_files]
    return [file for file in beside if is_file(file)] + _jsonl_files(project / "verdicts")


def _given_verdicts(path: Path) -> list[Path]:
    found = _jsonl_files(path)
    if not found:
        raise ConfigError(f"--verdicts {path}: neither a verdicts file nor a folder of them")
    return found


def _jsonl_files(path: Path) -> list[Path]:
    if is_dir(path):
        return sorted(path.glob("*.jsonl"))
    return [path] if is_file(path) else []
