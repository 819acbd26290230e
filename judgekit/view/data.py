"""What a view holds in memory: every run with its grade, its text as a labeller reads it
and the judges' latest verdicts; labels are read from their files on each request, so a
label given in the terminal or by another labeller shows at the next page.

Runs are keyed by run id, as labels and verdicts name them. A later runs file's run whose id
an earlier file already holds (a candidate rerun of the same tasks) is left out, and said so
on every page and at start: it is never shown with another run's labels and verdicts.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

from judgekit._util.input_paths import is_file
from judgekit.calibration.labellers import natural_key
from judgekit.formats.grade import Grade, load_results
from judgekit.formats.label import LabelLog, labels_path, read_labels
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import effective_rubric
from judgekit.formats.run import Run
from judgekit.formats.run_lean import LeanRun, iter_unique_lean_run_lines
from judgekit.formats.runs_input import iter_given_runs
from judgekit.formats.task import TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.formats.verdict import Verdict, load_verdicts
from judgekit.formats.verdict_scores import ScaleCheck
from judgekit.labelling.plan import latest_verdicts
from judgekit.labelling.screen import Item, make_item
from judgekit.view.sources import ViewSources

__all__ = ["LeftOut", "ViewData", "ViewRun", "load_view_data"]


class ViewRun:
    """One run as the view shows it: what its list row needs, read with the lean structs
    at start; the whole ``Run`` and the labeller's item (its text and hash) made from its
    line when a page first needs them; where it was read; its grade when the run's folder
    holds ``results.jsonl``."""

    def __init__(
        self,
        parsed: LeanRun | Run,
        line: str | None,
        task_input: str | None,
        source: Path,
        grade: Grade | None,
    ) -> None:
        self._parsed, self._line, self._task_input = parsed, line, task_input
        self.source, self.grade = source, grade
        self.run_id: str = parsed.run_id
        self.task_id: str | None = parsed.task_id
        self.input: str | None = parsed.input
        self.final_answer: str | None = parsed.final_answer

    @cached_property
    def run(self) -> Run:
        if isinstance(self._parsed, Run):
            return self._parsed
        assert self._line is not None  # a lean run always keeps its line
        return Run.model_validate_json(self._line)  # the lean structs took it: it holds

    @cached_property
    def item(self) -> Item:
        return make_item(self.run, self._task_input)


@dataclass(frozen=True)
class LeftOut:
    """Runs of ``file`` not shown: their ids are those of ``earlier``'s runs."""

    file: Path
    count: int
    earlier: Path


@dataclass
class ViewData:
    """The runs (in file order), the rubrics, each rubric's verdicts (all of them, oldest
    first, and the latest per judge model of each run) and where they were read."""

    sources: ViewSources
    runs: dict[str, ViewRun]  # in natural order of run id
    rubrics: dict[str, Rubric]
    verdicts: dict[str, list[Verdict]]
    latest: dict[str, dict[str, list[Verdict]]]
    verdicts_source: str
    left_out: list[LeftOut] = field(default_factory=list)

    def labels(self, rubric: Rubric) -> LabelLog | None:
        """The rubric's labels as its file holds them now; None when it has none yet."""
        path = self.labels_file(rubric)
        return read_labels(path, rubric) if is_file(path) else None

    def labels_file(self, rubric: Rubric) -> Path:
        return labels_path(self.sources.labels_dir, rubric.id)

    def run_verdicts(self, run_id: str) -> dict[str, list[Verdict]]:
        """rubric id → the latest verdict of each judge model on ``run_id``."""
        found = {rubric: by_run.get(run_id, []) for rubric, by_run in self.latest.items()}
        return {rubric: verdicts for rubric, verdicts in found.items() if verdicts}


def load_view_data(sources: ViewSources) -> ViewData:
    """Read every runs file, its results, the suites and the verdicts; a malformed file is
    a :class:`judgekit.errors.DataError` naming it, before the server starts."""
    tasks = (
        load_task_files(sources.tasks_path, resolve_code=False)
        if sources.tasks_path is not None
        else None
    )
    runs: dict[str, ViewRun] = {}
    left_out: list[LeftOut] = []
    for file in sources.runs_files:
        left_out += _read_runs(file, tasks, runs)
    rubrics = {rubric.id: rubric for rubric in sources.rubrics}
    verdicts, where = _read_verdicts(sources, list(rubrics.values()))
    latest = {rubric: latest_verdicts(found, rubric) for rubric, found in verdicts.items()}
    # In natural order of run id (r2 before r10) once, so a page never sorts them again.
    ordered = {run_id: runs[run_id] for run_id in sorted(runs, key=natural_key)}
    return ViewData(sources, ordered, rubrics, verdicts, latest, where, left_out)


def _read_runs(file: Path, tasks: TaskSet | None, runs: dict[str, ViewRun]) -> list[LeftOut]:
    results = file.parent / "results.jsonl"
    grades = {g.run_id: g for g in load_results(results)} if is_file(results) else {}
    clashes: dict[Path, int] = {}
    for parsed, line in _parsed_runs(file):
        held = runs.get(parsed.run_id)
        if held is not None:
            clashes[held.source] = clashes.get(held.source, 0) + 1
            continue
        task = tasks.get(parsed.task_id) if tasks is not None and parsed.task_id else None
        task_input = task.input if task is not None else None
        runs[parsed.run_id] = ViewRun(parsed, line, task_input, file, grades.get(parsed.run_id))
    return [LeftOut(file, count, earlier) for earlier, count in clashes.items()]


def _parsed_runs(file: Path) -> Iterator[tuple[LeanRun | Run, str | None]]:
    """Each run of ``file`` checked whole, kept lean with its line (a CSV's as ``Run``)."""
    if file.suffix.lower() == ".csv":
        for _, run in iter_given_runs(file):
            yield run, None
        return
    for _, line, parsed in iter_unique_lean_run_lines(file):
        yield parsed, line


def _read_verdicts(
    sources: ViewSources, rubrics: list[Rubric]
) -> tuple[dict[str, list[Verdict]], str]:
    """Each rubric's verdicts, oldest first, from the verdicts files or else the store."""
    if sources.verdicts_files:
        check = ScaleCheck(rubrics, variant=effective_rubric)
        found: list[Verdict] = []
        for file in sources.verdicts_files:
            found += load_verdicts(file, check=check)
        where = ", ".join(str(file) for file in sources.verdicts_files)
        return _by_rubric(found, rubrics), where
    if not rubrics:
        return {}, "no rubric given"
    from judgekit.store import open_store  # SQLAlchemy loads only when the store is read

    with open_store() as store:
        by_rubric = {rubric.id: store.verdicts(rubric.id) for rubric in rubrics}
        return by_rubric, f"store {store.url}"


def _by_rubric(verdicts: Iterable[Verdict], rubrics: list[Rubric]) -> dict[str, list[Verdict]]:
    wanted: dict[str, list[Verdict]] = {rubric.id: [] for rubric in rubrics}
    for verdict in sorted(verdicts, key=lambda v: v.at):
        if verdict.rubric_id in wanted:
            wanted[verdict.rubric_id].append(verdict)
    return wanted
