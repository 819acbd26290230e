"""How commands say what they recorded in the store, and what they had written when it failed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from judgekit.errors import StoreError

if TYPE_CHECKING:
    from judgekit.store.recording import Recorded


def recorded_line(count: int, what: str, recorded: Recorded) -> str:
    """``recorded 27 grades in the store sqlite:///… (batch 3)``."""
    return f"recorded {count} {what} in the store {recorded.url} (batch {recorded.batch_id})"


def store_json(recorded: Recorded | None) -> dict[str, Any] | None:
    """The ``"store"`` value of a ``--json`` report: null when nothing was recorded."""
    return None if recorded is None else recorded.as_json()


@contextmanager
def written_before_store(written: str, *, them: str = "them") -> Iterator[None]:
    """A store failure after the command's files were written: one line that says they were
    (``results written to …; the store could not record them: …``), so nobody reruns it."""
    try:
        yield
    except StoreError as exc:
        raise StoreError(f"{written}; the store could not record {them}: {one_line(exc)}") from exc


def one_line(exc: Exception) -> str:
    """The error's text on one line (a database driver's message may span several)."""
    return " ".join(str(exc).split())
