"""Streaming JSONL reading and crash-safe writing.

Readers yield one record at a time so a file of a million runs is never held in memory.
Writers replace a file atomically (write a temporary file beside it, fsync, then rename),
so a crash or an error leaves either the old file or the whole new one.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple, TypeVar

from pydantic import BaseModel, ValidationError

from judgekit._util.input_paths import read_error, reading
from judgekit.errors import DataError, OutputError

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

T = TypeVar("T")
M = TypeVar("M", bound=BaseModel)


def open_text(path: str | Path) -> IO[str]:
    """Open a text file for reading, transparently gunzipping ``*.gz``."""
    p = Path(path)
    with reading(p):
        if p.suffix == ".gz":
            return io.TextIOWrapper(gzip.open(p, "rb"), encoding="utf-8")
        return p.open(encoding="utf-8")


def iter_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for every non-blank line, numbered from 1."""
    with open_text(path) as fh:
        try:
            for number, text in enumerate(fh, start=1):
                if text.strip():
                    yield number, text
        except UnicodeDecodeError as exc:
            raise DataError(f"not UTF-8 text ({exc.reason})", path=path) from None
        except OSError as exc:
            raise read_error(exc, path) from None
        except EOFError as exc:  # a .gz file cut short
            raise DataError(f"cannot read: {exc}", path=path) from None


def iter_json_lines(path: str | Path) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for every JSON line; malformed JSON is a DataError."""
    for number, text in iter_lines(path):
        try:
            yield number, parse_json(text)
        except json.JSONDecodeError as exc:
            raise DataError(
                f"malformed JSON at column {exc.colno}: {exc.msg}", path=path, line=number
            ) from None


def parse_json(text: str | bytes) -> Any:
    """``json.loads``, where every text that cannot be read is a
    :class:`json.JSONDecodeError` with its position, so one ``except`` names the file and
    line. Besides malformed JSON that covers two texts json.loads fails on otherwise: a
    number of more digits than Python converts (``sys.get_int_max_str_digits()``, 4300 by
    default; a bare ValueError) and nesting deeper than the interpreter's recursion limit
    (a RecursionError). Bytes that are not UTF-8 still raise UnicodeDecodeError.

    >>> parse_json('{"a": [1, 2]}')
    {'a': [1, 2]}
    >>> parse_json("[" * 100_000)
    Traceback (most recent call last):
    json.decoder.JSONDecodeError: nested 100000 levels deep, too deep to read: line 1 column 100000 (char 99999)
    """
    try:
        return json.loads(text)
    except RecursionError:
        doc = _json_str(text)
        depth, position = _deepest(doc)
        problem = f"nested {depth} levels deep, too deep to read"
        raise json.JSONDecodeError(problem, doc, position) from None
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise
    except ValueError:
        doc = _json_str(text)
        limit = sys.get_int_max_str_digits()
        long_number = _long_number(doc, limit) if limit else None
        if long_number is None:
            raise
        digits, position = long_number
        problem = f"a number of {digits} digits, more than the {limit} that can be read"
        raise json.JSONDecodeError(problem, doc, position) from None


def _json_str(text: str | bytes) -> str:
    """The text json.loads read (it decodes bytes by their UTF-8, 16 or 32 encoding)."""
    if isinstance(text, str):
        return text
    return text.decode(json.detect_encoding(text), "surrogatepass")


_JSON_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


def _long_number(doc: str, limit: int) -> tuple[int, int] | None:
    """The digits and position of the first number longer than ``limit`` digits outside
    the strings of a JSON text, if any."""
    pattern = re.compile(rf'"(?:[^"\\]|\\.)*"|\d{{{limit + 1},}}')
    for token in pattern.finditer(doc):
        if token.group()[0] != '"':
            return len(token.group()), token.start()
    return None


def _deepest(doc: str) -> tuple[int, int]:
    """The deepest nesting of a JSON text, and where it is first reached (strings skipped)."""
    depth = deepest = where = 0
    for token in _JSON_BRACKETS.finditer(doc):
        bracket = token.group()
        if bracket in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, token.start()
        elif bracket in "]}":
            depth -= 1
    return deepest, where


def validation_error_to_data_error(
    exc: ValidationError, *, path: str | Path | None, line: int | None
) -> DataError:
    """The first problem of a pydantic error as one readable DataError."""
    first = exc.errors(include_url=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or None
    message = first["msg"]
    if first["type"] == "missing":
        message = "required field is missing"
    elif first["type"] == "extra_forbidden":
        message = "unknown field (check the spelling against `judgekit schema`)"
    elif first["type"] == "json_invalid":
        message = f"malformed JSON: {first.get('ctx', {}).get('error', message)}"
        field = None
    else:
        got = first.get("input")
        if got is not None and not isinstance(got, dict | list):
            message = f"{message} (got {got!r})"
    return DataError(message, path=path, line=line, field=field)


def iter_models(path: str | Path, model: type[M]) -> Iterator[tuple[int, M]]:
    """Yield ``(line_number, record)`` validated as ``model``, one line at a time."""
    for number, text in iter_lines(path):
        try:
            yield number, model.model_validate_json(text)
        except ValidationError as exc:
            raise validation_error_to_data_error(exc, path=path, line=number) from None


@contextmanager
def atomic_writer(path: str | Path) -> Iterator[IO[str]]:
    """Write a text file that appears whole or not at all.

    The content goes to a temporary file in the same folder, which is fsynced and then
    renamed over ``path``; if the block raises, the temporary file is removed and ``path``
    is left as it was (a folder created for it is removed again, when still empty). The
    file gets the permissions a plain ``open`` would give it. A folder that cannot be
    created or written is an :class:`OutputError` naming the file.
    """
    with _atomic_file(path, binary=False) as fh:
        yield fh


@contextmanager
def atomic_bytes_writer(path: str | Path) -> Iterator[IO[bytes]]:
    """:func:`atomic_writer` for a binary file (an image).

    Opening it first and writing at the end proves early that ``path`` can be written,
    before anything else of the command's output is.
    """
    with _atomic_file(path, binary=True) as fh:
        yield fh


def write_bytes_atomically(path: str | Path, data: bytes) -> None:
    """Write a binary file (an image) that appears whole or not at all."""
    with _atomic_file(path, binary=True) as fh:
        fh.write(data)


# Temporary files end with this, and name their writer's pid, so a folder's lock holder can
# tell those a killed process left from those another process is writing.
TEMPORARY_SUFFIX = ".judgekit-tmp"


class _Ready(NamedTuple):
    """A temporary file written whole and fsynced, waiting to be renamed over ``target``."""

    tmp_name: str
    target: Path
    created: list[Path]


class AtomicFiles:
    """The files of one :func:`atomic_files` block; open each with :meth:`text` or
    :meth:`binary` (it is a temporary file until the block ends)."""

    def __init__(self, stack: ExitStack, ready: list[_Ready]) -> None:
        self._stack = stack
        self._ready = ready

    def text(self, path: str | Path) -> IO[str]:
        """A text file of the set, opened now: a folder that cannot take it stops the
        command here, before anything is written."""
        fh: IO[str] = self._stack.enter_context(_atomic_file(path, binary=False, ready=self._ready))
        return fh

    def binary(self, path: str | Path) -> IO[bytes]:
        """A binary file (an image) of the set, opened now."""
        fh: IO[bytes] = self._stack.enter_context(
            _atomic_file(path, binary=True, ready=self._ready)
        )
        return fh


@contextmanager
def atomic_files() -> Iterator[AtomicFiles]:
    """Write several files that appear together or not at all.

    Every file is written to a temporary file, flushed and fsynced, and checked to have no
    folder in its place before any is renamed into place; an error before that (a full
    disk, a write refused, the block raising) removes every temporary file and leaves
    every target as it was::

        with atomic_files() as files:
            jsonl, csv = files.text("out/results.jsonl"), files.text("out/results.csv")
            ...

    The renames then follow one another, each atomic: a process killed between two of
    them (or a rename refused in between, which the checks make unlikely) leaves the
    files renamed so far new and the others old, the temporary files of the latter to be
    swept by the folder's next lock holder.
    """
    ready: list[_Ready] = []
    published: list[Path] = []
    try:
        with ExitStack() as stack:
            yield AtomicFiles(stack, ready)
        for entry in ready:
            _check_target(entry.target)
        for tmp_name, target, _ in ready:
            try:
                _publish(tmp_name, target)
            except OutputError as exc:
                if not published:
                    raise
                replaced = ", ".join(str(path) for path in published)
                raise OutputError(f"{exc} ({replaced} already written)") from None
            published.append(target)
    except BaseException:
        for tmp_name, _, created in ready:
            Path(tmp_name).unlink(missing_ok=True)
            remove_empty_folders(created)
        raise


def _check_target(target: Path) -> None:
    """A folder where the file should go is refused before any file of a set is renamed
    (a symbolic link, even a broken or looping one, is replaced like a file)."""
    if os.path.isdir(target) and not os.path.islink(target):
        raise OutputError(f"cannot write {target}: it is a folder")


@contextmanager
def _atomic_file(
    path: str | Path, *, binary: bool, ready: list[_Ready] | None = None
) -> Iterator[IO[Any]]:
    """A temporary file beside ``path``, renamed over it when the block ends, or (with
    ``ready``) left whole for :func:`atomic_files` to rename."""
    target = Path(path)
    created = make_folders(target.parent)
    try:
        fd, tmp_name = tempfile.mkstemp(
            prefix=f".{target.name}.{os.getpid()}.", suffix=TEMPORARY_SUFFIX, dir=target.parent
        )
    except OSError as exc:
        remove_empty_folders(created)
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None
    try:
        buffered = io.BufferedWriter(_TargetFile(fd, target))
        opened: IO[Any] = (
            buffered if binary else io.TextIOWrapper(buffered, encoding="utf-8", newline="")
        )
        with opened as fh:
            yield fh
            _finish(fh, target)
        if ready is None:
            _publish(tmp_name, target)
        else:
            ready.append(_Ready(tmp_name, target, created))
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        remove_empty_folders(created)
        raise


class _TargetFile(io.FileIO):
    """The temporary file of ``target``: a write that fails (a full disk, a file size
    limit) is an :class:`OutputError` naming ``target``, wherever in the command it
    happens."""

    def __init__(self, fd: int, target: Path) -> None:
        super().__init__(fd, "wb")
        self.target = target

    def write(self, data: ReadableBuffer, /) -> int:
        try:
            return super().write(data)
        except OSError as exc:
            raise OutputError(f"cannot write {self.target}: {_reason(exc)}") from None


def _finish(fh: IO[Any], target: Path) -> None:
    try:
        fh.flush()
        os.fsync(fh.fileno())
    except OSError as exc:  # a full disk shows here, when the buffered content is written
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None


def _publish(tmp_name: str, target: Path) -> None:
    # mkstemp creates the file readable by its owner only; a report meant to be shared
    # should get the usual 0666 minus the umask, as open() would give it.
    try:
        os.chmod(tmp_name, 0o666 & ~_umask())
        os.replace(tmp_name, target)
    except IsADirectoryError:
        raise OutputError(f"cannot write {target}: it is a folder") from None
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {_reason(exc)}") from None


def _reason(exc: OSError) -> str:
    return exc.strerror or str(exc)


def make_folders(folder: str | Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the folders created, innermost
    first (for :func:`remove_empty_folders`). A folder that cannot be created is an
    :class:`OutputError`."""
    folder = Path(folder)
    missing: list[Path] = []
    step = folder
    while not step.exists() and step.parent != step:
        missing.append(step)
        step = step.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        try:
            os.stat(folder)  # a symbolic link that loops, or leads nowhere, is there too
        except OSError as exc:
            raise OutputError(f"cannot create the folder {folder}: {_reason(exc)}") from None
        raise OutputError(f"cannot create the folder {folder}: a file has that name") from None
    except OSError as exc:
        raise OutputError(f"cannot create the folder {folder}: {_reason(exc)}") from None
    return missing


def remove_empty_folders(folders: list[Path]) -> None:
    """Remove ``folders`` (innermost first) that are still empty: what a failed command
    created and left nothing in."""
    for folder in folders:
        try:
            folder.rmdir()
        except OSError:
            return  # not empty (another process writes there too) or already gone


def remove_stale_temporaries(folder: str | Path) -> list[Path]:
    """Remove the temporary files that killed judgekit processes left in ``folder``: those
    whose writer (the pid in their name) no longer runs. Call it only holding the folder's
    lock (:mod:`judgekit._util.folder_lock`), so no writer can start meanwhile."""
    removed: list[Path] = []
    try:
        names = os.listdir(folder)
    except OSError:
        return removed
    for name in names:
        if not (name.startswith(".") and name.endswith(TEMPORARY_SUFFIX)):
            continue
        parts = name[: -len(TEMPORARY_SUFFIX)].split(".")
        if len(parts) < 4 or not parts[-2].isdigit() or process_is_running(int(parts[-2])):
            continue
        path = Path(folder) / name
        try:
            path.unlink()
        except OSError:
            continue
        removed.append(path)
    return removed


def process_is_running(pid: int) -> bool:
    """Whether a process of this id runs on this machine (a pid of another user's counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _umask() -> int:
    """The process's umask, read without changing it (os.umask would, for a moment, for
    every thread); 0o022 where /proc is not available."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    return 0o022


def copy_lines(source: str | Path, target: IO[str]) -> None:
    """Copy a text file's lines into an open file (one an :func:`atomic_writer` gave)."""
    with open_text(source) as src, reading(source):
        for line in src:
            target.write(line)
