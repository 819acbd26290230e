"""Who gave a verdict and whether that judge can be trusted, as every export carries it.

The judge's identity: the rubric id and version, the judge model (``provider/model``), the
endpoint it was asked at when the verdict records one (shown without credentials, query or
fragment: :func:`~judgekit._util.endpoint_url.shown_endpoint`) and judgekit's version. Its
standing: the promotion the verdict stands on — kappa with its interval on the held-out
labels, how many, when, and the promotion record's path and digest so a reader can check
it — or why it stands on none. Which promotion a verdict stands on is decided above the
exporters (:mod:`judgekit.calibration.verdict_promotion`, the gate's and the monitor's rule),
and handed in as a :data:`StandingOf`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from judgekit.formats.promotion import PromotionRecord
from judgekit.formats.verdict import Verdict

__all__ = [
    "NOT_CHECKED",
    "Promotion",
    "Standing",
    "StandingOf",
    "promotion_details",
    "standing_of_record",
]

# Asked of each verdict: the promotion record (and its file) it stands on, or why none.
StandingOf = Callable[[Verdict], "tuple[PromotionRecord, Path] | str"]
NOT_CHECKED: Final = "its promotion was not checked"


@dataclass(frozen=True)
class Promotion:
    """The promotion a verdict stands on, as exported: kappa and its interval on the
    ``n_held_out`` test labels compared, the date, and the record to check it by."""

    kappa: float
    kappa_ci_low: float
    kappa_ci_high: float
    interval_method: str
    n_held_out: int
    promoted_at: str
    record: str
    digest: str


# A verdict's standing: the promotion it stands on, or why it stands on none.
Standing = Promotion | str


def standing_of_record(found: tuple[PromotionRecord, Path] | str) -> Standing:
    """The standing of a verdict found to stand on a record (a reason is kept as is). A
    record lacking a figure an export carries stands on nothing: the check that let it
    through requires them all."""
    if isinstance(found, str):
        return found
    record, path = found
    ci = record.kappa_ci or []
    low, high = (ci[0], ci[1]) if len(ci) == 2 else (None, None)
    kappa, n, method = record.kappa, record.n, record.interval_method
    at, digest = record.promoted_at, record.digest
    if (
        low is None
        or high is None
        or kappa is None
        or n is None
        or method is None
        or at is None
        or digest is None
    ):
        return f"its promotion record {path} lacks kappa, its interval, n, its date or digest"
    return Promotion(kappa, low, high, method, n, at, str(path), digest)


def promotion_details(standing: Standing) -> dict[str, Any]:
    """What a tool's metadata carries of a verdict's standing: ``promoted``, then the
    promotion's figures under ``promotion`` or the reason under ``not_promoted``."""
    if isinstance(standing, str):
        return {"promoted": False, "not_promoted": standing}
    return {"promoted": True, "promotion": dataclasses.asdict(standing)}
