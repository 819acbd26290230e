"""Bootstrap kappa interval benchmark: 2,000 resamples over 1,000,000 binary label pairs.

Usage::

    python bench/calibration_bootstrap.py [--n N] [--resamples B] [--seed S]

Pinned to one core (``os.sched_setaffinity(0, {0})``), it times, on the same seeded labels
(a judge with sensitivity 0.85 and specificity 0.9 on 30% human passes):

* ``analytic``: ``kappa_interval(method="analytic")``, end to end from Python lists;
* ``bootstrap``: ``kappa_interval(method="bootstrap", n_resamples=B)``, end to end. The
  resampled confusion table is drawn as Multinomial(n, table / n), which is exactly the
  distribution of the table of n pairs resampled with replacement; kappa depends on the pairs
  only through the table, so this is the same bootstrap in O(B · K²) instead of O(B · n);
* ``index``: the index-resampling form (chunks of (rows, n) int32 indices, pairs encoded
  a·K + b, one flat ``np.bincount`` with K² offsets per row), timed on a few resamples at
  full n and extrapolated to B: the floor of any method that draws B · n indices;
* ``naive``: a Python loop per resample (``random.choices`` of pairs, then counting),
  timed at a smaller n and a few resamples and extrapolated linearly to n and B.

The encoding of the 10⁶ labels into integer codes (a dict lookup per label) is in the
end-to-end times and shown on its own.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter

import numpy as np

from judgekit.stats import cohen_kappa_score, kappa_interval
from judgekit.stats._validation import encode_pairs
from judgekit.stats.agreement import (
    _bootstrap_tables_by_index,
)
from judgekit.stats.agreement import disagreement_weights as _disagreement_weights
from judgekit.stats.agreement import table_kappas as _kappas


def labels(n: int, seed: int) -> tuple[list[int], list[int]]:
    rng = np.random.default_rng(seed)
    human = rng.random(n) < 0.3
    judge = np.where(human, rng.random(n) < 0.85, rng.random(n) < 0.1)
    return human.astype(int).tolist(), judge.astype(int).tolist()


def timed(function, *args, **kwargs):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def naive_kappas(y1: list[int], y2: list[int], resamples: int, seed: int) -> list[float]:
    pairs = list(zip(y1, y2, strict=True))
    rng = random.Random(seed)
    out = []
    for _ in range(resamples):
        counts = Counter(rng.choices(pairs, k=len(pairs)))
        n = len(pairs)
        p_o = (counts[(0, 0)] + counts[(1, 1)]) / n
        r1 = (counts[(1, 0)] + counts[(1, 1)]) / n
        c1 = (counts[(0, 1)] + counts[(1, 1)]) / n
        p_e = r1 * c1 + (1 - r1) * (1 - c1)
        out.append((p_o - p_e) / (1 - p_e))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    os.sched_setaffinity(0, {0})
    n, b = args.n, args.resamples
    y1, y2 = labels(n, args.seed)
    print(f"{n:,} binary pairs, {b:,} resamples, one core (cpu 0)")
    print(f"kappa = {cohen_kappa_score(y1, y2):.4f}")

    t_encode, pairs = timed(encode_pairs, y1, y2)
    t_analytic, analytic = timed(kappa_interval, y1, y2)
    t_boot, boot = timed(kappa_interval, y1, y2, method="bootstrap", n_resamples=b, seed=1)
    t_boot2, _ = timed(kappa_interval, y1, y2, method="bootstrap", n_resamples=b, seed=2)
    best_boot = min(t_boot, t_boot2)

    few = 20
    weights = _disagreement_weights(pairs.k, None)
    t_index, tables = timed(_bootstrap_tables_by_index, pairs, few, np.random.default_rng(3))
    index_kappas = _kappas(tables, weights)
    t_index_full = t_index * b / few

    small_n, small_b = 20_000, 5
    t_naive, naive = timed(naive_kappas, y1[:small_n], y2[:small_n], small_b, 4)
    t_naive_full = t_naive * (n / small_n) * (b / small_b)

    print()
    print(f"{'method':<46}{'seconds':>12}")
    print(f"{'encode labels (part of both end-to-end times)':<46}{t_encode:>12.3f}")
    print(f"{'analytic interval, end to end':<46}{t_analytic:>12.3f}")
    print(f"{'bootstrap interval, end to end (best of 2)':<46}{best_boot:>12.3f}")
    print(
        f"{'index resampling + bincount (extrapolated)':<46}{t_index_full:>12.1f}"
        f"   ({few} resamples took {t_index:.2f} s)"
    )
    print(
        f"{'naive Python loop (extrapolated)':<46}{t_naive_full:>12.0f}"
        f"   ({small_b} resamples of {small_n:,} took {t_naive:.2f} s)"
    )
    print()
    print(f"analytic  95% interval: ({analytic[0]:.4f}, {analytic[1]:.4f})")
    print(f"bootstrap 95% interval: ({boot[0]:.4f}, {boot[1]:.4f})")
    print(
        f"index-resampled kappas ({few}): mean {np.mean(index_kappas):.4f}, "
        f"sd {np.std(index_kappas, ddof=1):.4f}; naive ({small_b} at n={small_n:,}): "
        f"mean {np.mean(naive):.4f}"
    )
    target = 3.0
    verdict = "meets" if best_boot < target else "MISSES"
    print(
        f"bootstrap end to end {best_boot:.3f} s {verdict} the {target:.0f} s target; "
        f"{t_index_full / best_boot:,.0f}x faster than index resampling, "
        f"{t_naive_full / best_boot:,.0f}x faster than the naive loop"
    )


if __name__ == "__main__":
    main()
