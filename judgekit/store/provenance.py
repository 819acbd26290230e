"""Where an evaluation came from: the commit, the branch, the agent's version and free tags,
recorded with each batch so results can be compared over time and per branch.

The commit and branch come from CI variables when there are some (a CI checkout is often a
detached head, so ``git`` alone would not know the branch), else from ``git`` itself;
``JUDGEKIT_GIT_SHA`` and ``JUDGEKIT_BRANCH`` override both. Detection never fails: what
cannot be found is ``None``.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

GIT_TIMEOUT_S: Final = 5.0

# First set and non-empty wins. GITHUB_HEAD_REF is the pull request's own branch (set only
# on pull_request events); GITHUB_REF_NAME is the pushed branch otherwise.
SHA_VARIABLES: Final = ("JUDGEKIT_GIT_SHA", "GITHUB_SHA", "CI_COMMIT_SHA")
BRANCH_VARIABLES: Final = (
    "JUDGEKIT_BRANCH",
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
    "CI_COMMIT_REF_NAME",
)
AGENT_VERSION_VARIABLE: Final = "JUDGEKIT_AGENT_VERSION"


@dataclass(frozen=True)
class Provenance:
    """What a batch records about where its results came from."""

    git_sha: str | None = None
    branch: str | None = None
    agent_version: str | None = None
    tags: dict[str, str] = field(default_factory=dict)


def detect_provenance(
    *,
    agent_version: str | None = None,
    tags: Mapping[str, str] | None = None,
    branch: str | None = None,
    cwd: str | Path | None = None,
) -> Provenance:
    """The provenance of an evaluation run in ``cwd`` (default: the current folder).

    An explicit ``branch`` or ``agent_version`` wins over anything detected.

    >>> detect_provenance(branch="main", agent_version="1.2", tags={"model": "x"}).branch
    'main'
    """
    sha = _first_variable(SHA_VARIABLES)
    chosen_branch = branch or _first_variable(BRANCH_VARIABLES)
    # One git process answers both questions, a line each, in the order asked.
    want_sha, want_branch = sha is None, chosen_branch is None
    asked = ["HEAD"] * want_sha + ["--abbrev-ref", "HEAD"] * want_branch
    answers = iter(_git(["rev-parse", *asked], cwd, lines=want_sha + want_branch))
    if sha is None:
        sha = next(answers)
    if chosen_branch is None:
        name = next(answers)
        chosen_branch = None if name == "HEAD" else name  # "HEAD": a detached head
    return Provenance(
        git_sha=sha,
        branch=chosen_branch,
        agent_version=agent_version or os.environ.get(AGENT_VERSION_VARIABLE) or None,
        tags=dict(tags or {}),
    )


def _first_variable(names: tuple[str, ...]) -> str | None:
    for name in names:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def _git(args: list[str], cwd: str | Path | None, *, lines: int) -> list[str | None]:
    """The ``lines`` lines ``git ARGS`` prints, each None when git is missing, fails, hangs
    or does not say it."""
    if lines == 0:
        return []
    unknown: list[str | None] = [None] * lines
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError, ValueError):
        return unknown
    said = done.stdout.splitlines()
    if done.returncode != 0 or len(said) != lines:
        return unknown
    return [line.strip() or None for line in said]
