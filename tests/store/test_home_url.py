"""The home store's URL is built, not parsed: odd folder names stay folder names."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.store.database import home_store_url, open_store


def test_a_home_folder_with_url_characters_still_holds_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "what?#not-a-query"
    monkeypatch.setenv("JUDGEKIT_HOME", str(home))
    monkeypatch.setenv("JUDGEKIT_DB", f"sqlite:///{tmp_path / 'other.sqlite'}")
    with open_store(home_store_url()) as store:
        store.batch(key="runs:x")
    assert (home / "judgekit.sqlite").is_file()
    assert not (tmp_path / "other.sqlite").exists()  # JUDGEKIT_DB is not consulted
