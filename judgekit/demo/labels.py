"""Step 3: the bundled hand labels, ``labels/goal_completion.jsonl`` of the demo's project.

They hold what a careful labeller would say of a sample of the demo's shop runs (every
failing run and as many passing ones): the run's deterministic outcome, labeller ``demo-truth``, with the hash of the text
``judgekit label`` would show. The demo's runs are deterministic (each trial's rng is
seeded by suite, task and trial), so labels written once keep matching them; after a change
to the shop's stub agent or tasks, write them again with ``python
examples/make_demo_labels.py`` (tests/demo/test_demo.py says when).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from rich.console import Console

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import BASE_RUBRIC, say
from judgekit.demo.judges import SimulatedJudge
from judgekit.errors import ConfigError
from judgekit.formats.label import Label, item_hashes, labels_path, read_labels
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import Run
from judgekit.formats.task import TaskSet
from judgekit.labelling.plan import items_for

# The sample: every failing run (52) and as many passing ones, 120 in all, so that the half
# held out as test (60, stratified by label) clears the policy's 50 labels for promote.
LABELS: Final = 120
LABELER: Final = "demo-truth"
SAMPLE_SEED: Final = 20240601
# Fixed, so writing the labels again from the same runs gives the same bytes.
LABELLED_AT: Final = datetime(2025, 1, 1, tzinfo=UTC)
REGENERATE: Final = "python examples/make_demo_labels.py"


def bundled_labels_path(root: Path) -> Path:
    return labels_path(root / "labels", BASE_RUBRIC)


def stratified_sample(truth: Mapping[str, bool]) -> set[str]:
    """Half passing runs, half failing (as far as there are), seeded."""
    rng = random.Random(SAMPLE_SEED)
    passed = sorted(run_id for run_id, ok in truth.items() if ok)
    failed = sorted(run_id for run_id, ok in truth.items() if not ok)
    n_failed = min(len(failed), LABELS // 2)
    n_passed = min(len(passed), LABELS - n_failed)
    return set(rng.sample(failed, n_failed) + rng.sample(passed, n_passed))


def demo_labels(runs: Iterable[Run], truth: Mapping[str, bool], tasks: TaskSet) -> list[Label]:
    """The bundled labels of these runs, in run order."""
    chosen = stratified_sample(truth)
    return [
        Label(
            run_id=item.run.run_id,
            rubric_id=BASE_RUBRIC,
            label="pass" if truth[item.run.run_id] else "fail",
            labeler=LABELER,
            at=LABELLED_AT,
            item_hash=item.hash,
        )
        for item in items_for(runs, tasks)
        if item.run.run_id in chosen
    ]


def labels_text(labels: Iterable[Label]) -> str:
    """Label lines as :class:`~judgekit.labelling.labels_file.LabelWriter` writes them."""
    return "".join(label.model_dump_json(exclude_none=True) + "\n" for label in labels)


def write_labels(path: Path, labels: Iterable[Label]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_writer(path) as fh:
        fh.write(labels_text(labels))


def copy_bundled_labels(
    root: Path,
    judges: Sequence[SimulatedJudge],
    folder: Path,
    *,
    runs_file: Path,
    tasks_file: Path,
    console: Console,
) -> None:
    """A copy of the bundled labels per judge's rubric in ``folder``, after checking they
    still describe these runs."""
    source = bundled_labels_path(root)
    if not source.is_file():
        raise ConfigError(f"the demo's hand labels {source} are missing; write them: {REGENERATE}")
    labels = list(read_labels(source, load_rubric(root / "rubrics" / f"{BASE_RUBRIC}.yaml")).lines)
    _check_current(labels, source, runs_file, tasks_file)
    say(
        console,
        f"Labeller [bold]{LABELER}[/]: labels a careful person would give, bundled in "
        f"{visible_markup(str(source))} — the outcome the deterministic graders found, so the "
        "figures can be checked. In real use: `judgekit label RUNS --rubric goal_completion "
        "--labeler NAME --strategy stratified`.",
    )
    passed = sum(label.label == "pass" for label in labels)
    for judge in judges:
        path = labels_path(folder, judge.rubric_id)
        write_labels(
            path, (label.model_copy(update={"rubric_id": judge.rubric_id}) for label in labels)
        )
        say(
            console,
            f"copied {len(labels)} labels ({passed} pass, {len(labels) - passed} fail) to "
            f"{visible_markup(str(path))}",
        )


def _check_current(
    labels: Sequence[Label], source: Path, runs_file: Path, tasks_file: Path
) -> None:
    """Refuse labels of runs that are gone or whose text changed: they would calibrate the
    judges against answers nobody labelled."""
    hashes = item_hashes([runs_file], tasks_file) or {}
    stale = [label.run_id for label in labels if hashes.get(label.run_id) != label.item_hash]
    if stale:
        raise ConfigError(
            f"{source}: {len(stale)} of {len(labels)} labels do not match the demo's runs "
            f"(first: {stale[0]}); the stub agent or its tasks changed: write them again with "
            f"{REGENERATE}"
        )
