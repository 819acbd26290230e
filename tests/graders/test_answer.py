"""Answer: expect_answer's items found in what the agent told the user, and its spec errors."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judgekit import DataError, load_tasks
from judgekit.formats.answer_spec import normalise_text
from judgekit.formats.grade import GraderResult
from judgekit.formats.run import Run
from judgekit.formats.task import Task
from judgekit.graders.answer import grade_answer
from judgekit.graders.grade import grade_run


def _task(**fields: Any) -> Task:
    return Task.model_validate({"id": "t", **fields})


def _run(*messages: str, final_answer: str | None = None) -> Run:
    return Run(
        run_id="r",
        task_id="t",
        tool_calls=[],
        messages_to_user=list(messages),
        final_answer=final_answer if final_answer is not None else (messages or (None,))[-1],
    )


def _result(run: Run, **fields: Any) -> GraderResult | None:
    return grade_answer(run, _task(**fields))


def test_a_task_without_expect_answer_is_not_graded_on_it() -> None:
    assert _result(_run("Your refund is $40.")) is None
    grade = grade_run(_run("Your refund is $40."), _task())
    assert (grade.answer, grade.passed) == (None, True)


def test_an_item_found_in_an_earlier_message_passes() -> None:
    run = _run("Your new total is $1,286.", "Anything else?", "Goodbye!")
    assert _result(run, expect_answer=["1,286"]) == GraderResult(
        passed=True, reason="found all 1 expected values in what the agent said"
    )


def test_every_missing_item_is_named_as_written() -> None:
    run = _run("The fare is 1042.5 dollars.")
    result = _result(run, expect_answer=["1,042.50", 327, 1042.5, "fare"])
    assert result == GraderResult(passed=False, reason="missing '1,042.50', 327")


def test_without_normalisation_the_search_is_exact() -> None:
    run = _run("Total: 1,042.50 USD")
    assert _result(run, expect_answer=["1042.50"]) == GraderResult(
        passed=False, reason="missing '1042.50'"
    )
    assert _result(run, expect_answer=["total: 1,042.50"]) == GraderResult(
        passed=False, reason="missing 'total: 1,042.50'"
    )


def test_taubench_rule_lowercase_and_commas_removed() -> None:
    run = _run("Your TOTAL refund is 1,042.50 USD.")
    rule = ["lowercase", "remove_commas"]
    passed = _result(run, expect_answer=["1042.50", "Total Refund"], answer_normalise=rule)
    assert passed is not None and passed.passed
    # Both sides are rewritten, so a figure may be written with its comma.
    written = _result(run, expect_answer=["1,042.50"], answer_normalise=rule)
    assert written is not None and written.passed
    # Spaces are kept as they are unless collapse_spaces is asked for.
    spaced = _run("Your total\n  refund is 40.")
    assert _result(spaced, expect_answer=["total refund"], answer_normalise=rule) == GraderResult(
        passed=False, reason="missing 'total refund'"
    )
    collapsed = _result(
        spaced, expect_answer=["total refund"], answer_normalise=[*rule, "collapse_spaces"]
    )
    assert collapsed is not None and collapsed.passed


def test_normalise_text_steps() -> None:
    assert normalise_text(" A,B \n C ", ["lowercase"]) == " a,b \n c "
    assert normalise_text(" A,B \n C ", ["remove_commas"]) == " AB \n C "
    assert normalise_text(" A,B \n C ", ["collapse_spaces"]) == "A,B C"


def test_a_matcher_item_sees_each_whole_text() -> None:
    run = _run("Booked.", "Your booking is B7, seat 12A.")
    found = _result(run, expect_answer=[{"$regex": r"(?s).*\bB7\b.*"}])
    assert found is not None and found.passed
    assert _result(run, expect_answer=[{"$regex": r"B\d+"}]) == GraderResult(
        passed=False, reason="missing /B\\d+/"
    )
    one_of = _result(run, expect_answer=[{"$one_of": ["Booked.", "Done."]}])
    assert one_of is not None and one_of.passed


def test_the_final_answer_counts_when_no_messages_were_recorded() -> None:
    run = Run(run_id="r", task_id="t", tool_calls=[], final_answer="Refunded $40.")
    result = _result(run, expect_answer=["$40"])
    assert result is not None and result.passed


def test_a_run_that_said_nothing_says_so() -> None:
    run = Run(run_id="r", task_id="t", tool_calls=[])
    assert _result(run, expect_answer=["40"]) == GraderResult(
        passed=False, reason="missing '40' (the agent sent the user no text)"
    )


def test_a_failed_answer_fails_the_run_and_is_its_first_failure() -> None:
    grade = grade_run(_run("Done."), _task(expect_answer=["R9"], expect_tools=[], order="strict"))
    assert grade.passed is False
    assert grade.truth == GraderResult(passed=True, reason="no tool call, as expected")
    assert grade.first_failure == "answer: missing 'R9'"


def test_a_reason_shows_an_agent_string_escaped() -> None:
    result = _result(_run("x"), expect_answer=["\x1b[2Jgone\n"])
    assert result == GraderResult(passed=False, reason="missing '\\x1b[2Jgone\\n'")


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("    expect_answer: []\n", "{path}:4: tasks[0].expect_answer: lists nothing to find; give at least one item (a string, a number, or a $-matcher such as {{$regex: ...}})"),
        ("    expect_answer: [ok, true]\n", "{path}:4: tasks[0].expect_answer[1]: expected a string, a number, or a $-matcher such as {{$regex: ...}}, got true"),
        ("    expect_answer:\n      - {total: 3}\n", "{path}:5: tasks[0].expect_answer[0]: expected a string, a number, or a $-matcher such as {{$regex: ...}}, got {{\"total\": 3}}"),
        ("    expect_answer:\n      - ok\n      - {$regex: '('}\n", "{path}:6: tasks[0].expect_answer[1]: bad regex '(': missing ), unterminated subpattern at position 0"),
        ("    expect_answer: [',']\n    answer_normalise: [remove_commas]\n", "{path}:4: tasks[0].expect_answer[0]: ',' is empty once normalised, so every text holds it"),
        ("    expect_answer: [.nan]\n", "{path}:4: tasks[0].expect_answer[0]: expected a finite number, got nan"),
        ("    expect_answer: [x]\n    answer_normalise: [lower]\n", "{path}:5: tasks[0].answer_normalise[0]: Input should be 'lowercase', 'remove_commas' or 'collapse_spaces' (got 'lower')"),
        ("    expect_answer: x\n", "{path}:4: tasks[0].expect_answer: Input should be a valid list (got 'x')"),
    ],
)  # fmt: skip
def test_a_malformed_answer_spec_names_the_file_line_and_field(
    tmp_path: Path, lines: str, message: str
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text("suite: s\ntasks:\n  - id: a\n" + lines, encoding="utf-8")
    with pytest.raises(DataError) as caught:
        load_tasks(path)
    assert str(caught.value) == message.format(path=path)


def test_a_suite_default_normalisation_reaches_every_task(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "suite: s\ndefaults:\n  answer_normalise: [lowercase, remove_commas]\ntasks:\n"
        "  - id: a\n    expect_answer: ['1042.50']\n  - id: b\n",
        encoding="utf-8",
    )
    tasks = load_tasks(path)
    a, b = tasks.get("a"), tasks.get("b")
    assert a is not None and b is not None
    assert (a.has_answer, b.has_answer) == (True, False)
    result = grade_answer(_run("TOTAL 1,042.50"), a)
    assert result is not None and result.passed


def _grade_files(tmp_path: Path, suite: str) -> tuple[str, list[dict[str, str]], dict[str, Any]]:
    import csv
    import io
    import json

    from rich.console import Console

    from judgekit.graders.grade_file import grade_file
    from judgekit.graders.table import print_grade_table

    (tmp_path / "suite.yaml").write_text(suite, encoding="utf-8")
    runs = [
        {"run_id": "r1", "task_id": "a", "tool_calls": [], "messages_to_user": ["Total 1,042.50"]},
        {"run_id": "r2", "task_id": "a", "tool_calls": [], "final_answer": "Done."},
        {"run_id": "r3", "task_id": "b", "tool_calls": []},
    ]
    runs_file = tmp_path / "runs.jsonl"
    runs_file.write_text("".join(json.dumps(r) + "\n" for r in runs), encoding="utf-8")
    summary = grade_file(runs_file, tmp_path / "suite.yaml", out_dir=tmp_path)
    console = Console(file=io.StringIO(), width=120, color_system=None)
    print_grade_table(summary, console, show_reasons=False)
    rows = list(csv.DictReader((tmp_path / "results.csv").open(encoding="utf-8")))
    out = console.file.getvalue()  # type: ignore[attr-defined]
    return out, rows, summary.as_dict()


def test_results_and_the_table_carry_an_answer_column(tmp_path: Path) -> None:
    suite = "suite: s\ntasks:\n  - id: a\n    expect_answer: ['1,042.50']\n  - id: b\n"
    out, rows, report = _grade_files(tmp_path, suite)
    assert [(r["answer_passed"], r["answer_reason"]) for r in rows] == [
        ("true", "found all 1 expected values in what the agent said"),
        ("false", "missing '1,042.50'"),
        ("", ""),
    ]
    assert [r["passed"] for r in rows] == ["true", "false", "true"]
    assert " task   Truth   Path   State   Answer   claims   refused   stopped" in out
    assert " a          —      —       —      1/2        1         —         0" in out
    assert " b          —      —       —        —        0         —         0" in out
    assert [t.get("answer") for t in report["tasks"]] == [{"passed": 1, "graded": 2}, None]


def test_without_expect_answer_the_table_and_report_stay_as_they_were(tmp_path: Path) -> None:
    out, rows, report = _grade_files(tmp_path, "suite: s\ntasks:\n  - id: a\n  - id: b\n")
    assert " task   Truth   Path   State   claims   refused   stopped" in out
    assert "Answer" not in out
    assert all("answer" not in task for task in report["tasks"])
    assert [(r["answer_passed"], r["answer_reason"]) for r in rows] == [("", "")] * 3


def test_a_results_file_written_before_answer_existed_still_loads(tmp_path: Path) -> None:
    from judgekit.formats.grade import load_results

    old = '{"run_id": "r1", "task_id": "a", "passed": true, "truth": null}\n'
    (tmp_path / "results.jsonl").write_text(old, encoding="utf-8")
    (grade,) = load_results(tmp_path)
    assert (grade.answer, grade.first_failure) == (None, None)
