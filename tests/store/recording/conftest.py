"""Recording tests: no CI variable of the machine running them leaks into a batch, and the
commit and branch the CLI records are fixed."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.store import open_store
from judgekit.store.record_files import table_counts
from tests.conftest import REPO

SHOP_RUNS: Final = REPO / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS: Final = REPO / "tasks" / "shop.yaml"
SHA: Final = "0123456789abcdef0123456789abcdef01234567"
BRANCH: Final = "feature/refunds"

PROVENANCE_VARIABLES: Final = (
    "JUDGEKIT_GIT_SHA",
    "JUDGEKIT_BRANCH",
    "JUDGEKIT_AGENT_VERSION",
    "GITHUB_SHA",
    "GITHUB_HEAD_REF",
    "GITHUB_REF_NAME",
    "CI_COMMIT_SHA",
    "CI_COMMIT_REF_NAME",
    "JUDGEKIT_DB",
)


@pytest.fixture(autouse=True)
def _no_ci_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in PROVENANCE_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def pinned_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commit and branch every batch records, whatever checkout the tests run in."""
    monkeypatch.setenv("JUDGEKIT_GIT_SHA", SHA)
    monkeypatch.setenv("JUDGEKIT_BRANCH", BRANCH)


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def store_file() -> Path:
    return Path(os.environ["JUDGEKIT_HOME"]) / "judgekit.sqlite"


def store_url() -> str:
    return f"sqlite:///{store_file()}"


def counts() -> dict[str, int]:
    with open_store() as store:
        return table_counts(store)


def rows(
    batches: int = 0,
    runs: int = 0,
    grades: int = 0,
    verdicts: int = 0,
    calibrations: int = 0,
    promotions: int = 0,
) -> dict[str, int]:
    """The expected row counts, zero unless given."""
    return {
        "batches": batches,
        "runs": runs,
        "grades": grades,
        "verdicts": verdicts,
        "calibrations": calibrations,
        "promotions": promotions,
    }
