"""``judgekit import promptfoo``: a promptfoo results file (``promptfoo eval -o results.json``).

The file is one JSON object, ``{evalId, results: {version, results: [...]}, config}``. Each
entry of ``results.results`` (an ``EvaluateResult``: one test case through one prompt and
provider) is a run: its input the rendered prompt (``prompt.raw``), its final answer the
provider's ``response.output`` (text as is, anything else as JSON), its usage the response's
``tokenUsage`` (``prompt`` / ``completion``), its cost ``cost``, its duration ``latencyMs``.
A provider error (``failureReason`` 2) stops the run with ``error``. promptfoo's verdict is
kept in ``metadata.promptfoo``: ``success``, ``score``, ``namedScores``, the test's ``vars``,
the provider (id and label), and each assertion's pass, score, reason, type and value.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from judgekit._util.jsonl import read_json_document
from judgekit.errors import DataError
from judgekit.formats.run import Run, Usage
from judgekit.importers.interface import Importer, ImportOptions
from judgekit.importers.locations import Location, as_object, describe_json

__all__ = ["IMPORTER", "import_promptfoo", "looks_like_promptfoo"]

_PROVIDER_ERROR = 2  # promptfoo's ResultFailureReason.ERROR


def looks_like_promptfoo(head: object) -> bool:
    if not isinstance(head, dict) or "evalId" not in head:
        return False
    summary = head.get("results")
    return isinstance(summary, dict) and isinstance(summary.get("results"), list)


def import_promptfoo(path: Path, options: ImportOptions) -> Iterator[Run]:
    """Every result of a promptfoo results file as a run; a malformed one raises a
    :class:`judgekit.errors.DataError` naming its place in the file."""
    document = read_json_document(path, expected="expected promptfoo's results object")
    if not looks_like_promptfoo(document):
        raise DataError(
            "expected a promptfoo results file (`promptfoo eval -o results.json`): an object "
            f"with `evalId` and `results.results`, got {describe_json(document)}",
            path=path,
        )
    where = Location(path).key("results").key("results")
    runs = (
        _run(as_object(value, where.item(i), "a promptfoo result object"), where.item(i), options)
        for i, value in enumerate(document["results"]["results"])
    )
    return options.run_ids.apply(runs)


def _run(result: dict[str, Any], where: Location, options: ImportOptions) -> Run:
    test_idx, prompt_idx = _index(result, "testIdx", where), _index(result, "promptIdx", where)
    response = result.get("response")
    response = response if isinstance(response, dict) else {}
    answer = _answer(response.get("output"))
    test_case = result.get("testCase")
    description = test_case.get("description") if isinstance(test_case, dict) else None
    prompt = result.get("prompt")
    raw_prompt = prompt.get("raw") if isinstance(prompt, dict) else None
    result_id = result.get("id")
    failed = result.get("failureReason") == _PROVIDER_ERROR
    return Run(
        run_id=result_id
        if isinstance(result_id, str) and result_id
        else f"{test_idx}/{prompt_idx}",
        task_id=options.task_id or _task_id(description, test_idx),
        input=raw_prompt if isinstance(raw_prompt, str) else None,
        tool_calls=[],
        final_answer=answer,
        messages_to_user=[answer] if answer else [],
        turns=0 if failed and answer is None else 1,
        usage=_usage(response.get("tokenUsage")),
        cost_usd=_non_negative(result.get("cost")),
        duration_s=_seconds(result.get("latencyMs")),
        stop_reason="error" if failed else "completed",
        metadata={"promptfoo": _verdict(result)},
    )


def _index(result: dict[str, Any], key: str, where: Location) -> int:
    value = result.get(key)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise where.key(key).error(f"expected a whole number ≥ 0, got {describe_json(value)}")
    return value


def _task_id(description: Any, test_idx: int) -> str:
    return description if isinstance(description, str) and description else f"test-{test_idx}"


def _answer(output: Any) -> str | None:
    if output is None or isinstance(output, str):
        return output
    return json.dumps(output, ensure_ascii=False)


def _usage(tokens: Any) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    prompt, completion = tokens.get("prompt"), tokens.get("completion")
    if not any(isinstance(v, int) and not isinstance(v, bool) for v in (prompt, completion)):
        return None
    return Usage(input_tokens=_count(prompt), output_tokens=_count(completion))


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _non_negative(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        return None
    return float(value)


def _seconds(milliseconds: Any) -> float | None:
    value = _non_negative(milliseconds)
    return None if value is None else value / 1000


def _verdict(result: dict[str, Any]) -> dict[str, Any]:
    grading = result.get("gradingResult")
    components = grading.get("componentResults") if isinstance(grading, dict) else None
    provider = result.get("provider")
    verdict = {
        "success": result.get("success"),
        "score": result.get("score"),
        "failure_reason": result.get("failureReason"),
        "named_scores": result.get("namedScores") or {},
        "vars": result.get("vars") or {},
        "provider": provider.get("id") if isinstance(provider, dict) else provider,
        "provider_label": provider.get("label") if isinstance(provider, dict) else None,
        "assertions": [_assertion(c) for c in components or [] if isinstance(c, dict)],
    }
    if result.get("error"):
        verdict["error"] = result["error"]
    return verdict


def _assertion(component: dict[str, Any]) -> dict[str, Any]:
    assertion = component.get("assertion")
    assertion = assertion if isinstance(assertion, dict) else {}
    return {
        "type": assertion.get("type"),
        "value": assertion.get("value"),
        "pass": component.get("pass"),
        "score": component.get("score"),
        "reason": component.get("reason"),
    }


IMPORTER = Importer(
    "promptfoo",
    "promptfoo results",
    looks_like_promptfoo,
    import_promptfoo,
    details="A results file of `promptfoo eval -o results.json`: each result (a test case "
    "through one prompt and provider) one run, its output the final answer, usage, cost and "
    "latency kept, its assertions' pass, score and reason in metadata.promptfoo.",
)
