"""How judgekit prints numbers, so one value reads the same in every command and report.

* p-values: three decimals (``0.500``, ``0.018``), four when three would read ``0.000``
  (``0.0004``), and ``<0.0001`` below that, since smaller values say nothing more a
  reader can use. In a table cell the value stands alone (:func:`p_value`); in a sentence it
  is ``p = 0.018`` or ``p < 0.0001`` (:func:`p_equation`).
* rates: two decimals (``0.70``); intervals of rates: ``0.54–0.67``.
* relative changes: a signed whole percent (``+125%``), ``from 0`` when the value before
  was 0.

An undefined value (``None`` or NaN) prints as ``—``.
"""

from __future__ import annotations

import math

__all__ = ["DASH", "interval", "p_equation", "p_value", "rate", "relative_change"]

DASH = "—"  # an undefined value
P_FLOOR = 0.0001  # below this a p-value prints as "<0.0001"


def p_value(p: float | None) -> str:
    """A p-value as a table cell shows it.

    >>> [p_value(p) for p in (1.0, 0.5, 0.0181, 0.00042, 0.00001, 0.0, None)]
    ['1.000', '0.500', '0.018', '0.0004', '<0.0001', '<0.0001', '—']
    """
    if p is None or math.isnan(p):
        return DASH
    if p < P_FLOOR:
        return f"<{P_FLOOR}"
    three = f"{p:.3f}"
    return f"{p:.4f}" if three == "0.000" else three


def p_equation(p: float | None) -> str:
    """A p-value as a sentence says it.

    >>> p_equation(0.0181), p_equation(0.00001), p_equation(float("nan"))
    ('p = 0.018', 'p < 0.0001', 'p = —')
    """
    text = p_value(p)
    return f"p < {text[1:]}" if text.startswith("<") else f"p = {text}"


def rate(value: float | None) -> str:
    """A rate (a share of runs, a pass rate) with two decimals.

    >>> rate(0.7), rate(2 / 3), rate(None)
    ('0.70', '0.67', '—')
    """
    return DASH if value is None or math.isnan(value) else f"{value:.2f}"


def interval(low: float | None, high: float | None) -> str:
    """An interval of rates, bounds with two decimals joined by an en dash.

    >>> interval(0.5412, 0.6733), interval(None, 0.5)
    ('0.54–0.67', '—')
    """
    if low is None or high is None or math.isnan(low) or math.isnan(high):
        return DASH
    return f"{low:.2f}–{high:.2f}"


def relative_change(change: float | None) -> str:
    """A relative change (1.0 = doubled) as a signed whole percent.

    >>> relative_change(1.25), relative_change(-0.034), relative_change(0.0)
    ('+125%', '-3%', '+0%')
    >>> relative_change(float("inf")), relative_change(None)
    ('from 0', '—')
    """
    if change is None or math.isnan(change):
        return DASH
    return "from 0" if math.isinf(change) else f"{change:+.0%}"
