"""``judgekit promote``: write the promotion record when calibration clears the policy."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from judgekit._util.number_format import bracketed_interval, statistic
from judgekit.calibration.promotion import test_kappa_change_line
from judgekit.calibration.split_render import assignment_lines
from judgekit.cli.calibration_options import calibration_options, warn_about_labels
from judgekit.cli.options import json_option
from judgekit.cli.store_options import no_store_option
from judgekit.cli.store_output import written_before_store
from judgekit.formats.promotion import PromotionRecord
from judgekit.formats.rubric_file import load_rubric

if TYPE_CHECKING:
    from judgekit.calibration import CalibrationReport, IntervalMethod

EXIT_PROMOTION_SAYS_NO = 1


@click.command("promote")
@calibration_options
@json_option
@no_store_option
def promote_command(
    rubric_ref: str,
    verdicts_file: Path | None,
    labels_file: Path | None,
    runs_files: tuple[Path, ...],
    tasks_path: Path | None,
    interval_method: IntervalMethod,
    new_split: bool,
    as_json: bool,
    no_store: bool,
) -> None:
    """Write <rubric_id>.promotion.json beside the rubric file, if calibration passes.

    Measured on the fresh test labels only: those of the test side of the split
    (labels/<rubric_id>.split.jsonl), less those ever shown beside the judge's verdict
    (spent). The record lists the test runs used. The rubric's own promotion policy
    decides (by default: at least 50 labels, at least 10 per class, and the lower bound
    of the 95% kappa interval at or above 0.6). The record binds the figures to the
    rubric version and judge model: editing the rubric makes it stale. It carries its
    evidence (each test run compared, its label and the judge's score) and the digests of
    the labels file and split file it was computed from: a record that no longer holds
    reads as invalid, and one that is replaced is checked first. Otherwise nothing is
    written, each failed criterion is named with its shortfall, and the exit code is 1.
    A promotion is also recorded in the store (--no-store: not).

    With promotion.selective {alpha, delta} in the policy, the judge is promoted
    selectively: the record keeps the confidence threshold below which verdicts abstain,
    chosen so that agreement on the kept ones is at least 1 - alpha with probability
    1 - delta; kappa is then measured on the kept verdicts.

    \b
    Example:
      judgekit promote --rubric goal_completion --verdicts verdicts.jsonl
    """
    rubric = load_rubric(rubric_ref)
    from judgekit.calibration import load_calibration  # numpy: only now

    report = load_calibration(
        rubric,
        labels_file=labels_file,
        verdicts_file=verdicts_file,
        runs_files=runs_files,
        tasks_path=tasks_path,
        interval_method=interval_method,
        warn=warn_about_labels,
        measure_on="test",
        fresh_only=True,
        new_split=new_split,
    )

    if not report.promotable:
        _refused(report, as_json)
        sys.exit(EXIT_PROMOTION_SAYS_NO)
    from judgekit.calibration.promotion_write import write_promotion

    written = write_promotion(report, rubric, stored_in=None if no_store else _store_url())
    record, path = written.record, written.path
    if not no_store:
        _record_in_store(record, path)
    if written.replaced_invalid is not None:
        click.echo(
            f"the promotion record it replaces did not hold ({written.replaced_invalid}): "
            "not kept as the previous promotion",
            err=True,
        )
    if as_json:
        criteria = record.as_json()["criteria"]
        click.echo(json.dumps(_outcome(report, record=str(path), criteria=criteria)))
        return
    kappa = f"{statistic(report.kappa)} {bracketed_interval(*report.kappa_ci)}"
    click.echo(
        f"{report.rubric_id} (version {report.rubric_version}, judge {report.model}) promoted "
        f"on {report.n} fresh test labels, kappa {kappa}; wrote {path}"
    )
    change = test_kappa_change_line(record)
    if change is not None:
        click.echo(change)
    for line in assignment_lines(report.split):
        click.echo(line)
    from judgekit.calibration.selective import selective_promotion_line

    selective = selective_promotion_line(report)
    if selective is not None:
        click.echo(selective)


def _outcome(report: CalibrationReport, *, record: str | None, criteria: Any) -> dict[str, Any]:
    """The ``--json`` object: promoted or not, where the record is, the criteria."""
    return {
        "rubric_id": report.rubric_id,
        "rubric_version": report.rubric_version,
        "promoted": record is not None,
        "record": record,
        "criteria": criteria,
        "labels_needed": report.labels_needed.as_dict(),
    }


def _refused(report: CalibrationReport, as_json: bool) -> None:
    """Say which criteria failed, by how much, and what more labels would do."""
    from judgekit.calibration import failure_lines, labels_needed_line
    from judgekit.calibration.render import fresh_labels_line

    if as_json:
        criteria = {c.name: c.as_dict() for c in report.criteria}
        click.echo(json.dumps(_outcome(report, record=None, criteria=criteria)))
        return
    failed = failure_lines(report)
    click.echo(
        f"{report.rubric_id} (version {report.rubric_version}) not promoted: "
        f"{len(failed)} of {len(report.criteria)} criteria not met"
    )
    for line in failed:
        click.echo(f"  {line}")
    for needed in (fresh_labels_line(report), labels_needed_line(report)):
        if needed is not None:
            click.echo(needed)
    for line in assignment_lines(report.split):
        click.echo(line)


def _store_url() -> str:
    """The store the promotion will be recorded in, as the record names it."""
    from judgekit.store.database import configured_store_url, masked_url

    return masked_url(configured_store_url())


def _record_in_store(record: PromotionRecord, path: Path) -> None:
    from judgekit.store import open_store  # SQLAlchemy loads only when the store is used

    # Timed like the record, so the store and the file tell the same story.
    written = f"promotion record written to {path}"
    with written_before_store(written, them="it"), open_store() as store:
        store.record_promotion(record.as_json(), at=record.promoted_time)
