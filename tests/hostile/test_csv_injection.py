"""A CSV export holds no live formula, whichever way a spreadsheet splits it (OWASP's CSV
injection). A cell holding ``\\r=1+1`` was written unquoted (csv's writer quoted only the
line terminator ``\\n``), so a reader started a new row whose first cell was ``=1+1``; a
formula behind a space, an invisible character or a semicolon (``a;=1+1``, which a
spreadsheet splitting on ``;``, the list separator of many locales, reads as two cells) was
left as it was. Each file is read back by Python's csv reader splitting on commas,
semicolons and tabs: no cell of any row starts with a formula character once leading
spaces and invisible characters are stripped, and the comma reader gives back each value
with its guard.
"""

from __future__ import annotations

import csv
import io
import unicodedata
from pathlib import Path

from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from judgekit.cli import main
from judgekit.exporters.csv_rows import csv_line, neutralised
from tests.exporters.world import verdict, write_jsonl

FORMULA_STARTS = "=+-@\t\r"
# (what an agent or a judge wrote, the cell as exported)
HOSTILE = [
    ("\r=1+1", "'\r'=1+1"),
    ("a;=1+1", "a;'=1+1"),
    (" =1+1", "' =1+1"),
    ("\u200b=1+1", "'\u200b=1+1"),
    ("\u202e\u00a0@SUM(A1)", "'\u202e\u00a0@SUM(A1)"),
    ("ok\n-2+3", "ok\n'-2+3"),
    ("x, +1", "x,' +1"),
    ("tab\t=1", "tab\t'=1"),
    ('quoted\n"=1+1"', 'quoted\n\'"=1+1"'),
    ('say "=1" twice', 'say "=1" twice'),
    ("plain text", "plain text"),
]


def stripped(cell: str) -> str:
    """``cell`` without the leading spaces and invisible characters a spreadsheet skips
    (tab and CR are formula starts themselves)."""
    at = 0
    while (
        at < len(cell)
        and cell[at] not in "\t\r"
        and (cell[at].isspace() or unicodedata.category(cell[at]) in ("Zs", "Cf", "Cc"))
    ):
        at += 1
    return cell[at:]


def formula_cells(text: str) -> list[str]:
    """The cells of ``text`` that start with a formula character, as read by csv's reader
    splitting on commas, semicolons and tabs."""
    found = []
    for delimiter in ",;\t":
        for row in csv.reader(io.StringIO(text, newline=""), delimiter=delimiter):
            found += [cell for cell in row if stripped(cell)[:1] in tuple(FORMULA_STARTS)]
    return found


def test_an_exported_csv_holds_no_formula_however_it_is_split(tmp_path: Path) -> None:
    verdicts = write_jsonl(
        tmp_path / "verdicts.jsonl",
        [
            verdict(f"shop/{index}", reason=text, rubric_version="3f2a9c")
            for index, (text, _) in enumerate(HOSTILE)
        ]
        + [verdict("=cmd|' /C calc'!A0", reason="run id")],
    )
    out = tmp_path / "verdicts.csv"
    result = CliRunner().invoke(
        main, ["export", "verdicts", "--format", "csv", "--verdicts", str(verdicts), "-o", str(out)]
    )
    assert (result.exit_code, result.stderr) == (
        0,
        f"exported 12 verdicts (12 scored) as csv to {out}\njudgekit: warning: 12 exported "
        "without a trace link: 12 whose run is not among the runs of --runs\n",
    )
    text = out.read_bytes().decode("utf-8")  # CRs kept as written
    assert formula_cells(text) == []
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == 1 + len(HOSTILE) + 1
    assert [row[7] for row in rows[1:-1]] == [cell for _, cell in HOSTILE]
    assert (rows[-1][1], rows[-1][7]) == ("'=cmd|' /C calc'!A0", "run id")
    # The CR cell is quoted: the file's second row is one line and one record.
    assert text.splitlines(keepends=True)[1].endswith("\"'\r")


@given(st.text(alphabet=st.characters(exclude_characters="\x00")))
def test_no_text_becomes_a_formula_and_every_text_reads_back_guarded(text: str) -> None:
    line = csv_line(["verdict", neutralised(text), "scored"])
    assert formula_cells(line) == []
    assert list(csv.reader(io.StringIO(line, newline=""))) == [
        ["verdict", neutralised(text), "scored"]
    ]
    # The guard only adds quote marks: without them the text is as it was.
    cell = neutralised(text)
    assert len(cell) - cell.count("'") == len(text) - text.count("'")
