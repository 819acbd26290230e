"""Trials per second, and the harness's overhead per trial, for a trivial in-process agent.

    python bench/trial_overhead.py [--trials 2000]

The baseline is the agent function called directly in a loop on a world of the same state;
the overhead per trial is (harness time - baseline time) / trials, measured in the same run.
Measured three ways: the bare trial (fresh world, seeded rng, caps, the Run record), the
trial with the wall-time supervisor thread, and the whole ``run_trials`` pipeline (grading
and appending runs.jsonl, results.jsonl and results.csv) at concurrency 1 and 8.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from judgekit import Task, World, load_tasks
from judgekit.trials.in_process import run_in_process_trial
from judgekit.trials.runner import TrialLimits, in_process_trials, run_trials

SUITE = """\
suite: bench
initial_state: {orders: {A100: {status: delivered, total: 40, refunded: 0}}, emails: []}
tasks:
"""


def trivial_agent(task: Task, world: World) -> str:
    return "done"


def best_of(repeats: int, work: Callable[[], None]) -> float:
    """The fastest of several timings: the least disturbed by the rest of the machine."""
    timings = []
    for _ in range(repeats):
        started = time.perf_counter()
        work()
        timings.append(time.perf_counter() - started)
    return min(timings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=2000, help="trials per measurement")
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args()
    n = options.trials
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        suite_file = root / "bench.yaml"
        suite_file.write_text(
            SUITE + "".join(f"  - id: t{i}\n    max_tool_error_rate: 1\n" for i in range(10)),
            encoding="utf-8",
        )
        tasks = load_tasks(suite_file)
        task = next(iter(tasks))
        state: dict[str, Any] = task.initial_state or {}

        def direct() -> None:
            for trial in range(n):
                trivial_agent(task, World(state=state, tools={}, rng=random.Random(trial)))

        def bare(timeout: float | None) -> Callable[[], None]:
            def work() -> None:
                for trial in range(1, n + 1):
                    run_in_process_trial(
                        trivial_agent, task, trial=trial, tools={}, timeout_s=timeout
                    )

            return work

        runs = 0

        def pipeline(concurrency: int) -> Callable[[], None]:
            def work() -> None:
                nonlocal runs
                runs += 1
                trial = in_process_trials(tasks, trivial_agent, TrialLimits())
                run_trials(
                    tasks,
                    trial,
                    trials=n // len(tasks),
                    out_dir=root / f"out{runs}",
                    concurrency=concurrency,
                )

            return work

        baseline = best_of(options.repeats, direct)
        rows = [
            ("agent called directly (baseline)", baseline),
            ("trial, no wall-time cap", best_of(options.repeats, bare(None))),
            ("trial with wall-time cap (300 s)", best_of(options.repeats, bare(300.0))),
            ("run_trials, concurrency 1", best_of(options.repeats, pipeline(1))),
            ("run_trials, concurrency 8", best_of(options.repeats, pipeline(8))),
        ]
    print(f"{n} trials of a trivial in-process agent, best of {options.repeats}\n")
    print(f"{'':38}{'trials/s':>12}{'overhead/trial':>18}")
    for name, seconds in rows:
        overhead_ms = (seconds - baseline) / n * 1000
        shown = "—" if name.startswith("agent") else f"{overhead_ms:.3f} ms"
        print(f"{name:38}{n / seconds:>12,.0f}{shown:>18}")
    harness = [(s - baseline) / n * 1000 for name, s in rows[1:3]]
    print(
        f"\nharness overhead per trial (fresh world, seed, caps, Run record): "
        f"{statistics.mean(harness):.3f} ms (target < 0.2 ms)"
    )


if __name__ == "__main__":
    main()
