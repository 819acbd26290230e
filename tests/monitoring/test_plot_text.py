"""No text of a series plot is cut at the figure's edge: every text artist, drawn by
matplotlib's own renderer, lies inside the figure; a long title or note is wrapped and
shortened to the panel's width."""

from __future__ import annotations

from dataclasses import replace

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text

from judgekit.monitoring.plots import WIDTH_PX, series_figure
from tests.monitoring.test_plots import DROP, STEADY, pass_rate

LONG_PATH = "/home/someone/projects/a-rather-deep/folder/structure/labels/" + "x" * 120
NOTE = (
    "informational: calibrating (hand labels in "
    f"{LONG_PATH}/goal_completion_sloppy.jsonl, not promoted yet); only promoted rubrics "
    "alert; not tested: needs a measured latest window and one before it"
)


def texts_outside(figure: Figure) -> list[tuple[str, tuple[float, float, float, float]]]:
    """The visible, non-empty texts whose window extent leaves the figure, with it."""
    canvas = figure.canvas
    assert isinstance(canvas, FigureCanvasAgg)
    canvas.draw()
    renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]
    width, height = figure.bbox.width, figure.bbox.height
    outside = []
    for text in figure.findobj(Text):
        assert isinstance(text, Text)
        if not text.get_visible() or not text.get_text():
            continue
        box = text.get_window_extent(renderer)
        if box.x0 < 0 or box.y0 < 0 or box.x1 > width or box.y1 > height:
            outside.append((text.get_text(), (box.x0, box.y0, box.x1, box.y1)))
    return outside


def test_a_long_note_is_wrapped_and_shortened_inside_the_figure() -> None:
    series = replace(pass_rate(STEADY, role="informational"), note=NOTE)
    figure = series_figure([series, pass_rate(DROP, alert=True)], title="Scores over time")
    assert texts_outside(figure) == []
    title = figure.axes[0].get_title(loc="left")
    lines = title.split("\n")
    # The title, then the note in two lines, the second cut with an ellipsis.
    assert lines[0] == "pass rate (informational, never alerts)"
    assert len(lines) == 3
    assert lines[1] == "informational: calibrating (hand labels in"
    assert lines[2].endswith("…")
    assert len(lines[2]) < len(LONG_PATH)


def test_a_short_note_is_kept_whole() -> None:
    note = "not tested: needs a measured latest window and one before it"
    figure = series_figure([replace(pass_rate(STEADY), note=note)])
    assert figure.axes[0].get_title(loc="left") == f"pass rate\n{note}"
    assert texts_outside(figure) == []


def test_a_long_title_stays_on_one_line_inside_the_figure() -> None:
    series = replace(pass_rate(STEADY), title="goal_completion_" * 12 + " (promoted)")
    figure = series_figure([series])
    title = figure.axes[0].get_title(loc="left")
    assert "\n" not in title and title.endswith("…")
    assert texts_outside(figure) == []
    assert figure.bbox.width == WIDTH_PX
