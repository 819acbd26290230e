"""Imported runs written out as runs.jsonl lines, counted for the one-line report, and the
warnings about run ids an import had to make unique."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from judgekit._util.atomic_files import atomic_writer
from judgekit.errors import DataError
from judgekit.formats.run import Run, run_json
from judgekit.importers.unique_ids import UniqueRunIds

__all__ = [
    "RENAMED_SHOWN",
    "ImportTally",
    "renamed_in_file_warnings",
    "renamed_warnings",
    "write_files_to",
    "write_runs",
    "write_runs_to",
    "write_suite_file",
]

# Past this many repeated ids, the rest are summed up in one line.
RENAMED_SHOWN = 10


class ImportTally:
    """Counts what passes through, for the one-line report at the end."""

    def __init__(self) -> None:
        self.runs = 0
        self.calls = 0
        self.invalid_arguments = 0
        self.tool_errors = 0

    def count(self, runs: Iterable[Run]) -> Iterator[Run]:
        for run in runs:
            self.runs += 1
            self.calls += len(run.tool_calls)
            self.invalid_arguments += sum(c.arguments_error is not None for c in run.tool_calls)
            self.tool_errors += sum(c.error is not None for c in run.tool_calls)
            yield run

    def add(self, other: ImportTally) -> None:
        """Count ``other``'s runs too (the total of an import of several files)."""
        self.runs += other.runs
        self.calls += other.calls
        self.invalid_arguments += other.invalid_arguments
        self.tool_errors += other.tool_errors

    def line(self) -> str:
        return (
            f"imported {self.runs} runs with {self.calls} tool calls "
            f"({self.tool_errors} tool errors, {self.invalid_arguments} with invalid arguments)"
        )


def write_runs(runs: Iterable[Run], out: IO[str], *, source: Path) -> ImportTally:
    """Write each run of ``source`` as a JSONL line to ``out``, as it is converted; none at
    all is a :class:`DataError` (every command refuses a runs file without runs)."""
    tally = ImportTally()
    for run in _refuse_none(tally.count(runs), source):
        out.write(_run_line(run, source))
    return tally


def write_runs_to(runs: Iterable[Run], output: Path | None, *, source: Path) -> ImportTally:
    """Write the runs to ``output`` whole (atomically), or to standard output when None."""
    if output is None:
        return write_runs(runs, sys.stdout, source=source)
    with atomic_writer(output) as fh:
        return write_runs(runs, fh, source=source)


def write_files_to(
    readings: Sequence[tuple[Path, Callable[[], Iterable[Run]]]], output: Path | None
) -> list[ImportTally]:
    """The runs of several files, one file after the other, into one ``output`` written
    whole (atomically), or to standard output when None. Each file is read only when its
    turn comes (``readings`` gives its runs when called), and one without runs is refused."""
    if output is None:
        return [write_runs(runs(), sys.stdout, source=path) for path, runs in readings]
    with atomic_writer(output) as fh:
        return [write_runs(runs(), fh, source=path) for path, runs in readings]


def write_suite_file(suite: Mapping[str, Any], path: Path) -> None:
    """An imported suite, written whole (atomically) as the YAML ``judgekit grade --tasks``
    reads."""
    import yaml

    with atomic_writer(path) as fh:
        yaml.safe_dump(dict(suite), fh, sort_keys=False, allow_unicode=True, width=100)


def renamed_warnings(source: Path, run_ids: UniqueRunIds | Mapping[str, list[str]]) -> list[str]:
    """One warning per run id the import of one file had to make unique (at most
    RENAMED_SHOWN); ``run_ids`` its :class:`UniqueRunIds`, or what they renamed."""
    renamed = run_ids.renamed if isinstance(run_ids, UniqueRunIds) else run_ids
    return _capped(
        source,
        [
            f"{source}: run id {original!r} appears {len(new_ids) + 1} times; the later runs "
            f"are {_shown(new_ids)} (each run id must appear once)"
            for original, new_ids in renamed.items()
        ],
    )


def renamed_in_file_warnings(source: Path, renamed: Mapping[str, list[str]]) -> list[str]:
    """One warning per run id of ``source`` renamed in an import of several files (original
    → the new ids of this file's runs), at most RENAMED_SHOWN."""
    return _capped(
        source,
        [
            f"{source}: run id {original!r} is taken by an earlier run of this import; "
            f"renamed {_shown(new_ids)} (each run id must appear once)"
            for original, new_ids in renamed.items()
        ],
    )


def _shown(new_ids: list[str]) -> str:
    return ", ".join(repr(new_id) for new_id in new_ids)


def _capped(source: Path, lines: list[str]) -> list[str]:
    warnings = lines[:RENAMED_SHOWN]
    if len(lines) > RENAMED_SHOWN:
        warnings.append(
            f"{source}: {len(lines) - RENAMED_SHOWN} more run ids appear several times, "
            "renamed the same way (#2, #3, ...)"
        )
    return warnings


def _run_line(run: Run, source: Path) -> str:
    """The run's JSONL line; one no reader could take back is refused, naming the source."""
    try:
        return run_json(run, exclude_defaults=True) + "\n"
    except DataError as exc:
        raise DataError(exc.message, path=source) from None


def _refuse_none(runs: Iterable[Run], source: Path) -> Iterator[Run]:
    """The runs; none at all is an error raised before the output file appears."""
    empty = True
    for run in runs:
        empty = False
        yield run
    if empty:
        raise DataError("no conversations in this file: no runs to import", path=source)
