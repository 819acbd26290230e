"""Command templates such as ``python agent.py {workdir} {prompt}``.

The template is split into arguments *before* the placeholders are filled in, so a prompt
with spaces, quotes or ``; rm -rf ~`` stays one argument and never reaches a shell.
"""

from __future__ import annotations

import shlex
import shutil
import string
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from judgekit.errors import ConfigError

PLACEHOLDERS = ("workdir", "prompt", "task_id", "trial", "python")
_SAMPLE = {name: "x" for name in PLACEHOLDERS}


@dataclass(frozen=True)
class CommandTemplate:
    """A command split into argument templates, each filled in on its own."""

    tokens: tuple[str, ...]

    @classmethod
    def parse(cls, template: str, *, what: str) -> CommandTemplate:
        """Split and check ``template``; :class:`ConfigError` (naming ``what``) if malformed.

        >>> CommandTemplate.parse("agent {prompt}", what="agent command").render(
        ...     {"prompt": "it's done", "workdir": "", "task_id": "", "trial": "", "python": ""})
        ['agent', "it's done"]
        """
        try:
            tokens = tuple(shlex.split(template))
        except ValueError as exc:
            raise ConfigError(f"{what} {template!r}: {exc}") from None
        if not tokens:
            raise ConfigError(f"{what} is empty")
        for token in tokens:
            _check_token(token, what=what, template=template)
        return cls(tokens)

    def render(self, values: Mapping[str, str]) -> list[str]:
        """The arguments with ``values`` filled in; each token stays one argument."""
        return [token.format_map(values) for token in self.tokens]

    def anchored(self, base: Path) -> CommandTemplate:
        """This template with every literal argument naming an existing file under ``base``
        made absolute.

        The agent runs inside its workdir copy, yet ``python agent.py {workdir} {prompt}``
        typed in a project means that project's ``agent.py``.
        """
        anchored = []
        for token in self.tokens:
            if "{" not in token and not Path(token).is_absolute() and (base / token).is_file():
                token = str((base / token).resolve())
            anchored.append(token)
        return CommandTemplate(tuple(anchored))

    def require_program(self, *, what: str) -> None:
        """Fail now, not in every trial, when the program is a bare name not on PATH."""
        program = self.tokens[0]
        if "{" in program or "/" in program:
            return  # a path (possibly inside the workdir copy): checked when it runs
        if shutil.which(program) is None:
            raise ConfigError(f"{what}: program {program!r} is not on PATH")


def _check_token(token: str, *, what: str, template: str) -> None:
    valid = ", ".join("{" + name + "}" for name in PLACEHOLDERS)
    try:
        fields = [field for _, field, _, _ in string.Formatter().parse(token) if field is not None]
    except ValueError as exc:
        raise ConfigError(
            f"{what} {template!r}: {exc} (write {{{{ and }}}} for literal braces)"
        ) from None
    for field in fields:
        if field not in PLACEHOLDERS:
            raise ConfigError(
                f"{what} {template!r}: unknown placeholder {{{field}}}; valid placeholders "
                f"are {valid}"
            )
    try:
        token.format_map(_SAMPLE)  # a format spec a string cannot take, such as {trial:03d}
    except ValueError as exc:
        raise ConfigError(f"{what} {template!r}: {exc}") from None
