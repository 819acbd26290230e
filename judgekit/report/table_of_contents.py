"""The report's sections with their anchors, and the table of contents linking to them
(plain links: the page runs no script)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from judgekit.report.html_blocks import escape, section
from judgekit.report.report_data import ReportContent
from judgekit.report.suite_sections import suite_section, tasks_section

__all__ = ["Part", "suite_parts", "table_of_contents"]


@dataclass(frozen=True)
class Part:
    """One section of the report: its anchor, heading and inner HTML."""

    anchor: str
    heading: str
    inner: str

    def html(self) -> str:
        return section(self.anchor, self.heading, self.inner)


def suite_parts(content: ReportContent) -> list[Part]:
    """One section per suite, each with its own headline and tables; the sections "Suite"
    and "Tasks" when the runs name no suite (or there are none)."""
    if any(name is not None for name, _ in content.suites):
        return _named_parts(content)
    return [
        Part("suite", "Suite", suite_section(content.summary, content.shards)),
        Part(
            "tasks", "Tasks", tasks_section(content.summary, content.evidence, content.run_shards)
        ),
    ]


def _named_parts(content: ReportContent) -> list[Part]:
    """A section per suite; runs of no suite beside them get one too ("runs of no suite")."""
    parts: list[Part] = []
    taken: set[str] = set()
    for name, summary in content.suites:
        title = "runs of no suite" if name is None else name
        anchor = _unique(f"suite-{_slug(title)}", taken)
        tables = tasks_section(summary, content.evidence, content.run_shards)
        inner = "\n".join([suite_section(summary, content.shards), "<h3>Tasks</h3>", tables])
        parts.append(Part(anchor, f"Suite {title}", inner))
    return parts


def table_of_contents(parts: Sequence[Part]) -> str:
    """A list of links to every section, at the top of the page."""
    items = [f'<li><a href="#{p.anchor}">{escape(p.heading)}</a></li>' for p in parts]
    return '<nav id="contents">\n<h2>Contents</h2>\n<ul>\n' + "\n".join(items) + "\n</ul>\n</nav>"


def _slug(name: str) -> str:
    """An anchor from a suite name (user data): letters, digits, ``-`` and ``_`` only."""
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-").lower() or "unnamed"


def _unique(anchor: str, taken: set[str]) -> str:
    """``anchor``, or ``anchor-2``, ``-3``… when two suite names slug alike."""
    found, number = anchor, 1
    while found in taken:
        number += 1
        found = f"{anchor}-{number}"
    taken.add(found)
    return found
