"""Helpers for driving ``judgekit label`` for real: a pseudo-terminal, or piped stdin."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys
from pathlib import Path

import pexpect

from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import load_runs
from judgekit.formats.task import load_tasks
from judgekit.labelling.plan import items_for
from judgekit.labelling.sampling import order_for_labelling
from judgekit.labelling.screen import Item
from tests.conftest import REPO

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
TASKS = REPO / "tasks"
RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
TIMEOUT = 20


def shop_items() -> dict[str, Item]:
    """The shop runs as the labeller sees them (with --tasks), by run id."""
    return {i.run.run_id: i for i in items_for(load_runs(SHOP_RUNS), load_tasks(TASKS))}


def shop_order(seed: int = 0) -> list[str]:
    """The order a random session shows the shop runs in."""
    return order_for_labelling([r.run_id for r in load_runs(SHOP_RUNS)], {}, "random", seed=seed)


def goal_completion() -> Rubric:
    return load_rubric(RUBRIC)


def label_args(*extra: str | Path, runs: Path = SHOP_RUNS) -> list[str]:
    return [
        "-m",
        "judgekit",
        "label",
        str(runs),
        "--rubric",
        str(RUBRIC),
        "--labeler",
        "ana",
        "--tasks",
        str(TASKS),
        *[str(e) for e in extra],
    ]


def shown_runs(screen: str) -> list[str]:
    """The run ids drawn on ``screen``, in order (each run's header rule names it)."""
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen)
    return re.findall(r"─ (\S+/\S+) ─", plain)


def child_env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["JUDGEKIT_HOME"] = str(home / ".judgekit")
    env["PYTHONPATH"] = str(REPO)
    env.pop("JUDGEKIT_DB", None)
    env["TERM"] = "xterm-256color"
    return env


class Prompt:
    """``judgekit label`` in a pseudo-terminal; ``seen`` is every byte it has drawn."""

    def __init__(self, tmp: Path, *extra: str | Path, runs: Path = SHOP_RUNS) -> None:
        self.seen = io.StringIO()
        self.child = pexpect.spawn(
            sys.executable,
            label_args(*extra, runs=runs),
            env=child_env(tmp),
            cwd=str(tmp),
            encoding="utf-8",
            timeout=TIMEOUT,
            dimensions=(60, 200),
        )
        self.child.logfile_read = self.seen

    def wait_for(self, text: str) -> None:
        self.child.expect_exact(text)
        if text.startswith("to go "):
            # The progress line opens a run's screen; the key legend closes it.
            self.child.expect_exact("q quit")

    def screen(self) -> str:
        return self.seen.getvalue()

    def press(self, key: str, then: str | None = None) -> None:
        self.child.send(key)
        if then is not None:
            self.wait_for(then)

    def finish(self) -> int:
        self.child.expect(pexpect.EOF)
        self.child.close()
        assert self.child.exitstatus is not None
        return self.child.exitstatus


def run_piped(
    tmp: Path, stdin: str | None, *extra: str | Path, runs: Path = SHOP_RUNS
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *label_args(*extra, runs=runs)],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        env=child_env(tmp),
        cwd=tmp,
        timeout=TIMEOUT,
        check=False,
    )
