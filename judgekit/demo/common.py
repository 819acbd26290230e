"""What the demo's steps share: its suites, the project they come from, how a step prints."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from rich.console import Console

from judgekit._util.terminal_text import visible_markup
from judgekit.errors import ConfigError

TRIALS: Final = 40
K: Final = 5  # of pass@k and pass^k
BASE_RUBRIC: Final = "goal_completion"


@dataclass(frozen=True)
class DemoSuite:
    """A task suite of the demo's project and the seeded stub agent that runs it."""

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


def project_root() -> Path:
    """The demo's project, shipped inside the package (``judgekit/demo/project/``): its
    ``tasks/``, ``rubrics/``, ``labels/`` and the stub agents' ``examples`` package, made
    importable. The repository's top-level copies of these files are links to it.

    Raises :class:`ConfigError` naming what is missing, when the install lost them."""
    root = Path(__file__).resolve().parent / "project"
    missing = [str(root / path) for path in project_files() if not (root / path).is_file()]
    if missing:
        raise ConfigError(
            f"the demo's project files are missing ({', '.join(missing)}): this judgekit was "
            "installed without its package data; reinstall it (pip install --force-reinstall "
            "judgekit-agents)"
        )
    if str(root) not in sys.path:  # examples.shop, wherever the demo is started from
        sys.path.insert(0, str(root))
    return root


def project_files() -> list[Path]:
    """The files, relative to the project's folder, that run the demo's project again: the
    base rubric, the suites' tasks and the stub agents' package."""
    files = [Path("rubrics") / f"{BASE_RUBRIC}.yaml", Path("examples") / "__init__.py"]
    for suite in SUITES:
        files += [suite.tasks_file(Path()), suite.agent_file(Path())]
    return files


def heading(console: Console, number: int, title: str) -> None:
    console.print()
    console.rule(f"[bold]{number}. {visible_markup(title)}", align="left")


def say(console: Console, text: str) -> None:
    """One line of the demo's own words (rich markup allowed, no automatic highlighting)."""
    console.print(text, highlight=False, soft_wrap=True)
