"""Task suites: what loads, and the one-line error for every kind of bad input."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit import DataError, load_tasks
from tests.conftest import REPO


def write(tmp_path: Path, text: str, name: str = "suite.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(DataError) as caught:
        load_tasks(path)
    return str(caught.value)


def test_example_suites_load() -> None:
    tasks = load_tasks(REPO / "tasks")
    assert [t.id for t in tasks] == [
        "refund_full",
        "cancel_shipped",
        "refuse_overrefund",
        "refund_and_notify",
        "weather-gate-book",
        "search-before-book",
        "no-book-when-raining",
        "weather-only",
        "ambiguous-needs-search",
    ]
    refund = tasks.get("refund_full")
    assert refund is not None and refund.suite == "shop"
    assert tasks.get("shop/refund_full") is refund
    assert tasks.get("travel/refund_full") is None
    # defaults and the suite's initial_state reach every task
    assert refund.step_budget is not None and refund.step_budget.multiplier == 2
    assert (
        refund.initial_state is not None and refund.initial_state["orders"]["A100"]["total"] == 40
    )


def test_dates_stay_strings(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "suite: s\ntasks:\n  - id: a\n    expect_tools: [{name: f, args: {date: 2024-05-20}}]\n",
    )
    task = load_tasks(path).get("a")
    assert task is not None and task.expect_tools is not None
    assert task.expect_tools[0].args == {"date": "2024-05-20"}


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "suite: s\ntasks:\n  - id: a\n    expect_tools:\n      - name: f\n        args: {x: {$regex: '('}}\n",
            "{path}:6: tasks[0].expect_tools[0].args.x: bad regex '(': missing ), unterminated subpattern at position 0",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    expect_tools:\n      - name: f\n        args:\n          x: {$oneof: [1]}\n",
            "{path}:7: tasks[0].expect_tools[0].args.x: unknown operator $oneof; valid operators are $eq, $any, $absent, $one_of, $regex, $approx, $contains, $subset, $unordered, $icase, $type, $custom, $gt, $gte, $lt, $lte, $optional, $coerce, $abs, $rel",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n  - id: b\n  - id: a\n",
            "{path}:5: tasks[2].id: task id 'a' is defined twice (first at {path}:3); ids must be unique",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    order: sideways\n",
            "{path}:4: tasks[0].order: Input should be 'strict', 'in_order', 'unordered', 'subset' or 'superset' (got 'sideways')",
        ),
        (
            "suite: s\ntasks:\n  - input: hello\n",
            "{path}:3: tasks[0].id: required field is missing",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    expect_tool: []\n",
            "{path}:4: tasks[0].expect_tool: unknown field (did you mean one of 'expect_tools', 'expect_state', 'idempotent_tools'?); valid fields are id, input, expect_tools, order, extra_args, forbid_tools, allow_tools, ignore_tools, ignore_failed_calls, idempotent_tools, max_calls, step_budget, max_turns, duplicates, loops, max_tool_error_rate, expect_state, only_changes, initial_state, expect_answer, answer_normalise, reference, rubrics, metadata, workdir, protected, check, hidden, timeout_s",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    expect_tools: [{name: f, args: {x: 1}]\n",
            "{path}:4: YAML syntax error: expected ',' or '}', but got ']'",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    step_budget: {multiplier: 2, max_tool_calls: 3}\n",
            "{path}:4: tasks[0].step_budget: give exactly one of multiplier or max_tool_calls",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    step_budget: {multiplier: 2}\n",
            "{path}:4: tasks[0].step_budget.multiplier: a multiplier budget needs expect_tools; use max_tool_calls instead",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    expect_state: {'orders..x': 1}\n",
            "{path}:4: tasks[0].expect_state.orders..x: 'orders..x' is not a dotted path like orders.A100.status",
        ),
        (
            "suite: s\ndefaults: {max_cals: {a: 1}}\ntasks:\n  - id: a\n",
            "{path}:2: defaults.max_cals: unknown task field (did you mean 'max_calls'?); valid fields are id, input, expect_tools, order, extra_args, forbid_tools, allow_tools, ignore_tools, ignore_failed_calls, idempotent_tools, max_calls, step_budget, max_turns, duplicates, loops, max_tool_error_rate, expect_state, only_changes, initial_state, expect_answer, answer_normalise, reference, rubrics, metadata, workdir, protected, check, hidden, timeout_s",
        ),
        ("- just\n- a list\n", "{path}:1: a task suite is a mapping with `suite:` and `tasks:`"),
        (
            "suite: s\ntasks:\n  - id: a\n    workdir: repo\n    hidden: [grader.py]\n",
            "{path}:5: tasks[0].hidden: hidden files are only used by check; add a check",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    workdir: repo\n    protected: [../secret.py]\n",
            "{path}:5: tasks[0].protected[0]: '../secret.py' must be a glob pattern relative to the workdir",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    check: pytest\n    hidden: [a/t.py, b/t.py]\n",
            "{path}:5: tasks[0].hidden[1]: 't.py' is already hidden[0]; both would land on the same file in the workdir",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    timeout_s: 0\n",
            "{path}:4: tasks[0].timeout_s: Input should be greater than 0 (got 0)",
        ),
        (
            "suite: s\ntasks:\n  - id: a\n    max_tool_error_rate: 2\n",
            "{path}:4: tasks[0].max_tool_error_rate: Input should be less than or equal to 1 (got 2)",
        ),
    ],
)
def test_bad_suites_say_file_line_field_and_fix(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    assert error_of(path) == message.replace("{path}", str(path))


def test_duplicate_ids_across_files(tmp_path: Path) -> None:
    write(tmp_path, "suite: one\ntasks:\n  - id: a\n", "one.yaml")
    second = write(tmp_path, "suite: two\ntasks:\n  - id: b\n  - id: a\n", "two.yaml")
    assert error_of(tmp_path) == (
        f"{second}:4: tasks[1].id: task id 'a' is defined twice (first at {tmp_path / 'one.yaml'}:3); ids must be unique"
    )


def test_missing_file_and_empty_folder(tmp_path: Path) -> None:
    assert error_of(tmp_path / "nope.yaml") == f"{tmp_path / 'nope.yaml'}: no such file or folder"
    assert error_of(tmp_path) == f"{tmp_path}: folder holds no *.yaml task suites"


def test_subprocess_agent_fields_default_sensibly(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "suite: s\ntasks:\n"
        "  - id: plain\n"
        "  - id: checked\n    check: make test\n"
        "  - id: own-state\n    workdir: repo\n    check: make test\n"
        "    expect_state: {check.exit_code: 0}\n",
    )
    tasks = load_tasks(path)
    plain, checked, own = (tasks.get(i) for i in ("plain", "checked", "own-state"))
    assert plain is not None and checked is not None and own is not None
    assert (plain.protected, plain.expect_state, plain.has_state) == ([], None, False)
    assert (checked.protected, checked.expect_state) == ([], {"check.passed": True})
    assert (own.protected, own.expect_state) == (
        ["test_*.py", "**/test_*.py"],
        {"check.exit_code": 0},
    )
    assert own.base_dir == tmp_path.resolve()
    assert own.resolve_path("repo") == tmp_path.resolve() / "repo"
