"""A task's failure message lists every failing check of each failing trial, Answer included."""

from __future__ import annotations

from judgekit.formats.grade import Grade, GraderResult
from judgekit.trials.task_outcome import TaskOutcome, failure_lines


def test_a_failed_answer_is_a_line_of_its_own_beside_the_other_checks() -> None:
    grade = Grade(
        run_id="shop/refund_full/2",
        task_id="refund_full",
        trial=2,
        passed=False,
        truth=GraderResult(passed=True, reason="all expected calls made"),
        path=GraderResult(passed=False, reason="issue_refund called 2 times, max_calls is 1"),
        answer=GraderResult(passed=False, reason="missing '40.00'"),
    )
    assert failure_lines(grade) == [
        "path: issue_refund called 2 times, max_calls is 1",
        "answer: missing '40.00'",
    ]
    outcome = TaskOutcome("shop/refund_full", (grade,), min_pass_rate=1.0)
    assert outcome.message() == (
        "shop/refund_full: pass rate 0/1 = 0.00, required ≥ 1\n"
        "trial 2: path: issue_refund called 2 times, max_calls is 1\n"
        "trial 2: answer: missing '40.00'"
    )


def test_a_passed_or_unchecked_answer_adds_no_line() -> None:
    failed_truth = GraderResult(passed=False, reason="refund.amount: expected 40, got 4")
    for answer in (None, GraderResult(passed=True, reason="told the user every expected value")):
        grade = Grade(run_id="r", task_id="t", passed=False, truth=failed_truth, answer=answer)
        assert failure_lines(grade) == ["truth: refund.amount: expected 40, got 4"]
