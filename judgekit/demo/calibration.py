"""Step 4: each simulated judge calibrated against the labels and, if it clears the
promotion policy, promoted — the figures ``judgekit calibrate`` and ``judgekit promote``
compute, from the verdicts in the demo's store, recorded there too.

The labels are split as ``judgekit calibrate`` splits them: half (stratified by label) is
*dev*, what a person reads and tunes the rubric on; half is *test*, held out, and the only
labels promotion is decided on."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.table import Table

from judgekit._util.number_format import DASH, rate, statistic, statistic_interval
from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import say
from judgekit.demo.judges import JUDGES, SimulatedJudge
from judgekit.formats.label import labels_path
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric

if TYPE_CHECKING:
    from judgekit.calibration import CalibrationReport
    from judgekit.calibration.split import MeasuredOn
    from judgekit.store import Store


@dataclass
class JudgeOutcome:
    """One simulated judge after calibration and promotion."""

    judge: SimulatedJudge
    report: CalibrationReport  # on the fresh test labels: what promotion decides on
    dev: CalibrationReport  # on the dev labels: what `judgekit calibrate` shows
    record: Path | None
    failed: list[str] = field(default_factory=list)


def calibrate_and_promote(
    rubric_files: Mapping[SimulatedJudge, Path],
    labels_dir: Path,
    *,
    runs_file: Path,
    tasks_file: Path,
    store: Store,
    console: Console,
) -> list[JudgeOutcome]:
    """Calibrate every judge, promote those that clear the policy, record both."""
    from judgekit.calibration import failure_lines

    outcomes: list[JudgeOutcome] = []
    for judge in JUDGES:
        rubric = load_rubric(rubric_files[judge])
        dev = _calibrate(rubric, labels_dir, runs_file, tasks_file, store, on="dev")
        report = _calibrate(rubric, labels_dir, runs_file, tasks_file, store, on="test")
        store.record_calibration(report.as_dict())
        record = _promote(rubric, report, store) if report.promotable else None
        failed = [] if report.promotable else failure_lines(report)
        outcomes.append(JudgeOutcome(judge, report, dev, record, failed))
    _print_calibration(outcomes, console)
    promoted = sum(outcome.record is not None for outcome in outcomes)
    say(
        console,
        f"recorded in the store: {len(outcomes)} calibration reports, {promoted} promotion",
    )
    return outcomes


def _calibrate(
    rubric: Rubric,
    labels_dir: Path,
    runs_file: Path,
    tasks_file: Path,
    store: Store,
    *,
    on: MeasuredOn,
) -> CalibrationReport:
    """What ``judgekit calibrate --runs RUNS --tasks TASKS`` computes on the dev labels, or
    ``judgekit promote`` on the fresh test labels (``on``), reading the verdicts from this
    store (not from whichever one JUDGEKIT_DB names)."""
    from judgekit.calibration import load_calibration

    return load_calibration(
        rubric,
        labels_file=labels_path(labels_dir, rubric.id),
        store=store,
        runs_files=[runs_file],
        tasks_path=tasks_file,
        measure_on=on,
        fresh_only=on == "test",
    )


def _promote(rubric: Rubric, report: CalibrationReport, store: Store) -> Path:
    """Write the promotion record beside the rubric file (checked, as ``judgekit promote``
    checks it), and record it in the demo's store."""
    from judgekit.calibration.promotion_write import write_promotion

    written = write_promotion(report, rubric, stored_in=store.url)
    record = written.record
    # Timed like the record, so the store and the file tell the same story.
    store.record_promotion(record.as_json(), at=record.promoted_time)
    return written.path


def _interval(bounds: Sequence[float | None] | None) -> str:
    return statistic_interval(*(bounds or (None, None)))


def _number(value: float | None) -> str:
    """A measured figure; the demo's table shows an undefined one as a dash."""
    return statistic(value, undefined=DASH)


def _print_calibration(outcomes: Sequence[JudgeOutcome], console: Console) -> None:
    split = outcomes[0].report.split
    assert split is not None  # loaded from a labels file, so split
    say(
        console,
        f"split, stratified by label: {split.n_dev} dev labels to read and tune the rubric on "
        f"(`judgekit calibrate` shows them), {split.n_test} test labels held out: promotion is "
        f"decided on the {split.n_test_fresh} nobody has seen beside a verdict "
        f"({visible_markup(split.file)})",
    )
    for outcome in outcomes:
        dev = outcome.dev
        say(
            console,
            f"{outcome.judge.name} on the {dev.n} dev labels: kappa {_number(dev.kappa)} "
            f"(95% CI {_interval(dev.kappa_ci)})",
        )
    _print_table(outcomes, console)
    for outcome in outcomes:
        rates, judge = outcome.report.error_rates, outcome.judge
        assert rates is not None  # the demo's rubric is binary
        say(
            console,
            f"{judge.name}: false-pass rate set {rate(judge.false_pass_rate)}, measured "
            f"{_number(rates.false_pass_rate)} (95% CI {_interval(rates.false_pass_ci)}); "
            f"false-fail rate set {rate(judge.false_fail_rate)}, measured "
            f"{_number(rates.false_fail_rate)} (95% CI {_interval(rates.false_fail_ci)})",
        )
    policy = outcomes[0].report.policy
    say(
        console,
        f"promotion policy: at least {policy.min_labels} labels, {policy.min_per_class} per "
        f"class, lower bound of the kappa interval at least {policy.min_kappa}",
    )
    for outcome in outcomes:
        _print_decision(outcome, console)


def _print_table(outcomes: Sequence[JudgeOutcome], console: Console) -> None:
    # Fits 80 columns: the set error rates are in the lines below and in step 2's table,
    # so the table shows what was measured; no column is ever cut.
    title = f"Judge against the {outcomes[0].report.n} held-out test labels (95% intervals)"
    table = Table(title=title, title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("judge", overflow="fold")
    for column in ("n", "agreement", "kappa", "kappa CI", "false-pass", "false-fail"):
        table.add_column(column, justify="right", no_wrap=True)
    for outcome in outcomes:
        report, judge = outcome.report, outcome.judge
        rates = report.error_rates
        assert rates is not None  # the demo's rubric is binary
        table.add_row(
            judge.name,
            str(report.n),
            _number(report.figures.agreement),
            _number(report.kappa),
            _interval(report.kappa_ci),
            _number(rates.false_pass_rate),
            _number(rates.false_fail_rate),
        )
    console.print(table)


def _print_decision(outcome: JudgeOutcome, console: Console) -> None:
    report = outcome.report
    which = f"{report.rubric_id} (version {report.rubric_version}, judge {report.model})"
    if outcome.record is not None:
        say(
            console,
            f"[green]promoted[/] {which}: kappa {_number(report.kappa)} "
            f"(95% CI {_interval(report.kappa_ci)}); wrote {visible_markup(str(outcome.record))}",
        )
        return
    say(
        console,
        f"[red]refused[/] {which}: {len(outcome.failed)} of {len(report.criteria)} criteria "
        "not met",
    )
    for line in outcome.failed:
        say(console, f"  {visible_markup(line)}")
