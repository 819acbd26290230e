"""Per-task tables drawn in time linear in their cells, with exactly rich's segments.

rich lays out and renders every cell of a :class:`~rich.table.Table` anew (padding,
wrapping, cropping), so the grade tables of a large suite took a wait in proportion to its
cells. The figures of these tables repeat (``1/1``, ``1.00``, ``—``), and the task
ids are plain lines: :class:`QuickTable` renders each distinct figure once with rich's own
machinery and reuses its segments, writes a plain task id's lines directly, and lets rich
draw the title, the header and the edges. The segments are those rich's table yields (so
the bytes are, in colour or not); a table it is not sure of (one too wide for the console,
a setting other than grade's) is rendered by rich itself.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderableType, RenderResult
from rich.padding import Padding
from rich.segment import Segment
from rich.style import Style
from rich.table import Table
from rich.text import Text


class QuickTable:
    """``table`` (as grade's tables make it: a left task column, then figures) rendered
    exactly as rich renders it, in time linear in its cells."""

    def __init__(self, table: Table) -> None:
        self.table = table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        segments = _quick_segments(self.table, console, options)
        if segments is None:
            yield from self.table.__rich_console__(console, options)
        else:
            yield from segments


def _plain_name(cell: object) -> str | None:
    """The text of a task cell written directly: a ``Text`` without styles whose lines are
    printable ASCII without spaces (one cell each, nothing for rich to wrap); else None."""
    if not isinstance(cell, Text) or cell.spans or cell.style or cell.end != "\n":
        return None
    if cell.justify is not None or cell.overflow is not None or cell.no_wrap is not None:
        return None  # the Text lays itself out otherwise: rich renders it
    plain = cell.plain
    if not plain or not plain.replace("\n", "").isascii():
        return None
    if any(not line or not line.isprintable() or " " in line for line in plain.split("\n")):
        return None
    return plain


def _is_grade_table(table: Table) -> bool:
    """The settings the quick path reproduces; any other table goes to rich."""
    return bool(
        table.box is not None
        and table.columns
        and table.rows
        and table.show_header
        and table.show_edge
        and not table.show_footer
        and not table.show_lines
        and not table.leading
        and not table.expand
        and not table.collapse_padding
        and not table.pad_edge
        and table.width is None
        and table.min_width is None
        and table.caption is None
        and not table.row_styles
        and all(row.style is None and not row.end_section for row in table.rows)
        and all(column.width is None and not column.style for column in table.columns)
    )


def _widest(console: Console, cell: RenderableType, cache: dict[object, int]) -> int:
    """The widest line of a cell, as rich measures it (markup parsed, in cells)."""
    key = cell if isinstance(cell, str) else None
    if key is not None and key in cache:
        return cache[key]
    text = console.render_str(cell) if isinstance(cell, str) else cell
    assert isinstance(text, Text)
    lines = text.plain.splitlines()
    width = max((cell_len(line) for line in lines), default=0)
    if key is not None:
        cache[key] = width
    return width


def _quick_segments(
    table: Table, console: Console, options: ConsoleOptions
) -> list[Segment] | None:
    """The table's segments, or None when rich must lay it out itself."""
    if not _is_grade_table(table) or table.padding != (0, 1, 0, 1):
        return None
    last = len(table.columns) - 1
    pads = [(0 if i == 0 else 1, 0 if i == last else 1) for i in range(last + 1)]
    cells = [list(column.cells) for column in table.columns]
    widths = _widths(table, console, cells, pads)
    if widths is None or sum(widths) > options.max_width - (2 + last):  # edges and dividers
        return None  # rich folds or shrinks columns here: let it
    framed = _frame(table, console, options, widths, pads)
    rows = _row_segments(table, console, options, _Cells(table, console, options, widths, pads))
    return framed[:-2] + rows + framed[-2:]  # the rows go above the bottom edge


def _widths(
    table: Table, console: Console, cells: Sequence[Sequence[object]], pads: list[tuple[int, int]]
) -> list[int] | None:
    """Each column's width with its padding, as rich measures it when the table fits."""
    measured: dict[object, int] = {}
    widths = []
    for column, column_cells, (left, right) in zip(table.columns, cells, pads, strict=True):
        every = [column.header, *column_cells]
        if not all(isinstance(cell, str | Text) for cell in every):
            return None
        widest = max(_widest(console, cell, measured) for cell in every)  # type: ignore[arg-type]
        widths.append((widest + left + right) or 1)
    return widths


def _frame(
    table: Table,
    console: Console,
    options: ConsoleOptions,
    widths: list[int],
    pads: list[tuple[int, int]],
) -> list[Segment]:
    """Title, top edge, header and bottom edge, drawn by rich: the table without its rows,
    each column fixed at the width the rows give it."""
    head = Table(
        title=table.title,
        title_justify=table.title_justify,
        box=table.box,
        pad_edge=False,
        safe_box=table.safe_box,
        highlight=table.highlight,
    )
    for column, width, (left, right) in zip(table.columns, widths, pads, strict=True):
        head.add_column(
            column.header,
            justify=column.justify,
            no_wrap=column.no_wrap,
            overflow=column.overflow,
            width=width - left - right,
        )
    return list(console.render(head, options))


Line = list[Segment]


class _Cells:
    """A body cell's lines as rich renders them in its column; a figure rendered once and
    reused, a plain task id written directly."""

    def __init__(
        self,
        table: Table,
        console: Console,
        options: ConsoleOptions,
        widths: list[int],
        pads: list[tuple[int, int]],
    ) -> None:
        self.console, self.widths, self.pads = console, widths, pads
        self.style = console.get_style("") + Style.null()  # a column's style + the row's
        table_width = sum(widths) + 2 + len(widths) - 1
        render = options.update(width=table_width, highlight=table.highlight, height=None)
        self.options = [
            render.update(
                width=width,
                justify=column.justify,
                no_wrap=column.no_wrap,
                overflow=column.overflow,
                height=None,
                highlight=column.highlight,
            )
            for column, width in zip(table.columns, widths, strict=True)
        ]
        self.left_names = table.columns[0].justify == "left"
        self.rendered: list[dict[object, list[Line]]] = [{} for _ in widths]

    def lines(self, column: int, cell: str | Text) -> list[Line]:
        name = _plain_name(cell) if column == 0 and self.left_names else None
        if name is not None:
            right = self.pads[0][1]
            content = self.widths[0] - right
            parts = name.split("\n")
            if all(len(line) <= content for line in parts):
                pad = Segment(" " * right, self.style)
                return [[Segment(line.ljust(content)), pad] for line in parts]
        key = cell if isinstance(cell, str) else _text_key(cell)
        cache = self.rendered[column]
        lines = cache.get(key) if key is not None else None
        if lines is None:
            left, right = self.pads[column]
            lines = self.console.render_lines(
                Padding(cell, (0, right, 0, left)), self.options[column], style=self.style
            )
            if key is not None:
                cache[key] = lines
        return lines


def _row_segments(
    table: Table, console: Console, options: ConsoleOptions, cells: _Cells
) -> list[Segment]:
    """The body rows, segment for segment as rich's ``Table._render`` yields them."""
    assert table.box is not None
    safe = console.safe_box if table.safe_box is None else table.safe_box
    box = table.box.substitute(options, safe=safe)
    border = console.get_style(table.style or "") + console.get_style(table.border_style or "")
    columns = [list(column.cells) for column in table.columns]
    last_column = len(columns) - 1
    new_line = Segment.line()
    out: list[Segment] = []
    count = len(columns[0])
    for index in range(count):
        edges = (box.mid_left, box.mid_right, box.mid_vertical)
        if index == count - 1:
            edges = (box.foot_left, box.foot_right, box.foot_vertical)
        left, right, divider = (Segment(edge, border) for edge in edges)
        if not divider.text.strip():
            divider = Segment(divider.text, Style.null().background_style + border)
        row = [cells.lines(i, column[index]) for i, column in enumerate(columns)]  # type: ignore[arg-type]
        for line_no in range(max(len(lines) for lines in row)):
            out.append(left)
            for column_index, (lines, width) in enumerate(zip(row, cells.widths, strict=True)):
                if line_no < len(lines):
                    out.extend(lines[line_no])
                else:
                    out.append(Segment(" " * width, cells.style))
                if column_index < last_column:
                    out.append(divider)
            out.append(right)
            out.append(new_line)
    return out


def _text_key(text: Text) -> object:
    """A key for a ``Text`` cell rendered the same wherever it appears: None (not cached)
    unless it is plain text with a plain style."""
    if text.spans or text.justify or text.overflow or text.no_wrap is not None:
        return None
    if text.end != "\n" or not isinstance(text.style, str):
        return None
    return ("text", text.plain, text.style)
