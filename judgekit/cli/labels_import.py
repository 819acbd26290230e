"""``judgekit labels import``: human labels from Langfuse, LangSmith, Phoenix or MLflow
into the rubric's labels file, as terminal labels are written and split."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgekit._util.terminal_text import visible
from judgekit.cli.options import labels_dir_option, rubric_option, suites_option
from judgekit.formats.label import labels_path, read_labels
from judgekit.formats.rubric_file import load_rubric
from judgekit.importers.human_labels import PLATFORMS

if TYPE_CHECKING:
    from judgekit.importers.locations import Location
    from judgekit.labelling.imported_labels import LabelImport


@click.command("import")
@click.argument("platform", type=click.Choice(PLATFORMS))
@click.argument(
    "files", nargs=-1, required=True, metavar="FILE...", type=click.Path(path_type=Path)
)
@rubric_option
@click.option(
    "--runs",
    "runs_files",
    multiple=True,
    required=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The runs.jsonl the traces were imported into (repeatable): labels join its runs.",
)
@click.option(
    "--map",
    "mapping",
    multiple=True,
    metavar="VALUE=SCORE",
    help="Map a platform value onto the rubric's scale (repeatable), e.g. correct=pass or "
    "1=pass; a value that is a scale value maps to itself, any other is an error.",
)
@click.option("--name", help="The score, feedback key or annotation name to import.")
@labels_dir_option
@suites_option("Task suites, for a task's input when a run does not record it.")
def labels_import_command(
    platform: str,
    files: tuple[Path, ...],
    rubric_ref: str,
    runs_files: tuple[Path, ...],
    mapping: tuple[str, ...],
    name: str | None,
    labels_dir: Path,
    tasks_path: Path | None,
) -> None:
    """Import human labels made in Langfuse, LangSmith, Phoenix or MLflow.

    FILE is the platform's export as its SDK or API gives it, JSON or JSONL: Langfuse
    scores (source ANNOTATION; with score configs and annotation-queue items), LangSmith
    feedback (from a user, not a model), Phoenix annotations (annotator kind HUMAN), MLflow
    assessments or traces (source type HUMAN). Each joins the run of its trace in --runs,
    keeps its labeller (`langfuse:<user>`), time and comment, and is appended to
    LABELS_DIR/<rubric_id>.jsonl and split dev/test as `judgekit label` does. A value off
    the mapping writes nothing; importing again adds only what changed.

    \b
    Example:
      judgekit labels import langfuse scores.jsonl --rubric goal_completion \\
          --runs runs.jsonl --name correctness --map correct=pass --map incorrect=fail
    """
    from judgekit.calibration.split_import import assign_imported, check_split_for_import
    from judgekit.labelling.imported_labels import (
        LabelImportRequest,
        plan_label_import,
        write_label_import,
    )
    from judgekit.labelling.label_mapping import parse_mapping

    rubric = load_rubric(rubric_ref)
    path = labels_path(labels_dir, rubric.id)
    existing = read_labels(path, rubric)
    request = LabelImportRequest(
        platform=platform,
        files=files,
        rubric=rubric,
        runs_files=runs_files,
        mapping=parse_mapping(mapping, rubric),
        name=name,
        tasks_path=tasks_path,
    )
    plan = plan_label_import(request, existing)
    check_split_for_import(rubric, path, existing.current, plan.new)
    write_label_import(plan, path)
    sides = assign_imported(rubric, path, plan.runs.values())
    _print_summary(platform, plan, path, sides)


def _print_summary(platform: str, plan: LabelImport, path: Path, sides: dict[str, int]) -> None:
    named = f", {plan.named} named {plan.name!r}" if plan.name is not None else ""
    click.echo(visible(f"{platform}: {plan.read} read, {plan.human} by a person{named}"))
    left = sum(count for count, _ in plan.left_out.values())
    click.echo(
        visible(
            f"imported: {len(plan.new)} new into {path} (dev {sides['dev']}, test "
            f"{sides['test']}); {plan.already_there} already there; {left} left out"
        )
    )
    for reason, (count, first) in sorted(plan.left_out.items(), key=lambda kv: -kv[1][0]):
        click.echo(visible(f"  {count} left out: {reason} (first: {_place(first)})"))


def _place(where: Location) -> str:
    at = str(where.path) if where.line is None else f"{where.path}:{where.line}"
    return f"{at}: {where.field}" if where.field else at
