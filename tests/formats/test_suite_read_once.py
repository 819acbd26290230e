"""`judgekit run` and `judgekit grade` read each suite file once (a large suite takes seconds)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit._util.yamlfile import LineMap
from judgekit.cli import main
from judgekit.formats import task
from tests.conftest import REPO

SHOP = REPO / "tasks" / "shop.yaml"
SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"


@pytest.fixture
def suite_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    reads: Counter[str] = Counter()
    load_yaml = task.load_yaml

    def counted(path: str | Path) -> tuple[Any, LineMap]:
        reads[Path(path).name] += 1
        return load_yaml(path)

    monkeypatch.setattr(task, "load_yaml", counted)
    return reads


def invoke(*args: str | Path) -> int:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code


def test_run_reads_the_suite_once(tmp_path: Path, suite_reads: Counter[str]) -> None:
    code = invoke(
        "run", "--tasks", SHOP, "--agent", "examples.shop:agent", "--trials", "2",
        "--out", tmp_path / "out", "--no-store", "--json",
    )  # fmt: skip
    assert code == 0
    assert suite_reads == {"shop.yaml": 1}


def test_grade_reads_the_suite_once(tmp_path: Path, suite_reads: Counter[str]) -> None:
    code = invoke("grade", SHOP_RUNS, "--tasks", SHOP, "--out", tmp_path / "out", "--no-store")
    assert code == 0
    assert suite_reads == {"shop.yaml": 1}


def test_grade_of_a_folder_reads_each_suite_once(tmp_path: Path, suite_reads: Counter[str]) -> None:
    code = invoke(
        "grade", SHOP_RUNS, "--tasks", REPO / "tasks", "--out", tmp_path / "out", "--no-store"
    )
    assert code == 0
    assert suite_reads == {path.name: 1 for path in (REPO / "tasks").glob("*.yaml")}
