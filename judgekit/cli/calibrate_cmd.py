"""``judgekit calibrate``: the judge against hand labels, and whether the rubric may be promoted."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgekit.cli.calibrate_plots import (
    plot_options,
    record_and_plot,
    write_confidence_plots,
    wrote_lines,
)
from judgekit.cli.calibration_options import calibration_options, split_option, warn_about_labels
from judgekit.cli.options import json_option
from judgekit.cli.store_options import no_store_option
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import effective_rubric, load_rubric

if TYPE_CHECKING:
    from judgekit.calibration import IntervalMethod
    from judgekit.calibration.split import MeasuredOn


@click.command("calibrate")
@calibration_options
@split_option
@click.option("--model", help="Compare this judge model's verdicts (default: the rubric's).")
@click.option(
    "against_ref",
    "--against",
    help="Compare with another judge on the same labelled runs: a rubric file or id (e.g. "
    "another version of the rubric).",
)
@click.option(
    "--against-model",
    help="Compare with this judge model's verdicts on the same labelled runs (with --against: "
    "that rubric under this model).",
)
@click.option(
    "--disagreements",
    "disagreements",
    default="10",
    show_default=True,
    metavar="N|all",
    help="How many disagreements the console lists (the largest first; for pass/fail, "
    "choices and pairwise in natural order of run id); 'all' for every one. --json always "
    "has all; --md lists as many as a 65,536-character comment holds.",
)
@json_option
@click.option("--md", "as_md", is_flag=True, help="Print Markdown for a pull-request comment.")
@no_store_option
@plot_options
def calibrate_command(
    rubric_ref: str,
    verdicts_file: Path | None,
    labels_file: Path | None,
    runs_files: tuple[Path, ...],
    tasks_path: Path | None,
    interval_method: IntervalMethod,
    new_split: bool,
    measure_on: MeasuredOn,
    model: str | None,
    against_ref: str | None,
    against_model: str | None,
    disagreements: str,
    as_json: bool,
    as_md: bool,
    no_store: bool,
    plot_path: Path | None,
    coverage_plot: Path | None,
    reliability_plot: Path | None,
) -> None:
    """Compare the judge's verdicts with hand labels under the rubric's current version.

    Only verdicts of the current rubric version and judge model count (the latest per
    run); unscored verdicts are left out and counted. Only the dev side of the labels is
    measured and shown (--split): the test side is held out for `judgekit promote`. A
    run labelled by several people is compared through its majority label; ties are left
    out and counted. Prints agreement, Cohen's kappa with its interval, Gwet's AC1, the
    confusion matrix, false-pass and false-fail rates, the disagreeing runs (the 10
    largest; --disagreements N|all), and whether the promotion policy is met. Where verdicts
    carry a confidence, also whether it is calibrated: the expected calibration error and
    the Brier score with bootstrap intervals, and the reliability curve (10 bins), overall
    and by the score given (--plot-reliability draws it). The report is recorded in the
    store (--no-store: not).

    \b
    With --against-model M2 (or --against RUBRIC), also compares this judge with the other
    on the labelled runs both scored: each one's kappa, the difference with a paired
    bootstrap interval, and McNemar's test on which runs each gets right.

    \b
    Example:
      judgekit calibrate --rubric goal_completion --verdicts verdicts.jsonl --runs runs.jsonl
      judgekit calibrate --rubric goal_completion --against-model anthropic/claude-x
    """
    if as_json and as_md:
        raise click.UsageError("--json and --md are exclusive; pick one")
    shown = disagreement_limit(disagreements)
    base = load_rubric(rubric_ref)
    rubric = effective_rubric(base, model)
    other: Rubric | None = None
    if against_ref is not None or against_model is not None:
        other = effective_rubric(
            load_rubric(against_ref) if against_ref is not None else base,
            against_model,
            option="--against-model",
        )
    from judgekit.calibration import load_calibration, render_markdown, render_text  # numpy: now
    from judgekit.calibration.load import spend_measured_test_labels

    report = load_calibration(
        rubric,
        labels_file=labels_file,
        verdicts_file=verdicts_file,
        runs_files=runs_files,
        tasks_path=tasks_path,
        interval_method=interval_method,
        against=other,
        warn=warn_about_labels,
        measure_on=measure_on,
        new_split=new_split,
    )
    # Every test label measured is spent before any figure of them is written or shown: an
    # output that fails afterwards has spent labels nobody saw, never the other way round.
    spend_measured_test_labels(report)
    write_confidence_plots(report, coverage=coverage_plot, reliability=reliability_plot)
    record_and_plot(report, record=not no_store, plot_path=plot_path)

    if as_json:
        click.echo(json.dumps(report.as_dict(), ensure_ascii=False))
    elif as_md:
        click.echo(render_markdown(report))
    else:
        click.echo(render_text(report, disagreements=shown))
    # After the report, on stderr beside --json or --md so their output stays pure.
    for line in wrote_lines(plot_path, coverage_plot, reliability_plot):
        click.echo(line, err=as_json or as_md)


def disagreement_limit(value: str) -> int | None:
    """``--disagreements``: a whole number, or ``all`` (None)."""
    if value.strip().lower() == "all":
        return None
    if not (value.strip().isascii() and value.strip().isdigit()):
        raise click.BadParameter(
            f"expected a whole number (0 or more) or 'all', got {value!r}",
            param_hint="'--disagreements'",
        )
    return int(value)
