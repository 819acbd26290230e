"""How commands say what they recorded in the store, and what they had written when it failed."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC
from typing import TYPE_CHECKING, Any

from judgekit._util.number_format import DASH
from judgekit._util.terminal_text import visible
from judgekit.errors import StoreError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from judgekit.formats.record_files import RecordKind
    from judgekit.store import Batch
    from judgekit.store.record_files import Recorded
    from judgekit.store.shard_status import ShardStatus


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


def batch_line(batch: Batch | None) -> str:
    """``3 (2026-11-30 09:00:00 UTC, source grade, branch main, git 0123456789ab)``."""
    if batch is None:
        return "none"
    when = batch.created_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    sha = batch.git_sha[:12] if batch.git_sha else DASH
    return (
        f"{batch.id} ({when}, source {batch.source or DASH}, branch {batch.branch or DASH}, "
        f"git {sha})"
    )


def info_lines(
    url: str, counts: Mapping[str, int], latest: Batch | None, shards: ShardStatus | None
) -> list[str]:
    """``judgekit store info``: the URL, each table's rows, the latest batch and, under it,
    its shards when the shards of one run share it."""
    width = max(len(name) for name in [*counts, "latest batch"]) + 2
    lines = [f"{'store':<{width}}{url}"]
    lines += [f"{name:<{width}}{count}" for name, count in counts.items()]
    lines.append(f"{'latest batch':<{width}}{batch_line(latest)}")
    if shards is not None:  # the group is whatever the engine or the user named it
        lines.append(" " * width + visible(shards.describe(), one_line=True))
    return lines


def info_json(
    url: str, counts: Mapping[str, int], latest: Batch | None, shards: ShardStatus | None
) -> dict[str, Any]:
    """``judgekit store info --json``: ``latest_batch.shards`` is null for a batch no shards
    share."""
    batch = None
    if latest is not None:
        batch = latest.as_dict() | {"shards": None if shards is None else shards.as_json()}
    return {"url": url, "tables": dict(counts), "latest_batch": batch}


def recorded_counts(recorded: Recorded, kind: RecordKind) -> str:
    """What an import recorded, in the words of its kind of file: ``12 runs and 12 grades``."""
    if kind == "results":
        return f"{recorded.grades} grades"
    if kind == "verdicts":
        return f"{recorded.verdicts} verdicts"
    if recorded.grades:
        return f"{recorded.runs} runs and {recorded.grades} grades"
    return f"{recorded.runs} runs"
