"""A real headless Chromium (Debian's, at /usr/bin/chromium) driven by Playwright against a
real ``judgekit view`` process; tests skip, saying why, where either is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = (
    os.environ.get("JUDGEKIT_TEST_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
)
# As the machine's own check starts it: no sandbox (root), and none of Chromium's own
# connections, which a closed network refuses.
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def artefacts(tmp_path: Path) -> Path:
    """Where screenshots are kept: $JUDGEKIT_TEST_ARTEFACTS, else the test's own folder."""
    folder = Path(os.environ.get("JUDGEKIT_TEST_ARTEFACTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium, or a skip naming what is missing."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install -e '.[dev]')"
    )
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM} (Debian: apt-get install chromium)")
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextmanager
def running_view(*args: str, cwd: Path) -> Iterator[str]:
    """``judgekit view ARGS --no-browser`` in its own process; its printed address."""
    process = subprocess.Popen(
        [sys.executable, "-m", "judgekit", "view", *args, "--no-browser"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        first = process.stdout.readline()
        if "open http://" not in first:
            process.kill()
            raise AssertionError(first + process.communicate()[1])
        yield first.rsplit("open ", 1)[1].strip()
    finally:
        process.terminate()
        process.wait(timeout=10)
