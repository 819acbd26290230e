"""The selective-judging benchmark at 200 draws: fixed-sequence testing keeps agreement on
the kept test verdicts ≥ 1 − α in at least 1 − δ of the draws (less a binomial slack), and
the plug-in threshold, chosen on measured agreement alone, does not."""

from __future__ import annotations

import importlib.util
import math
import sys
from types import ModuleType

from tests.conftest import REPO

DRAWS, ALPHA, DELTA = 200, 0.1, 0.1


def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "selective_guarantee", REPO / "bench" / "selective_guarantee.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_fixed_sequence_keeps_the_guarantee_and_plug_in_does_not() -> None:
    fixed, plug = bench().run(
        draws=DRAWS, alpha=ALPHA, delta=DELTA, seed=16, n_calibration=300, n_test=1000, samples=7
    )
    # Held in exactly this many of the 200 seeded draws.
    assert (fixed.held, fixed.kept_none, plug.held, plug.kept_none) == (197, 0, 160, 0)
    # Were the true share exactly 1 − δ, 200 draws would fall two standard errors below it
    # about 2.5% of the time: that is the slack allowed.
    slack = 2 * math.sqrt(DELTA * (1 - DELTA) / DRAWS)
    assert fixed.share_held(DRAWS) >= 1 - DELTA - slack
    assert plug.share_held(DRAWS) < 1 - DELTA
    assert round(fixed.mean_coverage(DRAWS), 3) == 0.770
    assert round(plug.mean_coverage(DRAWS), 3) == 0.823
