"""The README's links lead somewhere: files that exist, headings that exist."""

from __future__ import annotations

import re

from tests.conftest import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def test_every_relative_link_and_anchor_resolves() -> None:
    outside_code = re.sub(r"```.*?```", "", README, flags=re.S)
    anchors = {_anchor(h) for h in re.findall(r"^#+ (.+)$", outside_code, flags=re.M)}
    links = re.findall(r"\]\(([^)\s]+)\)", outside_code)
    assert links, "the README links nothing?"
    for target in links:
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        if path:
            assert (REPO / path).exists(), f"README links a missing file: {target}"
        elif anchor:
            assert anchor in anchors, f"README links a missing heading: #{anchor}"
