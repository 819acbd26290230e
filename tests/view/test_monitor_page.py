"""The view's monitor page over the demo's store: the monitor's own table and alerts, and its
scores figure as a PNG; a store with nothing recorded says so."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.demo.conftest import DemoRun
from tests.view.conftest import client_for


def test_the_monitor_page_shows_the_demos_nights_and_alerts(
    view_demo: DemoRun, demo_folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("JUDGEKIT_HOME", str(view_demo.home))
    client = client_for(demo_folder)
    page = client.text("/monitor")
    text = re.search(r'<pre class="text" id="monitor">(.*?)</pre>', page, re.S)
    assert text is not None
    assert "ALERT pass_rate: pass rate dropped" in text.group(1)
    assert "fell most: refund_full" in text.group(1)
    assert '<img id="scores" src="/monitor.png"' in page
    figure = client.get("/monitor.png")
    assert figure.status == 200 and figure.headers["Content-Type"] == "image/png"
    assert figure.body.startswith(b"\x89PNG\r\n\x1a\n")


def test_a_store_with_nothing_recorded_says_so(demo_folder: Path, tmp_path: Path) -> None:
    client = client_for(demo_folder)  # JUDGEKIT_HOME is this test's own, empty folder
    page = client.text("/monitor")
    store = tmp_path / ".judgekit" / "judgekit.sqlite"
    assert f"no store at {store} yet: nothing recorded to monitor" in page
    assert client.get("/monitor.png").status == 404
    assert not store.exists()
