"""Exporting verdicts or labels: each linked to its run's trace where the runs read carry
one, written in one format to one file that appears whole or not at all, and counted."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Final

from judgekit._util.atomic_files import atomic_writer
from judgekit.exporters import csv_rows, langfuse_scores, langsmith_feedback, otel_events
from judgekit.exporters.items import ExportItem, from_label, from_verdict
from judgekit.exporters.judge_standing import NOT_CHECKED, StandingOf, standing_of_record
from judgekit.exporters.trace_links import TraceLink
from judgekit.formats.label import Label
from judgekit.formats.verdict import Verdict

__all__ = ["FORMATS", "ExportFormat", "ExportTally", "export_items", "label_items", "verdict_items"]

# Run id → the run's trace link (None: the run is known but carries no trace id).
RunLinks = Mapping[str, TraceLink | None]


@dataclass(frozen=True)
class ExportFormat:
    """One format: what it is, how it writes, and whether an item names its trace there."""

    name: str
    what: str
    write: Callable[[list[ExportItem], IO[str]], None]
    is_linked: Callable[[ExportItem], bool]
    # Why an item without a link is left out (the tool refuses it), or None: kept unlinked.
    needs_link: str | None = None
    # An item the tool takes today but warns of, and what it lacks (for the warning).
    lacks: Callable[[ExportItem], bool] | None = None
    lacking: str = ""


FORMATS: Final[dict[str, ExportFormat]] = {
    "otel": ExportFormat(
        "otel",
        "OpenTelemetry GenAI evaluation events (OTLP/JSON logs)",
        otel_events.write_otel,
        otel_events.is_linked,
    ),
    "langsmith": ExportFormat(
        "langsmith",
        "LangSmith feedback (create_feedback arguments, JSON lines)",
        langsmith_feedback.write_langsmith,
        langsmith_feedback.is_linked,
        # create_feedback raises "One of run_id, trace_id, or project_id must be provided".
        needs_link="LangSmith feedback needs the run's LangSmith id",
        # and warns that run feedback without session_id is deprecated.
        lacks=lambda item: langsmith_feedback.project_of(item) is None,
        lacking=(
            "the LangSmith project their run was traced to (create_feedback's session_id, "
            "which LangSmith deprecates leaving out; `judgekit import langsmith` records it)"
        ),
    ),
    "langfuse": ExportFormat(
        "langfuse",
        "Langfuse scores (CreateScoreRequest bodies, JSON lines)",
        langfuse_scores.write_langfuse,
        langfuse_scores.is_linked,
    ),
    "csv": ExportFormat("csv", "CSV", csv_rows.write_csv, csv_rows.is_linked),
}


@dataclass
class ExportTally:
    """What an export wrote: items per status, and those without a trace link, by cause."""

    kind: str
    statuses: Counter[str] = field(default_factory=Counter)  # of the items written
    run_not_found: int = 0  # the run is not among the runs read
    no_trace_id: int = 0  # the run carries no trace id (that this format takes)
    lacking: int = 0  # written, but without what the format's tool warns of

    @property
    def total(self) -> int:
        return sum(self.statuses.values())

    def lines(self, fmt: ExportFormat, output: Path, *, runs_hint: str) -> list[str]:
        """What to tell the user, e.g. ``exported 3 verdicts (2 scored, 1 unscored) ...``."""
        noun = self.kind if self.total == 1 else f"{self.kind}s"
        parts = ", ".join(f"{n} {status}" for status, n in sorted(self.statuses.items()))
        detail = f" ({parts})" if parts else ""
        said = [f"exported {self.total} {noun}{detail} as {fmt.name} to {output}"]
        unlinked = self.run_not_found + self.no_trace_id
        if unlinked:
            causes = []
            if self.run_not_found:
                causes.append(f"{self.run_not_found} whose run is not among {runs_hint}")
            if self.no_trace_id:
                causes.append(f"{self.no_trace_id} whose run carries no trace id {fmt.name} takes")
            what = (
                "exported without a trace link"
                if fmt.needs_link is None
                else f"left out ({fmt.needs_link})"
            )
            said.append(f"{unlinked} {what}: {'; '.join(causes)}")
        if self.lacking:
            said.append(f"{self.lacking} exported without {fmt.lacking}")
        return said


def verdict_items(
    verdicts: Iterable[Verdict], runs: RunLinks, standing_of: StandingOf | None = None
) -> list[ExportItem]:
    """Verdicts as exported, each with its run's trace link when the run is known and the
    promotion ``standing_of`` finds it stands on (without one: not checked, so none)."""
    return [
        from_verdict(
            v,
            runs.get(v.run_id),
            NOT_CHECKED if standing_of is None else standing_of_record(standing_of(v)),
        )
        for v in verdicts
    ]


def label_items(labels: Iterable[Label], runs: RunLinks) -> list[ExportItem]:
    """Hand labels as exported, each with its run's trace link when the run is known."""
    return [from_label(label, runs.get(label.run_id)) for label in labels]


def export_items(
    items: list[ExportItem], fmt: ExportFormat, output: Path, *, kind: str, runs: RunLinks
) -> ExportTally:
    """Write ``items`` to ``output`` (atomically) and count them; an item without a trace
    link is written without one, or left out where the format's tool would refuse it."""
    tally = ExportTally(kind)
    written: list[ExportItem] = []
    for item in items:
        linked = fmt.is_linked(item)
        if not linked and item.run_id in runs:
            tally.no_trace_id += 1
        elif not linked:
            tally.run_not_found += 1
        if linked or fmt.needs_link is None:
            written.append(item)
            tally.statuses[item.status] += 1
            tally.lacking += linked and fmt.lacks is not None and fmt.lacks(item)
    with atomic_writer(output) as out:
        fmt.write(written, out)
    return tally
