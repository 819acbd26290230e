"""The interface every importer implements: :class:`Importer` and :class:`ImportOptions`.

See :mod:`judgekit.importers.registry` for the table of importers and format sniffing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from judgekit.formats.run import Run
from judgekit.importers.span_graph import DroppedDuplicates
from judgekit.importers.unique_ids import UniqueRunIds

__all__ = ["DEFAULT_ERROR_PATTERN", "ImportOptions", "Importer"]

# Chat-style tool results carry no error flag; τ-bench's tools answer a refusal with a text
# starting "Error" (see judgekit.importers.openai_chat).
DEFAULT_ERROR_PATTERN = r"^\s*Error\b"


@dataclass(frozen=True)
class ImportOptions:
    """What every import may be told; an importer ignores what its format does not need.

    ``task_id``: for runs that name none (default: the file's stem). ``error_pattern``: a
    regex marking a tool result text as an error, for formats with no error flag (None: mark
    none). ``run_ids``: makes run ids unique across the import and remembers what it renamed
    — every ``read`` passes its runs through ``options.run_ids.apply``. ``duplicates``: counts
    the identical copies of a span a trace importer dropped. ``group_by``: what one run is,
    for formats that can say (``trace``, or ``session``: the traces of one conversation,
    session or thread, for the importers whose ``groups`` name it; ``thread`` is the same).
    """

    task_id: str | None = None
    error_pattern: str | None = DEFAULT_ERROR_PATTERN
    run_ids: UniqueRunIds = field(default_factory=UniqueRunIds)
    duplicates: DroppedDuplicates = field(default_factory=DroppedDuplicates)
    group_by: str = "trace"

    @property
    def by_session(self) -> bool:
        """Whether one run is a whole conversation: the traces of one session."""
        return self.group_by in ("session", "thread")


@dataclass(frozen=True)
class Importer:
    """One source of runs.

    ``looks_like`` is given the parsed head of a file (its first JSON value, or its first line
    when it is JSONL) and says whether the file is this format; it must not raise on any JSON
    value. ``read`` streams the runs of a file, raising a DataError naming file, line and
    field on bad input, its run ids made unique through ``options.run_ids``.
    """

    name: str
    what: str
    looks_like: Callable[[object], bool]
    read: Callable[[Path, ImportOptions], Iterator[Run]]
    # For `judgekit import NAME --help`: which files it reads and how they become runs.
    details: str = ""
    # True when the format flags no failed tool call, so `--error-pattern` is offered.
    guesses_errors: bool = False
    # Endings of this format's files that are not JSON (so never sniffed): a folder given
    # to the import reads its files ending so, beside those whose head ``looks_like`` it.
    binary_suffixes: tuple[str, ...] = ()
    # What else than a trace one run may be (``--group-by``): ``("session",)``.
    groups: tuple[str, ...] = ()
