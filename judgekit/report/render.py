"""The report as one self-contained HTML5 file: inline style, no script, no external URL.

Images are embedded as ``data:`` URLs, and a Content-Security-Policy forbids anything else,
so the file can be mailed, attached to a CI run or opened offline. Every value that comes
from data (task and run ids, agent output, judge reasons) is HTML-escaped: it is untrusted.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from judgekit._util.atomic_files import atomic_writer
from judgekit.monitoring.model import Alert, MetricKind, Point, Series
from judgekit.report.content import ReportContent, RubricRow

__all__ = ["MAX_DISAGREEMENTS", "render_report", "write_report"]

MAX_DISAGREEMENTS = 50  # per rubric; the rest are counted
NONE = "none recorded"
DASH = "—"

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a;
       max-width: 1280px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
.meta { color: #555; margin-top: 0; }
.none { color: #777; font-style: italic; }
.alert { color: #b00020; font-weight: 600; }
table { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 0.25em 0.7em; vertical-align: top; }
th { text-align: left; background: #f6f6f6; font-weight: 600; }
td:not(:first-child) { text-align: right; white-space: nowrap; }
table.text td:not(:first-child) { text-align: left; white-space: normal; }
td { overflow-wrap: break-word; }
.wide { overflow-x: auto; }
figure { margin: 1em 0; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
"""


def render_report(content: ReportContent) -> str:
    """The whole report as an HTML5 document."""
    kinds = {series.metric: series.kind for series in content.series}
    body = [
        _header(content),
        _section("suite", "Suite", _suite(content.summary)),
        _section("tasks", "Tasks", _tasks(content.summary)),
        _section("alerts", "Alerts", _alerts(content.all_alerts(), kinds)),
        _section("metrics", "Metrics", _metrics(content.series)),
        _section("rubrics", "Rubrics", _rubrics(content.rubrics)),
        _section("calibration", "Calibration", _calibrations(content.calibrations)),
        _section("plots", "Plots", _images(content.images)),
        _section("disagreements", "Disagreements", _disagreements(content.calibrations)),
    ]
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{_e(content.title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def write_report(path: Path, content: ReportContent) -> None:
    """Render ``content`` to ``path``, which appears whole or not at all."""
    document = render_report(content)
    with atomic_writer(path) as fh:
        fh.write(document)


# --- building blocks (each escapes what it is given) -------------------------------------


def _e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _p(text: str, css: str | None = None) -> str:
    return f'<p class="{css}">{_e(text)}</p>' if css else f"<p>{_e(text)}</p>"


def _none(text: str = NONE) -> str:
    return _p(text, "none")


def _section(anchor: str, heading: str, inner: str) -> str:
    return f'<section id="{anchor}">\n<h2>{_e(heading)}</h2>\n{inner}\n</section>'


def _table(headers: Sequence[str], rows: Iterable[Sequence[object]], *, text: bool = False) -> str:
    """A table of plain-text cells (all escaped here), one ``<tr>`` per line."""
    css = ' class="text"' if text else ""
    head = "<tr>" + "".join(f"<th>{_e(h)}</th>" for h in headers) + "</tr>"
    lines = ["<tr>" + "".join(f"<td>{_e(cell)}</td>" for cell in row) + "</tr>" for row in rows]
    # Figures never wrap mid-number; a table wider than the page scrolls instead.
    return (
        f'<div class="wide"><table{css}>\n<thead>{head}</thead>\n<tbody>\n'
        + "\n".join(lines)
        + "\n</tbody>\n</table></div>"
    )


# --- formatting --------------------------------------------------------------------------


def _rate(value: float | None) -> str:
    return DASH if value is None else f"{value:.2f}"


def _range(bounds: Sequence[float | None] | None) -> str | None:
    if not bounds or len(bounds) != 2 or bounds[0] is None or bounds[1] is None:
        return None
    return f"{bounds[0]:.2f}–{bounds[1]:.2f}"


def _rate_ci(value: float | None, bounds: Sequence[float | None] | None) -> str:
    """``0.25 (0.05–0.70)``: a rate with its interval, as the terminal table shows it."""
    if value is None:
        return DASH
    interval = _range(bounds)
    return _rate(value) if interval is None else f"{value:.2f} ({interval})"


def _figure(value: float | None) -> str:
    return "undefined" if value is None else f"{value:.3f}"


def _figure_ci(value: float | None, bounds: Sequence[float | None] | None) -> str:
    """``0.512 [0.301, 0.723]``: a calibration figure, as ``judgekit calibrate`` shows it."""
    if value is None:
        return "undefined"
    if not bounds or len(bounds) != 2 or bounds[0] is None or bounds[1] is None:
        return f"{value:.3f} [undefined]"
    return f"{value:.3f} [{bounds[0]:.3f}, {bounds[1]:.3f}]"


def _fraction(tally: Mapping[str, int] | None) -> str:
    return DASH if not tally else f"{tally['passed']}/{tally['graded']}"


def _mean(measure: Mapping[str, Any] | None, template: str) -> str:
    if not measure or measure.get("mean") is None:
        return DASH
    return template.format(measure["mean"])


def _value(value: float | None, kind: MetricKind | None) -> str:
    if value is None:
        return DASH
    return f"{value:.1%}" if kind == "proportion" else f"{value:.4g}"


def _point(point: Point, kind: MetricKind | None) -> str:
    """``45.0% (25.8%–65.8%)``: a window's value with its interval."""
    text = _value(point.value, kind)
    if point.value is not None and point.low is not None and point.high is not None:
        text += f" ({_value(point.low, kind)}–{_value(point.high, kind)})"
    return text


def _p_value(p: float) -> str:
    return "<0.0001" if p < 0.0001 else f"{p:.2g}"


# --- sections ----------------------------------------------------------------------------


def _header(content: ReportContent) -> str:
    meta = [
        f"generated {content.generated_at.isoformat(timespec='seconds')}",
        f"store {content.store_url}",
    ]
    if content.git_sha or content.git_branch:
        commit = content.git_sha or "unknown commit"
        meta.append(f"commit {commit}" + (f" ({content.git_branch})" if content.git_branch else ""))
    return f"<header>\n<h1>{_e(content.title)}</h1>\n{_p(' · '.join(meta), 'meta')}\n</header>"


def _suite(summary: Mapping[str, Any] | None) -> str:
    if not summary or not summary.get("runs"):
        return _none()
    tasks = summary.get("tasks", [])
    failing = summary.get("failing_tasks", [])
    interval = _range(summary.get("pass_at_1_ci"))
    headline = f"pass@1 {_rate(summary.get('pass_at_1'))}"
    if interval is not None:
        headline += f" (95% CI {interval})"
    lines = [
        f'<p class="headline"><strong>{_e(headline)}</strong></p>',
        _p(f"{summary.get('passed', 0)} of {summary['runs']} runs passed over {len(tasks)} tasks"),
        _p(f"failing tasks ({len(failing)} of {len(tasks)}): {', '.join(failing) or 'none'}"),
    ]
    return "\n".join(lines)


def _tasks(summary: Mapping[str, Any] | None) -> str:
    tasks: list[Mapping[str, Any]] = list((summary or {}).get("tasks", []))
    if not tasks:
        return _none()
    k = (summary or {}).get("k", 1)
    headers = [
        "task",
        "runs",
        "passed",
        "pass@1 (95% CI)",
        f"pass@{k}",
        f"pass^{k}",
        "Truth",
        "Path",
        "State",
        "claimed success but failed",
        "violations",
        "tool error rate",
        "mean turns",
        "mean cost (USD)",
    ]
    rows = [
        [
            task.get("task_id", ""),
            task.get("runs", 0),
            task.get("passed", 0),
            _rate_ci(task.get("pass_at_1"), task.get("pass_at_1_ci")),
            _rate(task.get("pass_at_k")),
            _rate(task.get("pass_hat_k")),
            _fraction(task.get("truth")),
            _fraction(task.get("path")),
            _fraction(task.get("state")),
            task.get("claimed_success_but_failed", 0),
            task.get("violations", 0),
            DASH if task.get("tool_error_rate") is None else f"{task['tool_error_rate']:.0%}",
            _mean(task.get("turns"), "{:.1f}"),
            _mean(task.get("cost_usd"), "{:.4f}"),
        ]
        for task in tasks
    ]
    parts = [
        _table(headers, rows),
        _p(
            "Truth, Path, State: runs each grader passed of those it graded (— not configured); "
            "claimed success but failed: failed runs whose answer claims success.",
            "meta",
        ),
        _failures(tasks),
    ]
    return "\n".join(part for part in parts if part)


def _failures(tasks: Sequence[Mapping[str, Any]]) -> str:
    rows = [
        [task.get("task_id", ""), failure.get("run_id", ""), failure.get("reason", "")]
        for task in tasks
        for failure in task.get("failures", [])
    ]
    if not rows:
        return ""
    more = [
        _p(f"{task.get('task_id', '')}: and {task['failures_not_shown']} more failing runs")
        for task in tasks
        if task.get("failures_not_shown")
    ]
    return "\n".join(
        ["<h3>Failing runs</h3>", _table(["task", "run", "first failure"], rows, text=True), *more]
    )


def _alerts(alerts: Sequence[Alert], kinds: Mapping[str, MetricKind]) -> str:
    if not alerts:
        return _none("no alerts")
    rows = [
        [
            alert.metric,
            alert.latest.label,
            f"{_point(alert.latest, kinds.get(alert.metric))}, n={alert.latest.n}",
            f"{_point(alert.baseline, kinds.get(alert.metric))}, n={alert.baseline.n}",
            _p_value(alert.p_value),
            f"{alert.alpha:g}",
            alert.message,
        ]
        for alert in alerts
    ]
    return "\n".join(
        [
            _p(f"{len(alerts)} alert(s): the latest window is worse than the baseline", "alert"),
            _table(
                ["metric", "window", "latest", "baseline", "p", "alpha", "message"],
                rows,
                text=True,
            ),
        ]
    )


def _latest(series: Series) -> Point | None:
    return next((p for p in reversed(series.points) if p.value is not None), None)


def _metrics(series: Sequence[Series]) -> str:
    if not series:
        return _none()
    rows = []
    for one in series:
        latest = _latest(one)
        rows.append(
            [
                one.metric,
                one.title,
                one.role,
                DASH if latest is None else latest.label,
                DASH if latest is None else _point(latest, one.kind),
                DASH if latest is None else latest.n,
                "alert" if one.alert is not None else DASH,
                one.note or "",
            ]
        )
    headers = ["metric", "title", "role", "latest window", "value (95% CI)", "n", "alert", "note"]
    return _table(headers, rows, text=True)


def _rubrics(rubrics: Sequence[RubricRow]) -> str:
    if not rubrics:
        return _none()
    rows = [[r.id, r.version or DASH, r.model or DASH, r.status, r.reason] for r in rubrics]
    return _table(["rubric", "version", "judge model", "status", "why"], rows, text=True)


def _calibrations(calibrations: Sequence[Mapping[str, Any]]) -> str:
    if not calibrations:
        return _none()
    return "\n".join(_calibration(c) for c in calibrations)


def _failed_criteria(criteria: Mapping[str, Mapping[str, Any]]) -> str:
    failed = []
    for name, c in criteria.items():
        if c.get("met"):
            continue
        value = "undefined" if c.get("value") is None else f"{c['value']:.3g}"
        text = f"{name}: {c.get('what', '')} {value}, bar {c.get('bar')}"
        if c.get("short_by") is not None:
            text += f" ({c['short_by']:.3g} short)"
        failed.append(text)
    return "; ".join(failed) or "none"


def _calibration(c: Mapping[str, Any]) -> str:
    percent = f"{c.get('confidence', 0.95):.0%}"
    figures = [
        ["runs compared", c.get("n", 0)],
        ["agreement", _figure(c.get("agreement"))],
        [f"Cohen's kappa ({percent} CI)", _figure_ci(c.get("kappa"), c.get("kappa_ci"))],
        [
            f"false-pass rate ({percent} CI)",
            _figure_ci(c.get("false_pass_rate"), c.get("false_pass_ci")),
        ],
        [
            f"false-fail rate ({percent} CI)",
            _figure_ci(c.get("false_fail_rate"), c.get("false_fail_ci")),
        ],
        ["promotable", "yes" if c.get("promotable") else "no"],
        ["criteria not met", _failed_criteria(c.get("criteria", {}))],
    ]
    parts = [
        f"<h3>{_e(c.get('rubric_id', ''))}</h3>",
        _p(f"version {c.get('rubric_version', '?')}, judge {c.get('model', '?')}", "meta"),
        _table(["figure", "value"], figures),
        _confusion(c.get("confusion") or {}),
        *(_p(f"warning: {w}") for w in c.get("warnings", [])),
    ]
    return "\n".join(parts)


def _confusion(confusion: Mapping[str, Mapping[str, int]]) -> str:
    if not confusion:
        return _none("no confusion matrix")
    columns = list(dict.fromkeys(col for row in confusion.values() for col in row))
    rows = [[human, *(row.get(col, 0) for col in columns)] for human, row in confusion.items()]
    caption = _p("confusion matrix: rows the human label, columns the judge's verdict", "meta")
    return caption + "\n" + _table(["human \\ judge", *columns], rows)


def _images(images: Mapping[str, bytes]) -> str:
    if not images:
        return _none()
    return "\n".join(
        f'<figure><img src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}" '
        f'alt="{_e(caption)}"><figcaption>{_e(caption)}</figcaption></figure>'
        for caption, png in images.items()
    )


def _disagreements(calibrations: Sequence[Mapping[str, Any]]) -> str:
    if not calibrations:
        return _none()
    parts = []
    for c in calibrations:
        found: list[Mapping[str, Any]] = list(c.get("disagreements", []))
        parts.append(f"<h3>{_e(c.get('rubric_id', ''))}</h3>")
        if not found:
            parts.append(_none("no disagreements"))
            continue
        rows = [
            [d.get("run_id", ""), d.get("human", ""), d.get("judge", ""), d.get("reason") or ""]
            for d in found[:MAX_DISAGREEMENTS]
        ]
        parts.append(_table(["run", "human", "judge", "judge's reason"], rows, text=True))
        if len(found) > MAX_DISAGREEMENTS:
            parts.append(_p(f"and {len(found) - MAX_DISAGREEMENTS} more", "meta"))
    return "\n".join(parts)
