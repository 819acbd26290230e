"""The promotion policy's criteria: enough runs compared, enough human labels in every
class, and the lower bound of the kappa interval at or above the bar; and how many more
labels would clear the bars."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from judgekit._util.number_format import UNDEFINED, confidence, threshold
from judgekit.calibration.agreement_statistics import AgreementFigures
from judgekit.formats.probe_file import ProbesFile, latest_probe
from judgekit.formats.rubric import PromotionPolicy, Score
from judgekit.stats import kappa_sample_size

__all__ = ["Criterion", "LabelsNeeded", "criteria", "flip_rate_criteria", "labels_needed"]


@dataclass(frozen=True)
class Criterion:
    """One promotion criterion: the value measured, the bar, and whether it is met."""

    name: str
    value: float | None
    bar: float
    met: bool
    what: str  # what the value is, for messages
    # keyword-only, so subclasses may add positional fields
    at_most: bool = field(default=False, kw_only=True)  # the value must be ≤ the bar
    missing: str | None = field(default=None, kw_only=True)  # what to do when unmeasured

    @property
    def short_by(self) -> float | None:
        """How far the value is on the wrong side of the bar (None when met or unmeasured)."""
        if self.met or self.value is None:
            return None
        return self.value - self.bar if self.at_most else self.bar - self.value

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "bar": self.bar,
            "met": self.met,
            "short_by": self.short_by,
            "what": self.what,
        }

    def explain(self) -> str:
        """One line: ``min_kappa: lower bound of the 95% kappa interval 0.512, bar 0.6
        (0.088 short)``."""
        value = UNDEFINED if self.value is None else threshold(self.value)
        text = f"{self.name}: {self.what} {value}, bar {threshold(self.bar)}"
        if self.short_by is not None:
            text += f" ({threshold(self.short_by)} {'over' if self.at_most else 'short'})"
        elif self.missing is not None and not self.met:
            text += f" (not met: {self.missing})"
        elif not self.met:
            text += " (not met)"
        return text


@dataclass(frozen=True)
class LabelsNeeded:
    """More labels needed: for ``min_labels``, and for the kappa interval's lower bound to
    reach ``min_kappa`` if kappa and the class balance hold (None when unreachable)."""

    for_min_labels: int
    for_kappa: int | None
    kappa_reachable: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "for_min_labels": self.for_min_labels,
            "for_kappa": self.for_kappa,
            "kappa_reachable": self.kappa_reachable,
        }


def criteria(
    policy: PromotionPolicy, human: list[Score], classes: list[Score], kappa_low: float | None
) -> list[Criterion]:
    """The policy's three criteria on the compared runs' human labels and kappa interval."""
    n = len(human)
    counts = Counter(human)
    fewest = min(classes, key=lambda c: counts.get(c, 0))
    fewest_n = counts.get(fewest, 0)
    percent = confidence(policy.confidence)
    return [
        Criterion("min_labels", n, policy.min_labels, n >= policy.min_labels, "runs compared"),
        Criterion(
            "min_per_class",
            fewest_n,
            policy.min_per_class,
            fewest_n >= policy.min_per_class,
            f"fewest human labels in a class ({fewest})",
        ),
        Criterion(
            "min_kappa",
            kappa_low,
            policy.min_kappa,
            kappa_low is not None and kappa_low >= policy.min_kappa,
            f"lower bound of the {percent} kappa interval",
        ),
    ]


def flip_rate_criteria(
    policy: PromotionPolicy, probes: ProbesFile | None, *, version: str
) -> list[Criterion]:
    """One ``max_flip_rate.<bias>`` criterion per bar the policy sets: the upper bound of the
    latest probe of this rubric version must be at or below it; never probed is not met."""
    if policy.max_flip_rate is None:
        return []
    found = []
    for bias, bar in policy.max_flip_rate.bars().items():
        probe = latest_probe(probes, version=version, bias=bias)  # type: ignore[arg-type]
        high = None if probe is None else probe.ci[1]
        level = "" if probe is None else f"{confidence(probe.confidence)} "
        measured = "self-preference" if bias == "self" else "flip-rate"
        what = f"upper bound of the {level}{measured} interval"
        found.append(
            Criterion(
                f"max_flip_rate.{bias}",
                high,
                bar,
                high is not None and high <= bar,
                what,
                at_most=True,
                missing=f"run `judgekit probe --bias {bias}` first"
                if probe is None
                else "the probe compared no runs",
            )
        )
    return found


def labels_needed(policy: PromotionPolicy, n: int, figures: AgreementFigures) -> LabelsNeeded:
    kappa, se = figures.kappa, figures.kappa_se
    for_kappa: int | None = None
    if kappa is not None and se is not None:
        for_kappa = kappa_sample_size(
            kappa, n, bar=policy.min_kappa, confidence=policy.confidence, standard_error=se
        )
    return LabelsNeeded(
        for_min_labels=max(0, policy.min_labels - n),
        for_kappa=for_kappa,
        kappa_reachable=for_kappa is not None,
    )
