"""One `judgekit demo` shared by the demo's test modules (it takes seconds)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.store import Store, open_store


class DemoRun:
    """One `judgekit demo --out tmp/out` with JUDGEKIT_HOME tmp/home."""

    def __init__(self, tmp: Path, code: int, output: str, elapsed: float) -> None:
        self.tmp, self.code, self.output, self.elapsed = tmp, code, output, elapsed
        self.out = tmp / "out"
        self.home = tmp / "home"

    def store(self) -> Store:
        return open_store("sqlite:///" + str(self.home / "judgekit.sqlite"))


def invoke_demo(tmp: Path, patch: pytest.MonkeyPatch) -> DemoRun:
    patch.delenv("OPENAI_API_KEY", raising=False)
    patch.setenv("JUDGEKIT_HOME", str(tmp / "home"))
    patch.chdir(tmp)  # the demo finds the repository's tasks wherever it starts
    started = time.monotonic()
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp / "out")])
    elapsed = time.monotonic() - started
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return DemoRun(tmp, result.exit_code, result.output, elapsed)


@pytest.fixture(scope="package")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[DemoRun]:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("JUDGEKIT_DB", raising=False)
        run = invoke_demo(tmp_path_factory.mktemp("demo"), patch)
    yield run
