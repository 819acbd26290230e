"""The command group and the one place where user-facing errors become exit code 2."""

from __future__ import annotations

import sys
from typing import Any

import click

from judgekit import __version__
from judgekit._util.input_paths import named_path_errors
from judgekit._util.redaction import redact
from judgekit._util.terminal_text import visible
from judgekit.cli.align_cmd import align_command
from judgekit.cli.calibrate_cmd import calibrate_command
from judgekit.cli.demo_cmd import demo_command
from judgekit.cli.export_cmd import export_group
from judgekit.cli.gate_cmd import gate_command
from judgekit.cli.grade_cmd import grade_command
from judgekit.cli.import_cmd import import_group
from judgekit.cli.init_cmd import init_command
from judgekit.cli.judge_cmd import judge_command
from judgekit.cli.label_cmd import label_command
from judgekit.cli.labels_cmd import labels_command
from judgekit.cli.monitor_cmd import monitor_command
from judgekit.cli.probe_cmd import probe_command
from judgekit.cli.promote_cmd import promote_command
from judgekit.cli.recheck_cmd import recheck_command
from judgekit.cli.report_cmd import report_command
from judgekit.cli.rubrics_cmd import rubrics_command
from judgekit.cli.run_cmd import run_command
from judgekit.cli.schema_cmd import schema_command
from judgekit.cli.store_cmd import store_group
from judgekit.errors import JudgekitError

EXIT_BAD_INPUT = 2


class JudgekitGroup(click.Group):
    """Prints a JudgekitError as one line and exits 2; a bug keeps its traceback.

    The message may quote data (a run id, a field's value): it is shown visibly, on one
    line, so it can neither drive the terminal nor forge a second line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            # A file the system refused where no reader said so is still one line.
            with named_path_errors():
                return super().invoke(ctx)
        except JudgekitError as exc:
            click.echo(f"judgekit: error: {visible(redact(str(exc)), one_line=True)}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except click.exceptions.NoArgsIsHelpError:
            raise  # not an error: click shows the help
        except click.UsageError as exc:
            # A bad option (a file where a folder is expected, an unknown command) is one
            # line too, with where to look, instead of click's usage block.
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


@click.group(cls=JudgekitGroup, context_settings={"help_option_names": ["-h", "--help"]})
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


main.add_command(align_command)
main.add_command(calibrate_command)
main.add_command(demo_command)
main.add_command(export_group)
main.add_command(gate_command)
main.add_command(grade_command)
main.add_command(import_group)
main.add_command(init_command)
main.add_command(judge_command)
main.add_command(label_command)
main.add_command(labels_command)
main.add_command(monitor_command)
main.add_command(probe_command)
main.add_command(promote_command)
main.add_command(recheck_command)
main.add_command(report_command)
main.add_command(rubrics_command)
main.add_command(run_command)
main.add_command(schema_command)
main.add_command(store_group)
