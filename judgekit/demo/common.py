"""What the demo's steps share: its suites, the repository they come from, how a step prints."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from rich.console import Console

import judgekit
from judgekit._util.terminal_text import visible_markup
from judgekit.errors import ConfigError

TRIALS: Final = 40
K: Final = 5  # of pass@k and pass^k
BASE_RUBRIC: Final = "goal_completion"


@dataclass(frozen=True)
class DemoSuite:
    """A task suite of the repository and the seeded stub agent that runs it."""

    name: str  # tasks/<name>.yaml, and the subfolder of --out its runs go to
    agent: str  # module:function

    @property
    def module(self) -> str:
        return self.agent.partition(":")[0]

    def tasks_file(self, root: Path) -> Path:
        return root / "tasks" / f"{self.name}.yaml"

    def agent_file(self, root: Path) -> Path:
        return root.joinpath(*self.module.split(".")).with_suffix(".py")


SHOP: Final = DemoSuite("shop", "examples.shop:agent")
TRAVEL: Final = DemoSuite("travel", "examples.travel:agent")
SUITES: Final = (SHOP, TRAVEL)


def repo_root() -> Path:
    """The repository judgekit runs from (its ``tasks/``, ``rubrics/`` and ``examples/``),
    importable, or a :class:`ConfigError` when judgekit was installed from a wheel."""
    root = Path(judgekit.__file__).resolve().parents[1]
    needed = [root / "rubrics" / f"{BASE_RUBRIC}.yaml"]
    for suite in SUITES:
        needed += [suite.tasks_file(root), suite.agent_file(root)]
    missing = [str(path) for path in needed if not path.is_file()]
    if missing:
        raise ConfigError(
            "the demo needs the judgekit repository's tasks/, rubrics/ and examples/, not "
            f"found ({', '.join(missing)}): judgekit seems installed from a wheel; clone the "
            "repository and `pip install -e .` to run the demo"
        )
    if str(root) not in sys.path:  # examples.shop, wherever the demo is started from
        sys.path.insert(0, str(root))
    return root


def heading(console: Console, number: int, title: str) -> None:
    console.print()
    console.rule(f"[bold]{number}. {visible_markup(title)}", align="left")


def say(console: Console, text: str) -> None:
    """One line of the demo's own words (rich markup allowed, no automatic highlighting)."""
    console.print(text, highlight=False, soft_wrap=True)
