"""One import of several files, or of folders of them, into one runs file.

``judgekit import NAME PATH...`` reads each path in turn; a folder stands for its files of
that importer's kind, in name order: the files whose first JSON value looks like that
source's (the format sniffing of :mod:`judgekit.importers.registry`), or whose name ends in
one of the importer's ``binary_suffixes`` (an Inspect ``.eval`` zip). Its subfolders and
hidden files are not read; the files of other kinds are counted and named. Run ids are made
unique across all the files (one :class:`UniqueRunIds`), and everything is checked before
the output is written: a file of another source's kind, a file named twice, an output that
is one of the inputs, a folder holding no file of the kind.

::

    done = import_files(IMPORTERS["inspect"], [Path("logs")], Path("runs.jsonl"))
    for one in done.files:
        print(one.path, one.tally.runs)
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from judgekit._util.output_targets import refuse_output_over_input
from judgekit.errors import DataError
from judgekit.formats.run import Run
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.registry import sniff, wrong_kind_error
from judgekit.importers.runs_output import ImportTally, write_files_to
from judgekit.importers.unique_ids import UniqueRunIds

__all__ = ["FileImport", "FilesImport", "files_to_import", "import_files"]


@dataclass
class FileImport:
    """What one file gave: its counts, the duplicates dropped, the run ids renamed (original
    id → the new ids given to this file's runs)."""

    path: Path
    tally: ImportTally = field(default_factory=ImportTally)
    dropped: list[str] = field(default_factory=list)
    renamed: dict[str, list[str]] = field(default_factory=dict)


@dataclass
class FilesImport:
    """The files read, in order, and per folder the names of the files of other kinds."""

    files: list[FileImport]
    skipped: dict[Path, list[str]]


def files_to_import(
    importer: Importer, paths: Sequence[Path]
) -> tuple[list[Path], dict[Path, list[str]]]:
    """The files an import reads (each folder replaced by its files of the importer's
    kind), and per folder the names of the files it holds of other kinds."""
    files: list[Path] = []
    skipped: dict[Path, list[str]] = {}
    for path in paths:
        if not path.is_dir():
            files.append(path)
            continue
        kind, other = _folder_files(importer, path)
        if not kind:
            raise DataError(
                f"this folder holds no file for `judgekit import {importer.name}` "
                f"({_files(len(other))} of other kinds)",
                path=path,
            )
        files += kind
        if other:
            skipped[path] = other
    _refuse_repeats(files)
    return files, skipped


def import_files(
    importer: Importer,
    paths: Sequence[Path],
    output: Path | None,
    *,
    task_id: str | None = None,
    error_pattern: str | None = None,
    group_by: str = "trace",
) -> FilesImport:
    """Import every file of ``paths`` with ``importer`` into ``output`` (standard output when
    None), written whole once all are read; a :class:`DataError` before anything is written
    when one of them is refused (see the module's documentation)."""
    files, skipped = files_to_import(importer, paths)
    refuse_output_over_input([output], files)
    for path in paths:
        if not path.is_dir():
            refused = wrong_kind_error(path, importer.name)
            if refused is not None:
                raise refused
    run_ids = UniqueRunIds()
    done = [FileImport(path) for path in files]

    def read(one: FileImport) -> Iterator[Run]:
        options = ImportOptions(
            task_id=task_id, error_pattern=error_pattern, run_ids=run_ids, group_by=group_by
        )
        before = {original: len(new) for original, new in run_ids.renamed.items()}
        yield from one.tally.count(importer.read(one.path, options))
        one.dropped = options.duplicates.lines()
        for original, new in run_ids.renamed.items():
            if len(new) > before.get(original, 0):
                one.renamed[original] = new[before.get(original, 0) :]

    write_files_to([(one.path, partial(read, one)) for one in done], output)
    return FilesImport(done, skipped)


def _folder_files(importer: Importer, folder: Path) -> tuple[list[Path], list[str]]:
    kind: list[Path] = []
    other: list[str] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError as exc:
        raise DataError(f"cannot read this folder: {exc.strerror or exc}", path=folder) from None
    for entry in entries:
        if entry.name.startswith(".") or not entry.is_file():
            continue
        path = folder / entry.name
        if entry.name.endswith(importer.binary_suffixes) or sniff(path) == importer.name:
            kind.append(path)
        else:
            other.append(entry.name)
    return kind, other


def _refuse_repeats(files: list[Path]) -> None:
    seen: dict[tuple[int, int], Path] = {}
    for path in files:
        try:
            found = os.stat(path)
        except OSError:
            continue  # the reader names what is wrong with it
        first = seen.setdefault((found.st_dev, found.st_ino), path)
        if first is not path:
            raise DataError(f"this file is named twice (also as {first}); read it once", path=path)


def _files(count: int) -> str:
    return f"{count} file" if count == 1 else f"{count} files"
