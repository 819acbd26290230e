"""The monitor's drift alert on simulated series: false alarms when nothing changed, and
how often a real drop is caught.

    python bench/monitor_alerts.py [--series 4000] [--runs 500] [--rate 0.8] [--drop 0.1]

Each series is eight windows (days) of ``--runs`` graded runs; the alert tests the last
against the seven before it, exactly as ``judgekit monitor`` does (alpha 0.01). The
baseline, computed in the same run, is alpha itself: the false-alarm rate a one-sided test
at that level should give.
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta

import numpy as np

from judgekit.monitoring.alerts import AlertPolicy, evaluate_alerts
from judgekit.monitoring.model import Series
from judgekit.monitoring.points import proportion_point
from judgekit.stats.proportions import wilson_interval

START = datetime(2026, 11, 1, tzinfo=UTC)


def alerted(rng: np.random.Generator, rates: list[float], runs: int) -> bool:
    points = [
        proportion_point(f"day {i}", START + timedelta(days=i), runs, int(rng.binomial(runs, r)))
        for i, r in enumerate(rates)
    ]
    series = Series("pass_rate", "pass rate", "proportion", "gating", points)
    return evaluate_alerts([series])[0].alert is not None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--series", type=int, default=4000)
    parser.add_argument("--runs", type=int, default=500)
    parser.add_argument("--rate", type=float, default=0.8)
    parser.add_argument("--drop", type=float, default=0.1)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    alpha = AlertPolicy().alpha
    stable = sum(alerted(rng, [args.rate] * 8, args.runs) for _ in range(args.series))
    dropped = [args.rate] * 7 + [args.rate - args.drop]
    caught = sum(alerted(rng, dropped, args.runs) for _ in range(args.series))
    for what, hits in (("false alarms, stable series", stable), ("drops caught", caught)):
        low, high = wilson_interval(hits, args.series)
        print(
            f"{what}: {hits}/{args.series} = {hits / args.series:.2%} (95% CI {low:.2%}–{high:.2%})"
        )
    print(f"baseline: alpha = {alpha:.2%}, the false-alarm rate the test is built to give")
    print(f"windows of {args.runs} runs at {args.rate:.2f}; the drop: -{args.drop:.2f}")


if __name__ == "__main__":
    main()
