"""Reading judges' answers: every accepted shape, every refusal and its message, the repair."""

from __future__ import annotations

from typing import Any

import pytest

from judgekit.errors import JudgeOutputError
from judgekit.formats.rubric import ChoicesScale, LikertScale, Scale
from judgekit.judging.verdict_parsing import ParsedVerdict, parse_verdict, repair_messages
from judgekit.providers.chat import ChatMessage

GRADES = ChoicesScale(choices=["Correct", "partial", "wrong"])


def answer(score: Any, reason: str = "ok") -> str:
    import json

    return json.dumps({"reason": reason, "score": score})


@pytest.mark.parametrize(
    ("text", "scale", "score"),
    [
        # binary: pass/fail, true/false, yes/no, 1/0 as strings or values, any case
        *[
            (answer(v), "binary", "pass")
            for v in ("pass", "PASS", " Pass ", True, "true", "Yes", 1, "1", 1.0)
        ],
        *[
            (answer(v), "binary", "fail")
            for v in ("fail", "Fail", False, "FALSE", "no", 0, "0", 0.0)
        ],
        # likert: whole numbers, as numbers or numeric strings
        (answer(4), "likert", 4),
        (answer("4"), "likert", 4),
        (answer(4.0), "likert", 4),
        (answer(" 5 "), "likert", 5),
        (answer(1), "likert", 1),
        (answer(7), LikertScale(likert=(1, 7)), 7),
        (answer(0), {"likert": [0, 10]}, 0),
        # choices and pairwise: any case, returned as listed
        (answer("correct"), GRADES, "Correct"),
        (answer("PARTIAL"), GRADES, "partial"),
        (answer("a"), "pairwise", "A"),
        (answer("B"), "pairwise", "B"),
        (answer("TIE"), "pairwise", "tie"),
    ],
)
def test_accepted_scores(text: str, scale: Any, score: object) -> None:
    if isinstance(scale, dict):
        scale = LikertScale.model_validate(scale)
    parsed = parse_verdict(text, scale)
    assert parsed == ParsedVerdict(score=score, reason="ok")
    assert type(parsed.score) is type(score)


@pytest.mark.parametrize(
    "text",
    [
        '{"reason": "ok", "score": "pass"}',
        '```json\n{"reason": "ok", "score": "pass"}\n```',
        '```\n{"reason": "ok", "score": "pass"}\n```',
        'Here is my verdict:\n```json\n{\n  "reason": "ok",\n  "score": "pass"\n}\n```\nThanks!',
        'I think it passes. {"reason": "ok", "score": "pass"} Hope that helps.',
        # braces in prose before it, and braces inside the JSON strings
        'The set {a, b} is fine. {"reason": "ok", "score": "pass"}',
        '{"note": "draft"} then {"reason": "ok", "score": "pass"}',
        '{"reason": "ok", "score": "pass", "confidence": 0.9}',
        '{"score": "pass", "reason": "ok"}',
        '[{"reason": "ok", "score": "pass"}]',
    ],
)
def test_accepted_shapes(text: str) -> None:
    assert parse_verdict(text, "binary") == ParsedVerdict(score="pass", reason="ok")


def test_braces_and_quotes_inside_the_reason_survive() -> None:
    text = 'Verdict: {"reason": "It says \\"done}\\" and {x}.", "score": "fail"}'
    assert parse_verdict(text, "binary") == ParsedVerdict(
        score="fail", reason='It says "done}" and {x}.'
    )


@pytest.mark.parametrize(
    ("text", "scale", "message"),
    [
        ("", "binary", "not valid JSON: the answer is empty"),
        ("  \n", "binary", "not valid JSON: the answer is empty"),
        ("The answer passes.", "binary", "not valid JSON: the answer holds no JSON object"),
        ('"pass"', "binary", "not valid JSON: the answer holds no JSON object"),
        (
            'Verdict: {"reason": "The answer is corr',
            "binary",
            "not valid JSON: the answer ends before its JSON object is closed (truncated?)",
        ),
        (
            '```json\n{"reason": "ok", "score": ',
            "binary",
            "not valid JSON: the answer ends before its JSON object is closed (truncated?)",
        ),
        (
            "{'reason': 'ok', 'score': 1}",
            "binary",
            "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        (
            '{"reason": "ok", "score": 1,}',
            "binary",
            "not valid JSON: Expecting property name enclosed in double quotes: line 1 column 29 (char 28)",
        ),
        ('{"reason": "ok"}', "binary", "missing field 'score'"),
        ('{"score": "pass"}', "binary", "missing field 'reason'"),
        ("{}", "binary", "missing fields 'reason' and 'score'"),
        ('{"reason": ["a", "b"], "score": "pass"}', "binary", "field 'reason' must be a string"),
        (answer(7), "likert", "score 7 is outside the scale 1..5"),
        (answer(0), "likert", "score 0 is outside the scale 1..5"),
        (answer("7"), "likert", 'score "7" is outside the scale 1..5'),
        (answer(4.5), "likert", "score 4.5 is not a whole number on the scale 1..5"),
        (answer("4.5"), "likert", 'score "4.5" is not a whole number on the scale 1..5'),
        (answer("four"), "likert", 'score "four" is not a whole number on the scale 1..5'),
        (answer(True), "likert", "score true is not a whole number on the scale 1..5"),
        (answer(None), "likert", "score null is not a whole number on the scale 1..5"),
        (
            '{"reason": "ok", "score": NaN}',
            "likert",
            "score NaN is not a whole number on the scale 1..5",
        ),
        (answer(8), LikertScale(likert=(1, 7)), "score 8 is outside the scale 1..7"),
        (answer("maybe"), "binary", 'score "maybe" is not a binary score; use "pass" or "fail"'),
        (answer(2), "binary", 'score 2 is not a binary score; use "pass" or "fail"'),
        (answer("passed"), "binary", 'score "passed" is not a binary score; use "pass" or "fail"'),
        (answer(None), "binary", 'score null is not a binary score; use "pass" or "fail"'),
        (answer("meh"), GRADES, 'score "meh" is not one of "Correct", "partial", "wrong"'),
        (
            answer(["Correct"]),
            GRADES,
            'score ["Correct"] is not one of "Correct", "partial", "wrong"',
        ),
        (answer("C"), "pairwise", 'score "C" is not one of "A", "B", "tie"'),
        (answer("both"), "pairwise", 'score "both" is not one of "A", "B", "tie"'),
    ],
)
def test_refused_answers(text: str, scale: Scale, message: str) -> None:
    with pytest.raises(JudgeOutputError) as caught:
        parse_verdict(text, scale)
    assert str(caught.value) == message


def test_a_long_bad_score_is_cut_short_in_the_message() -> None:
    with pytest.raises(JudgeOutputError) as caught:
        parse_verdict(answer("x" * 500), "binary")
    assert len(str(caught.value)) < 120


ASKED = (
    ChatMessage(role="system", content="You grade."),
    ChatMessage(role="user", content="Grade this."),
)


def test_repair_messages_quote_the_error_and_the_format() -> None:
    bad = '{"reason": "Great", "score": 7}'
    with pytest.raises(JudgeOutputError) as caught:
        parse_verdict(bad, "likert")
    retry = repair_messages(ASKED, bad, caught.value, scale="likert")
    assert retry[:2] == ASKED
    assert retry[2] == ChatMessage(role="assistant", content=bad)
    assert retry[3] == ChatMessage(
        role="user",
        content=(
            "Your answer could not be read as a verdict: score 7 is outside the scale 1..5.\n"
            "Answer again with only this JSON object, the reason first, and nothing else:\n"
            '{"reason": "<why, in one to three sentences>", "score": <score>}\n'
            "where <score> is one of: 1, 2, 3, 4, 5"
        ),
    )


def test_repair_messages_without_a_scale_and_for_an_empty_answer() -> None:
    retry = repair_messages(ASKED, "", "not valid JSON: the answer is empty")
    assert retry[2] == ChatMessage(role="assistant", content="(empty answer)")
    assert retry[3].content.startswith(
        "Your answer could not be read as a verdict: not valid JSON: the answer is empty.\n"
    )
    assert retry[3].content.endswith('{"reason": "<why>", "score": <a score from the scale above>}')
