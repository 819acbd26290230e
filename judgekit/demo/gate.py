"""Step 6: a change that broke refunds, caught by the gate.

The candidate is the shop stub after a change (``examples.shop:regressed_agent``): refund_full
now refunds twice 60% of the time instead of 25% (designed 0.75 → 0.40), every other task
behaves exactly as before, trial for trial. The gate compares the candidate's results with
the shop run of step 1 as ``judgekit gate`` does, and must fail refund_full alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from rich.console import Console

from judgekit._util.number_format import p_equation
from judgekit.demo.common import SHOP, DemoSuite, say
from judgekit.demo.storage import record_suite
from judgekit.demo.trials import SuiteRun, run_suite
from judgekit.formats.grade import load_results
from judgekit.gate.compare import GateReport, compare_results
from judgekit.gate.render import print_gate_report
from judgekit.store import Store

CANDIDATE: Final = DemoSuite(SHOP.name, "examples.shop:regressed_agent")


@dataclass(frozen=True)
class GateOutcome:
    candidate: SuiteRun
    batch_id: int
    report: GateReport


def gate_a_regression(
    baseline: SuiteRun, root: Path, out: Path, store: Store, console: Console
) -> GateOutcome:
    """Run the regressed stub over the shop suite, record it, and gate it."""
    folder = out / "shop-candidate"
    say(
        console,
        f"candidate: {CANDIDATE.agent}, the shop stub after a change that broke refunds "
        "(refund_full refunds twice 60% of the time instead of 25%; nothing else changed)",
    )
    candidate = run_suite(CANDIDATE, root, folder)
    batch_id = record_suite(store, candidate, root)
    report = compare_results(load_results(baseline.results_file), load_results(folder))
    print_gate_report(report, console)
    suite = report.suite.p_value
    if suite is not None and suite >= report.alpha:
        say(
            console,
            f"the pass rate of all runs pooled ({p_equation(suite)}) would not have caught it: "
            "the gate tests each task",
        )
    say(
        console,
        f"the same from the command line: judgekit gate --baseline {baseline.folder} "
        f"--candidate {folder} (exit 1: the gate said no); candidate recorded in batch "
        f"{batch_id}",
    )
    return GateOutcome(candidate, batch_id, report)
