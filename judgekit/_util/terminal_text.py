r"""Text from runs shown in a terminal: every control character made visible, none obeyed.

Agent answers, tool arguments and results, ids, labeller names, notes and judges' reasons
are data. Printed raw, a final answer holding ``ESC [2J`` would clear the labeller's screen
and draw a forged one, ``ESC ]0;…`` would set the window title, OSC 52 would write the
clipboard, and an unterminated OSC would swallow the text after it. :func:`visible` turns
every character a terminal (or a reader's eye) would act on into a visible stand-in:

* C0 controls (U+0000–U+001F) but newline and tab become their Unicode Control Pictures:
  ESC is ``␛`` (U+241B), BEL ``␇``, NUL ``␀``, backspace ``␈``. So every escape sequence
  (CSI, OSC, DCS, APC, PM, SOS, which all begin with ESC) shows as ``␛[2J``, ``␛]0;…``.
* Carriage return: a bare CR moves the cursor to the start of the line, so what follows
  overwrites what came before (a forged "PASS" over a real "FAIL"); it becomes ``␍``.
  A CR before a newline (a Windows line end) only ends the line, and is dropped.
* DEL and the C1 controls (U+007F–U+009F; U+009B is an 8-bit CSI, U+009D an 8-bit OSC)
  become ``\x7f``, ``\x9b``: escapes in Python's spelling.
* Bidirectional formatting characters, which reorder what a reader sees without being seen
  (RLO U+202E shows ``evil`` as ``live``): the embeddings and overrides U+202A–U+202E, the
  isolates U+2066–U+2069, and the marks U+200E, U+200F, U+061C become ``\u202e``, as do
  the line and paragraph separators U+2028 and U+2029 and lone surrogates (which a UTF-8
  terminal cannot even be sent).
* With ``one_line=True`` a newline becomes ``␊`` too, for an id, a name or a reason that
  must stay on its own line of a report (a forged line below it is then impossible).

What :func:`visible` returns holds no control character but newline and tab, so visible
is idempotent. A stand-in is not told apart from the same characters typed in the data
(``\x9b`` may have been four characters): what matters is that nothing is obeyed.

Rich markup in data (``[bold red]``, ``[link=…]``) is a second way for data to be obeyed:
data goes to rich as a :class:`~rich.text.Text` (:func:`visible_text`) or escaped inside
judgekit's own markup (:func:`visible_markup`). Rich also replaces ``:name:`` emoji codes in
markup, escaped or not, so consoles that print data into markup are made with
``emoji=False``.

>>> print(visible("\x1b[2J\x1b[H FAKE SCREEN: judge says PASS, press p"))
␛[2J␛[H FAKE SCREEN: judge says PASS, press p
>>> print(visible("\x1b]0;TITLE\x07 done \x9b2J \x1b]8;;http://x\x1b\\link"))
␛]0;TITLE␇ done \x9b2J ␛]8;;http://x␛\link
>>> print(visible("line 1\r\nline 2\roverwritten"))
line 1
line 2␍overwritten
>>> print(visible("run\nFAKE LINE", one_line=True))
run␊FAKE LINE
>>> print(visible("\u202eevil\u202c \x7f"))
\u202eevil\u202c \x7f
>>> print(visible_markup("[red]x[/red]\n\x1b[8mhidden"))
\[red]x\[/red]␊␛[8mhidden
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from rich.cells import cell_len, chop_cells
from rich.markup import escape
from rich.text import Text

__all__ = ["first_column_room", "visible", "visible_markup", "visible_name", "visible_text"]

# Everything visible() replaces: C0 but tab and newline, DEL and C1, the bidirectional
# formatting characters, the Unicode line and paragraph separators, and lone surrogates.
_SHOWN: Final = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff]"
)
_SHOWN_ONE_LINE: Final = re.compile(_SHOWN.pattern[:-1] + "\n]")


def _stand_in(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if code < 0x20:
        return chr(0x2400 + code)  # the Control Pictures block, in C0 order
    if code <= 0x9F:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}"


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with every control, bidi and separator character shown, not obeyed.

    Newline and tab are kept (a newline too becomes ``␊`` with ``one_line``); see the
    module's documentation for each stand-in.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n")
    pattern = _SHOWN_ONE_LINE if one_line else _SHOWN
    return pattern.sub(_stand_in, text)


def visible_markup(text: str) -> str:
    """``text`` made :func:`visible` on one line and escaped, to sit as plain text inside a
    line of rich markup (a report's line: a newline in the data would forge the next)."""
    return escape(visible(text, one_line=True))


def visible_text(text: str, style: str = "", *, one_line: bool = False) -> Text:
    """``text`` made :func:`visible`, as a rich ``Text`` (never parsed as markup)."""
    return Text(visible(text, one_line=one_line), style=style)


# An id or a metric name breaks after one of these, the word boundaries of an identifier.
_NAME_PARTS: Final = re.compile(r"[^:/_\-. ]*[:/_\-. ]+|[^:/_\-. ]+")
_MIN_ROOM: Final = 8


def visible_name(name: str, width: int) -> Text:
    """``name`` (a task id, a metric) made :func:`visible` on one line, then broken into
    lines of at most ``width`` after its separators (``:`` ``/`` ``_`` ``-`` ``.`` space),
    so a table column wraps it where a reader would; a part wider than ``width`` alone is
    cut, the one case no separator helps.

    >>> print(visible_name("rubric:goal_completion_sloppy", 24))
    rubric:goal_completion_
    sloppy
    """
    lines = [""]
    for part in _NAME_PARTS.findall(visible(name, one_line=True)):
        if lines[-1] and cell_len(lines[-1] + part) > width:
            lines.append("")
        lines[-1] += part
        if cell_len(lines[-1]) > width:
            lines[-1:] = chop_cells(lines[-1], width)  # counted in cells: CJK takes two
    return Text("\n".join(line.rstrip() or line for line in lines))


def first_column_room(width: int, columns: Sequence[Sequence[str | Text]], *, gap: int = 2) -> int:
    """The width left for a table's first column (names) when each of ``columns`` (header
    and cells of the other columns: rich markup, or ``Text``) keeps its widest line whole
    and ``gap`` separates columns; never under 8."""
    taken = sum(max((_widest_line(cell) for cell in column), default=0) for column in columns)
    return max(_MIN_ROOM, width - taken - gap * len(columns))


def _widest_line(cell: str | Text) -> int:
    text = cell if isinstance(cell, Text) else Text.from_markup(cell)
    return max(line.cell_len for line in text.split(allow_blank=True))
