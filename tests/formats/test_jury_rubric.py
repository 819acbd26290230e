"""Jury rubrics: what loads, the exact one-line error for every bad jury, and versions."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import ConfigError, DataError
from judgekit.formats.rubric_file import effective_rubric, juror_rubric, load_rubric, rubric_version

JURY = (
    "id: x\n"
    "scale: binary\n"
    "prompt: 'Answer: {final_answer}'\n"
    "judge:\n"
    "  jury:\n"
    "    - {model: openai/a}\n"
    "    - {model: anthropic/b, base_url: 'http://127.0.0.1:9/'}\n"
    "    - {model: openai/c}\n"
    "  combine: majority\n"
)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "x.yaml"
    path.write_text(text)
    return path


def error_of(path: Path) -> str:
    with pytest.raises(DataError) as caught:
        load_rubric(path)
    return str(caught.value)


def test_a_jury_loads_named_as_one_judge(tmp_path: Path) -> None:
    rubric = load_rubric(write(tmp_path, JURY))
    assert rubric.judge.model == "jury:majority(anthropic/b,openai/a,openai/c)"
    assert [juror.model for juror in rubric.judge.jury or []] == [
        "openai/a",
        "anthropic/b",
        "openai/c",
    ]
    assert rubric.judge.jury is not None and rubric.judge.jury[1].base_url == "http://127.0.0.1:9/"
    # Reordering the jurors names the same jury; where a juror is reached is no part of it.
    reordered = JURY.replace("openai/a}", "openai/z}").replace("openai/c}", "openai/a}")
    reordered = reordered.replace("openai/z}", "openai/c}").replace(
        "http://127.0.0.1:9/", "http://h/"
    )
    assert rubric_version(load_rubric(write(tmp_path, reordered))) == rubric_version(rubric)


def test_a_juror_rubric_depends_on_that_juror_alone(tmp_path: Path) -> None:
    rubric = load_rubric(write(tmp_path, JURY))
    other = load_rubric(write(tmp_path, JURY.replace("openai/c", "openai/d")))
    assert rubric.judge.jury is not None and other.judge.jury is not None
    assert rubric_version(rubric) != rubric_version(other)
    first = [rubric_version(juror_rubric(rubric, juror)) for juror in rubric.judge.jury]
    second = [rubric_version(juror_rubric(other, juror)) for juror in other.judge.jury]
    assert first[:2] == second[:2] and first[2] != second[2]
    single = load_rubric(write(tmp_path, JURY.split("judge:")[0] + "judge: {model: openai/a}\n"))
    assert first[0] == rubric_version(single)


def test_model_on_the_command_line_is_refused_for_a_jury(tmp_path: Path) -> None:
    rubric = load_rubric(write(tmp_path, JURY))
    with pytest.raises(ConfigError) as caught:
        effective_rubric(rubric, "openai/gpt-4o")
    assert str(caught.value) == (
        "--model openai/gpt-4o: the rubric x names a jury "
        "(jury:majority(anthropic/b,openai/a,openai/c)); change its jurors in the rubric, or "
        "judge with one model in a rubric of its own"
    )


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "    - {model: anthropic/b, base_url: 'http://127.0.0.1:9/'}\n    - {model: openai/c}\n",
            "",
            "{path}:5: judge.jury: a jury has at least 2 jurors (got 1); for one judge write "
            "judge: {model: provider/model}",
        ),
        (
            "openai/c",
            "openai/a",
            "{path}:8: judge.jury[2].model: juror openai/a is also juror 1; a juror asked twice "
            "repeats itself (ask it several times with samples)",
        ),
        (
            "openai/c",
            "gpt-4o",
            "{path}:8: judge.jury[2].model: a judge model is provider/model, e.g. "
            "openai/gpt-4o-mini (got 'gpt-4o')",
        ),
        (
            "{model: openai/c}",
            "{model: openai/c, key: K}",
            "{path}:8: judge.jury[2].key: unknown field; valid fields are model, base_url, "
            "api_key_env",
        ),
        (
            "combine: majority",
            "combine: mean",
            "{path}:9: judge.combine: combine mean is the mean of numeric scores, for a likert "
            "scale; for a binary scale use majority or unanimous",
        ),
        (
            "combine: majority",
            "combine: median",
            "{path}:9: judge.combine: Input should be 'majority', 'mean' or 'unanimous' "
            "(got 'median')",
        ),
        (
            "    - {model: openai/c}\n",
            "    - {model: openai/c}\n    - {model: openai/d}\n",
            "{path}:10: judge.combine: a majority jury has an odd number of jurors (got 4), so "
            "that two halves cannot tie; add or remove a juror",
        ),
        (
            "  combine: majority\n",
            "",
            "{path}:4: judge.combine: a jury says how to combine its verdicts: combine: "
            "majority, mean or unanimous",
        ),
        (
            "  combine: majority\n",
            "  combine: majority\n  model: openai/a\n",
            "{path}:10: judge.model: a judge names a model (one judge) or a jury (several), "
            "not both",
        ),
        (
            "  combine: majority\n",
            "  combine: majority\n  confidence: logprobs\n",
            "{path}:10: judge.confidence: a jury's confidence is its jurors' agreement; "
            "confidence: logprobs is for one judge",
        ),
    ],
)
def test_bad_juries_get_one_line_errors(tmp_path: Path, old: str, new: str, message: str) -> None:
    assert old in JURY
    path = write(tmp_path, JURY.replace(old, new))
    assert error_of(path) == message.replace("{path}", str(path))


@pytest.mark.parametrize(
    ("scale", "combine", "message"),
    [
        (
            "likert",
            "majority",
            "combine majority is the most common of distinct answers, for a binary or choices "
            "or pairwise scale; for a likert scale use mean",
        ),
        (
            "{choices: [good, bad, ugly]}",
            "unanimous",
            "combine unanimous is a pass only when every juror passes, for a binary scale; for "
            "a choices scale use majority",
        ),
        (
            "pairwise",
            "mean",
            "combine mean is the mean of numeric scores, for a likert scale; for a pairwise "
            "scale use majority",
        ),
    ],
)
def test_a_combine_rule_must_fit_the_scale(
    tmp_path: Path, scale: str, combine: str, message: str
) -> None:
    text = JURY.replace("scale: binary", f"scale: {scale}").replace("majority", combine)
    if scale == "pairwise":
        text = text.replace("{final_answer}", "{answer_a} {answer_b}")
    path = write(tmp_path, text)
    assert error_of(path) == f"{path}:9: judge.combine: {message}"


def test_combine_without_a_jury_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, JURY.split("judge:")[0] + "judge: {model: openai/a, combine: mean}\n")
    assert error_of(path) == f"{path}:4: judge.combine: combine is for a jury; one model needs none"


def test_commands_that_ask_one_model_refuse_a_jury(tmp_path: Path) -> None:
    from judgekit.formats.rubric_file import one_judge

    rubric = load_rubric(write(tmp_path, JURY))
    with pytest.raises(ConfigError) as caught:
        one_judge(rubric, "probe")
    assert str(caught.value) == (
        "probe asks one judge model, and the rubric x names a jury "
        "(jury:majority(anthropic/b,openai/a,openai/c)); judge and calibrate the jury, or give "
        "probe a rubric of one of its jurors"
    )
    single = load_rubric(write(tmp_path, JURY.split("judge:")[0] + "judge: {model: openai/a}\n"))
    assert one_judge(single, "probe") is single
