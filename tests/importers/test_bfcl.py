"""BFCL's real entries graded by judgekit, measured against BFCL's own verdicts.

Every entry of every category is converted (task from the possible answer, run from the
model's output) and graded by Truth; the verdict is compared with ``bfcl_valid``. The counts
are asserted exactly so a change in the converter or the graders shows, and every
disagreement is put into a named kind (examples/bfcl/README.md explains each).
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from judgekit.formats.run import Run
from judgekit.formats.task import Task
from judgekit.graders.truth import grade_truth
from judgekit.importers.bfcl import (
    NOTHING_ACCEPTABLE,
    bfcl_run,
    bfcl_task,
    language_of,
    load_bfcl,
)
from judgekit.importers.bfcl_strings import bfcl_text_spec
from tests.conftest import shared_data_path

# (judgekit agrees with BFCL, entries) per category, measured.
AGREEMENT = {
    "simple_python": (396, 400),
    "simple_java": (96, 100),
    "simple_javascript": (43, 50),
    "multiple": (200, 200),
    "parallel": (200, 200),
    "parallel_multiple": (199, 200),
    "irrelevance": (240, 240),
    "live_simple": (257, 258),
    "live_multiple": (1053, 1053),
    "live_parallel": (16, 16),
    "live_parallel_multiple": (24, 24),
    "live_irrelevance": (884, 884),
}
OVERALL = (3608, 3625)  # 99.53%

INT_IN_FLOAT_LIST = "BFCL refuses ints in a list of floats; judgekit has no float-only type"
SOURCE_COLLECTION = "Java/JavaScript collection literal: judgekit has no source-code parser"
UNKNOWN = "unknown"

DISAGREEMENT_KINDS = {
    INT_IN_FLOAT_LIST: 6,
    SOURCE_COLLECTION: 11,
}

_COLLECTION_TYPES = {"Array", "ArrayList", "HashMap", "array", "dict"}


@dataclass(frozen=True)
class Graded:
    entry: dict[str, Any]
    task: Task
    run: Run
    passed: bool

    @property
    def agrees(self) -> bool:
        return self.passed is self.entry["bfcl_valid"]


@pytest.fixture(scope="module")
def bfcl_folder() -> Path:
    return shared_data_path("bfcl", "glyphh-ada-1.1")


@pytest.fixture(scope="module")
def graded(bfcl_folder: Path) -> list[Graded]:
    results: list[Graded] = []
    for path in sorted(bfcl_folder.glob("*.jsonl")):
        for task, run, entry in load_bfcl(path):
            truth = grade_truth(run, task)
            assert truth is not None
            results.append(Graded(entry, task, run, truth.passed))
    return results


# ---------------------------------------------------------------- classifying disagreements


def _schema(entry: dict[str, Any], function: str, argument: str) -> dict[str, Any]:
    for doc in entry["function"]:
        if doc["name"] == function:
            schema: dict[str, Any] = doc["parameters"]["properties"].get(argument, {})
            return schema
    return {}


def _refused_arguments(graded: Graded) -> list[tuple[str, str, Any]]:
    """(function, argument, value) that no expected call of that function accepts."""
    refused = []
    expectations = list(zip(graded.task.expect_tools or [], graded.task.call_matchers, strict=True))
    for call in graded.run.tool_calls:
        for argument, value in call.args.items():
            accepted = any(
                (child := matcher.children.get(argument)) is not None and child.check(value) is None
                for expected, matcher in expectations
                if expected.name == call.name
            )
            if not accepted:
                refused.append((call.name, argument, value))
    return refused


def _why_refused(entry: dict[str, Any], function: str, argument: str, value: Any) -> str:
    """Why judgekit refuses a value that BFCL accepted."""
    doc_type = _schema(entry, function, argument).get("type")
    language = language_of(entry["category"])
    if language != "python" and doc_type in _COLLECTION_TYPES and isinstance(value, str):
        return SOURCE_COLLECTION
    return UNKNOWN


def _why_accepted(graded: Graded) -> str:
    """Why judgekit accepts a run that BFCL refused."""
    for call in graded.run.tool_calls:
        for argument, value in call.args.items():
            schema = _schema(graded.entry, call.name, argument)
            item_type = (schema.get("items") or {}).get("type")
            has_int = isinstance(value, list) and any(
                isinstance(v, int) and not isinstance(v, bool) for v in value
            )
            if schema.get("type") in ("array", "tuple") and item_type == "float" and has_int:
                return INT_IN_FLOAT_LIST
    return UNKNOWN


def disagreement_kind(graded: Graded) -> str:
    if graded.passed:
        return _why_accepted(graded)
    kinds = {_why_refused(graded.entry, *refused) for refused in _refused_arguments(graded)}
    return " + ".join(sorted(kinds)) if kinds else UNKNOWN


# ---------------------------------------------------------------- agreement on the real data


def test_bfcl_verdicts_match_the_published_score_summary(
    bfcl_folder: Path, graded: list[Graded]
) -> None:
    summary = json.loads((bfcl_folder.parent / "score_summary.json").read_text())
    valid = Counter(g.entry["category"] for g in graded if g.entry["bfcl_valid"])
    for category, published in summary["per_category"].items():
        assert valid[category] == published["correct_count"], category


def test_agreement_with_bfcl_per_category(graded: list[Graded]) -> None:
    agree: dict[str, tuple[int, int]] = {}
    for category in AGREEMENT:
        in_category = [g for g in graded if g.entry["category"] == category]
        agree[category] = (sum(g.agrees for g in in_category), len(in_category))
    assert agree == AGREEMENT
    assert (sum(g.agrees for g in graded), len(graded)) == OVERALL


def test_every_disagreement_has_a_named_kind(graded: list[Graded]) -> None:
    kinds = {g.entry["id"]: disagreement_kind(g) for g in graded if not g.agrees}
    unknown = sorted(entry_id for entry_id, kind in kinds.items() if UNKNOWN in kind)
    assert unknown == []
    assert Counter(kinds.values()) == DISAGREEMENT_KINDS


def test_irrelevance_agrees_entirely(graded: list[Graded]) -> None:
    irrelevant = [g for g in graded if "irrelevance" in g.entry["category"]]
    assert all(g.agrees for g in irrelevant)
    assert all(g.task.expect_tools == [] and g.task.order == "strict" for g in irrelevant)


# ---------------------------------------------------------------- the converter, by shape

FUNCTION = {
    "name": "book",
    "parameters": {
        "type": "dict",
        "properties": {
            "city": {"type": "string"},
            "seats": {"type": "integer"},
            "price": {"type": "float"},
            "note": {"type": "string"},
        },
        "required": ["city", "seats"],
    },
}


def _entry(raw: Any, *, category: str = "simple_python", **answer: list[Any]) -> dict[str, Any]:
    return {
        "id": f"{category}_0",
        "category": category,
        "question": [[{"role": "user", "content": "Book two seats to Denver."}]],
        "function": [FUNCTION],
        "possible_answer": [{"book": answer or {"city": ["Denver"], "seats": [2]}}],
        "model_result_raw": raw,
    }


def _passes(entry: dict[str, Any]) -> bool:
    result = grade_truth(bfcl_run(entry), bfcl_task(entry))
    assert result is not None
    return result.passed


def test_task_maps_values_optional_marks_and_types() -> None:
    task = bfcl_task(_entry([], city=["Denver"], seats=[2, ""], note=["", "aisle"]))
    args = (task.expect_tools or [])[0].args
    assert args["city"] == {"$one_of": [bfcl_text_spec("Denver")]}
    # `seats` is required by the doc, so its "" is no optional mark (and no value of an int).
    assert args["seats"] == {"$one_of": [2], "$type": "int"}
    # BFCL accepts an explicit "" for an optional string: "" is among its acceptable values.
    assert args["note"] == {
        "$one_of": [bfcl_text_spec("aisle"), bfcl_text_spec("")],
        "$optional": True,
    }
    assert task.extra_args == "forbid" and task.order == "strict"


def test_strings_compare_as_bfcl_standardises_them() -> None:
    assert bfcl_text_spec("x^2") == {"$regex": "(?i)[ ,./_*^-]*x[ ,./_*^-]*2[ ,./_*^-]*"}
    entry = _entry([{"book": '{"city": "denver, co", "seats": 2}'}], city=["Denver CO"], seats=[2])
    assert _passes(entry)
    entry["model_result_raw"] = [{"book": '{"city": "Denver\tCO", "seats": 2}'}]
    assert not _passes(entry)  # BFCL removes spaces only, not tabs


def test_an_explicit_empty_string_for_an_optional_argument() -> None:
    given = [{"book": '{"city": "Denver", "seats": 2, "note": ""}'}]
    assert _passes(_entry(given, city=["Denver"], seats=[2], note=["", "aisle"]))
    # An integer argument refuses "" unless its answers are strings (BFCL's variable rule).
    given = [{"book": '{"city": "Denver", "seats": ""}'}]
    assert not _passes(_entry(given, city=["Denver"], seats=[2, ""]))
    assert _passes(_entry(given, city=["Denver"], seats=["two", ""]))


def test_integer_arguments_refuse_floats_and_floats_accept_ints() -> None:
    assert not _passes(_entry([{"book": '{"city": "Denver", "seats": 2.0}'}]))
    assert _passes(
        _entry(
            [{"book": '{"city": "denver", "seats": 2, "price": 10}'}],
            city=["Denver"],
            seats=[2],
            price=[10.0],
        )
    )


def test_parallel_categories_accept_any_order() -> None:
    entry = _entry(
        [{"book": '{"city": "Paris", "seats": 1}'}, {"book": '{"city": "Denver", "seats": 2}'}],
        category="parallel",
    )
    entry["possible_answer"] = [
        {"book": {"city": ["Denver"], "seats": [2]}},
        {"book": {"city": ["Paris"], "seats": [1]}},
    ]
    assert bfcl_task(entry).order == "unordered"
    assert _passes(entry)


def test_irrelevance_passes_only_without_a_call() -> None:
    assert _passes(_entry([], category="irrelevance"))
    assert not _passes(_entry([{"book": "{}"}], category="irrelevance"))


def test_plain_text_output_is_the_final_answer() -> None:
    run = bfcl_run(_entry("I cannot book that."))
    assert run.tool_calls == [] and run.final_answer == "I cannot book that."


def test_unparseable_arguments_are_kept_and_flagged() -> None:
    run = bfcl_run(_entry([{"book": '{"city": "Denver", '}, {"book": "[1, 2]"}]))
    broken, listed = run.tool_calls
    assert broken.args == {} and broken.raw_arguments == '{"city": "Denver", '
    assert broken.arguments_error is not None and "malformed JSON" in broken.arguments_error
    assert listed.raw_arguments == "[1, 2]" and listed.arguments_error is not None


def test_java_arguments_are_typed_source_strings() -> None:
    entry = _entry(
        [{"book": '{"city": "Denver", "seats": "2"}'}],
        category="simple_java",
    )
    assert _passes(entry)
    entry["model_result_raw"] = [{"book": '{"city": "Denver", "seats": 2}'}]
    assert not _passes(entry)  # BFCL refuses a Java value that is not source text


JAVA_FUNCTION = {
    "name": "send",
    "parameters": {
        "type": "dict",
        "properties": {
            "length": {"type": "long"},
            "ratio": {"type": "float"},
            "count": {"type": "integer"},
            "force": {"type": "boolean"},
        },
        "required": ["length"],
    },
}


def _java_passes(
    arguments: str, category: str = "simple_java", boolean: str = "boolean", **answer: list[Any]
) -> bool:
    entry = _entry([{"send": arguments}], category=category)
    function = json.loads(json.dumps(JAVA_FUNCTION))
    function["parameters"]["properties"]["force"]["type"] = boolean
    entry["function"] = [function]
    entry["possible_answer"] = [{"send": answer}]
    return _passes(entry)


@pytest.mark.parametrize(
    ("given", "accepted"),
    [("42L", True), ("-0042l", False), ("0042l", True), ("42", False), ("42.0L", False)],
)
def test_a_java_long_needs_its_l_suffix(given: str, accepted: bool) -> None:
    assert _java_passes(f'{{"length": "{given}"}}', length=[42]) is accepted


@pytest.mark.parametrize("given", ["True", "TRUE", "1", "yes"])
def test_java_and_javascript_booleans_are_lower_case_only(given: str) -> None:
    answer = {"length": [1], "force": [True]}
    assert _java_passes('{"length": "1L", "force": "true"}', **answer)
    assert not _java_passes(f'{{"length": "1L", "force": "{given}"}}', **answer)
    # (`length` holds a variable name here: JavaScript has no `long`.)
    javascript = {"category": "simple_javascript", "boolean": "Boolean"}
    answer = {"length": ["size"], "force": [True]}
    assert _java_passes('{"length": "size", "force": "true"}', **javascript, **answer)
    assert not _java_passes(f'{{"length": "size", "force": "{given}"}}', **javascript, **answer)


def test_java_numbers_are_read_as_its_converter_reads_them() -> None:
    answer = {"length": [1], "ratio": [2.5], "count": [3]}
    assert _java_passes('{"length": "1L", "ratio": "2.50f", "count": "3"}', **answer)
    assert not _java_passes('{"length": "1L", "ratio": "2.5", "count": "3"}', **answer)
    assert not _java_passes('{"length": "1L", "ratio": "2.5f", "count": "3.0"}', **answer)


def test_arguments_the_doc_lacks_or_no_value_fits() -> None:
    entry = _entry([], city=["Denver"], seats=[2], extra=["", 1])
    entry["possible_answer"][0]["book"]["note"] = []
    args = (bfcl_task(entry).expect_tools or [])[0].args
    assert args["extra"] == {"$absent": True}  # BFCL refuses an argument its doc lacks
    assert args["note"] == NOTHING_ACCEPTABLE  # BFCL accepts nothing from an empty list
