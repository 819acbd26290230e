"""BFCL prompt-mode results (calls written as text) and BFCL's token counts and latency.

``bfcl_prompt/`` holds four real result files BFCL wrote for a prompt-mode model,
roshangrewal/gemma4-e4b-toolcall-v02, from ShishirPatil/gorilla @ c46a818b
(``berkeley-function-call-leaderboard/result/roshangrewal_gemma4-e4b-toolcall-v02/
non_live/``, Apache-2.0). Each ``result`` is text such as ``[f(a=1)]``, with
``input_token_count``, ``output_token_count`` and ``latency``. The calls are compared with
BFCL's own decoders (:mod:`tests.importers.bfcl_reference`), the file's numbers with the
file read independently, and the verdicts with the accuracy the model's authors published
from BFCL's checker in that commit's message (Simple Python 88.5%, Parallel Multiple 86.0%).
The questions and possible answers come from the shared BFCL data (the same v4 entries).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.run import Run, load_runs
from judgekit.formats.task import load_tasks
from judgekit.graders.truth import grade_truth
from judgekit.importers.bfcl import bfcl_run
from judgekit.importers.bfcl_calls import CallTextError, decode_call_text
from judgekit.importers.bfcl_usage import bfcl_latency, bfcl_usage
from tests.conftest import shared_data_path
from tests.importers.bfcl_reference import bfcl_decode

PROMPT_RESULTS = Path(__file__).parent / "bfcl_prompt"
LANGUAGE = {"simple_java": "java", "simple_javascript": "javascript"}

# Per category: (results, results BFCL could not decode, entries judgekit passes).
MEASURED = {
    "simple_python": (400, 19, 356),
    "parallel_multiple": (200, 3, 172),
    "simple_java": (100, 9, 63),
    "simple_javascript": (50, 0, 29),
}
# BFCL's published accuracy for this model, as correct entries.
BFCL_CORRECT = {"simple_python": 354, "parallel_multiple": 172}


def _results(category: str) -> list[dict[str, Any]]:
    path = PROMPT_RESULTS / f"BFCL_v4_{category}_result.json"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _reference(result: str, language: str) -> list[dict[str, Any]] | None:
    """BFCL's decoding, None when it raises or finds no call."""
    try:
        return bfcl_decode(result, language) or None
    except Exception:  # BFCL's decoders raise anything from SyntaxError to AssertionError
        return None


def _judgekit(result: str, language: str) -> list[dict[str, Any]] | None:
    try:
        return [{name: args} for name, args in decode_call_text(result, language)]
    except CallTextError:
        return None


@pytest.mark.parametrize("category", sorted(MEASURED))
def test_text_calls_decode_as_bfcl_decodes_them(category: str) -> None:
    language = LANGUAGE.get(category, "python")
    results = _results(category)
    decoded = [_judgekit(r["result"], language) for r in results]
    assert decoded == [_reference(r["result"], language) for r in results]
    total, undecoded, _ = MEASURED[category]
    assert (len(results), decoded.count(None)) == (total, undecoded)


def _split_shared(category: str, results: list[dict[str, Any]], folder: Path) -> tuple[Path, Path]:
    """BFCL's possible-answer and question files for the result ids, from the shared data."""
    merged = shared_data_path("bfcl", "glyphh-ada-1.1", f"{category}.jsonl")
    entries = {e["id"]: e for e in map(json.loads, merged.read_text().splitlines())}
    answers, questions = folder / "answers.json", folder / "questions.json"
    answers.write_text(
        "".join(
            json.dumps({"id": r["id"], "ground_truth": entries[r["id"]]["possible_answer"]}) + "\n"
            for r in results
        )
    )
    questions.write_text(
        "".join(
            json.dumps({k: entries[r["id"]][k] for k in ("id", "question", "function")}) + "\n"
            for r in results
        )
    )
    return answers, questions


def _import(category: str, folder: Path) -> tuple[str, Path, Path]:
    results = PROMPT_RESULTS / f"BFCL_v4_{category}_result.json"
    answers, questions = _split_shared(category, _results(category), folder)
    runs, suite = folder / "runs.jsonl", folder / "tasks.yaml"
    outcome = CliRunner().invoke(
        main,
        ["import", "bfcl", str(results), "--answers", str(answers), "--entries", str(questions),
         "-o", str(runs), "--suite-out", str(suite)],
    )  # fmt: skip
    assert outcome.exit_code == 0, outcome.output
    return outcome.output, runs, suite


def test_import_keeps_calls_text_usage_and_counts_what_did_not_decode(tmp_path: Path) -> None:
    output, runs_file, _ = _import("simple_python", tmp_path)
    assert output == (
        f"imported 400 runs with 381 tool calls (0 tool errors, 0 with invalid arguments) "
        f"to {runs_file}\nwrote 400 tasks to {tmp_path / 'tasks.yaml'}\n"
        "19 results are text BFCL could not decode as calls (each imported with no tool "
        "call, its text the final answer; metadata.bfcl_decode_error says why)\n"
    )
    runs = {run.run_id: run for run in load_runs(runs_file)}
    for line in _results("simple_python"):
        run = runs[line["id"]]
        expected = _reference(line["result"], "python")
        assert [{c.name: c.args} for c in run.tool_calls] == (expected or [])
        assert run.metadata["bfcl_result_text"] == line["result"]
        assert run.usage is not None
        assert (run.usage.input_tokens, run.usage.output_tokens) == (
            line["input_token_count"],
            line["output_token_count"],
        )
        assert run.duration_s == line["latency"]
        if expected is None:
            assert run.final_answer == line["result"]
            assert run.metadata["bfcl_decode_error"].startswith("not Python call syntax")
        else:
            assert run.final_answer is None and "bfcl_decode_error" not in run.metadata


def test_a_run_that_did_not_decode_says_why() -> None:
    line = _results("simple_python")[1]
    run = bfcl_run({"category": "simple_python", **line, "model_result_raw": line["result"]})
    assert run.tool_calls == []
    assert run.final_answer == "[math.factorial(number=5)]<end_of_turn>"
    assert run.metadata["bfcl_decode_error"] == "not Python call syntax (unmatched ']')"


@pytest.mark.parametrize("category", sorted(MEASURED))
def test_verdicts_of_the_imported_files(category: str, tmp_path: Path) -> None:
    _, runs_file, suite_file = _import(category, tmp_path)
    tasks = load_tasks(suite_file)
    passed = 0
    for run in load_runs(runs_file):
        task = tasks.get(run.task_id)
        assert task is not None
        truth = grade_truth(run, task)
        assert truth is not None
        passed += truth.passed
    assert passed == MEASURED[category][2]
    if category in BFCL_CORRECT:
        # parallel_multiple agrees with BFCL's count exactly; simple_python passes 2 more.
        assert passed - BFCL_CORRECT[category] == {"simple_python": 2}.get(category, 0)


def test_token_counts_and_latency_of_the_whole_file() -> None:
    lines = _results("simple_java")
    runs: list[Run] = [
        bfcl_run({"category": "simple_java", **line, "model_result_raw": line["result"]})
        for line in lines
    ]
    assert sum(r.usage.input_tokens for r in runs if r.usage) == 55093
    assert sum(r.usage.output_tokens for r in runs if r.usage) == 2997
    assert [r.duration_s for r in runs] == [line["latency"] for line in lines]
    assert round(sum(line["latency"] for line in lines), 3) == 258.085


# ---------------------------------------------------------------- decoding, case by case


def test_python_values_nested_calls_and_no_evaluation() -> None:
    text = (
        "```\n[geo.route(start='A', stops=[1, -2.5, None, True], opts={'k': (1, 2)}, "
        "inner=make(x=1), raw=float('inf'), item=data[0], size=2**10, name=Paris, rest=...)]\n```"
    )
    assert decode_call_text(text, "python") == [
        (
            "geo.route",
            {
                "start": "A",
                "stops": [1, -2.5, None, True],
                "opts": {"k": [1, 2]},
                "inner": {"make": {"x": 1}},
                "raw": "float('inf')",
                "item": "data[0]",
                "size": 1024,
                "name": "Paris",
                "rest": "...",
            },
        )
    ]
    # A call without keywords is kept as text, never run.
    assert decode_call_text("f(cmd=__import__('os').system('true'))", "python") == [
        ("f", {"cmd": "__import__('os').system('true')"})
    ]


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "Sorry, I cannot help.",
            "not Python call syntax (invalid syntax. Perhaps you forgot a comma?)",
        ),
        ("[f(a=1), 3]", "a Constant in the list, not a call"),
        ("f(**kw)", "a **mapping argument, not a named one"),
        ("f(a=9**99999)", "an exponent too large to compute ('9 ** 99999')"),
        ("f(a=1/0)", "'1 / 0' cannot be computed (division by zero)"),
        ("f(a=lambda x: x)", "a Lambda value ('lambda x: x')"),
        ("f(a=math.pi)", "a Attribute value ('math.pi')"),
        ("f(a=-'x')", "a sign before \"'x'\", not a number"),
        ("f(a=b'x')", "a bytes constant, which JSON cannot hold"),
    ],
)
def test_text_that_is_not_calls_says_why(text: str, reason: str) -> None:
    with pytest.raises(CallTextError) as raised:
        decode_call_text(text, "python")
    assert str(raised.value) == reason


def test_java_and_javascript_values_stay_source_text() -> None:
    java = '[Obj.call(name="a, b", flag=true, big=42L, list=new ArrayList<>(Arrays.asList("x")))]'
    assert decode_call_text(java, "java") == [
        (
            "Obj.call",
            {
                "name": "a, b",
                "flag": "true",
                "big": "42L",
                "list": 'new ArrayList<>(Arrays.asList("x"))',
            },
        )
    ]
    assert _reference(java, "java") == [
        {name: args} for name, args in decode_call_text(java, "java")
    ]
    js = "[validate(field='name', rules={required: true}, cb=x => x + 1)]"
    assert decode_call_text(js, "javascript") == [
        ("validate", {"field": "name", "rules": "{required: true}", "cb": "x => x + 1"})
    ]
    assert _reference(js, "javascript") == [{"validate": decode_call_text(js, "javascript")[0][1]}]


@pytest.mark.parametrize(
    ("text", "language", "reason"),
    [
        ("[a.f(x=1, y=2), b.g(z=3)]", "java", "2 calls; BFCL reads one Java call per result"),
        ("[f(x=1), g(y=2)]", "javascript", "2 calls; BFCL reads one JavaScript call per result"),
        ("[a.f(x=[1, 2], y=1)]", "java", "the argument 'x' is a list or dict literal, not Java"),
        ("[a.f(x=1)] done", "java", "text after the call: '] done'"),
        ('[a.f(x="open, y=1)]', "java", "a string literal that is not closed (column 7)"),
    ],
)
def test_java_and_javascript_text_bfcl_refuses(text: str, language: str, reason: str) -> None:
    assert _reference(text, language) is None
    with pytest.raises(CallTextError) as raised:
        decode_call_text(text, language)
    assert str(raised.value) == reason


def test_multi_turn_counts_are_summed_and_odd_ones_dropped() -> None:
    entry = {
        "input_token_count": [[900, 1000], [1500]],
        "output_token_count": [[30, 40], [60]],
        "latency": [[0.5, 1.25], [2.0]],
    }
    usage = bfcl_usage(entry)
    assert usage is not None and (usage.input_tokens, usage.output_tokens) == (3400, 130)
    assert bfcl_latency(entry) == 3.75
    assert bfcl_usage({"input_token_count": 5}) is None  # one count of two: no usage
    assert bfcl_usage({"input_token_count": 5, "output_token_count": 2.5}) is None
    assert bfcl_usage({"input_token_count": [5, True], "output_token_count": 1}) is None
    assert bfcl_latency({"latency": -1.0}) is None
    assert bfcl_latency({"latency": "1.0"}) is None
