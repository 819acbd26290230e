"""QuickTable draws grade's per-task tables with exactly rich's segments and bytes, in time
linear in the rows: each distinct figure is rendered by rich once, however many rows."""

from __future__ import annotations

import io
import random
from collections.abc import Callable
from typing import Any

import pytest
from rich.console import Console
from rich.text import Text

import judgekit.graders.table_render as table_render
from judgekit.formats.grade import Grade, GraderResult
from judgekit.graders.summary import GradeSummary
from judgekit.graders.table import _table, print_grade_table

ID_PARTS = [
    "refund",
    "full",
    "a",
    "x" * 30,
    "日本語",
    "ünï",
    "tab\tbed",
    "two words",
    "[red]m[/red]",
]
ID_PARTS += ["\x1b[2J", "ok", "emoji:smile:", "w" * 90]
FIGURES = ["1", "12", "1.00", "0.21–1.00", "—", "[green]1/1[/green]", "[red]0/3[/red]", "33%"]


def _random_id(rng: random.Random) -> str:
    parts = rng.choices(ID_PARTS, k=rng.randint(1, 4))
    return "".join(part + rng.choice(["-", "_", ".", ":", ""]) for part in parts).strip() or "t"


def _rows(rng: random.Random, n: int, columns: int) -> list[tuple[str, list[str | Text]]]:
    rows: list[tuple[str, list[str | Text]]] = []
    for index in range(n):
        cells: list[str | Text] = [rng.choice(FIGURES) for _ in range(columns - 1)]
        cells.append(Text(rng.choice(["0", "max_turns 2, error 1", "a, b 1"])))
        rows.append((f"{_random_id(rng)}-{index}", cells))
    return rows


def _consoles(width: int) -> list[Callable[[], Console]]:
    def plain() -> Console:
        return Console(file=io.StringIO(), width=width, emoji=False)

    def colour() -> Console:
        return Console(
            file=io.StringIO(), width=width, force_terminal=True, color_system="truecolor"
        )

    def safe_box() -> Console:
        return Console(file=io.StringIO(), width=width, force_terminal=True, safe_box=True)

    return [plain, colour, safe_box]


def _printed(make: Callable[[], Console], renderable: Any) -> str:
    console = make()
    console.print(renderable)
    file = console.file
    assert isinstance(file, io.StringIO)
    return file.getvalue()


@pytest.mark.parametrize("seed", range(12))
def test_the_segments_and_bytes_are_richs(seed: int) -> None:
    rng = random.Random(seed)
    width = rng.choice([40, 60, 80, 100, 140])
    headers = ["runs", "pass@1", "95% CI", "turns\nmean", "stopped"][: rng.randint(2, 5)]
    rows = _rows(rng, rng.randint(1, 40), len(headers))
    quick = _table("Reliability per task", headers, rows, width)
    for make in _consoles(width):
        console = make()
        assert list(console.render(quick)) == list(console.render(quick.table))
        assert _printed(make, quick) == _printed(make, quick.table)


def _summary(n_tasks: int) -> GradeSummary:
    summary = GradeSummary()
    for i in range(n_tasks):
        ok = i % 3 != 0
        reason = "all expected calls made" if ok else "missing call 'refund'"
        summary.add(
            Grade(
                run_id=f"r{i}",
                task_id=f"task_{i:05d}" if i % 7 else f"suite-{i}-with-a-rather-long-name_part",
                trial=1,
                passed=ok,
                truth=GraderResult(passed=ok, reason=reason),
                turns=i % 5,
                cost_usd=0.01 * (i % 4) or None,
                stop_reason="max_turns" if i % 11 == 0 else "completed",
                tool_calls=2,
                tool_errors=i % 2,
            )
        )
    return summary


def test_a_large_suite_prints_richs_bytes_and_renders_each_figure_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """2,000 tasks: the three tables are rich's byte for byte, and rich renders a cell only
    once per distinct figure (not once per row: 18 cells a row made 36,000 renders)."""
    summary = _summary(2_000)
    quick = io.StringIO()
    print_grade_table(summary, Console(file=quick, width=80), show_reasons=True)

    renders = 0
    render_lines = Console.render_lines

    def counted(self: Console, *args: Any, **kwargs: Any) -> Any:
        nonlocal renders
        renders += 1
        return render_lines(self, *args, **kwargs)

    monkeypatch.setattr(Console, "render_lines", counted)
    again = io.StringIO()
    print_grade_table(summary, Console(file=again, width=80), show_reasons=True)
    assert again.getvalue() == quick.getvalue()
    assert renders < 150, renders  # the distinct figures and the headers

    monkeypatch.setattr(table_render, "_quick_segments", lambda *args: None)
    slow = io.StringIO()
    print_grade_table(summary, Console(file=slow, width=80), show_reasons=True)
    assert quick.getvalue() == slow.getvalue()
    assert quick.getvalue().count("task_00001") == 3


def test_a_table_wider_than_the_console_is_left_to_rich() -> None:
    rows: list[tuple[str, list[str | Text]]] = [("t", ["1" * 50, "2" * 50])]
    quick = _table("Wide", ["a", "b"], rows, 60)
    console = Console(file=io.StringIO(), width=60)
    assert table_render._quick_segments(quick.table, console, console.options) is None
    assert _printed(lambda: Console(file=io.StringIO(), width=60), quick) == _printed(
        lambda: Console(file=io.StringIO(), width=60), quick.table
    )


def test_a_task_cell_that_lays_itself_out_is_rendered_by_rich() -> None:
    rows: list[tuple[str, list[str | Text]]] = [("plain-id", ["1"]), ("other", ["22"])]
    quick = _table("T", ["runs"], rows, 40)
    quick.table.columns[0]._cells[1] = Text("other", justify="right")
    for make in _consoles(40):
        console = make()
        assert list(console.render(quick)) == list(console.render(quick.table))
    assert table_render._plain_name(Text("other", justify="right")) is None
    assert table_render._plain_name(Text("plain-id")) == "plain-id"
