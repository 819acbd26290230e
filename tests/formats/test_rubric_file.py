"""Rubric files: what loads, the one-line error for every kind of bad rubric, and versions."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.rubric import LikertScale, Rubric, RubricSpecError
from judgekit.formats.rubric_file import load_rubric, load_rubrics, rubric_version
from tests.conftest import REPO

BASE = (
    "id: x\n"
    "scale: binary\n"
    "prompt: |\n"
    "  Task: {input}\n"
    "  Answer: {final_answer}\n"
    "judge: {model: openai/gpt-4o-mini}\n"
)
PAIRWISE = BASE.replace("scale: binary", "scale: pairwise").replace(
    "{final_answer}", "{answer_a} {answer_b}"
)
RUN_NAMES = "{input}, {final_answer}, {transcript}, {tool_calls}, {conversation}, {reference}"
PAIR_NAMES = "{input}, {answer_a}, {answer_b}, {reference}"


def write(tmp_path: Path, text: str, name: str = "x.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(path: Path) -> str:
    with pytest.raises(DataError) as caught:
        load_rubric(path)
    return str(caught.value)


def test_example_rubrics_load_and_tasks_reference_them() -> None:
    rubrics = load_rubrics(REPO / "rubrics")
    assert [(r.id, r.kind) for r in rubrics] == [
        ("answer_quality", "likert"),
        ("goal_completion", "binary"),
        ("preference", "pairwise"),
    ]
    goal = load_rubric("goal_completion", rubrics_dir=REPO / "rubrics")
    assert goal.applies_to == "final_answer"
    assert {"input", "final_answer", "reference"} <= set(goal.placeholders)
    assert goal.judge.model == "openai/gpt-4o-mini"
    assert (goal.promotion.min_labels, goal.promotion.min_per_class) == (50, 10)
    assert goal.promotion.min_kappa == 0.6
    assert goal.source == REPO / "rubrics" / "goal_completion.yaml"
    for suite in ("shop", "travel"):
        text = (REPO / "tasks" / f"{suite}.yaml").read_text(encoding="utf-8")
        assert "rubrics: [goal_completion]" in text


def test_a_rubric_loads_by_id_or_by_path(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    by_id = load_rubric("x", rubrics_dir=tmp_path)
    by_path = load_rubric(str(path))
    assert by_id.model_dump() == by_path.model_dump() == load_rubric(path).model_dump()
    assert by_id.source == path and by_id.line_of(("judge",)) == 6


def test_an_unknown_id_names_the_rubrics_there(tmp_path: Path) -> None:
    write(tmp_path, BASE)
    with pytest.raises(DataError) as caught:
        load_rubric("goal", rubrics_dir=tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}/goal.yaml: no rubric 'goal'; pass a rubric file or the id of one "
        f"({tmp_path} holds x)"
    )


def test_a_missing_file_and_folder(tmp_path: Path) -> None:
    assert error_of(tmp_path / "nope.yaml") == f"{tmp_path}/nope.yaml: no such file"
    with pytest.raises(DataError, match="no such folder"):
        load_rubrics(tmp_path / "nope")


def test_one_id_in_two_files_is_refused(tmp_path: Path) -> None:
    write(tmp_path, BASE)
    write(tmp_path, BASE, name="x.yml")
    with pytest.raises(DataError) as caught:
        load_rubrics(tmp_path)
    assert str(caught.value) == (
        f"{tmp_path}/x.yml: rubric id 'x' is also defined by {tmp_path}/x.yaml; "
        "keep one of the two files"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "id: x\ndescription: d\nscale: binary\napplies_to: final_answer\nprompt: |\n"
            '  Grade it.\n  Answer: {answr}\n  Reply {"reason": "...", "score": 1}\n'
            "judge: {model: openai/gpt-4o-mini}\n",
            f"{{path}}:7: prompt: unknown placeholder {{answr}}; valid placeholders are {RUN_NAMES}",
        ),
        (
            BASE.replace("{final_answer}", "{final_answer} {answer_a}"),
            f"{{path}}:5: prompt: unknown placeholder {{answer_a}}; valid placeholders are "
            f"{RUN_NAMES} ({{answer_a}} is for pairwise rubrics)",
        ),
        (
            PAIRWISE.replace("{answer_b}", "{answer_b} {final_answer}"),
            f"{{path}}:5: prompt: unknown placeholder {{final_answer}}; valid placeholders are "
            f"{PAIR_NAMES} (a pairwise rubric shows the two answers)",
        ),
        (
            PAIRWISE.replace(" {answer_b}", ""),
            "{path}:3: prompt: a pairwise prompt shows both answers; add {answer_b}",
        ),
        (
            PAIRWISE.replace("{answer_a} {answer_b}", "the answers"),
            "{path}:3: prompt: a pairwise prompt shows both answers; add {answer_a} and {answer_b}",
        ),
        (
            BASE.replace("{final_answer}", "(none)"),
            "{path}:3: prompt: the rubric applies to the final_answer but the prompt never shows "
            "it; add {final_answer} or {transcript} or {conversation}",
        ),
        (
            BASE + "applies_to: tool_calls\n",
            "{path}:3: prompt: the rubric applies to the tool_calls but the prompt never shows "
            "it; add {tool_calls} or {transcript}",
        ),
        (
            BASE.replace("scale: binary", "scale: {choices: []}"),
            "{path}:2: scale.choices: a choices scale lists at least two values, e.g. "
            "{choices: [correct, partial, wrong]} (got [])",
        ),
        (
            BASE.replace("scale: binary", "scale: {choices:}"),
            "{path}:2: scale.choices: a choices scale lists at least two values, e.g. "
            "{choices: [correct, partial, wrong]} (got None)",
        ),
        (
            BASE.replace("scale: binary", "scale: {choices: [good]}"),
            "{path}:2: scale.choices: a choices scale lists at least two values, e.g. "
            "{choices: [correct, partial, wrong]} (got ['good'])",
        ),
        (
            BASE.replace("scale: binary", "scale: {choices: [yes, no]}"),
            "{path}:2: scale.choices[0]: a choice is a non-empty string; quote yes/no/true/false "
            "in YAML (got True)",
        ),
        (
            BASE.replace("scale: binary", "scale: {choices: [Good, good]}"),
            "{path}:2: scale.choices[1]: choices 'Good' and 'good' differ only in case or "
            "spaces; judges' answers are matched ignoring both",
        ),
        (
            BASE.replace("scale: binary", "scale: {likert: [5, 1]}"),
            "{path}:2: scale.likert: likert bounds are [low, high], two whole numbers with "
            "low < high, at most 100 apart (got [5, 1])",
        ),
        (
            BASE.replace("scale: binary", "scale: {likert: [1, 4.5]}"),
            "{path}:2: scale.likert: likert bounds are [low, high], two whole numbers with "
            "low < high, at most 100 apart (got [1, 4.5])",
        ),
        (
            BASE.replace("scale: binary", "scale: {likert: [0, 1000]}"),
            "{path}:2: scale.likert: likert bounds are [low, high], two whole numbers with "
            "low < high, at most 100 apart (got [0, 1000])",
        ),
        (
            BASE.replace("scale: binary", "scale: {likert: [1, 3, 5]}"),
            "{path}:2: scale.likert: likert bounds are [low, high], two whole numbers with "
            "low < high, at most 100 apart (got [1, 3, 5])",
        ),
        (
            BASE.replace("scale: binary", "scale: ternary"),
            "{path}:2: scale: unknown scale; valid scales are binary, likert, pairwise, "
            "{choices: [a, b, ...]} and {likert: [low, high]} (got 'ternary')",
        ),
        (
            BASE.replace("scale: binary", "scale: {levels: 3}"),
            "{path}:2: scale: unknown scale; valid scales are binary, likert, pairwise, "
            "{choices: [a, b, ...]} and {likert: [low, high]}",
        ),
        (
            BASE.replace("scale: binary", "scale: {choices: [a, b], extra: 1}"),
            "{path}:2: scale.extra: unknown field; valid fields are choices",
        ),
        (
            BASE.replace("id: x", "id: y"),
            "{path}:1: id: id 'y' does not match the file name 'x.yaml'; rename one",
        ),
        (
            BASE.replace("{model: openai/gpt-4o-mini}", "{model: openai/gpt-4o-mini"),
            "{path}:7: YAML syntax error: expected ',' or '}', but got '<stream end>'",
        ),
        (
            BASE + "version: 3\n",
            "{path}:7: version: unknown field; valid fields are id, description, scale, "
            "applies_to, prompt, examples, judge, promotion, max_chars",
        ),
        (
            BASE.replace("{model: openai/gpt-4o-mini}", "{model: openai/gpt-4o-mini, temp: 0}"),
            "{path}:6: judge.temp: unknown field; valid fields are model, jury, combine, "
            "temperature, samples, confidence",
        ),
        (
            BASE + "promotion: {min_label: 5}\n",
            "{path}:7: promotion.min_label: unknown field; valid fields are min_labels, "
            "min_per_class, min_kappa, confidence, max_flip_rate, max_ece, test_share, selective",
        ),
        (
            BASE + "examples:\n  - input: hi\n    outptu: hello\n    label: pass\n",
            "{path}:9: examples[0].outptu: unknown field; valid fields are input, output, "
            "answer_a, answer_b, label, why",
        ),
        (
            BASE.replace("judge: {model: openai/gpt-4o-mini}\n", ""),
            "{path}:1: judge: required field is missing",
        ),
        (
            BASE.replace("{model: openai/gpt-4o-mini}", "{temperature: 0}"),
            "{path}:6: judge.model: a judge names a model (one judge) or a jury (several); "
            "required field is missing",
        ),
        (
            BASE.replace("openai/gpt-4o-mini", "gpt-4o-mini"),
            "{path}:6: judge.model: a judge model is provider/model, e.g. openai/gpt-4o-mini "
            "(got 'gpt-4o-mini')",
        ),
        (
            BASE.replace("{model: openai/gpt-4o-mini}", "{model: openai/gpt-4o-mini, samples: 0}"),
            "{path}:6: judge.samples: Input should be greater than or equal to 1 (got 0)",
        ),
        (
            BASE + "applies_to: answer\n",
            "{path}:7: applies_to: Input should be 'final_answer', 'transcript', "
            "'tool_calls' or 'conversation' (got 'answer')",
        ),
        (
            BASE + "examples:\n  - input: hi\n    output: hello\n    label: maybe\n",
            '{path}:10: examples[0].label: "maybe" is not a binary score; use "pass" or "fail"',
        ),
        (
            BASE.replace("scale: binary", "scale: likert")
            + "examples:\n  - input: hi\n    output: hello\n    label: 7\n",
            "{path}:10: examples[0].label: 7 is outside the scale 1..5",
        ),
        (
            PAIRWISE + "examples:\n  - input: hi\n    output: hello\n    label: A\n",
            "{path}:8: examples[0]: a pairwise example gives answer_a and answer_b (and no output)",
        ),
        (
            BASE + "examples:\n  - {input: hi, answer_a: x, answer_b: y, label: pass}\n",
            "{path}:8: examples[0]: an example gives output (answer_a and answer_b are for "
            "pairwise rubrics)",
        ),
        (
            BASE.replace("prompt: |\n  Task: {input}\n  Answer: {final_answer}\n", "prompt: 5\n"),
            "{path}:3: prompt: Input should be a valid string (got 5)",
        ),
        ("- a\n- b\n", "{path}:1: a rubric is a mapping with id, scale, prompt and judge"),
        ("", "{path}: a rubric is a mapping with id, scale, prompt and judge"),
    ],
)
def test_bad_rubrics_get_one_line_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text)
    assert error_of(path) == message.replace("{path}", str(path))


def test_literal_braces_in_a_prompt_are_fine(tmp_path: Path) -> None:
    prompt = (
        "prompt: |\n"
        '  Reply like {"reason": "...", "score": 1} or {{"score": 0}}.\n'
        "  Sets {a, b}, { final_answer }, {0}, {}, {-x} and } stray { braces stay.\n"
        "  Answer: {final_answer}\n"
    )
    text = f"id: x\nscale: binary\n{prompt}judge: {{model: openai/gpt-4o-mini}}\n"
    rubric = load_rubric(write(tmp_path, text))
    assert rubric.placeholders == ("final_answer",)


def test_a_rubric_built_in_code_is_checked_too() -> None:
    with pytest.raises(ValueError, match=r"unknown placeholder \{answr\}") as caught:
        Rubric(id="r", scale="binary", prompt="{answr}", judge={"model": "openai/m"})
    cause = caught.value.errors()[0]["ctx"]["error"]  # type: ignore[attr-defined]
    assert isinstance(cause, RubricSpecError) and cause.where == ("prompt",)


def test_example_labels_are_stored_normalised(tmp_path: Path) -> None:
    text = BASE + "examples:\n  - {input: hi, output: hello, label: yes}\n"
    assert load_rubric(write(tmp_path, text)).examples[0].label == "pass"


# --- versions -----------------------------------------------------------------------


def version_of(tmp_path: Path, text: str) -> str:
    return rubric_version(load_rubric(write(tmp_path, text)))


def test_the_version_is_a_short_stable_hash(tmp_path: Path) -> None:
    version = version_of(tmp_path, BASE)
    assert len(version) == 12 and int(version, 16) >= 0
    assert version_of(tmp_path, BASE) == version


@pytest.mark.parametrize(
    "edited",
    [
        BASE.replace("id: x\n", "id: x\ndescription: Is the answer right?\n"),
        BASE + "promotion: {min_labels: 80, min_kappa: 0.7}\n",
        # key order and YAML spelling are not content
        "judge: {model: openai/gpt-4o-mini}\n"
        + BASE.replace("judge: {model: openai/gpt-4o-mini}\n", ""),
        BASE.replace(
            "{model: openai/gpt-4o-mini}",
            "{model: openai/gpt-4o-mini, temperature: 0.0, samples: 1}",
        ),
        BASE + "applies_to: final_answer\nexamples: []\n",
    ],
)
def test_the_version_ignores_what_cannot_change_a_verdict(tmp_path: Path, edited: str) -> None:
    assert version_of(tmp_path, edited) == version_of(tmp_path, BASE)


@pytest.mark.parametrize(
    "edited",
    [
        BASE.replace("Task:", "The task:"),
        BASE.replace("prompt: |", "prompt: |+").replace("}\njudge", "}\n\njudge"),
        BASE.replace("gpt-4o-mini", "gpt-4o"),
        BASE.replace(
            "{model: openai/gpt-4o-mini}", "{model: openai/gpt-4o-mini, temperature: 0.7}"
        ),
        BASE.replace("{model: openai/gpt-4o-mini}", "{model: openai/gpt-4o-mini, samples: 3}"),
        BASE.replace("scale: binary", "scale: likert"),
        BASE.replace("scale: binary", "scale: {choices: [right, wrong]}"),
        BASE.replace("scale: binary", "scale: {choices: [right, partly, wrong]}"),
        BASE.replace("{final_answer}", "{final_answer} {transcript}"),
        BASE + "examples:\n  - {input: hi, output: hello, label: pass}\n",
        BASE + "examples:\n  - {input: hi, output: hello, label: pass, why: polite}\n",
    ],
)
def test_the_version_changes_with_what_changes_a_verdict(tmp_path: Path, edited: str) -> None:
    assert version_of(tmp_path, edited) != version_of(tmp_path, BASE)


def test_the_version_changes_with_applies_to(tmp_path: Path) -> None:
    with_transcript = BASE.replace("{final_answer}", "{final_answer} {transcript}")
    assert version_of(tmp_path, with_transcript) != version_of(
        tmp_path, with_transcript + "applies_to: transcript\n"
    )


def test_the_version_hashes_meaning_not_spelling(tmp_path: Path) -> None:
    likert = BASE.replace("scale: binary", "scale: likert")
    assert version_of(tmp_path, likert) == version_of(
        tmp_path, BASE.replace("scale: binary", "scale: {likert: [1, 5]}")
    )
    assert version_of(tmp_path, likert) != version_of(
        tmp_path, BASE.replace("scale: binary", "scale: {likert: [1, 7]}")
    )
    labelled = BASE + "examples:\n  - {input: hi, output: hello, label: LABEL}\n"
    assert version_of(tmp_path, labelled.replace("LABEL", "true")) == version_of(
        tmp_path, labelled.replace("LABEL", "pass")
    )


def test_likert_bounds_in_code() -> None:
    rubric = Rubric(
        id="r", scale=LikertScale(likert=(0, 10)), prompt="{final_answer}", judge={"model": "a/b"}
    )
    assert rubric.kind == "likert"
