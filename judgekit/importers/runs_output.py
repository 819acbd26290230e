"""Imported runs written out as runs.jsonl lines, counted for the one-line report, and the
warnings about run ids an import had to make unique."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import IO, Any

from judgekit._util.atomic_files import atomic_writer
from judgekit.errors import DataError
from judgekit.formats.run import Run, run_json
from judgekit.importers.unique_ids import UniqueRunIds

__all__ = ["RENAMED_SHOWN", "ImportTally", "renamed_warnings", "write_runs"]

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


def write_suite_file(suite: Mapping[str, Any], path: Path) -> None:
    """An imported suite, written whole (atomically) as the YAML ``judgekit grade --tasks``
    reads."""
    import yaml

    with atomic_writer(path) as fh:
        yaml.safe_dump(dict(suite), fh, sort_keys=False, allow_unicode=True, width=100)


def renamed_warnings(source: Path, run_ids: UniqueRunIds) -> list[str]:
    """One warning per run id the import had to make unique (at most RENAMED_SHOWN)."""
    renamed = list(run_ids.renamed.items())
    warnings = []
    for original, new_ids in renamed[:RENAMED_SHOWN]:
        shown = ", ".join(repr(new_id) for new_id in new_ids)
        warnings.append(
            f"{source}: run id {original!r} appears {len(new_ids) + 1} times; the later runs "
            f"are {shown} (each run id must appear once)"
        )
    if len(renamed) > RENAMED_SHOWN:
        warnings.append(
            f"{source}: {len(renamed) - RENAMED_SHOWN} more run ids appear several times, "
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
