"""A subprocess agent's working copy: copied fresh, guarded, and handed the hidden graders.

Every trial works on its own copy of the task's folder, so no trial sees what another left
behind. Protected files are hashed before and after the agent runs, and the hidden grader
files are copied in only once the agent has exited.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from judgekit._util.input_paths import open_regular

Digests = dict[str, str]  # path relative to the workdir (POSIX form) -> sha256


def copy_workdir(source: Path, target: Path, *, leave_out: Collection[Path] = ()) -> None:
    """Copy ``source`` to ``target`` (which must not exist), leaving out ``leave_out``.

    A hidden grader file stored inside the task's folder is left out, so the agent cannot
    read it. Symlinks are copied as the files they point to: a link to the original task
    folder would let one trial change what the next one starts from.
    """
    excluded = {path.resolve() for path in leave_out}
    ignore: Callable[[str, list[str]], set[str]] | None = None
    if excluded:

        def ignore(folder: str, names: list[str]) -> set[str]:
            return {name for name in names if (Path(folder) / name).resolve() in excluded}

    shutil.copytree(source, target, ignore=ignore)


def digest_protected(workdir: Path, patterns: Iterable[str]) -> Digests:
    """The sha256 of every file in ``workdir`` matching one of the glob ``patterns``."""
    digests: Digests = {}
    for pattern in patterns:
        for path in workdir.glob(pattern):
            name = path.relative_to(workdir).as_posix()
            if name not in digests and path.is_file():
                digests[name] = _sha256(path)
    return digests


def protected_violations(workdir: Path, before: Digests) -> list[str]:
    """One violation per protected file the agent changed or deleted, in path order.

    Files that appeared since are fine: adding tests is often what a task asks for.
    """
    violations = []
    for name, digest in sorted(before.items()):
        path = workdir / name
        if not path.exists() and not path.is_symlink():
            violations.append(f"deleted protected file {name}")
        elif not path.is_file() or _sha256_or_none(path) != digest:
            violations.append(f"edited protected file {name}")
    return violations


def place_hidden(workdir: Path, files: Iterable[Path]) -> None:
    """Copy each hidden file into ``workdir`` under its own name.

    Whatever the agent left at that name is replaced: the grader must be the task's, never
    a version the agent planted. Raises OSError when the agent left the workdir unwritable.
    """
    for source in files:
        target = workdir / source.name
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
        shutil.copyfile(source, target)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open_regular(path) as fh:  # an agent may leave a FIFO in the file's place
        for block in iter(lambda: fh.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def _sha256_or_none(path: Path) -> str | None:
    # A file the agent made unreadable counts as edited, not as a crash of the harness.
    try:
        return _sha256(path)
    except OSError:
        return None
