"""How judgekit prints numbers: one function per kind of number, so one value reads the same
in every command and in the HTML report.

* p-values: three decimals (``0.500``, ``0.018``), four when three would read ``0.000``
  (``0.0004``), and ``<0.0001`` below that, since smaller values say nothing more a
  reader can use. In a table cell the value stands alone (:func:`p_value`); in a sentence it
  is ``p = 0.018`` or ``p < 0.0001`` (:func:`p_equation`).
* rates (pass rates, error rates set by the demo): two decimals (``0.70``); their intervals
  ``0.54–0.67`` (:func:`interval`), in the demo's rate checks ``[0.54, 0.67]``.
* statistics (kappa, agreement, AC1, a measured error rate, a monitored proportion): three
  decimals (``0.512``); their intervals ``[0.301, 0.723]`` (:func:`bracketed_interval`) or,
  in the demo's table, ``0.301–0.723`` (:func:`statistic_interval`).
* percentages: :func:`percent` (``45.0%``), a confidence level :func:`confidence` (``95%``),
  a relative change :func:`relative_change` (``+125%``).
* money: :func:`dollars` (``$0.0123``), a table cell in USD :func:`cost` (``0.0123``), a plot's
  axis :func:`axis_dollars` (``$0.01234``, four significant digits).
* means and counts: :func:`mean_count` (turns, ``3.5``), :func:`whole` (``4``), a size in
  bytes :func:`byte_count` (``18,204``), a monitored
  mean :func:`monitor_mean` (``12.35``) and its spread :func:`half_width` (``±0.12``).
* values in sentences: :func:`threshold` (a bar and what is set against it, ``0.6``),
  :func:`significant` (``0.0881``), :func:`alert_value` (``0.123``, ``12.3``).
* settings as the user gave them (alpha, a timeout, a minimum pass rate): :func:`setting`
  (``0.05``, ``30``); a duration :func:`duration` (``12.3 s``).

A missing value (``None`` or NaN) prints as ``—``; a statistic that cannot be computed prints
as ``undefined``. Functions taking ``undefined=`` print that text instead where a command says
it otherwise.
"""

from __future__ import annotations

import math

__all__ = [
    "DASH",
    "UNDEFINED",
    "alert_value",
    "axis_dollars",
    "bracketed_interval",
    "byte_count",
    "confidence",
    "cost",
    "dollars",
    "duration",
    "go_duration",
    "half_width",
    "interval",
    "mean_count",
    "monitor_mean",
    "p_equation",
    "p_value",
    "percent",
    "rate",
    "relative_change",
    "setting",
    "significant",
    "statistic",
    "statistic_interval",
    "threshold",
    "whole",
]

DASH = "—"  # a missing value
UNDEFINED = "undefined"  # a statistic that cannot be computed (one class throughout)
P_FLOOR = 0.0001  # below this a p-value prints as "<0.0001"


def _missing(*values: float | None) -> bool:
    return any(value is None or math.isnan(value) for value in values)


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

    >>> rate(0.7), rate(2 / 3), rate(0.0), rate(1.0), rate(None), rate(float("nan"))
    ('0.70', '0.67', '0.00', '1.00', '—', '—')
    """
    return DASH if _missing(value) else f"{value:.2f}"


def interval(low: float | None, high: float | None) -> str:
    """An interval of rates, bounds with two decimals joined by an en dash.

    >>> interval(0.5412, 0.6733), interval(0.0, 1.0), interval(None, 0.5)
    ('0.54–0.67', '0.00–1.00', '—')
    """
    if _missing(low, high):
        return DASH
    return f"{low:.2f}–{high:.2f}"


def statistic(value: float | None, *, undefined: str = UNDEFINED) -> str:
    """A statistic (kappa, agreement, AC1, a measured error rate) with three decimals.

    >>> statistic(0.51234), statistic(-0.2), statistic(0.0), statistic(1.0)
    ('0.512', '-0.200', '0.000', '1.000')
    >>> statistic(None), statistic(float("nan")), statistic(None, undefined="—")
    ('undefined', 'undefined', '—')
    """
    return undefined if _missing(value) else f"{value:.3f}"


def bracketed_interval(low: float | None, high: float | None, *, decimals: int = 3) -> str:
    """The interval of a statistic in brackets, as the calibration report prints it (the
    demo's interval of a pass rate has two decimals).

    >>> bracketed_interval(0.7354, 0.9651), bracketed_interval(-0.1, 1.0)
    ('[0.735, 0.965]', '[-0.100, 1.000]')
    >>> bracketed_interval(0.5412, 0.6733, decimals=2), bracketed_interval(0.0, 1.0, decimals=2)
    ('[0.54, 0.67]', '[0.00, 1.00]')
    >>> bracketed_interval(None, 0.5), bracketed_interval(0.1, float("nan"))
    ('[undefined]', '[undefined]')
    """
    if _missing(low, high):
        return f"[{UNDEFINED}]"
    return f"[{low:.{decimals}f}, {high:.{decimals}f}]"


def statistic_interval(low: float | None, high: float | None) -> str:
    """The interval of a statistic joined by an en dash, as the demo's table prints it.

    >>> statistic_interval(0.7354, 0.9651), statistic_interval(-0.1, 0.0)
    ('0.735–0.965', '-0.100–0.000')
    >>> statistic_interval(None, 0.5)
    '—'
    """
    if _missing(low, high):
        return DASH
    return f"{low:.3f}–{high:.3f}"


def percent(value: float | None, *, decimals: int = 1, undefined: str = DASH) -> str:
    """A share as a percentage: one decimal unless ``decimals`` says otherwise.

    >>> percent(0.45), percent(0.0), percent(1.0), percent(2 / 3, decimals=0)
    ('45.0%', '0.0%', '100.0%', '67%')
    >>> percent(0.9975, decimals=2), percent(None), percent(None, undefined="undefined")
    ('99.75%', '—', 'undefined')
    """
    return undefined if _missing(value) else f"{value:.{decimals}%}"


def confidence(level: float) -> str:
    """A confidence level as a whole percent.

    >>> confidence(0.95), confidence(0.9), confidence(0.0), confidence(1.0)
    ('95%', '90%', '0%', '100%')
    """
    return f"{level:.0%}"


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


def cost(value: float | None) -> str:
    """A cost in a column headed USD: four decimals, no sign.

    >>> cost(0.01234), cost(0.0), cost(1.5), cost(None)
    ('0.0123', '0.0000', '1.5000', '—')
    """
    return DASH if _missing(value) else f"{value:.4f}"


def dollars(value: float) -> str:
    """A cost in a sentence: four decimals after a dollar sign.

    >>> dollars(0.01234), dollars(0.0), dollars(12.5)
    ('$0.0123', '$0.0000', '$12.5000')
    """
    return f"${value:.4f}"


def axis_dollars(value: float, _position: float | None = None) -> str:
    """A plot's cost axis: four significant digits after a dollar sign (the signature of a
    matplotlib tick formatter).

    >>> axis_dollars(0.01234), axis_dollars(0.0), axis_dollars(12.5), axis_dollars(-0.002)
    ('$0.01234', '$0', '$12.5', '$-0.002')
    """
    return f"${value:.4g}"


def mean_count(value: float | None, *, decimals: int = 1) -> str:
    """A mean of counts (turns, expected misses): one decimal unless ``decimals`` says
    otherwise.

    >>> mean_count(3.46), mean_count(0.0), mean_count(1.0), mean_count(0.4, decimals=2)
    ('3.5', '0.0', '1.0', '0.40')
    >>> mean_count(None)
    '—'
    """
    return DASH if _missing(value) else f"{value:.{decimals}f}"


def whole(value: float | None) -> str:
    """A count held as a float (the most turns of a task), rounded to a whole number.

    >>> whole(4.0), whole(0.0), whole(2.6), whole(None)
    ('4', '0', '3', '—')
    """
    return DASH if _missing(value) else f"{value:.0f}"


def byte_count(value: int) -> str:
    """A size in bytes, its thousands separated.

    >>> byte_count(18204)
    '18,204'
    """
    return f"{value:,}"


def monitor_mean(value: float | None) -> str:
    """A monitored mean (turns, cost per run): four significant digits.

    >>> monitor_mean(12.3456), monitor_mean(0.0012345), monitor_mean(0.0), monitor_mean(1.0)
    ('12.35', '0.001234', '0', '1')
    >>> monitor_mean(12345.6), monitor_mean(-3.5), monitor_mean(None)
    ('1.235e+04', '-3.5', '—')
    """
    return DASH if _missing(value) else f"{value:.4g}"


def half_width(half: float) -> str:
    """The spread of a monitored mean: ± half its interval, two significant digits.

    >>> half_width(0.1234), half_width(0.0), half_width(1.0), half_width(250.0)
    ('±0.12', '±0', '±1', '±2.5e+02')
    """
    return f"±{half:.2g}"


def threshold(value: float) -> str:
    """A bar, or a value set against one: three decimals at most, trailing zeros dropped; a
    value that rounds to zero is "0", never "-0" (a lower bound of -0.0000001 is zero to a
    reader).

    >>> [threshold(v) for v in (0.6, 50.0, 0.1234, -1e-9, 0.0, 1.0, -0.25)]
    ['0.6', '50', '0.123', '0', '0', '1', '-0.25']
    """
    if float(value).is_integer() and abs(value) >= 1:
        return str(int(value))
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def significant(value: float | None) -> str:
    """A value in a sentence of the HTML report: three significant digits.

    >>> significant(0.08812), significant(50.0), significant(0.0), significant(-0.1234)
    ('0.0881', '50', '0', '-0.123')
    >>> significant(None)
    'undefined'
    """
    return UNDEFINED if _missing(value) else f"{value:.3g}"


def alert_value(value: float) -> str:
    """A monitored value in an alert: three significant digits, three decimals below 1.

    >>> [alert_value(v) for v in (12.345, 1.0, 0.0, 0.5, 0.01234, -0.25, -2.5)]
    ['12.3', '1', '0', '0.500', '0.012', '-0.250', '-2.5']
    """
    return f"{value:.3g}" if abs(value) >= 1 or value == 0 else f"{value:.3f}"


def setting(value: float) -> str:
    """A setting as the user gave it (alpha, a timeout, a minimum pass rate): the shortest
    form, trailing zeros dropped.

    >>> setting(0.05), setting(30.0), setting(0.0), setting(1.0), setting(-1.5)
    ('0.05', '30', '0', '1', '-1.5')
    """
    return f"{value:g}"


def duration(seconds: float) -> str:
    """A time taken, in seconds with one decimal.

    >>> duration(12.345), duration(0.0), duration(1.0)
    ('12.3 s', '0.0 s', '1.0 s')
    """
    return f"{seconds:.1f} s"


def go_duration(seconds: float) -> str:
    """A duration as Go writes it, and OpenAI's rate-limit headers with it: milliseconds
    under a second, else seconds (three decimals at most) after whole minutes.

    >>> go_duration(0.25), go_duration(1.5), go_duration(360), go_duration(61.25)
    ('250ms', '1.5s', '6m0s', '1m1.25s')
    """
    if seconds < 1:
        return f"{max(round(seconds * 1000), 0)}ms"
    minutes, rest = divmod(seconds, 60)
    text = f"{rest:.3f}".rstrip("0").rstrip(".") + "s"
    return f"{int(minutes)}m{text}" if minutes else text
