"""results.csv rows: csv.writer's default dialect, quoting only where needed."""

from __future__ import annotations

from judgekit.formats.grade import Grade, GraderResult
from judgekit.graders.results_files import csv_text


def _grade(text: str, **changes: object) -> Grade:
    fields: dict[str, object] = {
        "run_id": text or "r",
        "task_id": f"t{text}",
        "trial": 3,
        "passed": False,
        "truth": GraderResult(passed=False, reason=text),
        "path": GraderResult(passed=True, reason=f"{text}, {text}"),
        "state": None,
        "answer": GraderResult(passed=True, reason=""),
        "claimed_success": None,
        "violations": [text, "x"],
        "turns": None,
        "cost_usd": 1e-07,
        "stop_reason": "max_turns",
        "tool_calls": 12,
        "tool_errors": 0,
    }
    fields.update(changes)
    return Grade.model_validate(fields)


def test_a_line_is_quoted_where_needed() -> None:
    grade = _grade('a "b", c')
    assert csv_text([grade]) == (
        '"a ""b"", c","ta ""b"", c",3,false,false,"a ""b"", c",true,'
        '"a ""b"", c, a ""b"", c",,,true,,,"a ""b"", c; x",,1e-07,max_turns,12,0\r\n'
    )
