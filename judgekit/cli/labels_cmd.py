"""``judgekit labels``: who labelled what, and how well the labellers agree; ``judgekit
labels import`` brings in human labels made on other platforms."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from judgekit._util.number_format import statistic
from judgekit._util.terminal_text import visible, visible_text
from judgekit.cli.labels_import import labels_import_command
from judgekit.cli.options import json_option, labels_dir_option, suites_option
from judgekit.formats.rubric_file import load_rubric

if TYPE_CHECKING:
    from judgekit.labelling.summary import LabelSummary


class _LabelsGroup(click.Group):
    """The summary's usage line, as before its subcommand came: ``labels [OPTIONS]``."""

    def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
        return click.Command.collect_usage_pieces(self, ctx)


@click.group("labels", cls=_LabelsGroup, invoke_without_command=True)
@click.option("--rubric", "rubric_ref", help="A rubric file, or the id of one in rubrics/.")
@labels_dir_option
@click.option(
    "--runs",
    "runs_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="runs.jsonl files to check labels against for staleness (repeatable).",
)
@suites_option("Task suites, when the labels were given with `judgekit label --tasks`.")
@json_option
@click.pass_context
def labels_group(
    ctx: click.Context,
    rubric_ref: str | None,
    labels_dir: Path,
    runs_files: tuple[Path, ...],
    tasks_path: Path | None,
    as_json: bool,
) -> None:
    """Who labelled what under a rubric, and the agreement between labellers.

    Counts each labeller's current labels per class; with --runs, also how many are stale
    (the run changed since it was labelled). Agreement on shared runs is Cohen's kappa for
    two labellers, Krippendorff's alpha for more. `judgekit labels import` brings in human
    labels made in Langfuse, LangSmith, Phoenix or MLflow.

    \b
    Example:
      judgekit labels --rubric goal_completion --runs runs.jsonl
    """
    if ctx.invoked_subcommand is not None:
        given = [p.opts[0] for p in ctx.command.params if _given(ctx, p.name)]
        if given:
            raise click.UsageError(
                f"{', '.join(given)} before `{ctx.invoked_subcommand}` belongs to the summary; "
                f"give the options of `judgekit labels {ctx.invoked_subcommand}` after it",
                ctx,
            )
        return
    if rubric_ref is None:
        raise click.UsageError("Missing option '--rubric'.", ctx)
    rubric = load_rubric(rubric_ref)
    # The statistics (numpy) load only for this command, not every `judgekit` start.
    from judgekit.labelling.summary import summarise_labels_file

    summary = summarise_labels_file(
        rubric, labels_dir, runs_files=runs_files, tasks_path=tasks_path
    )
    if as_json:
        click.echo(json.dumps(summary.as_dict(), ensure_ascii=False))
        return
    for warning in summary.warnings:
        click.echo(f"judgekit: warning: {visible(warning, one_line=True)}", err=True)
    _print_summary(summary, Console(emoji=False))


labels_group.add_command(labels_import_command)


def _given(ctx: click.Context, name: str | None) -> bool:
    source = ctx.get_parameter_source(name) if name is not None else None
    return source is click.core.ParameterSource.COMMANDLINE


def _print_summary(summary: LabelSummary, console: Console) -> None:
    # Labeller names are data: Text cells, never markup, shown visibly.
    table = Table(
        title=visible_text(f"Labels for {summary.rubric_id} ({summary.labels_file})", one_line=True)
    )
    table.add_column("labeler")
    table.add_column("labels", justify="right")
    table.add_column("per class")
    table.add_column("stale", justify="right")
    for name, entry in summary.labelers.items():
        classes = ", ".join(f"{score} {n}" for score, n in entry["classes"].items())
        stale = "not checked" if entry["stale"] is None else str(entry["stale"])
        table.add_row(
            visible_text(name, one_line=True),
            str(entry["labels"]),
            visible_text(classes, one_line=True),
            stale,
        )
    console.print(table)
    if summary.agreement_method is None:
        line = "agreement: needs two labellers sharing at least one run"
    else:
        value = statistic(summary.agreement)
        line = f"agreement on {summary.shared_runs} shared runs: {summary.agreement_method} {value}"
    console.print(f"{summary.runs_labelled} runs labelled; {line}", highlight=False)
    if not summary.stale_checked:
        console.print("stale labels not checked: pass --runs to compare with the runs' text")
