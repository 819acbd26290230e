"""``judgekit promote``: write the promotion record when calibration clears the policy."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgekit._util.atomic_files import atomic_writer
from judgekit.calibration.promotion import promotion_record_path
from judgekit.cli.calibrate_cmd import calibration_options, load_report
from judgekit.cli.options import json_option, no_store_option
from judgekit.cli.store_output import written_before_store
from judgekit.formats.rubric_file import load_rubric

if TYPE_CHECKING:
    from judgekit.calibration import IntervalMethod

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
    as_json: bool,
    no_store: bool,
) -> None:
    """Write <rubric_id>.promotion.json beside the rubric file, if calibration passes.

    The rubric's own promotion policy decides (by default: at least 50 labels, at least 10
    per class, and the lower bound of the 95% kappa interval at or above 0.6). The record
    binds the figures to the rubric version and judge model: editing the rubric makes it
    stale. Otherwise nothing is written, each failed criterion is named with its shortfall,
    and the exit code is 1. A promotion is also recorded in the store (--no-store: not).

    \b
    Example:
      judgekit promote --rubric goal_completion --verdicts verdicts.jsonl
    """
    rubric = load_rubric(rubric_ref)
    report = load_report(
        rubric,
        verdicts_file=verdicts_file,
        labels_file=labels_file,
        runs_files=runs_files,
        tasks_path=tasks_path,
        interval_method=interval_method,
    )
    from judgekit.calibration import failure_lines, labels_needed_line, promotion_record

    folder = rubric.source.parent if rubric.source is not None else Path("rubrics")
    path = promotion_record_path(rubric, folder)
    if not report.promotable:
        failed = failure_lines(report)
        if as_json:
            click.echo(
                json.dumps(
                    {
                        "rubric_id": report.rubric_id,
                        "rubric_version": report.rubric_version,
                        "promoted": False,
                        "record": None,
                        "criteria": {c.name: c.as_dict() for c in report.criteria},
                        "labels_needed": report.labels_needed,
                    }
                )
            )
        else:
            click.echo(
                f"{report.rubric_id} (version {report.rubric_version}) not promoted: "
                f"{len(failed)} of {len(report.criteria)} criteria not met"
            )
            for line in failed:
                click.echo(f"  {line}")
            needed = labels_needed_line(report)
            if needed is not None:
                click.echo(needed)
        sys.exit(EXIT_PROMOTION_SAYS_NO)
    record = promotion_record(report)
    with atomic_writer(path) as fh:
        fh.write(json.dumps(record, indent=2, ensure_ascii=False) + "\n")
    if not no_store:
        from judgekit.store import open_store  # SQLAlchemy loads only when the store is used

        # Timed like the record, so the store and the file tell the same story.
        at = datetime.fromisoformat(record["promoted_at"])
        written = f"promotion record written to {path}"
        with written_before_store(written, them="it"), open_store() as store:
            store.record_promotion(record, at=at)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "rubric_id": report.rubric_id,
                    "rubric_version": report.rubric_version,
                    "promoted": True,
                    "record": str(path),
                    "criteria": record["criteria"],
                    "labels_needed": report.labels_needed,
                }
            )
        )
        return
    click.echo(
        f"{report.rubric_id} (version {report.rubric_version}, judge {report.model}) promoted "
        f"on {report.n} labels, kappa {report.kappa:.3f} "
        f"[{report.kappa_ci[0]:.3f}, {report.kappa_ci[1]:.3f}]; wrote {path}"
    )
