"""Truth: exact verdicts and reasons for every order mode, forbidden and allowed tools."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from judgekit import Run, Task, ToolCall, grade_truth


def make_run(*calls: tuple[str, dict[str, Any]] | ToolCall) -> Run:
    tool_calls = [c if isinstance(c, ToolCall) else ToolCall(name=c[0], args=c[1]) for c in calls]
    return Run(run_id="r", task_id="t", tool_calls=tool_calls)


def make_task(*expected: tuple[str, dict[str, Any]], **options: Any) -> Task:
    return Task(id="t", expect_tools=[{"name": n, "args": a} for n, a in expected], **options)


def verdict(task: Task, run: Run) -> tuple[bool | None, str]:
    result = grade_truth(run, task)
    assert result is not None
    return result.passed, result.reason


WEATHER = ("get_weather", {"city": "Denver"})
BOOK = ("book", {"flight_id": "AA123", "date": "Friday"})
SEARCH = ("search", {"destination": "Seattle"})


def test_wrong_argument_names_call_and_argument() -> None:
    task = make_task(WEATHER, BOOK)
    run = make_run(WEATHER, ("book", {"flight_id": "AA999", "date": "Friday"}))
    assert verdict(task, run) == (False, "book.flight_id: expected 'AA123', got 'AA999'")


def test_missing_and_unexpected_arguments_are_told_apart() -> None:
    task = make_task(BOOK, extra_args="forbid")
    run = make_run(("book", {"flight_id": "AA123", "seat": "12A"}))
    assert verdict(task, run) == (
        False,
        "book.date: missing argument (expected 'Friday'); "
        "book.seat: unexpected argument (value '12A')",
    )


def test_missing_call() -> None:
    assert verdict(make_task(WEATHER, BOOK), make_run(WEATHER)) == (
        False,
        "missing call book(flight_id='AA123', date='Friday')",
    )


@pytest.mark.parametrize(
    ("order", "calls", "expected"),
    [
        ("strict", [WEATHER, BOOK], (True, "all 2 expected calls matched (strict)")),
        (
            "strict",
            [BOOK, WEATHER],
            (
                False,
                "call #1: expected get_weather, got book(flight_id='AA123', date='Friday'); call #2: expected book, got get_weather(city='Denver')",
            ),
        ),
        (
            "strict",
            [WEATHER, BOOK, SEARCH],
            (False, "unexpected call #3 search(destination='Seattle')"),
        ),
        (
            "strict",
            [WEATHER],
            (
                False,
                "missing call book(flight_id='AA123', date='Friday') (expected as call #2; the run made 1)",
            ),
        ),
        ("unordered", [BOOK, WEATHER], (True, "all 2 expected calls matched (unordered)")),
        (
            "unordered",
            [BOOK, WEATHER, SEARCH],
            (
                False,
                "unexpected call #3 search(destination='Seattle') (not among the expected calls, order: unordered)",
            ),
        ),
        ("superset", [SEARCH, BOOK, WEATHER], (True, "all 2 expected calls matched (superset)")),
        ("superset", [SEARCH, BOOK], (False, "missing call get_weather(city='Denver')")),
        ("subset", [BOOK], (True, "all 2 expected calls matched (subset)")),
        ("subset", [], (True, "all 2 expected calls matched (subset)")),
        (
            "subset",
            [BOOK, SEARCH],
            (
                False,
                "unexpected call #2 search(destination='Seattle') (not among the expected calls, order: subset)",
            ),
        ),
        (
            "subset",
            [BOOK, BOOK],
            (
                False,
                "unexpected call #2 book(flight_id='AA123', date='Friday') (not among the expected calls, order: subset)",
            ),
        ),
        ("in_order", [WEATHER, SEARCH, BOOK], (True, "all 2 expected calls matched (in_order)")),
        (
            "in_order",
            [BOOK, WEATHER],
            (False, "book matched only at call #1, before get_weather (out of order)"),
        ),
        (
            "in_order",
            [WEATHER, ("book", {"flight_id": "AA1", "date": "Friday"})],
            (False, "book.flight_id: expected 'AA123', got 'AA1'"),
        ),
    ],
)
def test_order_modes(
    order: str, calls: list[tuple[str, dict[str, Any]]], expected: tuple[bool, str]
) -> None:
    assert verdict(make_task(WEATHER, BOOK, order=order), make_run(*calls)) == expected


def test_empty_expectation_with_strict_means_no_call_at_all() -> None:
    task = make_task(order="strict")
    assert verdict(task, make_run()) == (True, "no tool call, as expected")
    assert verdict(task, make_run(SEARCH)) == (
        False,
        "unexpected call #1 search(destination='Seattle')",
    )


def test_unordered_matching_is_not_greedy() -> None:
    # A greedy pass would give the first expectation the only call the second can use.
    task = make_task(
        ("search", {"destination": {"$any": True}}),
        ("search", {"destination": "Seattle"}),
        order="unordered",
    )
    run = make_run(("search", {"destination": "Seattle"}), ("search", {"destination": "Boston"}))
    assert verdict(task, run) == (True, "all 2 expected calls matched (unordered)")


def test_leftover_calls_are_explained_by_the_closest_pairing() -> None:
    task = make_task(
        ("book", {"flight_id": "AA1", "date": "Mon"}),
        ("book", {"flight_id": "AA2", "date": "Tue"}),
        order="unordered",
    )
    run = make_run(
        ("book", {"flight_id": "AA2", "date": "Wed"}), ("book", {"flight_id": "AA1", "date": "Thu"})
    )
    assert verdict(task, run) == (
        False,
        "book.date: expected 'Mon', got 'Thu' (call #2); book.date: expected 'Tue', got 'Wed' (call #1)",
    )


def test_forbidden_tool_counts_even_when_refused() -> None:
    task = make_task(WEATHER, forbid_tools=["book"])
    refused = ToolCall(name="book", args={"flight_id": "AA200"}, error="not allowed while raining")
    assert verdict(task, make_run(WEATHER, refused)) == (
        False,
        "called forbidden tool book (call #2, refused: not allowed while raining)",
    )


def test_allow_list_includes_expected_tools() -> None:
    task = make_task(WEATHER, allow_tools=["search"])
    assert verdict(task, make_run(SEARCH, WEATHER))[0] is True
    assert verdict(task, make_run(WEATHER, BOOK)) == (
        False,
        "called book (call #2), which is not in allow_tools [get_weather, search]",
    )


def test_forbid_alone_configures_truth() -> None:
    task = Task(id="t", forbid_tools=["book"])
    assert verdict(task, make_run(SEARCH)) == (True, "no forbidden or disallowed tool called")
    assert grade_truth(make_run(SEARCH), Task(id="t")) is None


def test_invalid_json_arguments_never_match() -> None:
    broken = ToolCall(
        name="book",
        raw_arguments='{"flight_id": "AA123"',
        arguments_error="Expecting ',' delimiter",
    )
    assert verdict(make_task(("book", {})), make_run(broken)) == (
        False,
        "book: invalid arguments (Expecting ',' delimiter)",
    )


def test_reasons_are_capped_at_three() -> None:
    task = make_task(*[("t", {"n": i}) for i in range(5)], order="unordered")
    passed, reason = verdict(task, make_run())
    assert not passed
    assert reason.endswith("; and 2 more")
    assert reason.count("missing call") == 3


# Property tests -----------------------------------------------------------------------------

names = st.sampled_from(["search", "book", "get_weather"])
values = st.one_of(st.integers(-3, 3), st.sampled_from(["a", "b", "Denver"]), st.booleans())
arg_dicts = st.dictionaries(st.sampled_from(["x", "y", "city"]), values, max_size=2)
calls = st.lists(st.tuples(names, arg_dicts), max_size=5)


@settings(max_examples=300, deadline=None)
@given(expected=calls, actual=calls, data=st.data())
def test_unordered_verdict_is_invariant_to_permutations(
    expected: list[tuple[str, dict[str, Any]]],
    actual: list[tuple[str, dict[str, Any]]],
    data: st.DataObject,
) -> None:
    for order in ("unordered", "superset", "subset"):
        base = verdict(make_task(*expected, order=order), make_run(*actual))[0]
        shuffled_expected = data.draw(st.permutations(expected))
        shuffled_actual = data.draw(st.permutations(actual))
        again = verdict(make_task(*shuffled_expected, order=order), make_run(*shuffled_actual))[0]
        assert again == base


@settings(max_examples=300, deadline=None)
@given(actual=calls)
def test_a_run_matches_a_task_built_from_its_own_calls(
    actual: list[tuple[str, dict[str, Any]]],
) -> None:
    for order in ("strict", "in_order", "unordered", "superset", "subset"):
        for extra_args in ("allow", "forbid"):
            task = make_task(*actual, order=order, extra_args=extra_args)
            # No call, where none is expected and "no call at all" is not asked: nothing to check.
            vacuous = not actual and order in ("in_order", "superset")
            assert verdict(task, make_run(*actual))[0] is (None if vacuous else True), order


def test_extra_args_applies_at_every_depth() -> None:
    flights = {"flights": [{"flight_number": "HAT056", "date": "2024-05-25"}]}
    sent = {"flights": [{"origin": "EWR", "flight_number": "HAT056", "date": "2024-05-25"}]}
    assert verdict(make_task(("update", flights)), make_run(("update", sent)))[0] is True
    assert verdict(
        make_task(("update", flights), extra_args="forbid"), make_run(("update", sent))
    ) == (
        False,
        "update.flights[0].origin: unexpected key (value 'EWR')",
    )
    exact = {"flights": {"$eq": flights["flights"]}}
    assert verdict(make_task(("update", exact)), make_run(("update", sent))) == (
        False,
        'update.flights: expected [{"date": "2024-05-25", "flight_number": "HAT056"}], '
        'got [{"date": "2024-05-25", "flight_number": "HAT056", "origin": "EWR"}]',
    )


def test_ignore_failed_calls_keeps_the_run_numbering() -> None:
    refused = ToolCall(name="book", args={"flight_id": "AA123", "date": "Monday"}, error="sold out")
    run = make_run(WEATHER, refused, ("book", {"flight_id": "AA999", "date": "Friday"}))
    lenient = make_task(WEATHER, BOOK, order="unordered", ignore_failed_calls=True)
    assert verdict(lenient, run) == (False, "book.flight_id: expected 'AA123', got 'AA999'")
    strict = make_task(WEATHER, order="strict", ignore_failed_calls=True)
    assert verdict(strict, run) == (
        False,
        "unexpected call #3 book(flight_id='AA999', date='Friday')",
    )
    retried = make_run(refused, WEATHER, BOOK)
    assert verdict(lenient, retried) == (True, "all 2 expected calls matched (unordered)")
    assert verdict(make_task(WEATHER, BOOK, order="unordered"), retried)[0] is False
    forbidding = make_task(WEATHER, forbid_tools=["book"], ignore_failed_calls=True)
    assert verdict(forbidding, make_run(WEATHER, refused)) == (
        False,
        "called forbidden tool book (call #2, refused: sold out)",
    )


def test_ignore_tools_leaves_lookups_out_of_matching() -> None:
    lookup = ("get_reservation", {"id": "R1"})
    task = make_task(BOOK, order="unordered", ignore_tools=["get_reservation"])
    assert verdict(task, make_run(lookup, BOOK, lookup)) == (
        True,
        "all 1 expected calls matched (unordered)",
    )
    assert verdict(task, make_run(lookup, BOOK, BOOK)) == (
        False,
        "unexpected call #3 book(flight_id='AA123', date='Friday') (not among the expected calls, order: unordered)",
    )


def test_a_tool_cannot_be_both_expected_and_ignored() -> None:
    with pytest.raises(ValueError) as caught:
        make_task(BOOK, ignore_tools=["book"])
    assert "book is expected but also listed in ignore_tools; drop one" in str(caught.value)
