"""The command group and the one place where user-facing errors become exit code 2."""

from __future__ import annotations

import sys
from typing import Any

import click

from judgekit import __version__
from judgekit._util.input_paths import named_path_errors
from judgekit._util.redaction import redact
from judgekit.cli.command_table import COMMANDS
from judgekit.cli.lazy_group import LazyGroup
from judgekit.errors import JudgekitError

EXIT_BAD_INPUT = 2


class JudgekitGroup(LazyGroup):
    """Prints a JudgekitError as one line and exits 2; a bug keeps its traceback.

    The message may quote data (a run id, a field's value): it is shown visibly, on one
    line, so it can neither drive the terminal nor forge a second line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            # A file the system refused where no reader said so is still one line.
            with named_path_errors():
                return super().invoke(ctx)
        except JudgekitError as exc:
            from judgekit._util.terminal_text import visible  # rich: loaded for errors only

            click.echo(f"judgekit: error: {visible(redact(str(exc)), one_line=True)}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except click.exceptions.NoArgsIsHelpError:
            raise  # not an error: click shows the help
        except click.UsageError as exc:
            # A bad option (a file where a folder is expected, an unknown command) is one
            # line too, with where to look, instead of click's usage block.
            from judgekit._util.terminal_text import visible

            message = visible(exc.format_message(), one_line=True)
            click.echo(f"judgekit: error: {message} (see {_help_command(exc.ctx)})", err=True)
            sys.exit(exc.exit_code)


def _help_command(ctx: click.Context | None) -> str:
    """``judgekit grade --help``: the command's own help, named as it is typed."""
    names = []
    while ctx is not None and ctx.parent is not None:
        names.append(ctx.info_name or "")
        ctx = ctx.parent
    return " ".join(["judgekit", *reversed(names), "--help"])


@click.group(
    cls=JudgekitGroup,
    lazy_commands=COMMANDS,  # each command's module is imported when the command is used
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.version_option(__version__, prog_name="judgekit")
def main() -> None:
    """judgekit: numbers you can trust about whether your AI agent works.

    The flow: import transcripts or run trials, grade, judge, label, calibrate, promote,
    then monitor, report and gate. `judgekit demo` shows all of it offline, with no key.
    Exit codes: 0 success; 1 a gate, promotion or alert said no; 2 bad input.

    \b
    Example:
      judgekit demo
      judgekit import openai transcripts.jsonl -o runs.jsonl
      judgekit grade runs.jsonl --tasks tasks/shop.yaml --out results/
      judgekit gate --baseline latest:main --candidate results/
    """
