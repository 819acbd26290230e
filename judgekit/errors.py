"""judgekit's exception tree.

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

The CLI catches ``JudgekitError`` only, so a bug still shows its traceback.
"""

from __future__ import annotations

from pathlib import Path

from judgekit._util.redaction import redact


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
    ) -> None:
        self.retryable = retryable
        self.retry_after_s = retry_after_s
        self.unreachable = unreachable
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
