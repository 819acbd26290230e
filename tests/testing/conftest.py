"""Fixtures for the fake server's own tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from judgekit.testing import FakeLLMServer


@pytest.fixture
def server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as running:
        yield running
