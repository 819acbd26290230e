"""The hidden grader of slugify: copied into the agent's workdir only after it exits."""

from text import slugify


def test_punctuation_removed() -> None:
    assert slugify("What's New, 2026?") == "whats-new-2026"


def test_spaces_collapsed() -> None:
    assert slugify("  many   spaces  ") == "many-spaces"
