"""A file holding the address of a server judgekit started, for scripts that wait for it
(``until test -s view.url; do sleep 0.1; done``): written whole once the server listens,
readable by its owner only (a view's address carries its token), removed when the server
stops — unless something else has replaced it meanwhile.

A path that already holds anything but such an address is refused before the server
starts, so a mistyped ``--url-file README.md`` cannot cost the README; one left by a
killed server is replaced.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from judgekit._util.atomic_files import atomic_writer
from judgekit.errors import DataError

__all__ = ["check_url_file", "written_url_file"]


def check_url_file(path: Path, line: re.Pattern[str], owner: str) -> None:
    """Refuse ``path`` unless it is missing or holds one ``line`` (a URL file ``owner``
    left behind)."""
    if not (path.exists() or path.is_symlink()):
        return
    if path.is_symlink() or not path.is_file() or not line.fullmatch(_read(path) or ""):
        raise DataError(
            f"already exists and is not {owner}'s URL file: give a new path for --url-file "
            "(it is written on start and removed on exit)",
            path=path,
        )


@contextmanager
def written_url_file(path: Path | None, url: str) -> Iterator[None]:
    """``url`` in ``path`` (nothing when None) for as long as the block runs."""
    if path is None:
        yield
        return
    written = url + "\n"
    with atomic_writer(path, private=True) as fh:
        fh.write(written)
    try:
        yield
    finally:
        if _read(path) == written:  # still ours: remove it
            path.unlink(missing_ok=True)


def _read(path: Path) -> str | None:
    try:
        with path.open(encoding="utf-8") as fh:
            return fh.read(200)  # a URL file is one short line
    except (OSError, UnicodeDecodeError):
        return None
