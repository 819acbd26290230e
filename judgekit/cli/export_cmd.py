"""``judgekit export``: verdicts and hand labels written for other tools (OpenTelemetry,
LangSmith, Langfuse) or as CSV."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgekit._util.output_targets import refuse_output_over_input
from judgekit._util.terminal_text import visible
from judgekit.cli.options import labels_dir_option
from judgekit.errors import DataError
from judgekit.exporters import FORMAT_NAMES
from judgekit.formats.rubric_file import load_rubric

if TYPE_CHECKING:
    from judgekit.exporters.export import ExportTally
    from judgekit.exporters.trace_links import TraceLink
    from judgekit.formats.verdict import Verdict

_format_option = click.option(
    "--format",
    "format_name",
    required=True,
    type=click.Choice(FORMAT_NAMES),
    help="otel: OTLP/JSON gen_ai.evaluation.result events; langsmith: create_feedback "
    "arguments; langfuse: score bodies; csv: one row each (JSON lines but otel and csv).",
)
_output_option = click.option(
    "-o",
    "--output",
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The file to write (replaced whole, never half-written).",
)
_runs_option = click.option(
    "--runs",
    "runs_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="runs.jsonl files whose metadata (trace_id, span_id) link each item to its trace "
    "(repeatable).",
)


@click.group("export")
def export_group() -> None:
    """Write verdicts or hand labels for OpenTelemetry, LangSmith, Langfuse, or as CSV.

    Each item is linked to the trace of its run when the run's metadata carries `trace_id`
    (and `span_id`); unscored and abstained verdicts keep their status and are never a
    pass or a fail.

    \b
    Example:
      judgekit export verdicts --format langfuse --verdicts out/verdicts.jsonl \\
          --runs runs.jsonl -o scores.jsonl
      judgekit export labels --rubric goal_completion --format csv -o labels.csv
    """


def _say(tally: ExportTally, format_name: str, output: Path, runs_hint: str) -> None:
    from judgekit.exporters.export import FORMATS

    first, *rest = tally.lines(FORMATS[format_name], output, runs_hint=runs_hint)
    click.echo(visible(first, one_line=True), err=True)
    for line in rest:
        click.echo(f"judgekit: warning: {visible(line, one_line=True)}", err=True)


def _stored(rubric_id: str | None, out: Path) -> tuple[list[Verdict], dict[str, TraceLink | None]]:
    # Imported here: the store loads SQLAlchemy, which a file export never needs.
    from judgekit.exporters.trace_links import trace_link
    from judgekit.store.database import open_store, store_file
    from judgekit.store.queries import stored_rubric_ids

    refuse_output_over_input([out], [store_file()])
    with open_store() as store:
        ids = [rubric_id] if rubric_id is not None else stored_rubric_ids(store, since=None)
        verdicts = [v for rid in ids for v in store.verdicts(rid)]
        runs = store.runs({v.run_id for v in verdicts})
    return verdicts, {run_id: trace_link(run.metadata) for run_id, run in runs.items()}


@export_group.command("verdicts")
@_format_option
@_output_option
@click.option(
    "--rubric",
    "rubric_ref",
    help="Only this rubric's verdicts (a file or an id; default: every rubric, each checked "
    "for a promotion by its file in rubrics/).",
)
@click.option(
    "--verdicts",
    "verdicts_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A verdicts.jsonl file (default: the latest verdicts in the store).",
)
@_runs_option
def export_verdicts_command(
    format_name: str,
    output: Path,
    rubric_ref: str | None,
    verdicts_file: Path | None,
    runs_files: tuple[Path, ...],
) -> None:
    """Export judges' verdicts, from a verdicts.jsonl file or the store.

    Each carries its judge (rubric version, model, endpoint) and the promotion it stands
    on: its rubric's, checked as the gate does, if of the verdict's version and model.
    From the store, each run's trace link is read from the stored run (or --runs).

    \b
    Example:
      judgekit export verdicts --format otel -o evaluations.json
      judgekit export verdicts --format langsmith --verdicts out/verdicts.jsonl \\
          --runs runs.jsonl -o feedback.jsonl
    """
    from judgekit.calibration.verdict_promotion import VerdictPromotions
    from judgekit.exporters.export import FORMATS, export_items, verdict_items
    from judgekit.exporters.trace_links import links_of_runs
    from judgekit.formats.verdict import load_verdicts
    from judgekit.formats.verdict_scores import ScaleCheck

    refuse_output_over_input([output], [verdicts_file, *runs_files])
    rubric = load_rubric(rubric_ref) if rubric_ref is not None else None
    links = links_of_runs(runs_files)
    if verdicts_file is not None:
        check = ScaleCheck([rubric] if rubric is not None else [])
        verdicts = load_verdicts(verdicts_file, check=check)
        if rubric is not None:
            verdicts = [v for v in verdicts if v.rubric_id == rubric.id]
        source, runs_hint = str(verdicts_file), "the runs of --runs"
    else:
        verdicts, stored = _stored(rubric.id if rubric is not None else None, output)
        links = stored | links
        source, runs_hint = "the store", "the runs read (the store's, --runs)"
    if not verdicts:
        only = f" of rubric {rubric.id}" if rubric is not None else ""
        raise DataError(f"no verdicts{only} to export", path=source)
    promotions = VerdictPromotions([rubric] if rubric is not None else [])
    items = verdict_items(verdicts, links, promotions)
    tally = export_items(items, FORMATS[format_name], output, kind="verdict", runs=links)
    _say(tally, format_name, output, runs_hint)


@export_group.command("labels")
@_format_option
@_output_option
@click.option("--rubric", "rubric_ref", required=True, help="The labels' rubric (a file or an id).")
@click.option(
    "--labels",
    "labels_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A labels file (default: <labels-dir>/<rubric_id>.jsonl).",
)
@labels_dir_option
@_runs_option
def export_labels_command(
    format_name: str,
    output: Path,
    rubric_ref: str,
    labels_file: Path | None,
    labels_dir: Path,
    runs_files: tuple[Path, ...],
) -> None:
    """Export hand labels: each labeller's current label of each run.

    A label superseded by a later line (relabelled, undone) is not exported.

    \b
    Example:
      judgekit export labels --rubric goal_completion --format langfuse \\
          --runs runs.jsonl -o scores.jsonl
    """
    # Imported here: the exporters and the labels file are loaded by this command only.
    from judgekit.exporters.export import FORMATS, export_items, label_items
    from judgekit.exporters.trace_links import links_of_runs
    from judgekit.formats.label import labels_path, read_labels

    rubric = load_rubric(rubric_ref)
    path = labels_file if labels_file is not None else labels_path(labels_dir, rubric.id)
    refuse_output_over_input([output], [path, *runs_files])
    if not path.exists():
        raise DataError(f"no such file: no labels of rubric {rubric.id} to export", path=path)
    log = read_labels(path, rubric)
    for warning in log.warnings:
        click.echo(f"judgekit: warning: {visible(warning, one_line=True)}", err=True)
    labels = sorted(log.current.values(), key=lambda label: label.at)
    if not labels:
        raise DataError(f"no labels of rubric {rubric.id} to export", path=path)
    links = links_of_runs(runs_files)
    items = label_items(labels, links)
    tally = export_items(items, FORMATS[format_name], output, kind="label", runs=links)
    hint = "the runs of --runs" if runs_files else "any runs (pass --runs to link them)"
    _say(tally, format_name, output, hint)
