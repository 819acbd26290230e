"""Console tables at 80 columns: every figure whole (no `…` inside a number), no line over
80 characters, and names wrapped only after their own separators (`-`, `_`, `:`)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit._util.terminal_text import first_column_room, visible_name
from judgekit.cli import main
from tests.conftest import REPO

WIDTH = 80
# A figure cut by rich ends in `…` (`0.735–…`, `0.9…`).
CUT_FIGURE = re.compile(r"[\d.%–±]…")
LONG_ID = "weather-only-when-the-traveller-asks-about-tomorrow"


def at_80_columns(args: list[str], env: dict[str, str | None]) -> str:
    result = CliRunner().invoke(main, args, env={"COLUMNS": str(WIDTH), **env})
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 1), result.output
    return result.output


def assert_table(output: str, table: str) -> None:
    """``table``'s lines appear in ``output`` one after the other (trailing spaces aside),
    and each fits 80 columns with no figure cut."""
    lines = [line.rstrip() for line in output.splitlines()]
    expected = [line.rstrip() for line in table.strip("\n").splitlines()]
    starts = [i for i, line in enumerate(lines) if line == expected[0]]
    assert starts, f"{expected[0]!r} is not in the output:\n{output}"
    shown = lines[starts[0] : starts[0] + len(expected)]
    assert shown == expected
    widths = [len(line) for line in output.splitlines()[starts[0] : starts[0] + len(expected)]]
    assert max(widths) <= WIDTH
    assert not CUT_FIGURE.search("\n".join(shown))


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    tmp = tmp_path_factory.mktemp("demo80")
    env = {"JUDGEKIT_HOME": str(tmp / "home"), "JUDGEKIT_DB": None, "OPENAI_API_KEY": None}
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp)
        yield at_80_columns(["demo", "--out", str(tmp / "out")], env)


SHOP_GRADE_TABLES = """
 task                runs   pass@1      95% CI   pass@5   pass^5
 ───────────────────────────────────────────────────────────────
 cancel_shipped        40     0.72   0.57–0.84     1.00     0.18
 refund_and_notify     40     0.72   0.57–0.84     1.00     0.18
 refund_full           40     0.70   0.55–0.82     1.00     0.15
 refuse_overrefund     40     0.55   0.40–0.69     0.99     0.04

What failed

 task                Truth    Path   State   claims   refused   stopped
 ──────────────────────────────────────────────────────────────────────
 cancel_shipped      11/40    8/40    3/40       11        9%         0
 refund_and_notify   11/40   11/40   11/40       11        0%         0
 refund_full          0/40   12/40   12/40       12        0%         0
 refuse_overrefund    0/40    0/40   18/40       18        0%         0

Cost per run

                     turns   turns   cost $   cost $
 task                 mean   worst     mean    worst
 ───────────────────────────────────────────────────
 cancel_shipped        3.1       4   0.0012   0.0016
 refund_and_notify     3.3       4   0.0013   0.0016
 refund_full           3.3       4   0.0013   0.0016
 refuse_overrefund     3.0       3   0.0012   0.0012
"""

JUDGES_TABLE = """
                                       says pass  says fail  says pass
judge          rubric                  if passed  if failed  if failed
careful-judge  goal_completion              0.95       0.90       0.10
sloppy-judge   goal_completion_sloppy       0.95       0.40       0.60
"""

CALIBRATION_TABLE = """
Judge against the 60 held-out test labels (95% intervals)

 judge            n   agreement   kappa      kappa CI   false-pass   false-fail
 ──────────────────────────────────────────────────────────────────────────────
 careful-judge   60       0.933   0.864   0.736–0.993        0.077        0.059
 sloppy-judge    60       0.700   0.341   0.137–0.546        0.654        0.029
"""

MONITOR_TABLE = """
metric               latest     95% CI    n  baseline     n        p  status
────────────────────────────────────────────────────────────────────────────
pass_rate             0.610  0.56–0.66  400     0.728  2800  <0.0001   ALERT
truth                 0.828  0.79–0.86  400     0.863  2800    0.030      ok
path                  0.720  0.67–0.76  400     0.830  2800  <0.0001   ALERT
state                 0.667  0.62–0.71  400     0.778  2800  <0.0001   ALERT
cost_usd           0.001296     ±2e-05  400  0.001254  2800  <0.0001      ok
turns                  3.24      ±0.05  400     3.135  2800  <0.0001      ok
rubric:goal_          0.472  0.42–0.52  400     0.637  2800  <0.0001   ALERT
completion
rubric:goal_          0.787  0.74–0.82  400     0.844  2800    0.002    info
completion_sloppy
latest day against the 7 before it pooled; one-sided tests at alpha 0.01
(holm); Wilson intervals for proportions
"""

GATE_TABLE = """
Gate: candidate against baseline, per task
task                   baseline    candidate      p  cost Δ  turns Δ  verdict
─────────────────────────────────────────────────────────────────────────────
cancel_shipped       0.72 29/40   0.72 29/40  0.500     +0%      +0%       ok
refund_and_notify    0.72 29/40   0.72 29/40  0.500     +0%      +0%       ok
refund_full          0.70 28/40   0.38 15/40  0.002    +10%     +10%     FAIL
refuse_overrefund    0.55 22/40   0.55 22/40  0.500     +0%      +0%       ok

all runs           0.68 108/160  0.59 95/160  0.066     +3%      +3%        —
p: one-sided test of a pass-rate drop (alpha 0.05, correction holm); cost and
turns: change of the mean
"""


@pytest.mark.parametrize(
    "table",
    [SHOP_GRADE_TABLES, JUDGES_TABLE, CALIBRATION_TABLE, MONITOR_TABLE, GATE_TABLE],
    ids=["grade", "judges", "calibration", "monitor", "gate"],
)
def test_the_demos_tables_at_80_columns(demo_output: str, table: str) -> None:
    assert_table(demo_output, table)


def test_no_figure_of_the_demo_is_cut(demo_output: str) -> None:
    assert demo_output.count("Judge against the 60 held-out test labels") == 1
    assert not CUT_FIGURE.search(demo_output)


@pytest.fixture
def long_id_suite(tmp_path: Path) -> Path:
    """The travel suite and its example runs with one task id of 51 characters."""
    for source in (REPO / "tasks" / "travel.yaml", REPO / "examples" / "runs" / "travel.jsonl"):
        text = source.read_text(encoding="utf-8").replace("weather-only", LONG_ID)
        (tmp_path / source.name).write_text(text, encoding="utf-8")
    return tmp_path


def test_a_long_task_id_wraps_at_its_hyphens_in_grade(long_id_suite: Path) -> None:
    out = at_80_columns(
        ["grade", str(long_id_suite / "travel.jsonl"), "--tasks", str(long_id_suite / "travel.yaml"),
         "--out", str(long_id_suite / "res"), "--no-store"],
        {},
    )  # fmt: skip
    assert_table(
        out,
        """
 task                               runs   pass@1      95% CI   pass@2   pass^2
 ──────────────────────────────────────────────────────────────────────────────
 ambiguous-needs-search                2     0.50   0.09–0.91     1.00     0.00
 no-book-when-raining                  2     0.50   0.09–0.91     1.00     0.00
 search-before-book                    4     0.25   0.05–0.70     0.50     0.00
 weather-gate-book                     6     0.33   0.10–0.70     0.60     0.07
 weather-only-when-the-traveller-      3     0.33   0.06–0.79     0.67     0.00
 asks-about-tomorrow
""",
    )
    assert_table(
        out,
        """
 weather-only-when-the-     2/3    0/3       —        2        0%             0
 traveller-asks-about-
 tomorrow
""",
    )
    assert_table(
        out,
        """
 weather-only-when-the-traveller-asks-about-     2.0       3   0.0009   0.0012
 tomorrow
""",
    )


def test_a_long_task_id_wraps_at_its_hyphens_in_gate(long_id_suite: Path, tmp_path: Path) -> None:
    results = long_id_suite / "res" / "results.jsonl"
    at_80_columns(
        ["grade", str(long_id_suite / "travel.jsonl"), "--tasks", str(long_id_suite / "travel.yaml"),
         "--out", str(long_id_suite / "res"), "--no-store"],
        {},
    )  # fmt: skip
    out = at_80_columns(
        ["gate", "--baseline", str(results), "--candidate", str(results)],
        {"JUDGEKIT_HOME": str(tmp_path / "home"), "JUDGEKIT_DB": None},
    )
    assert_table(
        out,
        """
weather-gate-book        0.33 2/6   0.33 2/6  0.500     +0%      +0%       ok
weather-only-when-the-   0.33 1/3   0.33 1/3  0.500     +0%      +0%       ok
traveller-asks-about-
tomorrow

all runs                0.35 6/17  0.35 6/17  0.500     +0%      +0%        —
""",
    )


def test_a_name_breaks_after_its_separators_and_only_a_lone_long_part_is_cut() -> None:
    assert visible_name("rubric:goal_completion_sloppy", 24).plain == (
        "rubric:goal_completion_\nsloppy"
    )
    assert visible_name("refund_full", 24).plain == "refund_full"
    assert visible_name("a.b/c d", 3).plain == "a.\nb/\nc d"
    assert visible_name("a.b/c d", 2).plain == "a.\nb/\nc\nd"
    assert visible_name("x" * 10 + "-y", 4).plain == "xxxx\nxxxx\nxx-y"
    assert visible_name("日本語の-タスク", 6).plain == "日本語\nの-\nタスク"
    # Data stays data: a newline in an id is shown, never obeyed.
    assert visible_name("ok\n[red]x", 40).plain == "ok␊[red]x"


def test_the_first_column_gets_what_the_figures_leave() -> None:
    columns = [["latest", "0.00127"], ["status", "[red]ALERT[/red]", "untested"], ["a\nbc"]]
    assert first_column_room(80, columns) == 80 - (7 + 8 + 2) - 2 * 3
    assert first_column_room(20, columns) == 8


def confusion(classes: list[str], counts: dict[str, dict[str, int]]) -> list[str]:
    from types import SimpleNamespace
    from typing import cast

    from judgekit.calibration.render import _confusion_lines
    from judgekit.calibration.report import CalibrationReport

    report = SimpleNamespace(classes=classes, confusion=counts)
    return _confusion_lines(cast(CalibrationReport, report))


def test_calibrates_confusion_matrix_of_a_1_to_10_scale_fits_80_columns() -> None:
    names = [str(score) for score in range(1, 11)]
    counts = {
        h: {j: 12 if h == j else 3 if abs(int(h) - int(j)) == 1 else 0 for j in names}
        for h in names
    }
    lines = confusion(names, counts)
    assert lines[:4] == [
        "confusion (rows: human, columns: judge):",
        "     1   2   3   4   5   6   7   8   9  10",
        " 1  12   3   0   0   0   0   0   0   0   0",
        " 2   3  12   3   0   0   0   0   0   0   0",
    ]
    assert lines[-1] == "10   0   0   0   0   0   0   0   0   3  12"


def test_a_binary_confusion_matrix_keeps_its_layout() -> None:
    counts = {"pass": {"pass": 33, "fail": 1}, "fail": {"pass": 4, "fail": 22}}
    assert confusion(["pass", "fail"], counts) == [
        "confusion (rows: human, columns: judge):",
        "            pass    fail",
        "    pass      33       1",
        "    fail       4      22",
    ]
