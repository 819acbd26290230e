"""Reading a judge's answer as a verdict on the rubric's scale.

The judge is asked for ``{"reason": "...", "score": ...}``. Models wrap that object in
```json fences, put prose around it, or spell a binary score ``true`` or ``"Yes"``; all of
that is accepted. What cannot be read raises :class:`JudgeOutputError` whose message is
written to be quoted back to the judge in the one repair retry
(:func:`repair_messages`); if the retry fails too, the verdict is *unscored*.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, ValidationInfo, field_validator

from judgekit.errors import JudgeOutputError
from judgekit.formats.rubric import (
    Scale,
    Score,
    describe_scores,
    normalise_score,
)
from judgekit.providers.chat import ChatMessage

__all__ = [
    "ParsedVerdict",
    "after_repair",
    "answer_format",
    "describe_scores",
    "parse_verdict",
    "repair_messages",
    "unscored_kind",
]

# Past this many points a likert scale is described by its bounds, not listed.


class ParsedVerdict(BaseModel):
    """A judge's answer read on the rubric's scale: the normalised score and the reason."""

    model_config = ConfigDict(frozen=True)

    score: Score
    reason: str


class _JudgeAnswer(BaseModel):
    """The JSON object a judge must answer; other keys (a confidence, say) are ignored."""

    model_config = ConfigDict(extra="ignore")

    reason: str
    score: Any

    @field_validator("score")
    @classmethod
    def _on_the_scale(cls, value: Any, info: ValidationInfo) -> Score:
        scale: Scale = (info.context or {})["scale"]
        return normalise_score(scale, value)


def answer_format(scale: Scale) -> str:
    """The exact answer format for ``scale``, as the judge is told it.

    >>> print(answer_format("binary"))
    {"reason": "<why, in one to three sentences>", "score": <score>}
    where <score> is one of: "pass", "fail"
    """
    return (
        '{"reason": "<why, in one to three sentences>", "score": <score>}\n'
        f"where <score> is {describe_scores(scale)}"
    )


def parse_verdict(text: str, scale: Scale) -> ParsedVerdict:
    """Read a judge's answer; raise :class:`JudgeOutputError` saying what is wrong.

    The first balanced JSON object in ``text`` is read (fences and prose around it are
    ignored; when several objects parse, the first with a ``score`` wins), then its score
    is normalised onto the scale: binary to ``"pass"``/``"fail"``, likert to an int, a
    choice or A/B/tie to its listed spelling.

    >>> parse_verdict('Sure! {"reason": "It refunds A100.", "score": "Yes"}', "binary")
    ParsedVerdict(score='pass', reason='It refunds A100.')
    >>> parse_verdict('{"reason": "Great.", "score": 7}', "likert")
    Traceback (most recent call last):
    ...
    judgekit.errors.JudgeOutputError: score 7 is outside the scale 1..5
    """
    data = _json_object(text)
    try:
        answer = _JudgeAnswer.model_validate(data, context={"scale": scale})
    except ValidationError as exc:
        raise JudgeOutputError(_explain(exc)) from None
    return ParsedVerdict(score=answer.score, reason=answer.reason)


def repair_messages(
    original: tuple[ChatMessage, ...],
    bad_text: str,
    error: JudgeOutputError | str,
    *,
    scale: Scale | None = None,
) -> tuple[ChatMessage, ...]:
    """The conversation for the one repair retry: the original messages, the judge's bad
    answer, and a user message quoting the error and the required format (with the scale's
    scores when ``scale`` is given).

    >>> from judgekit.providers.chat import ChatMessage
    >>> asked = (ChatMessage(role="user", content="Grade this."),)
    >>> retry = repair_messages(asked, '{"score": 9}', "missing field 'reason'", scale="likert")
    >>> [m.role for m in retry]
    ['user', 'assistant', 'user']
    """
    if scale is not None:
        required = answer_format(scale)
    else:
        required = '{"reason": "<why>", "score": <a score from the scale above>}'
    request = (
        f"Your answer could not be read as a verdict: {error}.\n"
        "Answer again with only this JSON object, the reason first, and nothing else:\n"
        f"{required}"
    )
    # Providers refuse an empty assistant turn, and an empty answer is itself the problem.
    said = bad_text if bad_text.strip() else "(empty answer)"
    return (
        *original,
        ChatMessage(role="assistant", content=said),
        ChatMessage(role="user", content=request),
    )


_RETRIED = "; after one repair retry: "
_MISSING = re.compile(r"missing fields? '\w+'(?: and '\w+')*")


def after_repair(first_error: str, second_error: str) -> str:
    """The reason of a verdict unscored after its repair retry: both errors, in order."""
    return f"{first_error}{_RETRIED}{second_error}"


def unscored_kind(reason: str | None) -> str:
    """What an unscored verdict's reason comes to, in a few fixed words (the reason itself
    may quote the judge's answer, which is not for the terminal): by its last error, the
    one after the repair retry.

    >>> unscored_kind("not valid JSON: Expecting value; after one repair retry: not valid JSON: x")
    'not valid JSON'
    >>> unscored_kind("score 7 is outside the scale 1..5; after one repair retry: missing field 'score'")
    "missing field 'score'"
    >>> unscored_kind("score 'maybe' is not one of pass, fail")
    'score off the scale'
    """
    last = (reason or "").rpartition(_RETRIED)[2]
    if last.startswith("not valid JSON"):
        return "not valid JSON"
    if last.startswith("score "):
        return "score off the scale"
    if _MISSING.fullmatch(last):
        return last
    if last == "the answer must be a JSON object":
        return "not a JSON object"
    if re.fullmatch(r"field '\w+' must be a string", last):
        return last
    return "unreadable for another reason" if last else "no reason recorded"


def _explain(exc: ValidationError) -> str:
    errors = exc.errors(include_url=False)
    missing = [str(e["loc"][0]) for e in errors if e["type"] == "missing"]
    if missing:
        names = " and ".join(f"'{name}'" for name in missing)
        return f"missing field{'s' if len(missing) > 1 else ''} {names}"
    error = errors[0]
    field = str(error["loc"][0]) if error["loc"] else "answer"
    if field == "score":
        return "score " + error["msg"].removeprefix("Value error, ")
    if error["type"] == "model_type":
        return "the answer must be a JSON object"
    return f"field '{field}' must be a string"


def _json_object(text: str) -> dict[str, Any]:
    """The first top-level JSON object in ``text`` (preferring one with a ``score``)."""
    if not text.strip():
        raise JudgeOutputError("not valid JSON: the answer is empty")
    found: list[dict[str, Any]] = []
    first_error: str | None = None
    truncated = False
    for start, end in _object_spans(text):
        if end is None:
            truncated = True
            break
        try:
            value = json.loads(text[start:end])
        except json.JSONDecodeError as exc:
            first_error = first_error or str(exc)
            continue
        if isinstance(value, dict):
            if "score" in value:
                return value
            found.append(value)
    if found:
        return found[0]
    # An object still open at the end is most likely the verdict, cut off by max_tokens.
    if truncated:
        raise JudgeOutputError(
            "not valid JSON: the answer ends before its JSON object is closed (truncated?)"
        )
    if first_error is not None:
        raise JudgeOutputError(f"not valid JSON: {first_error}")
    raise JudgeOutputError("not valid JSON: the answer holds no JSON object")


def _object_spans(text: str) -> Iterator[tuple[int, int | None]]:
    """``(start, end)`` of each top-level ``{...}`` in ``text``, skipping braces inside
    JSON strings; ``end`` is None for an object still open when the text ends."""
    position = text.find("{")
    while position != -1:
        end = _balanced_end(text, position)
        yield position, end
        if end is None:
            return
        position = text.find("{", end)


def _balanced_end(text: str, start: int) -> int | None:
    depth = 0
    in_string = False
    escaped = False
    for index in range(start, len(text)):
        char = text[index]
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None
