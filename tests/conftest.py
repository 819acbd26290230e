"""Shared fixtures: the real public data beside the checkout, and an isolated JUDGEKIT_HOME."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"


def shared_data_path(*parts: str) -> Path:
    """A path under ../shared/data, or skip the test saying why."""
    path = SHARED_DATA.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"real data not available: {path} is missing (this checkout has no ../shared)")
    return path


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("JUDGEKIT_HOME", str(tmp_path / ".judgekit"))
