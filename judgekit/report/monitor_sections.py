"""The report's sections from the monitor: alerts, the metric table and the plots."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence

from judgekit._util.number_format import p_value, setting
from judgekit.monitoring.model import Alert, MetricKind, Point, Series
from judgekit.report.cells import point_text
from judgekit.report.html_blocks import DASH, empty_note, escape, paragraph, table

__all__ = ["alerts_section", "metrics_section", "plots_section"]


def alerts_section(alerts: Sequence[Alert], kinds: Mapping[str, MetricKind]) -> str:
    if not alerts:
        return empty_note("no alerts")
    rows = [
        [
            alert.metric,
            alert.latest.label,
            f"{point_text(alert.latest, kinds.get(alert.metric))}, n={alert.latest.n}",
            f"{point_text(alert.baseline, kinds.get(alert.metric))}, n={alert.baseline.n}",
            p_value(alert.p_value),
            setting(alert.alpha),
            alert.message,
        ]
        for alert in alerts
    ]
    return "\n".join(
        [
            paragraph(
                f"{len(alerts)} alert(s): the latest window is worse than the baseline", "alert"
            ),
            table(
                ["metric", "window", "latest", "baseline", "p", "alpha", "message"],
                rows,
                text=True,
            ),
        ]
    )


def _latest(series: Series) -> Point | None:
    return next((p for p in reversed(series.points) if p.value is not None), None)


def metrics_section(series: Sequence[Series]) -> str:
    if not series:
        return empty_note()
    rows = []
    for one in series:
        latest = _latest(one)
        rows.append(
            [
                one.metric,
                one.title,
                one.role,
                DASH if latest is None else latest.label,
                DASH if latest is None else point_text(latest, one.kind),
                DASH if latest is None else latest.n,
                "alert" if one.alert is not None else DASH,
                one.note or "",
            ]
        )
    headers = ["metric", "title", "role", "latest window", "value (95% CI)", "n", "alert", "note"]
    return table(headers, rows, text=True)


def plots_section(images: Mapping[str, bytes]) -> str:
    if not images:
        return empty_note()
    return "\n".join(
        f'<figure><img src="data:image/png;base64,{base64.b64encode(png).decode("ascii")}" '
        f'alt="{escape(caption)}"><figcaption>{escape(caption)}</figcaption></figure>'
        for caption, png in images.items()
    )
