"""What a judge is asked about one run, as one digest: the key a verdict is reused by.

A verdict belongs to the content it judged, not to a run id: two runs files may use the same
ids (``judgekit run`` names runs ``SUITE/TASK/TRIAL``) for different answers. The digest is the
sha256 of the text each placeholder of the rubric's prompt is filled from — the run's input,
final answer, transcript or tool calls, the task's reference, a pairwise run's two answers —
before quoting and capping. The rest of what the judge sees is the rubric's, named by its
version, so (rubric version, model, endpoint, digest) names the question exactly.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

from judgekit.errors import DataError
from judgekit.formats.rubric import Rubric
from judgekit.formats.run import Run
from judgekit.judging.prompts import judged_fields

if TYPE_CHECKING:
    from judgekit.formats.task import Task

__all__ = ["input_digest", "pairwise_answers"]

# Bump when the digest's canonical form changes: older verdicts are then asked again.
DIGEST_FORMAT = 1


def input_digest(rubric: Rubric, run: Run, task: Task | None = None) -> str:
    """The sha256 (hex) of the text ``rubric``'s prompt is filled from for ``run``.

    >>> from judgekit.formats.rubric import Rubric
    >>> rubric = Rubric.model_validate({
    ...     "id": "r", "scale": "binary", "prompt": "<answer>{final_answer}</answer>",
    ...     "judge": {"model": "openai/gpt-4o-mini"},
    ... })
    >>> done = Run(run_id="a/1", task_id="a", tool_calls=[], final_answer="Done.")
    >>> sorry = done.model_copy(update={"final_answer": "Sorry."})
    >>> input_digest(rubric, done) == input_digest(rubric, sorry)
    False
    >>> input_digest(rubric, done) == input_digest(rubric, done.model_copy(update={"run_id": "b/1"}))
    True
    """
    answers = pairwise_answers(run) if rubric.kind == "pairwise" else None
    fields = judged_fields(rubric, run, task, answers=answers)
    # ASCII JSON: agent text may hold lone surrogates, which UTF-8 cannot encode.
    canonical = json.dumps(
        {"format": DIGEST_FORMAT, "fields": fields}, sort_keys=True, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def pairwise_answers(run: Run) -> tuple[str, str]:
    """A pairwise run carries its two answers as ``metadata.answers = [A, B]``."""
    answers = run.metadata.get("answers")
    if (
        not isinstance(answers, list)
        or len(answers) != 2
        or not all(isinstance(a, str) for a in answers)
    ):
        raise DataError(
            "a pairwise rubric needs metadata.answers = [answer A, answer B]",
            field=f"run {run.run_id}",
        )
    return answers[0], answers[1]
