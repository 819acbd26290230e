"""Human labels of other platforms imported into ``labels/<rubric_id>.jsonl``, as terminal
labels are written: one :class:`~judgekit.formats.label.Label` per (run, labeller), the
hash of the run's text as a labeller reads it, appended through the labels writer.

Each platform label (:mod:`judgekit.importers.human_labels`) of the chosen name given by a
person is mapped onto the rubric's scale (:mod:`judgekit.labelling.label_mapping`; any value
off the mapping stops the import before anything is written) and joined to the run of its
trace, span or session. What cannot count is left out and counted with its reason: a label
of one step of a trace, of no run in the runs files, of several, or naming no labeller.
A label already in the file (same value and note) is not written again; a changed value
supersedes the one there, unless the one there is newer::

    plan = plan_label_import(request, existing=read_labels(path, rubric))
    write_label_import(plan, path)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from judgekit.errors import ConfigError
from judgekit.formats.label import Label, LabelLog, item_hash, item_text, runs_with_inputs
from judgekit.formats.rubric import Rubric, Score
from judgekit.formats.run import Run
from judgekit.importers.human_labels import LABEL_READERS, PlatformLabel, Target
from judgekit.importers.locations import Location
from judgekit.labelling.label_mapping import map_value
from judgekit.labelling.labels_file import LabelWriter

__all__ = ["LabelImport", "LabelImportRequest", "plan_label_import", "write_label_import"]

NO_RUN = "its trace, span or session is no run of the runs files"
SEVERAL_RUNS = "its trace, span or session is in several runs of the runs files"
NO_LABELLER = "it names no labeller"
SUPERSEDED = "a later label of the same run by the same labeller in these files replaces it"
OLDER = "the labels file holds a newer label of the run by the same labeller"


@dataclass(frozen=True)
class LabelImportRequest:
    """What to import: ``platform``'s ``files``, the labels named ``name`` (None: the one
    name the human labels have), onto ``rubric`` through ``mapping``, joined to the runs of
    ``runs_files`` (their tasks' inputs from ``tasks_path``, as the labeller shows them)."""

    platform: str
    files: Sequence[Path]
    rubric: Rubric
    runs_files: Sequence[Path]
    mapping: Mapping[str, Score]
    name: str | None = None
    tasks_path: Path | None = None


@dataclass
class LabelImport:
    """An import worked out: the labels to write (``new``) and the counts of the summary.
    ``left_out`` is reason → (how many, where the first is)."""

    name: str | None
    read: int = 0
    human: int = 0
    named: int = 0
    already_there: int = 0
    new: list[Label] = field(default_factory=list)
    left_out: dict[str, tuple[int, Location]] = field(default_factory=dict)
    runs: dict[str, Run] = field(default_factory=dict)  # the runs of the new labels

    def leave_out(self, reason: str, label: PlatformLabel) -> None:
        count, first = self.left_out.get(reason, (0, label.where))
        self.left_out[reason] = (count + 1, first)


def plan_label_import(request: LabelImportRequest, existing: LabelLog) -> LabelImport:
    """The labels ``request`` adds to ``existing`` (nothing is written). A value off the
    mapping, or a malformed file, is a DataError; a missing or ambiguous ``name`` a
    ConfigError."""
    read = LABEL_READERS[request.platform](request.files)
    human = [label for label in read if label.human]
    name = _chosen_name(human, request)
    plan = LabelImport(name=name, read=len(read), human=len(human))
    chosen = [label for label in human if label.name == name]
    plan.named = len(chosen)
    scores = {
        id(label): map_value(label, request.mapping, request.rubric)
        for label in chosen
        if label.left_out is None
    }  # every value is checked before any label is joined, so an error writes nothing
    runs, index = _runs_index(request)
    latest: dict[tuple[str, str], PlatformLabel] = {}
    for label in chosen:
        run_id = _joined_run(label, index, plan)
        if run_id is None:
            continue
        assert label.labeller is not None  # _joined_run left out the labels naming nobody
        key = (run_id, label.labeller)
        if key in latest:  # the same labeller's two labels of one run: the later stands
            earlier, later = sorted((latest[key], label), key=lambda lab: lab.at)
            plan.leave_out(SUPERSEDED, earlier)
            label = later
        latest[key] = label
    for (run_id, labeller), label in latest.items():
        run, task_input = runs[run_id]
        new = Label(
            run_id=run_id,
            rubric_id=request.rubric.id,
            label=scores[id(label)],
            labeler=labeller,
            at=label.at,
            note=label.note,
            item_hash=item_hash(item_text(run, task_input)),
        )
        there = existing.current.get((run_id, labeller))
        if there is not None and (there.label, there.note) == (new.label, new.note):
            plan.already_there += 1
        elif there is not None and there.at > new.at:
            plan.leave_out(OLDER, label)
        else:
            plan.new.append(new)
            plan.runs[run_id] = run
    return plan


def write_label_import(plan: LabelImport, labels_file: Path) -> None:
    """Append ``plan``'s new labels as one durable append (under the writer's lock)."""
    if plan.new:
        with LabelWriter(labels_file) as writer:
            writer.append_many(plan.new)


def _chosen_name(human: Sequence[PlatformLabel], request: LabelImportRequest) -> str | None:
    names = Counter(label.name for label in human)
    listed = ", ".join(f"{name!r} ({count})" for name, count in sorted(names.items()))
    files = ", ".join(str(path) for path in request.files)
    if request.name is not None:
        if request.name not in names:
            found = f"the names are {listed}" if names else "there are none"
            raise ConfigError(f"no human label named {request.name!r} in {files}: {found}")
        return request.name
    if len(names) > 1:
        raise ConfigError(
            f"the human labels in {files} have several names: {listed}; choose one with --name"
        )
    return next(iter(names), None)


def _runs_index(
    request: LabelImportRequest,
) -> tuple[dict[str, tuple[Run, str | None]], dict[Target, set[str]]]:
    """The runs by id, and which runs each trace, span, session or run id belongs to."""
    runs: dict[str, tuple[Run, str | None]] = {}
    index: dict[Target, set[str]] = {}
    for run, task_input in runs_with_inputs(request.runs_files, request.tasks_path):
        runs[run.run_id] = (run, task_input)
        for target in _targets_of(run):
            index.setdefault(target, set()).add(run.run_id)
    return runs, index


def _targets_of(run: Run) -> list[Target]:
    # Importers name a run by its trace (or thread, session) id and keep the source's ids in
    # its metadata: trace_id, the trace_ids of a grouped conversation, root_span_id(s).
    meta = run.metadata
    found: list[Target] = [("trace", run.run_id), ("session", run.run_id)]
    for kind, one, many in (
        ("trace", "trace_id", "trace_ids"),
        ("span", "root_span_id", "root_span_ids"),
        ("session", "session_id", None),
        ("session", "thread_id", None),
    ):
        values = [meta.get(one)] + (list(meta.get(many) or []) if many else [])
        found += [(kind, value) for value in values if isinstance(value, str)]  # type: ignore[misc]
    return found


def _joined_run(
    label: PlatformLabel, index: Mapping[Target, set[str]], plan: LabelImport
) -> str | None:
    """The one run ``label`` labels, or None with the reason counted."""
    if label.left_out is not None:
        plan.leave_out(label.left_out, label)
        return None
    if label.labeller is None:
        plan.leave_out(NO_LABELLER, label)
        return None
    matched = next((index[target] for target in label.targets if target in index), set())
    if len(matched) != 1:
        plan.leave_out(NO_RUN if not matched else SEVERAL_RUNS, label)
        return None
    return next(iter(matched))
