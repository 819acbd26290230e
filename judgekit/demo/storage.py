"""The demo's store: always the SQLite file in JUDGEKIT_HOME, never the one JUDGEKIT_DB names,
so a demo never writes simulated verdicts into someone's real store."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

from rich.console import Console

from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import say
from judgekit.store.database import DB_ENV
from judgekit.store.provenance import detect_provenance
from judgekit.store.record_files import iter_grades, runs_batch_key

if TYPE_CHECKING:
    from judgekit.demo.trials import SuiteRun
    from judgekit.store import Store

SOURCE: Final = "demo"
BRANCH: Final = "demo"


def open_demo_store(console: Console) -> Store:
    """Open the home store explicitly: given a URL, open_store ignores JUDGEKIT_DB."""
    # SQLAlchemy loads only when the demo runs
    from judgekit.store.database import home_store_url, open_store

    store = open_store(home_store_url())
    say(console, f"store: {visible_markup(store.url)} (JUDGEKIT_HOME's)")
    if os.environ.get(DB_ENV):
        say(
            console,
            f"{DB_ENV} is set: the demo leaves that store alone and records in JUDGEKIT_HOME's",
        )
    return store


def suite_batch(store: Store, runs_file: Path, root: Path, *, branch: str = BRANCH) -> int:
    """The demo's batch of a runs file, on ``branch``: its id."""
    provenance = detect_provenance(branch=branch, cwd=root)
    return store.batch(
        key=runs_batch_key(runs_file),
        source=SOURCE,
        git_sha=provenance.git_sha,
        branch=provenance.branch,
    )


def record_suite(store: Store, run: SuiteRun, root: Path) -> int:
    """Record a suite's runs and grades in the batch of its runs file; return the batch id."""
    batch_id = suite_batch(store, run.runs_file, root)
    store.record_runs(run.runs(), batch_id)
    store.record_grades(iter_grades(run.results_file), batch_id)
    return batch_id
