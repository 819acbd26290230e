"""Every matcher: what matches, what does not, and the exact reason."""

from __future__ import annotations

from typing import Any

import pytest

from judgekit.formats.matchers import MatcherSpecError, compile_matcher, values_equal


def reason(spec: Any, actual: Any, **options: Any) -> str | None:
    mismatch = compile_matcher(spec, **options).check(actual)
    return None if mismatch is None else f"{mismatch.dotted('x')}: {mismatch.message}"


def is_even(value: Any) -> bool:
    return isinstance(value, int) and value % 2 == 0


def is_short(value: Any) -> tuple[bool, str]:
    return len(value) <= 3, f"length {len(value)} is over 3"


@pytest.mark.parametrize(
    ("spec", "actual", "expected"),
    [
        ("AA123", "AA123", None),
        ("AA123", "AA999", "x: expected 'AA123', got 'AA999'"),
        (3, 3.0, None),
        (3, "3", "x: expected 3, got '3' (a string, not a number)"),
        (True, 1, "x: expected true, got 1 (a number, not a bool)"),
        (1, True, "x: expected 1, got true (a bool, not a number)"),
        (None, None, None),
        ({"$eq": 3, "$coerce": True}, "3", None),
        ({"$eq": 3, "$coerce": True}, " 3.0 ", None),
        ({"$eq": "3", "$coerce": True}, 3, None),
        ({"$eq": True, "$coerce": True}, "true", None),
        ({"$eq": 3, "$coerce": True}, "three", "x: expected 3, got 'three'"),
        ({"$any": True}, [1, 2], None),
        ({"$one_of": ["Denver", "Denver, CO"]}, "Denver, CO", None),
        (
            {"$one_of": ["Denver", "Denver, CO"]},
            "Boulder",
            "x: expected one of ['Denver', 'Denver, CO'], got 'Boulder'",
        ),
        ({"$one_of": [{"$regex": "A+"}, 3]}, "AAA", None),
        ({"$regex": "AA\\d+"}, "AA123", None),
        ({"$regex": "AA\\d+"}, "xAA123", "x: expected to match /AA\\d+/, got 'xAA123'"),
        ({"$regex": "\\d+", "$coerce": True}, 42, None),
        ({"$regex": "\\d+"}, 42, "x: expected to match /\\d+/, got 42"),
        ({"$approx": 1, "$abs": 0}, 1.0, None),
        ({"$approx": 1, "$abs": 0}, 1.5, "x: expected 1 ± 0, got 1.5"),
        ({"$approx": 10, "$rel": 0.1}, 10.9, None),
        ({"$approx": 10, "$rel": 0.1}, 11.1, "x: expected 10 ± 1, got 11.1"),
        ({"$approx": 0.3}, 0.1 + 0.2, None),
        ({"$approx": 1}, True, "x: expected 1 ± 1e-06, got true"),
        ({"$contains": "refund"}, "your refund is done", None),
        ({"$contains": ["a", "z"]}, "abc", "x: expected to contain 'z', got 'abc'"),
        ({"$contains": 3}, [1, 3.0], None),
        ({"$contains": [{"$regex": "b.*"}]}, ["a", "bee"], None),
        ({"$contains": 4}, [1, 3], "x: expected an item matching 4, got [1, 3]"),
        ({"$contains": "a"}, 5, "x: expected a string or list to search, got 5"),
        ({"$subset": {"a": 1}}, {"a": 1, "b": 2}, None),
        ({"$subset": {"a": 1}}, {"b": 2}, "x.a: missing key (expected 1)"),
        ({"$subset": [1, 2]}, [2, 3, 1], None),
        ({"$subset": [1, 1]}, [1, 2], "x: expected items [1, 1] among [1, 2] (1 not found)"),
        ({"$unordered": [1, 2, 2]}, [2, 1, 2], None),
        ({"$unordered": [1, 2]}, [2.0, 1], None),
        ({"$unordered": []}, [], None),
        (
            {"$unordered": [1, 2, 2]},
            [2, 1, 1],
            "x: expected [1, 2, 2] in any order, got [2, 1, 1]: missing 2; unexpected 1",
        ),
        (
            {"$unordered": [1, 2]},
            [2, 1, 3],
            "x: expected [1, 2] in any order, got [2, 1, 3]: unexpected 3",
        ),
        (
            {"$unordered": [1, 2, 3]},
            [3],
            "x: expected [1, 2, 3] in any order, got [3]: missing 1, 2",
        ),
        (
            {"$unordered": [1, 2, 3, 4, 5]},
            [],
            "x: expected [1, 2, 3, 4, 5] in any order, got []: missing 1, 2, 3 and 2 more",
        ),
        ({"$unordered": [1]}, {"a": 1}, 'x: expected a list, got {"a": 1}'),
        ({"$unordered": [3], "$coerce": True}, ["3"], None),
        ({"$unordered": [{"$regex": "y\\d"}, "x"]}, ["x", "y1"], None),
        (
            {"$unordered": ["x", {"$regex": "y\\d"}]},
            ["y1", "z"],
            "x: expected ['x', /y\\d/] in any order, got [\"y1\", \"z\"]: missing 'x'; unexpected 'z'",
        ),
        ({"$icase": "New  York"}, " new york", None),
        ({"$icase": "New York"}, "newyork", None),
        ({"$eq": 42, "$coerce": True}, "+42", None),
        ({"$eq": 42, "$coerce": True}, "4.2e1", None),
        ({"$eq": 42, "$coerce": True}, "4_2", "x: expected 42, got '4_2'"),
        ({"$eq": 42, "$coerce": True}, "４２", "x: expected 42, got '４２'"),
        ({"$eq": 1e309, "$coerce": True}, "inf", "x: expected Infinity, got 'inf'"),
        (
            {"$icase": "Denver"},
            "Dallas",
            "x: expected 'Denver' (ignoring case and white space), got 'Dallas'",
        ),
        ({"$type": "int"}, 3, None),
        ({"$type": "int"}, True, "x: expected type int, got bool true"),
        ({"$type": "float"}, 3, None),
        ({"$type": ["str", "null"]}, None, None),
        ({"$type": "str"}, 3, "x: expected type str, got number 3"),
        ({"$gte": 0, "$lte": 90}, 90, None),
        ({"$gte": 0, "$lte": 90}, 200, "x: expected a number ≤ 90, got 200"),
        ({"$gt": 0}, 0, "x: expected a number > 0, got 0"),
        ({"$lt": 5, "$coerce": True}, "4", None),
        ({"$custom": "tests.formats.test_matchers:is_even"}, 4, None),
        (
            {"$custom": "tests.formats.test_matchers:is_even"},
            3,
            "x: rejected by tests.formats.test_matchers:is_even (got 3)",
        ),
        (
            {"$custom": "tests.formats.test_matchers:is_short"},
            "abcd",
            "x: rejected by tests.formats.test_matchers:is_short: length 4 is over 3 (got 'abcd')",
        ),
        ({"$type": "str", "$regex": "a.*"}, "abc", None),
        ({"$type": "str", "$regex": "a.*"}, "bc", "x: expected to match /a.*/, got 'bc'"),
    ],
)
def test_each_matcher(spec: Any, actual: Any, expected: str | None) -> None:
    assert reason(spec, actual) == expected


def test_nested_dicts_and_lists_name_the_failing_path() -> None:
    spec = {
        "passengers": [{"first_name": "Mia", "dob": {"$regex": "\\d{4}-\\d{2}-\\d{2}"}}],
        "payment": {"amount": {"$approx": 250, "$abs": 1}},
    }
    good = {"passengers": [{"first_name": "Mia", "dob": "1990-04-05"}], "payment": {"amount": 250}}
    assert reason(spec, good) is None
    bad = {"passengers": [{"first_name": "Mia", "dob": "5 April"}], "payment": {"amount": 250}}
    assert (
        reason(spec, bad)
        == "x.passengers[0].dob: expected to match /\\d{4}-\\d{2}-\\d{2}/, got '5 April'"
    )
    extra = {
        "passengers": [{"first_name": "Mia", "dob": "1990-04-05", "x": 1}],
        "payment": {"amount": 250},
    }
    assert reason(spec, extra) == "x.passengers[0].x: unexpected key (value 1)"
    short = {"passengers": [], "payment": {"amount": 250}}
    assert reason(spec, short) == "x.passengers: expected 1 items, got 0: []"


def test_unordered_pairs_items_by_a_maximum_matching_not_greedily() -> None:
    # Greedy pairing would give $any the "a" that only the second item can take.
    assert reason({"$unordered": [{"$any": True}, "a"]}, ["a", "b"]) is None
    assert reason({"$unordered": [{"$type": "str"}, "a"]}, ["a", 1]) == (
        "x: expected [a value of type str, 'a'] in any order, got [\"a\", 1]: "
        "missing 'a'; unexpected 1"
    )


def test_unordered_items_are_full_matchers_with_the_specs_options() -> None:
    spec = {"items": {"$unordered": [{"id": 7, "qty": {"$gte": 1}}, {"id": 3}]}}
    assert reason(spec, {"items": [{"id": 3}, {"id": 7, "qty": 2}]}) is None
    assert reason(spec, {"items": [{"id": 3, "note": "x"}, {"id": 7, "qty": 2}]}) == (
        "x.items: expected [{id: 7, qty: a number ≥ 1}, {id: 3}] in any order, got "
        '[{"id": 3, "note": "x"}, {"id": 7, "qty": 2}]: missing {id: 3}; '
        'unexpected {"id": 3, "note": "x"}'
    )
    lenient = compile_matcher(spec, allow_extra_keys=True)
    assert lenient.check({"items": [{"id": 3, "note": "x"}, {"id": 7, "qty": 2}]}) is None
    optional = {"ids": {"$unordered": [1, 2], "$optional": True}}
    assert reason(optional, {}) is None


def test_optional_and_absent_keys() -> None:
    spec = {"unit": {"$one_of": ["units"], "$optional": True}, "debug": {"$absent": True}}
    assert reason(spec, {}) is None
    assert reason(spec, {"unit": "units"}) is None
    assert reason(spec, {"unit": "cm"}) == "x.unit: expected one of ['units'], got 'cm'"
    assert reason(spec, {"debug": False}) == "x.debug: expected to be absent, got false"


def test_top_level_arguments_allow_or_forbid_extras() -> None:
    lenient = compile_matcher({"a": 1}, allow_extra_keys=True, noun="argument")
    strict = compile_matcher({"a": 1}, noun="argument")
    assert lenient.check({"a": 1, "b": 2}) is None
    mismatch = strict.check({"a": 1, "b": 2})
    assert mismatch is not None
    assert mismatch.dotted("book") == "book.b"
    assert mismatch.message == "unexpected argument (value 2)"


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"$regexp": "a"}, "unknown operator $regexp; valid operators are"),
        ({"$regex": "("}, "bad regex '(': missing ), unterminated subpattern at position 0"),
        ({"$one_of": []}, "$one_of takes a non-empty list of acceptable values"),
        ({"$approx": "1"}, "$approx takes a finite number, got '1'"),
        ({"$approx": float("nan")}, "$approx takes a finite number, got nan"),
        ({"$approx": 1, "$rel": float("inf")}, "$rel must be a number ≥ 0, got inf"),
        ({"$abs": 1}, "$abs and $rel go with $approx"),
        ({"$approx": 1, "$abs": -1}, "$abs must be a number ≥ 0, got -1"),
        ({"$type": "integer"}, "$type 'integer' is not a type; valid types are int, float"),
        ({"$custom": "nope"}, "$custom must be 'module:name', got 'nope'"),
        ({"$custom": "no_such_module_xyz:f"}, "$custom cannot import module 'no_such_module_xyz'"),
        (
            {"$custom": "json:no_such_function"},
            "$custom: module 'json' has no 'no_such_function'",
        ),
        ({"$optional": True}, "$optional and $coerce go beside a matcher or $eq"),
        ({"$optional": "yes", "$eq": 1}, "$optional must be true or false, got 'yes'"),
        ({"$absent": True, "$optional": True}, "$absent stands alone"),
        ({"$any": 1}, "$any takes true ($any: true)"),
        (
            {"$eq": 1, "plain": 2},
            "mixes $-operators ($eq) with plain keys (plain); wrap a literal dict in $eq",
        ),
        ({"$lte": "9"}, "$lte takes a finite number, got '9'"),
        (
            {"$unordered": 5},
            "$unordered takes a list of items (each a value or a matcher), got 5",
        ),
        (
            {"$unordered": {"a": 1}},
            "$unordered takes a list of items (each a value or a matcher), got {'a': 1}",
        ),
        ({"$gt": float("-inf")}, "$gt takes a finite number, got -inf"),
        (float("nan"), "NaN never equals anything; use $type: float"),
    ],
)
def test_invalid_specs_are_refused_with_the_fix(spec: Any, message: str) -> None:
    with pytest.raises(MatcherSpecError) as caught:
        compile_matcher({"arg": spec})
    assert caught.value.message.startswith(message)
    assert caught.value.where[0] == "arg"


def test_a_bad_item_of_unordered_is_refused_at_its_own_path() -> None:
    with pytest.raises(MatcherSpecError) as caught:
        compile_matcher({"ids": {"$unordered": [1, {"$regex": "("}]}})
    assert str(caught.value) == (
        "ids.$unordered[1]: bad regex '(': missing ), unterminated subpattern at position 0"
    )


def test_eq_takes_a_dict_literally() -> None:
    assert reason({"$eq": {"$ref": "x"}}, {"$ref": "x"}) is None


def test_values_equal_rules() -> None:
    assert values_equal({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not values_equal({"a": 1}, {"a": 1, "b": 2})
    assert not values_equal([True], [1])
    assert not values_equal("3", 3)
