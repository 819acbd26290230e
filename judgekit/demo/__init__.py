"""``judgekit demo``: the whole flow offline — trials, judges, hand labels, calibration,
promotion, the store, the monitor and the report — with no API key and no network.

The demo's project — its suites, rubric, hand labels and stub agents — is shipped inside
the package, in ``project/`` (:func:`.common.project_root`), so an installed wheel runs it.

1. The shop and travel suites (``tasks/``) run with their seeded stub agents
   (``examples/``) for :data:`TRIALS` trials per task, each in a fresh world, graded
   deterministically; each measured pass@1 is set against the rate the stub was designed
   with (:mod:`.trials`).
2. Two *simulated* judges answer the real judging code on the shop runs (:mod:`.judges`).
3. The bundled hand labels ``labels/goal_completion.jsonl`` are copied for both judges'
   rubrics (:mod:`.labels`).
4. Calibration and promotion: the careful judge is promoted, the sloppy one refused
   (:mod:`.calibration`).
5. Ten simulated nights recorded on branch ``nightly`` — a change that breaks a task, then a
   judge that drifts — and the monitor, ``report.html`` and the plots over them
   (:mod:`.history`, :mod:`.report`).
6. The commands that do the same with a real model (:mod:`.commands`).

Everything is recorded in JUDGEKIT_HOME's store (:mod:`.storage`), never JUDGEKIT_DB's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rich.console import Console

from judgekit.demo.calibration import JudgeOutcome, calibrate_and_promote
from judgekit.demo.commands import copy_project, print_next_steps
from judgekit.demo.common import BASE_RUBRIC, SHOP, SUITES, TRIALS, heading, project_root, say
from judgekit.demo.gate import GateOutcome, gate_a_regression
from judgekit.demo.history import (
    NIGHTLY,
    NIGHTS,
    History,
    MonitorCall,
    print_what_happened,
    record_history,
)
from judgekit.demo.judges import CAREFUL, JUDGES, SLOPPY, SimulatedJudge, judge_runs, write_rubrics
from judgekit.demo.labels import LABELER, LABELS, copy_bundled_labels
from judgekit.demo.report import Written, monitor_and_report
from judgekit.demo.storage import open_demo_store, record_suite
from judgekit.demo.trials import (
    RateCheck,
    SuiteRun,
    designed_rates,
    print_rate_checks,
    print_rate_summary,
    print_suite,
    rate_checks,
    run_suite,
)
from judgekit.errors import ConfigError
from judgekit.store import Store

__all__ = [
    "CAREFUL",
    "JUDGES",
    "LABELER",
    "LABELS",
    "SLOPPY",
    "TRIALS",
    "DemoResult",
    "JudgeOutcome",
    "SimulatedJudge",
    "project_root",
    "run_demo",
]


@dataclass
class DemoResult:
    out: Path
    suites: dict[str, SuiteRun]
    batches: dict[str, int]  # suite -> the store batch of its runs
    checks: list[RateCheck]
    outcomes: list[JudgeOutcome]
    history: History
    written: Written
    gated: GateOutcome


def run_demo(out: Path, console: Console) -> DemoResult:
    """Run the seven steps, printing each, writing everything under ``out`` and recording it
    in JUDGEKIT_HOME's store."""
    root = project_root()
    _refuse_a_used_folder(out)
    with open_demo_store(console) as store:
        heading(console, 1, f"Run the shop and travel suites: {TRIALS} trials per task")
        suites, checks = _run_suites(root, out, console)
        batches = _record_suites(store, suites, root, console)
        shop = suites[SHOP.name]
        rubric_files, labels_dir, outcomes = _judge_and_calibrate(
            shop, batches[SHOP.name], root, out, store, console
        )

        heading(console, 5, f"{NIGHTS} simulated nights: the monitor, report and plots")
        files = list(rubric_files.values())
        history = record_history(
            store, rubric_files, root, out, console, monitor=MonitorCall(store, files, labels_dir)
        )
        written = monitor_and_report(
            store, list(batches.values()), files, labels_dir, out, console, only=NIGHTLY
        )
        print_what_happened(history, written.monitor, out, console)

        heading(console, 6, "Gate a change that broke refunds")
        gated = gate_a_regression(shop, root, out, store, console)

    heading(console, 7, "The same with a real model")
    copy_project(root, out)
    print_next_steps(out, console)
    return DemoResult(out, suites, batches, checks, outcomes, history, written, gated)


def _record_suites(
    store: Store, suites: dict[str, SuiteRun], root: Path, console: Console
) -> dict[str, int]:
    """Each suite's runs and grades in a batch of the store: suite name → batch id."""
    batches = {name: record_suite(store, run, root) for name, run in suites.items()}
    say(
        console,
        "recorded in the store, source demo, branch demo: "
        + "; ".join(f"{name} runs and grades in batch {i}" for name, i in batches.items()),
    )
    return batches


def _judge_and_calibrate(
    shop: SuiteRun, batch_id: int, root: Path, out: Path, store: Store, console: Console
) -> tuple[dict[SimulatedJudge, Path], Path, list[JudgeOutcome]]:
    """Steps 2 to 4: judge the shop runs, copy the hand labels, calibrate and promote.

    Returns the rubric files (by judge), the labels folder and each judge's outcome."""
    heading(console, 2, "Judge the shop's final answers with two SIMULATED judges")
    rubric_files = write_rubrics(root / "rubrics" / f"{BASE_RUBRIC}.yaml", out / "rubrics")
    judge_runs(
        shop.runs(),
        shop.truth,
        rubric_files,
        shop.tasks,
        folder=out / "verdicts",
        store=store,
        batch_id=batch_id,
        console=console,
    )

    heading(console, 3, "Hand labels: the bundled labels of a stratified sample")
    labels_dir = out / "labels"
    copy_bundled_labels(
        root,
        JUDGES,
        labels_dir,
        runs_file=shop.runs_file,
        tasks_file=shop.tasks_file,
        console=console,
    )

    heading(console, 4, "Calibrate against the labels, then promote")
    outcomes = calibrate_and_promote(
        rubric_files,
        labels_dir,
        runs_file=shop.runs_file,
        tasks_file=shop.tasks_file,
        store=store,
        console=console,
    )
    return rubric_files, labels_dir, outcomes


def _refuse_a_used_folder(out: Path) -> None:
    """A second demo into the same folder would append to its runs: refuse it."""
    used = [out / "runs.jsonl"] + [out / suite.name / "runs.jsonl" for suite in SUITES]
    if any(path.exists() for path in used):
        raise ConfigError(f"{out} already holds a demo: choose another --out or remove it")


def _run_suites(
    root: Path, out: Path, console: Console
) -> tuple[dict[str, SuiteRun], list[RateCheck]]:
    say(
        console,
        "Each trial runs in a fresh world; Truth, Path and State grade what the agent did, "
        "not what it said.",
    )
    suites: dict[str, SuiteRun] = {}
    designed = {suite.name: designed_rates(suite) for suite in SUITES}
    family = sum(len(rates) for rates in designed.values())
    checks: list[RateCheck] = []
    for suite in SUITES:
        say(console, f"\n[bold]{suite.name}[/]: {suite.agent} on tasks/{suite.name}.yaml")
        run = run_suite(suite, root, out / suite.name)
        print_suite(run, console)
        suite_checks = rate_checks(run, designed[suite.name], family)
        print_rate_checks(suite, suite_checks, console)
        suites[suite.name] = run
        checks += suite_checks
    print_rate_summary(checks, console)
    return suites, checks
