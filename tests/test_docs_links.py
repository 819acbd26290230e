"""The README's and the docs pages' links lead somewhere: files that exist, headings that
exist. (`mkdocs build --strict` checks the site's links between pages too; this also checks
the README, which the site does not hold, and runs with the tests.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import REPO

PAGES = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]


def _anchor(heading: str) -> str:
    """A heading's anchor as GitHub and MkDocs make it: lower case, punctuation dropped,
    spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return re.sub(r" +", "-", text)


def _anchors(page: Path) -> set[str]:
    outside_code = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.S | re.M)
    return {_anchor(h) for h in re.findall(r"^#+ (.+)$", outside_code, flags=re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(REPO).as_posix())
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    outside_code = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    for target in re.findall(r"\]\(([^)\s]+)\)", outside_code):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{page.name} links a missing file: {target}"
        if anchor and linked.suffix == ".md":
            assert anchor in _anchors(linked), f"{page.name} links a missing heading: {target}"


def test_the_readme_links_into_the_docs() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\((docs/[^)#\s]+)", readme))
    assert {"docs/install.md", "docs/demo.md", "docs/tutorial.md"} <= linked
    assert len(linked) >= 20
