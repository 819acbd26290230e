"""The HTML building blocks of the report; each escapes the text it is given, and shows
its control and bidirectional characters as the terminal does (:func:`escape`).

The page is self-contained: inline style, no script, no external URL, and a
Content-Security-Policy that forbids anything else.
"""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from judgekit._util.terminal_text import visible

__all__ = ["DASH", "NONE", "empty_note", "escape", "page", "paragraph", "section", "table"]

NONE = "none recorded"
DASH = "—"

_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'"
_STYLE = """
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a;
       max-width: 1280px; margin: 2em auto; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ddd; padding-bottom: 0.2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin-top: 1.4em; }
.meta { color: #555; margin-top: 0; }
.none { color: #777; font-style: italic; }
.alert { color: #b00020; font-weight: 600; }
table { border-collapse: collapse; margin: 0.6em 0; font-variant-numeric: tabular-nums; }
th, td { border-bottom: 1px solid #e3e3e3; padding: 0.25em 0.7em; vertical-align: top; }
th { text-align: left; background: #f6f6f6; font-weight: 600; }
td:not(:first-child) { text-align: right; white-space: nowrap; }
table.text td:not(:first-child) { text-align: left; white-space: normal; }
td { overflow-wrap: break-word; }
.wide { overflow-x: auto; }
figure { margin: 1em 0; }
img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
details.run { margin: 0.3em 0; border-left: 3px solid #e3e3e3; padding-left: 0.6em; }
summary { cursor: pointer; }
dt { font-weight: 600; margin-top: 0.4em; }
dd { margin-left: 1.2em; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: #f8f8f8; margin: 0.2em 0;
      padding: 0.2em 0.4em; }
"""


def page(title: str, body: Sequence[str]) -> str:
    """The HTML5 document: its head, then the ``body`` parts one per line."""
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>{_STYLE}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + "\n</body>\n</html>\n"
    )


def escape(value: object) -> str:
    r"""``value`` as text safe inside an element or a quoted attribute, and inert: control
    characters (ESC, BEL, C1), bidirectional overrides and isolates, and the other
    characters the terminal shows by a stand-in (:func:`~judgekit._util.terminal_text.visible`)
    are shown the same way here (``␛``, ``␇``, ``\u202e``), never put in the page raw.

    >>> escape("<b>\u202eevil\x1b[2J\x07")
    '&lt;b&gt;\\u202eevil␛[2J␇'
    """
    return html.escape(visible(str(value)), quote=True)


def paragraph(text: str, css: str | None = None) -> str:
    return f'<p class="{css}">{escape(text)}</p>' if css else f"<p>{escape(text)}</p>"


def empty_note(text: str = NONE) -> str:
    """What a section shows when it has nothing to show."""
    return paragraph(text, "none")


def section(anchor: str, heading: str, inner: str) -> str:
    return f'<section id="{anchor}">\n<h2>{escape(heading)}</h2>\n{inner}\n</section>'


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], *, text: bool = False) -> str:
    """A table of plain-text cells (all escaped here), one ``<tr>`` per line."""
    css = ' class="text"' if text else ""
    head = "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in headers) + "</tr>"
    lines = ["<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in row) + "</tr>" for row in rows]
    # Figures never wrap mid-number; a table wider than the page scrolls instead.
    return (
        f'<div class="wide"><table{css}>\n<thead>{head}</thead>\n<tbody>\n'
        + "\n".join(lines)
        + "\n</tbody>\n</table></div>"
    )
