"""The exporters' tests run in a folder of their own (no rubrics/ or labels/ but those a test
writes), and reach a LangSmith stand-in through ``langsmith_server``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.exporters.langsmith_recorder import serving


@pytest.fixture(autouse=True)
def _in_a_folder_of_its_own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def langsmith_server() -> Iterator[str]:
    """The URL of a local server recording what the LangSmith SDK sends."""
    with serving() as url:
        yield url
