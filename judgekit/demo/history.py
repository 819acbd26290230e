"""Step 5's history: ten simulated nights of the shop suite on branch ``nightly``, each
recorded in the store at its own night, so the monitor has days to compare.

* Nights 1–6: the stable stub (``examples.shop:agent``) and both judges at their set rates.
* Night 7: the careful judge's provider changes the model behind its name: it now says fail
  on 30% of passing runs (:data:`DRIFTED`). The runs hold still, the judge's pass share
  falls, and the monitor run that night alerts on the rubric alone: the judge moved.
* Night 10: the change that broke refunds ships (``examples.shop:regressed_agent``, the
  candidate step 6 gates): refund_full's pass rate falls, and the monitor alerts on the
  grades, naming the task.

Every night's trials are fresh (trials ``PER_NIGHT·(n−1)+1 … PER_NIGHT·n``, each its own
seed), graded by Truth, Path and State, and recorded through the store's own writes, stamped
with the night. The verdicts are the simulated judges' scores (what step 2's fake server
answers), not asked over HTTP again: thousands of runs would cost seconds and show nothing new.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Final

from rich.console import Console
from rich.table import Table

from judgekit._util.number_format import rate
from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import SHOP, say
from judgekit.demo.gate import CANDIDATE
from judgekit.demo.judges import CAREFUL, JUDGES, SimulatedJudge
from judgekit.demo.report import SINCE
from judgekit.demo.storage import suite_batch
from judgekit.demo.trials import SuiteRun, run_suite
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.store.record_files import iter_grades
from judgekit.store.run_filter import RunFilter

if TYPE_CHECKING:
    from judgekit.monitoring.monitor import MonitorReport
    from judgekit.store import Store

NIGHTS: Final = 10
DRIFT_NIGHT: Final = 7  # the careful judge's model changes behind its name
CHANGE_NIGHT: Final = 10  # the change that broke refunds ships
# Trials per task each night: 400 runs a night, enough for a one-task regression to move
# the blended rates past the monitor's bar (alpha 0.01, Holm across the metrics).
PER_NIGHT: Final = 100
BRANCH: Final = "nightly"
NIGHTLY: Final = RunFilter(branch=BRANCH)
AT: Final = time(3, 0, tzinfo=UTC)  # when the nightly job runs
# The careful judge after the change behind its name: passing runs called fail 30% of the time.
DRIFTED: Final = SimulatedJudge(
    CAREFUL.name, CAREFUL.rubric_id, true_pass_rate=0.70, true_fail_rate=CAREFUL.true_fail_rate
)


@dataclass(frozen=True)
class Night:
    """One night as recorded: its number, time, batch and what ran and judged."""

    number: int
    at: datetime
    batch_id: int
    agent: str
    runs: int
    passed: int
    judge_passes: int  # the careful judge's passes

    @property
    def changed(self) -> bool:
        return self.number >= CHANGE_NIGHT

    @property
    def drifted(self) -> bool:
        return self.number >= DRIFT_NIGHT


@dataclass(frozen=True)
class History:
    nights: list[Night]
    drift_monitor: MonitorReport  # the monitor run on night DRIFT_NIGHT


def night_times(today: date) -> list[datetime]:
    """The nights ``1 … NIGHTS``, the last one ``today``.

    >>> [t.isoformat() for t in night_times(date(2026, 12, 2))][::9]
    ['2026-11-23T03:00:00+00:00', '2026-12-02T03:00:00+00:00']
    """
    return [datetime.combine(today - timedelta(days=NIGHTS - n), AT) for n in range(1, NIGHTS + 1)]


def record_history(
    store: Store,
    rubric_files: Mapping[SimulatedJudge, Path],
    root: Path,
    out: Path,
    console: Console,
    *,
    monitor: MonitorCall,
) -> History:
    """Run, grade, judge and record the ten nights; run ``monitor`` after night
    :data:`DRIFT_NIGHT` as the nightly job would, and print what it said."""
    say(
        console,
        f"[bold yellow]simulated history[/]: {NIGHTS} nights of the shop suite on branch "
        f"{BRANCH}, {PER_NIGHT} fresh trials per task a night, each recorded at its night. "
        f"From night {DRIFT_NIGHT} the careful judge's model changes behind its name (says "
        f"pass if passed {rate(CAREFUL.true_pass_rate)} → {rate(DRIFTED.true_pass_rate)}); on "
        f"night {CHANGE_NIGHT} the change that broke refunds ({CANDIDATE.agent}) ships.",
    )
    versions = {judge: rubric_version(load_rubric(path)) for judge, path in rubric_files.items()}
    nights: list[Night] = []
    drift_monitor: MonitorReport | None = None
    for number, at in enumerate(night_times(datetime.now(UTC).date()), start=1):
        source = run_suite(
            CANDIDATE if number >= CHANGE_NIGHT else SHOP,
            root,
            out / BRANCH / f"night-{number:02}",
            trials=PER_NIGHT,
            first_trial=PER_NIGHT * (number - 1) + 1,
        )
        nights.append(_record_night(store, source, number, at, versions, root))
        if number == DRIFT_NIGHT:
            drift_monitor = monitor()
    assert drift_monitor is not None
    _print_nights(nights, console)
    _print_alerts(drift_monitor, f"the monitor on night {DRIFT_NIGHT}", console)
    return History(nights, drift_monitor)


class MonitorCall:
    """The monitor over the nightly branch, as step 5 builds it (so both runs match)."""

    def __init__(self, store: Store, rubric_files: Sequence[Path], labels_dir: Path) -> None:
        self.store, self.rubric_files, self.labels_dir = store, rubric_files, labels_dir

    def __call__(self) -> MonitorReport:
        from judgekit.monitoring.monitor import build_monitor_report
        from judgekit.monitoring.since import parse_since

        return build_monitor_report(
            self.store,
            rubrics=[load_rubric(path) for path in self.rubric_files],
            labels_dir=self.labels_dir,
            since=parse_since(SINCE),
            only=NIGHTLY,
        )


def _record_night(
    store: Store,
    source: SuiteRun,
    number: int,
    at: datetime,
    versions: Mapping[SimulatedJudge, str],
    root: Path,
) -> Night:
    """Night ``number``'s runs and grades (``source``), recorded in their own batch at
    ``at``, with both judges' verdicts."""
    runs = source.runs()
    grades = list(iter_grades(source.results_file))
    batch_id = suite_batch(store, source.runs_file, root, branch=BRANCH)
    store.record_runs(runs, batch_id)
    store.record_grades(grades, batch_id, at=at)
    truth = {grade.run_id: grade.passed for grade in grades}
    verdicts = {
        judge: _verdicts(_judge_on(judge, number), versions[judge], runs, truth, at)
        for judge in JUDGES
    }
    store.record_verdicts([v for judged in verdicts.values() for v in judged], batch_id)
    return Night(
        number=number,
        at=at,
        batch_id=batch_id,
        agent=source.suite.agent,
        runs=len(grades),
        passed=sum(grade.passed for grade in grades),
        judge_passes=sum(v.score == "pass" for v in verdicts[CAREFUL]),
    )


def _judge_on(judge: SimulatedJudge, night: int) -> SimulatedJudge:
    return DRIFTED if judge == CAREFUL and night >= DRIFT_NIGHT else judge


def _verdicts(
    judge: SimulatedJudge,
    version: str,
    runs: Sequence[Run],
    truth: Mapping[str, bool],
    at: datetime,
) -> list[Verdict]:
    return [
        Verdict(
            run_id=run.run_id,
            rubric_id=judge.rubric_id,
            rubric_version=version,
            model=judge.model,
            status="scored",
            score=judge.score(run.run_id, truth[run.run_id]),
            reason=f"simulated {judge.name} on {run.run_id}",
            at=at,
        )
        for run in runs
    ]


def _print_nights(nights: Sequence[Night], console: Console) -> None:
    table = Table(box=None, pad_edge=False)
    for column in ("night", "day", "agent", "judge", "runs", "pass rate", "judge's passes"):
        table.add_column(column, justify="right" if column in ("runs",) else "left")
    for night in nights:
        table.add_row(
            str(night.number),
            night.at.date().isoformat(),
            "changed" if night.changed else "stable",
            "drifted" if night.drifted else "as promoted",
            str(night.runs),
            rate(night.passed / night.runs),
            rate(night.judge_passes / night.runs),
        )
    console.print(table)


def _print_alerts(report: MonitorReport, when: str, console: Console) -> None:
    alerts = report.alerts
    if not alerts:
        say(console, f"{when}: no alerts")
    for alert in alerts:
        say(
            console,
            f"{when}: ALERT {visible_markup(alert.metric)}: {visible_markup(alert.message)}",
        )


def print_what_happened(
    history: History, tonight: MonitorReport, out: Path, console: Console
) -> None:
    """Which alert caught which change, from the two monitor runs, and the command."""
    drift = ", ".join(alert.metric for alert in history.drift_monitor.alerts) or "nothing"
    grades = [alert for alert in tonight.alerts if not alert.metric.startswith("rubric:")]
    worst = grades[0].tasks[0].task_id if grades and grades[0].tasks else "no task"
    say(
        console,
        f"night {DRIFT_NIGHT}: {visible_markup(drift)} alerted while the grades held still: the "
        f"judge moved, not the agent (`judgekit monitor --recheck {CAREFUL.rubric_id}` asks it "
        f"again about the labelled runs). Night {CHANGE_NIGHT}: "
        f"{visible_markup(', '.join(alert.metric for alert in grades) or 'no grade')} alerted, "
        f"{visible_markup(worst)} falling most: the change that broke refunds, which the gate "
        "of step 6 stops before it ships.",
    )
    rubrics = out / "rubrics"  # both judges' rubrics
    say(
        console,
        f"the same from the command line: judgekit monitor {NIGHTLY.describe()} --rubric "
        f"{visible_markup(str(rubrics))} --labels-dir {visible_markup(str(out / 'labels'))} "
        "(exit 1: an alert fired)",
    )
