"""Which numbers of a command's ``--json`` are rates, by one rule over the key names, so a
test can hold every rate, and both bounds of its interval, to [0, 1].

A number is a **rate** when the key it is under (or, in a list such as ``[low, high]``, the
key of the list) is

* a name ending in ``_rate`` (``false_pass_rate``, ``unscored_rate``, ``tool_error_rate``,
  ``raw_pass_rate``, ``max_flip_rate``), starting or ending in ``agreement``
  (``agreement``, ``agreement_with_judge``, ``agreement_on_kept``, ``guaranteed_agreement``),
  or starting with ``pass_at_`` or ``pass_hat_`` (``pass_at_1``, ``pass_at_k``,
  ``pass_hat_k``);
* one of :data:`RATE_NAMES` (sensitivity, specificity, precision, recall, F1, coverage, a
  side's ``rate``, an accuracy, a bound of the disagreement rate, the calibration of a
  confidence: ECE, Brier score, a bin's mean confidence and accuracy);
* an interval, a name ending in ``_ci`` or named ``ci``, except kappa's (``kappa_ci``,
  ``kappa_difference_ci``: kappa is not a rate);
* ``estimate``, ``low``, ``high`` or ``mean`` of an object under a rate's key
  (``ppi_pass_rate: {estimate, low, high}``, ``self_agreement: {mean, …}``);
* ``value``, ``low`` or ``high`` of a point of the monitor that counts ``successes`` (a
  proportion's point; a mean's point has ``successes: null``).

A number under a key starting with ``p_value`` is a **probability** (in [0, 1] too), and a
``difference`` of pass rates (the gate's) a **difference**, in [-1, 1].
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Literal

Kind = Literal["rate", "probability", "difference"]

RATE_NAMES = frozenset(
    {
        "sensitivity",
        "specificity",
        "precision",
        "recall",
        "f1",
        "coverage",
        "rate",
        "accuracy_a",
        "accuracy_b",
        "risk_upper",
        "ece",
        "brier",
        "mean_confidence",
        "accuracy",
    }
)
FIELDS_OF_A_RATE = frozenset({"estimate", "low", "high", "mean"})
FIELDS_OF_A_PROPORTION_POINT = frozenset({"value", "low", "high"})


def kind_of(key: str) -> Kind | None:
    """What the number under ``key`` is, by the rule of the module (None: not held to a range)."""
    if key.startswith("p_value"):
        return "probability"
    if key == "difference":
        return "difference"
    if key.endswith(("_rate", "agreement")) or key.startswith(
        ("agreement", "pass_at_", "pass_hat_")
    ):
        return "rate"
    if key in RATE_NAMES:
        return "rate"
    if (key == "ci" or key.endswith("_ci")) and not key.startswith("kappa"):
        return "rate"
    return None


def numbers(document: Any, path: str = "") -> Iterator[tuple[str, str, float]]:
    """Every number of a JSON document (booleans aside) as (path, its key, value)."""
    if isinstance(document, dict):
        for key, value in document.items():
            yield from _under(str(key), value, f"{path}.{key}")
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from numbers(value, f"{path}[{index}]")


def _under(key: str, value: Any, path: str) -> Iterator[tuple[str, str, float]]:
    if isinstance(value, int | float) and not isinstance(value, bool):
        yield path, key, float(value)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _under(key, item, f"{path}[{index}]")  # an interval: its key's kind
    else:
        yield from numbers(value, path)


def classified(document: Any) -> Iterator[tuple[str, Kind, float]]:
    """(path, kind, value) of every number of ``document`` the rule holds to a range."""
    yield from _classify(document, "", None)


def _classify(document: Any, path: str, inside: Kind | None) -> Iterator[tuple[str, Kind, float]]:
    if isinstance(document, list):
        for index, item in enumerate(document):
            yield from _classify(item, f"{path}[{index}]", inside)
        return
    if not isinstance(document, dict):
        return
    proportion_point = isinstance(document.get("successes"), int) and "value" in document
    for key, value in document.items():
        here = f"{path}.{key}"
        kind = kind_of(key)
        if inside == "rate" and key in FIELDS_OF_A_RATE:
            kind = "rate"
        if proportion_point and key in FIELDS_OF_A_PROPORTION_POINT:
            kind = "rate"
        if isinstance(value, dict):
            yield from _classify(value, here, "rate" if kind == "rate" else None)
        elif kind is not None:
            for sub_path, _, number in _under(key, value, here):
                yield sub_path, kind, number
        else:
            yield from _classify(value, here, None)


RANGES: dict[Kind, tuple[float, float]] = {
    "rate": (0.0, 1.0),
    "probability": (0.0, 1.0),
    "difference": (-1.0, 1.0),
}


def out_of_range(document: Any) -> list[str]:
    """Each classified number outside its range, as ``path = value (kind)``."""
    return [
        f"{path} = {value!r} ({kind})"
        for path, kind, value in classified(document)
        if not RANGES[kind][0] <= value <= RANGES[kind][1]
    ]


def rate_keys(document: Any) -> set[str]:
    """The last key name of every number the rule calls a rate (intervals' indices dropped)."""
    return {
        path.rsplit(".", 1)[-1].split("[", 1)[0]
        for path, kind, _ in classified(document)
        if kind == "rate"
    }
