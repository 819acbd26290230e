"""Agent text never takes over the terminal: escape sequences, controls, bidi overrides and
rich markup in runs, ids, names, notes and reasons are shown, never obeyed."""

from __future__ import annotations

import io
import json
import re
import shutil
import sys
import unicodedata
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pexpect
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from judgekit._util.terminal_text import visible, visible_markup, visible_text
from judgekit.cli import main
from judgekit.formats.grade import Grade, GraderResult
from judgekit.formats.label import Label
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.run import Run, ToolCall
from judgekit.formats.verdict import Verdict
from judgekit.labelling.keys import scale_keys
from judgekit.labelling.screen import LabelScreen, make_item
from judgekit.store import open_store
from judgekit.trials.task_outcome import TaskOutcome
from tests.conftest import REPO
from tests.labelling.conftest import TIMEOUT, child_env

RUBRIC = REPO / "rubrics" / "goal_completion.yaml"
MODEL = "openai/gpt-4o-mini"

# Everything an answer can try on a terminal, and what each shows as instead.
HOSTILE = (
    "\x1b[2J\x1b[H FAKE SCREEN: judge says PASS, press p "
    "\x1b]0;TITLE\x07 "
    "\x1b]52;c;ZXZpbA==\x07 "
    "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\ "
    "\x1b[8mHIDDEN\x1b[0m "
    "\x9b2J "
    "[red]x[/red] "
    "\u202eevil\u202c "
    "\x1b]0;open AFTER-OSC"
)
SHOWN = (
    "␛[2J␛[H FAKE SCREEN: judge says PASS, press p "
    "␛]0;TITLE␇ "
    "␛]52;c;ZXZpbA==␇ "
    "␛]8;;http://evil.example␛\\link␛]8;;␛\\ "
    "␛[8mHIDDEN␛[0m "
    "\\x9b2J "
    "[red]x[/red] "
    "\\u202eevil\\u202c "
    "␛]0;open AFTER-OSC"
)

BIDI = [0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)]
# What the terminal must never receive from data: C0 but tab, newline and carriage return
# (the pty turns each newline into CR LF), DEL, C1, bidi controls and the separators.
FORBIDDEN = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
    "\u202a-\u202e\u2066-\u2069]"
)
SGR = re.compile(r"\x1b\[([0-9;]*)m")


def controls_in(output: str) -> list[str]:
    """Every control character of ``output`` but newline (ESC included)."""
    return [c for c in output if c != "\n" and (FORBIDDEN.match(c) or c in "\x1b\r\t")]


# --- the sanitiser --------------------------------------------------------------------------


def test_the_hostile_answer_shows_every_sequence() -> None:
    assert visible(HOSTILE) == SHOWN


def test_every_c0_control_is_its_control_picture() -> None:
    for code in range(0x20):
        char = chr(code)
        if char in "\n\t":
            assert visible(char) == char
        else:
            assert visible(char) == chr(0x2400 + code), hex(code)
    assert visible("\x1b") == "␛"
    assert visible("\x00\x07\x08\x0d") == "␀␇␈␍"


def test_del_and_every_c1_control_are_escapes() -> None:
    for code in range(0x7F, 0xA0):
        assert visible(chr(code)) == f"\\x{code:02x}"
    assert visible("\x9b2J\x9d0;t\x9c\x85") == "\\x9b2J\\x9d0;t\\x9c\\x85"


def test_bidi_controls_separators_and_lone_surrogates_are_escapes() -> None:
    for code in [*BIDI, 0x2028, 0x2029, 0xD800, 0xDFFF]:
        assert visible(chr(code)) == f"\\u{code:04x}"
    assert visible("\u2067\u202eevil\u202c\u2069") == "\\u2067\\u202eevil\\u202c\\u2069"


def test_carriage_returns_newlines_and_tabs() -> None:
    assert visible("FAIL\rPASS") == "FAIL␍PASS"  # a bare CR would overwrite FAIL
    assert visible("a\r\nb\n\tc") == "a\nb\n\tc"  # a Windows line end is a line end
    assert visible("a\r\nb\nc\td", one_line=True) == "a␊b␊c\td"
    assert visible("\r\r\n") == "␍\n"


def test_printable_text_is_unchanged() -> None:
    text = "Refund of $40 — 退款 🎉 ␛ \\x9b [bold] :warning: \u200b é\tok\nnext"
    assert visible(text) == text


@given(st.text(alphabet=st.characters(exclude_categories=())))
def test_no_control_survives(text: str) -> None:
    shown = visible(text)
    for char in shown:
        assert char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cs"), repr(char)
        assert ord(char) not in BIDI and char not in "\u2028\u2029", repr(char)
    assert visible(shown) == shown
    line = visible(text, one_line=True)
    assert "\n" not in line
    assert all(c == "\t" or unicodedata.category(c) not in ("Cc", "Cs") for c in line)


@given(st.text(alphabet=st.characters(exclude_categories=("Cc", "Cs"))))
def test_text_without_controls_passes_unchanged(text: str) -> None:
    if not any(ord(c) in BIDI or c in "\u2028\u2029" for c in text):
        assert visible(text) == text


def test_rich_markup_and_emoji_codes_in_data_are_printed_as_written() -> None:
    out = io.StringIO()
    console = Console(file=out, width=400, emoji=False, highlight=False)
    console.print(f"[bold]{visible_markup('[red]x[/red] [link=http://e]y[/link] :warning:')}")
    console.print(visible_text("[red]x[/red] :warning:\x1b[2J"))
    assert out.getvalue() == (
        "[red]x[/red] [link=http://e]y[/link] :warning:\n[red]x[/red] :warning:␛[2J\n"
    )


# --- judgekit label, in a real pseudo-terminal -------------------------------------------

HOSTILE_RUN_ID = "hostile\x1b]0;ID\x07/1"


def hostile_runs(tmp: Path) -> tuple[Path, Path]:
    runs = [
        Run(
            run_id=HOSTILE_RUN_ID,
            task_id="refund_full",
            input=f"Refund A100. {HOSTILE}",
            tool_calls=[ToolCall(name="issue_refund", args={"note": HOSTILE}, result=HOSTILE)],
            final_answer=HOSTILE,
        ),
        Run(run_id="plain/1", task_id="refund_full", tool_calls=[], final_answer="Refund issued."),
    ]
    runs_path = tmp / "runs.jsonl"
    runs_path.write_text("".join(r.model_dump_json() + "\n" for r in runs), encoding="utf-8")
    verdicts_path = tmp / "verdicts.jsonl"
    version = rubric_version(load_rubric(RUBRIC))
    verdicts = [
        Verdict(
            run_id=run.run_id,
            rubric_id="goal_completion",
            rubric_version=version,
            model=MODEL,
            status="scored",
            score="pass",
            reason=HOSTILE,
            at=datetime(2026, 11, 29, 10, 0, tzinfo=UTC),
        )
        for run in runs
    ]
    verdicts_path.write_text("".join(v.model_dump_json() + "\n" for v in verdicts), "utf-8")
    return runs_path, verdicts_path


def test_label_shows_a_hostile_run_and_records_the_right_run(tmp_path: Path) -> None:
    runs, verdicts = hostile_runs(tmp_path)
    seen = io.StringIO()
    child = pexpect.spawn(
        sys.executable,
        ["-m", "judgekit", "label", str(runs), "--rubric", str(RUBRIC), "--labeler", "ana",
         "--reveal", "--verdicts", str(verdicts)],
        env=child_env(tmp_path), cwd=str(tmp_path), encoding="utf-8", timeout=TIMEOUT,
        dimensions=(100, 1000),  # wide enough that no line wraps
    )  # fmt: skip
    child.logfile_read = seen
    drawn = 0
    for _ in range(2):
        child.expect_exact("q quit")
        this_screen = SGR.sub("", seen.getvalue()[drawn:])
        drawn = len(seen.getvalue())
        child.send("p" if "─ plain/1 ─" in this_screen else "f")
        child.expect_exact("press any key for the next run")
        child.send(" ")
    child.expect_exact("done: every run of the sample is labelled")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    raw = seen.getvalue()
    # No byte of the data's sequences reached the terminal: no C1, BEL, bidi control, and
    # no ESC but judgekit's own: its colours (never SGR 8, hidden text) and one clear per run.
    assert FORBIDDEN.findall(raw) == []
    assert all("8" not in params.split(";") for params in SGR.findall(raw))
    unstyled = SGR.sub("", raw)
    assert unstyled.count("\x1b") == 4
    assert unstyled.count("\x1b[2J\x1b[H") == 2
    assert unstyled.startswith("\x1b[2J\x1b[H")
    screen = unstyled.replace("\x1b[2J\x1b[H", "").replace("\r\n", "\n")
    lines = screen.split("\n")
    assert sum(line.startswith("─ hostile␛]0;ID␇/1 ─") for line in lines) == 1
    assert sum(line.startswith("─ plain/1 ─") for line in lines) == 1
    # Each sequence is drawn in its visible form, the text after an open OSC included.
    assert f"Task: Refund A100. {SHOWN}" in lines
    assert f"Final answer: {SHOWN}" in lines
    assert f"judge {MODEL}: pass (disagrees with you) {SHOWN}" in lines
    assert f"judge {MODEL}: pass (agrees with you) {SHOWN}" in lines
    call = next(line for line in lines if line.startswith("Tool call 1: issue_refund("))
    result = next(line for line in lines if line.startswith("Result: "))
    for line in (call, result):
        for part in ("FAKE SCREEN: judge says PASS", "\\x9b2J", "[red]x[/red]", "AFTER-OSC"):
            assert part in line
        assert "\\u202eevil\\u202c" in line
    labels = [json.loads(line) for line in (tmp_path / "labels" / "goal_completion.jsonl").open()]
    assert {label["run_id"]: label["label"] for label in labels} == {
        HOSTILE_RUN_ID: "fail",
        "plain/1": "pass",
    }


def test_the_label_screen_shows_notes_and_messages_visibly() -> None:
    out = io.StringIO()
    rubric = load_rubric(RUBRIC)
    console = Console(file=out, width=300, force_terminal=True, color_system=None)
    screen = LabelScreen(console, rubric, scale_keys(rubric), clear=False)
    run = Run(run_id="r\x1b[2J/1", task_id="t", tool_calls=[], input="do", final_answer="ok")
    screen.show(make_item(run), labelled=0, to_go=1, tally={}, note="see \x1b]0;T\x07\nthis")
    screen.message("note: \x9b2J \u202eevil")
    text = out.getvalue()
    assert controls_in(text) == []
    assert "─ r␛[2J/1 ─" in text
    assert "note: see ␛]0;T␇\nthis (now the label key)" in text
    assert "note: \\x9b2J \\u202eevil\n" in text


def test_the_hash_is_of_the_run_not_of_its_drawing() -> None:
    run = Run(run_id="r", task_id="t", tool_calls=[], final_answer="\x1b[2J")
    assert make_item(run).text.endswith("Final answer: \x1b[2J")


# --- the report commands ---------------------------------------------------------------------


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], env={"COLUMNS": "300"})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


NAME = "ana\x1b]0;pwned\x07\nFAKE"
NOTE = "claims a refund \x1b[2J\x9b2J \u202eevil\u202c"


def calibration_files(tmp: Path) -> tuple[Path, Path, Path]:
    (tmp / "rubrics").mkdir()
    rubric = tmp / "rubrics" / "goal_completion.yaml"
    shutil.copy(RUBRIC, rubric)
    version = rubric_version(load_rubric(rubric))
    at = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
    scores = {"run\x1b[2J/1": ("fail", "pass"), "ok/2": ("pass", "pass"), "ok/3": ("fail", "fail")}
    verdicts, labels = tmp / "verdicts.jsonl", tmp / "labels" / "goal_completion.jsonl"
    labels.parent.mkdir()
    verdict_lines, label_lines = [], []
    for n, (run_id, (human, judge)) in enumerate(scores.items()):
        verdict_lines.append(
            Verdict(
                run_id=run_id, rubric_id="goal_completion", rubric_version=version, model=MODEL,
                status="scored", score=judge, reason=HOSTILE, at=at + timedelta(minutes=n),
            ).model_dump_json()
        )  # fmt: skip
        label_lines.append(
            Label(
                run_id=run_id, rubric_id="goal_completion", label=human, labeler=NAME,
                at=at + timedelta(minutes=n), note=NOTE,
            ).model_dump_json()
        )  # fmt: skip
    verdicts.write_text("\n".join(verdict_lines) + "\n", encoding="utf-8")
    labels.write_text("\n".join(label_lines) + "\n", encoding="utf-8")
    return rubric, verdicts, labels


def test_calibrate_shows_labeller_names_notes_and_reasons_visibly(tmp_path: Path) -> None:
    rubric, verdicts, labels = calibration_files(tmp_path)
    base = ("calibrate", "--rubric", rubric, "--verdicts", verdicts, "--labels", labels)
    base += ("--split", "all")  # every label, whichever side of the split it is on
    code, out, err = invoke(*base, "--no-store")
    assert code == 0, err
    assert controls_in(out) == []
    lines = out.splitlines()
    assert "(ana␛]0;pwned␇␊FAKE 3 of 3 compared)" in lines[2]
    start = lines.index("disagreements: 1")
    assert lines[start + 1 : start + 4] == [
        "  run␛[2J/1: human fail, judge pass",
        f"    judge: {SHOWN[:157]}...",
        # A note's whitespace, a newline of the name included, is folded to spaces.
        "    labeller: ana␛]0;pwned␇ FAKE: claims a refund ␛[2J\\x9b2J \\u202eevil\\u202c",
    ]
    code, markdown, err = invoke(*base, "--no-store", "--md")
    assert code == 0, err
    assert controls_in(markdown) == []
    assert "| `run␛[2J/1` | fail | pass |" in markdown
    code, data, err = invoke(*base, "--no-store", "--json")
    assert code == 0, err
    report = json.loads(data)  # JSON escapes controls itself: the data stays exact
    assert report["disagreements"][0]["run_id"] == "run\x1b[2J/1"
    assert list(report["labelers"]) == [NAME]


def test_labels_shows_labeller_names_visibly(tmp_path: Path) -> None:
    rubric, _, labels = calibration_files(tmp_path)
    code, out, err = invoke("labels", "--rubric", rubric, "--labels-dir", labels.parent)
    assert code == 0, err
    assert controls_in(out) == []
    row = next(line for line in out.splitlines() if "ana" in line)
    assert row.split("│")[1].strip() == "ana␛]0;pwned␇␊FAKE"


TASKS = """\
suite: hostile
tasks:
  - id: refund
    input: "Refund order A100."
    expect_tools:
      - name: issue_refund
        args: {order_id: A100, meta: {a: 1}}
"""


def test_grade_reasons_quote_arguments_visibly(tmp_path: Path) -> None:
    (tmp_path / "tasks.yaml").write_text(TASKS, encoding="utf-8")
    run = Run(
        run_id=HOSTILE_RUN_ID,
        task_id="refund",
        tool_calls=[
            ToolCall(name="issue_refund", args={"order_id": "A100", "meta": [HOSTILE[:20]]})
        ],
        final_answer="Refunded.",
    )
    runs = tmp_path / "runs.jsonl"
    runs.write_text(run.model_dump_json() + "\n", encoding="utf-8")
    code, out, err = invoke(
        "grade", runs, "--tasks", tmp_path / "tasks.yaml", "--out", tmp_path / "out",
        "--reasons", "--no-store",
    )  # fmt: skip
    assert code == 0, err
    assert controls_in(out) == []
    assert (
        'hostile␛]0;ID␇/1 truth: issue_refund.meta: expected a dict, got ["\\u001b[2J\\u001b[H '
        'FAKE SCREEN:"]'
    ) in out.splitlines()
    code, out, err = invoke(
        "grade", runs, "--tasks", tmp_path / "tasks.yaml", "--out", tmp_path / "out2",
        "--reasons", "--no-store", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)  # JSON output is not rewritten


def test_grade_reasons_show_c1_and_bidi_in_arguments_visibly(tmp_path: Path) -> None:
    (tmp_path / "tasks.yaml").write_text(TASKS, encoding="utf-8")
    run = Run(
        run_id="r/1",
        task_id="refund",
        tool_calls=[
            ToolCall(name="issue_refund", args={"order_id": "A100", "meta": ["\x9b2J\u202eevil"]})
        ],
    )
    runs = tmp_path / "runs.jsonl"
    runs.write_text(run.model_dump_json() + "\n", encoding="utf-8")
    code, out, err = invoke(
        "grade", runs, "--tasks", tmp_path / "tasks.yaml", "--out", tmp_path, "--reasons",
        "--no-store",
    )  # fmt: skip
    assert code == 0, err
    assert controls_in(out) == []
    assert (
        'r/1 truth: issue_refund.meta: expected a dict, got ["\\x9b2J\\u202eevil"]'
        in out.splitlines()
    )


def gate_grades(prefix: str, task_id: str, passes: int) -> str:
    return "".join(
        Grade(run_id=f"{prefix}/{i}", task_id=task_id, trial=i, passed=i < passes).model_dump_json()
        + "\n"
        for i in range(30)
    )


def test_gate_shows_task_ids_visibly(tmp_path: Path) -> None:
    task_id = "refund\x1b[2J\x1b[H\ngate: pass \x9b2J"
    baseline, candidate = tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    baseline.write_text(gate_grades("b", task_id, 24), encoding="utf-8")
    candidate.write_text(gate_grades("c", task_id, 12), encoding="utf-8")
    code, out, _ = invoke("gate", "--baseline", baseline, "--candidate", candidate)
    assert code == 1
    assert controls_in(out) == []
    shown = "refund␛[2J␛[H␊gate: pass \\x9b2J"
    assert f"FAIL {shown}: pass-rate drop 0.80 → 0.40 (p = 0.001)" in out.splitlines()
    assert out.splitlines()[-1] == f"gate: FAIL: 1 of 1 tasks failed: {shown}"
    code, out, _ = invoke("gate", "--baseline", baseline, "--candidate", candidate, "--json")
    assert code == 1
    assert json.loads(out)["tasks"][0]["task_id"] == task_id


def test_monitor_shows_stored_rubric_ids_visibly(tmp_path: Path) -> None:
    rubric_id = "goal\x1b]0;TITLE\x07\x1b[2J\nFAKE\x9b2J"
    now = datetime.now(UTC)
    with open_store() as store:
        for day in range(3):
            batch = store.batch(key=f"verdicts:{day}", branch="main", source="judge")
            store.record_verdicts(
                [
                    Verdict(
                        run_id=f"r/{day}/{i}", rubric_id=rubric_id, rubric_version="v1",
                        model=MODEL, status="scored", score="pass", reason="ok",
                        at=now - timedelta(days=3 - day),
                    )
                    for i in range(5)
                ],
                batch,
            )  # fmt: skip
    code, out, err = invoke("monitor")
    assert code == 0, err
    assert controls_in(out) == []
    assert any(
        line.startswith("note rubric:goal␛]0;TITLE␇␛[2J␊FAKE\\x9b2J: informational")
        for line in out.splitlines()
    )


def test_an_error_quoting_data_is_one_visible_line(tmp_path: Path) -> None:
    missing = tmp_path / "runs\x1b]0;T\x07\n.jsonl"
    code, _, err = invoke("grade", missing, "--tasks", REPO / "tasks", "--no-store")
    assert code == 2
    assert err == f"judgekit: error: {tmp_path}/runs␛]0;T␇␊.jsonl: no such file\n"


def test_a_failing_task_message_shows_reasons_visibly() -> None:
    grade = Grade(
        run_id="r/1",
        task_id="t",
        trial=1,
        passed=False,
        truth=GraderResult(passed=False, reason="got '\x9b2J'\n\x1b[2JFAKE: pass"),
    )
    message = TaskOutcome("suite/t", (grade,), min_pass_rate=1.0).message()
    assert message.splitlines() == [
        "suite/t: pass rate 0/1 = 0.00, required ≥ 1",
        "trial 1: truth: got '\\x9b2J'␊␛[2JFAKE: pass",
    ]
