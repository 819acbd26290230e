"""``judgekit store``: what the store holds, and loading existing JSONL files into it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgekit.cli.options import json_option, rubrics_from, suites_option
from judgekit.cli.store_options import StoreChoice, provenance_options
from judgekit.cli.store_output import info_json, info_lines, recorded_counts
from judgekit.formats.record_files import RECORD_KINDS, RecordKind, check_records, detect_kind
from judgekit.formats.rubric_file import effective_rubric
from judgekit.formats.run import iter_runs_with_lines
from judgekit.formats.task import TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.formats.verdict_scores import ScaleCheck
from judgekit.graders.grade import grade_runs

if TYPE_CHECKING:
    from collections.abc import Iterator

    from judgekit.formats.grade import Grade
    from judgekit.store import Store
    from judgekit.store.provenance import Provenance
    from judgekit.store.record_files import Recorded


@click.group("store")
def store_group() -> None:
    """What was evaluated, over time: runs, grades, verdicts, calibrations, promotions.

    `grade`, `run` and `judge` record there unless given --no-store; JUDGEKIT_DB chooses
    the database (default: judgekit.sqlite in JUDGEKIT_HOME).

    \b
    Example:
      judgekit store import examples/runs/shop.jsonl --tasks tasks/shop.yaml
      judgekit store info
    """


@store_group.command("import")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--kind",
    type=click.Choice(RECORD_KINDS),
    help="What the files hold (default: told from each file's first record).",
)
@suites_option("Task suites: runs files are graded too, and the grades recorded.")
@click.option(
    "--skip-unknown", is_flag=True, help="With --tasks, leave ungraded runs of unknown task ids."
)
@click.option(
    "--rubric",
    "rubric_refs",
    multiple=True,
    help="Rubrics whose verdicts are checked against their scale: a file, folder or id in "
    "rubrics/ (repeatable; default: every rubric in rubrics/).",
)
@provenance_options
def store_import_command(
    files: tuple[Path, ...],
    kind: RecordKind | None,
    tasks_path: Path | None,
    skip_unknown: bool,
    rubric_refs: tuple[str, ...],
    store: StoreChoice,
) -> None:
    """Record existing runs, results or verdicts files in the store.

    FILES are JSONL (.gz too); what each holds is told from its first record, or --kind.
    Every file is checked whole first: a bad line, a run id seen twice (a verdict: twice
    for one rubric version and model) or a scored verdict off its rubric's scale is one
    error, exit 2, and nothing is recorded. A runs file goes to the batch that grading or
    judging those runs records to; a results or verdicts file to a batch of its own.
    Importing a file again records nothing new. A recording that fails past the checks
    leaves no empty batch; files recorded before it stay, as printed.

    \b
    Example:
      judgekit store import examples/runs/shop.jsonl --tasks tasks/shop.yaml --branch main
      judgekit store import results/results.jsonl verdicts.jsonl --tag model=gpt-4o-mini
    """
    plan = [(path, kind or detect_kind(path)) for path in files]
    # Only runs files are graded: for results and verdicts the suite is read as data.
    grades = any(file_kind == "runs" for _, file_kind in plan)
    tasks = load_task_files(tasks_path, resolve_code=grades) if tasks_path is not None else None
    scales = None
    if rubric_refs or any(file_kind == "verdicts" for _, file_kind in plan):
        # A verdict's rubric version names no file: the rubrics at hand are matched by version.
        scales = ScaleCheck(rubrics_from(rubric_refs), variant=effective_rubric)
    for path, file_kind in plan:
        check_records(path, file_kind, scales=scales)
        if file_kind == "runs" and tasks is not None:
            # Grading checks the task ids too: an unknown one is an error found now, not
            # halfway through recording.
            for _ in _grades(path, tasks, skip_unknown):
                pass
    provenance = store.provenance()
    # SQLAlchemy loads only when the store is used.
    from judgekit.store import open_store
    from judgekit.store.record_files import no_empty_batch_left

    with open_store() as opened, no_empty_batch_left(opened):
        for path, file_kind in plan:
            recorded = _record(opened, path, file_kind, tasks, skip_unknown, provenance)
            known = f"; {recorded.known} already in the store, left out" if recorded.known else ""
            click.echo(
                f"{path}: {recorded_counts(recorded, file_kind)} recorded (batch {recorded.batch_id})"
                + known
            )


def _record(
    store: Store,
    path: Path,
    kind: RecordKind,
    tasks: TaskSet | None,
    skip_unknown: bool,
    provenance: Provenance,
) -> Recorded:
    from judgekit.store.record_files import (
        record_results_file,
        record_runs_file,
        record_verdicts_file,
    )

    if kind == "results":
        return record_results_file(store, path, provenance=provenance)
    if kind == "verdicts":  # its torn last line, if any, was said when it was checked
        return record_verdicts_file(store, path, provenance=provenance, warn=lambda _: None)
    grades = _grades(path, tasks, skip_unknown) if tasks is not None else None
    return record_runs_file(store, path, source="import", provenance=provenance, grades=grades)


def _grades(path: Path, tasks: TaskSet, skip_unknown: bool) -> Iterator[Grade]:
    return grade_runs(
        iter_runs_with_lines(path), tasks, skip_unknown=skip_unknown, source=str(path)
    )


@store_group.command("info")
@json_option
def store_info_command(as_json: bool) -> None:
    """Print the store's URL, its row counts and its latest batch.

    A batch the shards of one run share is followed by which shards recorded there, which
    are missing, and how many of the run's runs were graded (incomplete until all were:
    the gate's check). The URL's password, if any, is masked.

    \b
    Example:
      JUDGEKIT_DB=postgresql+psycopg://ci@db/judgekit judgekit store info --json
    """
    from judgekit.store import open_store
    from judgekit.store.queries import latest_batch
    from judgekit.store.record_files import table_counts
    from judgekit.store.shard_status import stored_shard_status

    with open_store() as store:
        counts = table_counts(store)
        latest = latest_batch(store)
        shards = None if latest is None else stored_shard_status(store, latest)
        url = store.url
    if as_json:
        click.echo(json.dumps(info_json(url, counts, latest, shards), ensure_ascii=False))
        return
    for line in info_lines(url, counts, latest, shards):
        click.echo(line)
