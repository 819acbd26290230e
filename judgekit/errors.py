"""judgekit's exception tree, and the tables that map third-party errors into it.

::

    JudgekitError                 anything judgekit reports to a user (the CLI prints one line, exit 2)
    ├── DataError                 a file's content is wrong: carries path, line and field
    ├── ConfigError               a setting or option is wrong (not tied to a file line)
    │   └── SpecError             a matcher, rubric or reference spec is wrong; also a ValueError
    │       ├── MatcherSpecError      a task's matcher (formats/matchers)
    │       ├── RubricSpecError       a rubric's field (formats/rubric.py)
    │       └── UnresolvedReference   a module:name that cannot be imported (_util/references.py)
    ├── ProviderError             a model provider failed (retryable or not)
    ├── JudgeOutputError          a judge answered something that is not a valid verdict
    ├── CalibrationError          calibration cannot be computed from what was given
    ├── StoreError                the store could not be read or written
    └── OutputError               an output file or folder cannot be written
        └── FolderInUseError      another judgekit process is writing the same output folder

Errors defined beside the code that raises them subclass one of these (the three spec
errors above; judging's ``JudgingStopped`` is a ``ProviderError``).

The CLI catches ``JudgekitError`` only, so a bug still shows its traceback. So an error of a
library judgekit calls is mapped into the tree where judgekit calls it, at one boundary per
library, through a table (an :data:`ErrorTable`, read by :func:`map_exceptions`, as httpx
maps httpcore's errors): the table's row for the nearest class of the error makes the
judgekit error, and an error no row names passes through unchanged, a bug.

========================================  ========================================  ==============
third-party error                         mapped at: its table                      judgekit error
========================================  ========================================  ==============
openai's ``OpenAIError`` tree             providers/openai_errors.py:               ProviderError
                                          ``openai_failures``
anthropic's ``AnthropicError`` tree       providers/anthropic_errors.py:            ProviderError
                                          ``anthropic_failures``
``json.JSONDecodeError``, ``OSError``     providers/failures.py:                    ProviderError
(a timeout, a refused connection)         ``TRANSPORT_FAILURES``
SQLAlchemy's ``SQLAlchemyError``, an      store/engine.py: ``STORE_ERRORS``,        StoreError
``OSError`` on the database's file,       ``ENGINE_ERRORS``,
a database driver not installed           ``DATABASE_FILE_ERRORS``
SQLAlchemy's ``ArgumentError`` for a      store/database.py: by hand                StoreError
database URL it cannot parse
PyYAML's ``YAMLError``; a YAML file       _util/yamlfile.py:                        DataError
absent, a folder, not UTF-8               ``YAML_FILE_ERRORS``
PyYAML's ``ConstructorError``, a value    _util/yamlcompose.py:                     DataError
its tag cannot read                       ``SCALAR_ERRORS``, ``DOCUMENT_ERRORS``
``json.JSONDecodeError``, pydantic's      _util/jsonl.py: ``LINE_ERRORS``           DataError
``ValidationError`` in a line
``OSError``, ``UnicodeDecodeError``,      _util/jsonl.py:                           DataError
``EOFError`` reading a lines file         ``LINES_FILE_ERRORS``
``OSError`` reading a file or folder      _util/input_paths.py:                     DataError
                                          ``READ_ERRORS``, ``PATH_ERRORS``
``OSError`` writing an output file        _util/atomic_files.py: by hand            OutputError
(opening a device, a FIFO, a descriptor)  _util/output_targets.py: by hand
========================================  ========================================  ==============
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from judgekit._util.redaction import redact

C = TypeVar("C")
R = TypeVar("R")


class JudgekitError(Exception):
    """Base class of every error judgekit reports to a user."""


class DataError(JudgekitError):
    """A file's content is malformed.

    The message reads ``FILE:LINE: FIELD: what is wrong``; every part but the message is
    optional, so an error about a whole file still names the file.
    """

    def __init__(
        self,
        message: str,
        *,
        path: str | Path | None = None,
        line: int | None = None,
        field: str | None = None,
    ) -> None:
        self.message = message
        self.path = str(path) if path is not None else None
        self.line = line
        self.field = field
        super().__init__(self._render())

    def _render(self) -> str:
        where = ""
        if self.path is not None:
            where = self.path if self.line is None else f"{self.path}:{self.line}"
        parts = [p for p in (where, self.field) if p]
        return ": ".join([*parts, self.message])


class ConfigError(JudgekitError):
    """An option, setting or reference (module:function, provider name) is wrong."""


class SpecError(ConfigError, ValueError):
    """A matcher, rubric or reference spec is wrong.

    Also a ``ValueError``: specs are checked inside pydantic validators, which turn a
    ``ValueError`` into a field error of the file being loaded.
    """


class ProviderError(JudgekitError):
    """A model provider failed; ``retryable`` says whether trying again may help.

    ``retry_after_s`` is how long the provider asked us to wait (its ``Retry-After``), if it said.
    ``rate_limited`` marks a refusal for the rate (HTTP 429, not an exhausted quota), and
    ``rate_headers`` keeps the failure's rate-limit headers, which pace the requests after it.
    ``unreachable`` marks a failure to reach the server at all (refused, DNS, no route), which
    at the first request means the endpoint is wrong rather than busy. The message never
    holds an API key, even one the server echoed: it is redacted here, once, for every path
    an error takes to the console, a file or the store.
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        retry_after_s: float | None = None,
        unreachable: bool = False,
        rate_limited: bool = False,
        rate_headers: Mapping[str, str] | None = None,
    ) -> None:
        self.retryable = retryable
        self.retry_after_s = retry_after_s
        self.unreachable = unreachable
        self.rate_limited = rate_limited
        self.rate_headers = dict(rate_headers or {})
        super().__init__(redact(message))


class JudgeOutputError(JudgekitError):
    """A judge's answer is not a valid verdict for its rubric."""


class CalibrationError(JudgekitError):
    """Calibration cannot be computed from the verdicts and labels given."""


class StoreError(JudgekitError):
    """The store could not be read or written."""


class OutputError(JudgekitError):
    """An output file or folder cannot be created or written (a read-only folder, a file
    where a folder should be, a full disk)."""


class FolderInUseError(OutputError):
    """Another judgekit process holds the lock of the output folder; ``pid`` is its process
    id, or None when it could not be read."""

    def __init__(self, folder: str | Path, pid: int | None) -> None:
        self.folder = str(folder)
        self.pid = pid
        holder = f"pid {pid}" if pid is not None else "pid unknown"
        super().__init__(f"{folder} is in use by another judgekit process ({holder})")


ErrorTable = Mapping[type[BaseException], Callable[[Any, C], JudgekitError | None]]
"""A boundary's table: a third-party exception class, and the function that makes the
judgekit error of one of its exceptions and the boundary's context (a path, a URL); a row
may answer None to let that exception through unchanged."""


def table_row(table: Mapping[type[BaseException], R], exc: BaseException) -> R | None:
    """The row of ``table`` for the nearest class of ``exc`` (itself, then its bases in
    method resolution order), so a subclass's row wins over its base's.

    >>> table_row({OSError: "read", FileNotFoundError: "absent"}, FileNotFoundError())
    'absent'
    >>> table_row({OSError: "read"}, ValueError()) is None
    True
    """
    for cls in type(exc).__mro__:
        if cls in table:
            return table[cls]
    return None


def map_exception(exc: BaseException, table: ErrorTable[C], context: C) -> JudgekitError | None:
    """The judgekit error ``table`` makes of ``exc`` at ``context``; None when no row
    names it (or its row lets it through)."""
    make = table_row(table, exc)
    return make(exc, context) if make is not None else None


class _ExceptionMapping:
    """:func:`map_exceptions`'s context manager (a class: entered once per line read)."""

    __slots__ = ("chain", "context", "table")

    def __init__(self, table: ErrorTable[Any], context: object, chain: bool) -> None:
        self.table = table
        self.context = context
        self.chain = chain

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if exc is None or not isinstance(exc, Exception):
            return
        error = map_exception(exc, self.table, self.context)
        if error is None:
            return
        if self.chain:
            raise error from exc
        raise error from None


def map_exceptions(
    table: ErrorTable[C], context: C, *, chain: bool = False
) -> AbstractContextManager[None]:
    """A block whose exceptions ``table`` names are raised as the judgekit errors it makes.

    The judgekit error says all there is to say, so the original is dropped from the
    traceback, unless ``chain`` keeps it as the cause.

    >>> table: ErrorTable[str] = {KeyError: lambda exc, where: ConfigError(f"{where}: no {exc}")}
    >>> with map_exceptions(table, "settings"):
    ...     {}["colour"]
    Traceback (most recent call last):
    judgekit.errors.ConfigError: settings: no 'colour'
    """
    return _ExceptionMapping(table, context, chain)
