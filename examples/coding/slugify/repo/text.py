"""Text helpers."""


def slugify(title: str) -> str:
    """The URL slug of ``title``: only a-z and 0-9 are kept, words joined by single hyphens."""
    return title.lower().replace(" ", "-")
