"""Answer: did the agent tell the user what it had to?

Each item of the task's ``expect_answer`` must be found in the final answer or in any of the
run's ``messages_to_user`` — any of them, not only the last, as τ-bench checks its
``outputs`` — after ``answer_normalise`` rewrote both sides.
"""

from __future__ import annotations

from judgekit.formats.answer_spec import normalise_text
from judgekit.formats.grade import GraderResult
from judgekit.formats.task import Task
from judgekit.graders.run_view import RunView


def grade_answer(run: RunView, task: Task) -> GraderResult | None:
    """The Answer verdict on one run; None when the task sets no ``expect_answer``.

    A failing reason names every item not found, as written in the task:
    ``missing '1,042.50', 327``.
    """
    if not task.has_answer:
        return None
    sent = list(run.messages_to_user)
    if run.final_answer is not None and run.final_answer not in sent:
        sent.append(run.final_answer)  # runs recorded without their messages still count
    texts = [normalise_text(text, task.answer_normalise) for text in sent]
    items = task.answer_items
    missing = [item.shown for item in items if not any(item.found_in(t) for t in texts)]
    if missing:
        told = "" if texts else " (the agent sent the user no text)"
        return GraderResult(passed=False, reason=f"missing {', '.join(missing)}{told}")
    return GraderResult(
        passed=True, reason=f"found all {len(items)} expected values in what the agent said"
    )
