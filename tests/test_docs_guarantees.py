"""The guarantees page's table names tests that exist."""

from __future__ import annotations

import re

from tests.conftest import REPO

PAGE = (REPO / "docs" / "explanation" / "guarantees.md").read_text(encoding="utf-8")


def test_every_test_the_guarantees_table_names_exists() -> None:
    section = PAGE.split("# What judgekit guarantees", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ") and "---" not in line]
    assert len(rows) == 40  # the header and one row per failure
    named = set(re.findall(r"`(test_\w+)`", section))
    files = set(re.findall(r"`(tests/[\w/]+\.py)`", section))
    assert len(named) >= 14 and len(files) >= 9
    defined = {
        name
        for path in (REPO / "tests").rglob("test_*.py")
        for name in re.findall(r"^def (test_\w+)\(", path.read_text(encoding="utf-8"), re.M)
    }
    assert named - defined == set()
    for file in files:
        assert (REPO / file).is_file(), file
    for row in rows[1:]:
        assert row.count(" | ") == 4, row  # when, files, store, exit, test: five cells
