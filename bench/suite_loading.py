"""Suite loading benchmark: judgekit's ``load_tasks`` against libyaml parsing the same file.

Usage::

    python bench/suite_loading.py [--tasks N] [--repeat R] [--out DIR] [--profile]

It writes one suite of N small tasks (default 20,000: an input, one expected tool call with
a matcher, one expected state value, shared defaults and initial state; the same bytes for
the same N), then times, in this process, best of R:

* ``load_tasks``: judgekit end to end (compose the YAML within bounds with the line of
  every key, construct it, apply defaults, validate every task and compile its matchers,
  index by id);
* ``baseline``: ``yaml.load(text, Loader=yaml.CSafeLoader)`` of the same file (libyaml's C
  parser and PyYAML's constructor): the floor of reading the file at all, no lines, no
  validation;
* with ``--pure``, once: ``load_tasks`` with libyaml's parser switched off (how judgekit read
  suites before it used libyaml);
* once, ``load_tasks`` of the same suite with its last task wrong (``order: sideways``): the
  time to the error, its line included.

It prints tasks per second, the ratio of the two, and the ratio to the target: the whole
suite loaded in at most 4 s (5,000 tasks/s), by wall time and by CPU time (what a core does
however busy the machine is).
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from judgekit._util import yamlfile
from judgekit.errors import DataError
from judgekit.formats.task import load_tasks

TARGET_TASKS_PER_S = 5_000

HEADER = """\
suite: bench_small
description: Generated for bench/suite_loading.py, many small tasks.
initial_state:
  orders:
    A100: {status: delivered, total: 40.0, refunded: 0}
    A101: {status: shipped, total: 25.5, refunded: 0}
  emails: []
defaults:
  max_tool_error_rate: 0.25
  order: unordered
tasks:
"""

TASK = """\
  - id: task_{i:05d}
    input: "Order A{order} arrived broken: refund it and email customer {i}."
    expect_tools:
      - name: issue_refund
        args: {{order_id: A{order}, amount: {{$approx: {amount}}}}}
    expect_state:
      orders.A{order}.refunded: {amount}
"""


def suite_text(n_tasks: int) -> str:
    parts = [HEADER]
    for i in range(n_tasks):
        parts.append(TASK.format(i=i, order=100 + i % 2, amount=40 if i % 2 == 0 else 25.5))
    return "".join(parts)


def _best(function: Callable[[], object], repeat: int) -> tuple[float, float]:
    """The best wall time of ``repeat`` calls, and the CPU time of that call."""
    best = (float("inf"), float("inf"))
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        function()
        best = min(best, (time.perf_counter() - wall, time.process_time() - cpu))
    return best


def _load_pure(path: Path) -> object:
    """load_tasks with libyaml's parser switched off: judgekit's pure-Python reading."""
    saved, yamlfile._CParser = yamlfile._CParser, None
    try:
        return load_tasks(path)
    finally:
        yamlfile._CParser = saved


def _load_bad(path: Path) -> str:
    """load_tasks of a suite whose last task is wrong: the error, with its line."""
    try:
        load_tasks(path)
    except DataError as exc:
        return str(exc)
    raise SystemExit(f"{path} loaded; expected an error in its last task")


def bench(n_tasks: int, work: Path, repeat: int, profile: bool, pure: bool) -> None:
    path = work / "bench_small.yaml"
    text = suite_text(n_tasks)
    path.write_text(text, encoding="utf-8")
    bad = work / "bench_bad.yaml"
    bad.write_text(text + "    order: sideways\n", encoding="utf-8")
    print(
        f"judgekit suite loading benchmark: {n_tasks:,} tasks, {len(text) / 2**20:.1f} MB, "
        f"python {sys.version.split()[0]}, PyYAML {yaml.__version__} "
        f"(libyaml {'yes' if yaml.__with_libyaml__ else 'NO'}); best of {repeat}; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )
    loaded = load_tasks(path)
    if len(loaded) != n_tasks:
        raise SystemExit(f"loaded {len(loaded)} tasks, expected {n_tasks}")
    timed = {
        "load_tasks (judgekit)": _best(lambda: load_tasks(path), repeat),
        "yaml.load, CSafeLoader (baseline)": _best(
            lambda: yaml.load(path.read_text("utf-8"), Loader=yaml.CSafeLoader), repeat
        ),
    }
    if pure:
        timed["load_tasks, pure-Python parser"] = _best(lambda: _load_pure(path), 1)
    # The time to an error, its line included: once.
    timed["load_tasks, last task wrong"] = _best(lambda: _load_bad(bad), 1)
    print(f"{'':<34} {'wall s':>7} {'cpu s':>7} {'tasks/s':>9}")
    for name, (wall, cpu) in timed.items():
        print(f"{name:<34} {wall:7.2f} {cpu:7.2f} {n_tasks / wall:9,.0f}")
    judgekit_s, judgekit_cpu = timed["load_tasks (judgekit)"]
    baseline_s, baseline_cpu = timed["yaml.load, CSafeLoader (baseline)"]
    rate, cpu_rate = n_tasks / judgekit_s, n_tasks / judgekit_cpu
    verdict = "meets" if rate >= TARGET_TASKS_PER_S else "MISSES"
    print(
        f"ratio {judgekit_s / baseline_s:.2f}x the baseline's time "
        f"({judgekit_cpu / baseline_cpu:.2f}x its CPU time); target "
        f"{TARGET_TASKS_PER_S:,} tasks/s ({n_tasks:,} tasks in {n_tasks / TARGET_TASKS_PER_S:g} s): "
        f"{verdict}, {rate:,.0f} tasks/s = {rate / TARGET_TASKS_PER_S:.2f}x the target "
        f"({cpu_rate:,.0f} tasks per CPU second = {cpu_rate / TARGET_TASKS_PER_S:.2f}x)"
    )
    print(f"(its error: {_load_bad(bad).replace(str(work), '…')})")
    if profile:
        profiler = cProfile.Profile()
        profiler.enable()
        load_tasks(path)
        profiler.disable()
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(30)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Suite loading benchmark (see the module doc).")
    parser.add_argument("--tasks", type=int, default=20_000, help="tasks in the suite (20000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed loads, best kept (3)")
    parser.add_argument("--out", type=Path, default=None, help="keep the suite here")
    parser.add_argument("--profile", action="store_true", help="also cProfile one load")
    parser.add_argument(
        "--pure", action="store_true", help="also time one load with the pure-Python parser"
    )
    args = parser.parse_args(argv)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        bench(args.tasks, args.out, max(args.repeat, 1), args.profile, args.pure)
        return
    with tempfile.TemporaryDirectory(prefix="judgekit-bench-") as tmp:
        bench(args.tasks, Path(tmp), max(args.repeat, 1), args.profile, args.pure)


if __name__ == "__main__":
    main()
