"""Few-shot examples from disagreements: which to choose, and how a run becomes one.

A disagreement's *kind* is its pair (human label, judge score): for pass/fail the two
directions of error. Examples are drawn round-robin over the kinds, in the order of the
scale's human labels, and within a kind in run-hash order (seeded): ``k`` examples cover as
many kinds as they can, both directions of error first, and the same dev labels always give
the same examples.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from judgekit.alignment.dev_set import DevItem, run_hash
from judgekit.formats.conversation import judge_conversation
from judgekit.formats.label import NO_INPUT
from judgekit.formats.rubric import Rubric, RubricExample, Score, scale_values
from judgekit.formats.suite import TaskSet
from judgekit.formats.transcript import final_answer_text, judge_tool_calls, judge_transcript
from judgekit.judging.prompts import cap_text

__all__ = ["EXAMPLE_CHARS", "Disagreement", "choose_examples", "to_example", "with_examples"]

# The most characters one example's input or output shows the judge: every judge call pays
# for the examples again, and the start and end of an answer usually say what it did.
EXAMPLE_CHARS = 4000


@dataclass(frozen=True)
class Disagreement:
    """A dev run where the current rubric's judge and the humans' majority differ."""

    item: DevItem
    judge: Score
    reason: str | None  # the judge's, as it answered: untrusted text

    @property
    def kind(self) -> tuple[Score, Score]:
        return (self.item.human, self.judge)


def choose_examples(
    rubric: Rubric, pool: Sequence[Disagreement], k: int, *, seed: int
) -> list[Disagreement]:
    """Up to ``k`` disagreements of ``pool``, spread over its kinds (see the module)."""
    order = {value: index for index, value in enumerate(scale_values(rubric.scale))}
    kinds: dict[tuple[Score, Score], list[Disagreement]] = {}
    for disagreement in sorted(pool, key=lambda d: run_hash(seed, d.item.run_id)):
        kinds.setdefault(disagreement.kind, []).append(disagreement)
    queues = [kinds[kind] for kind in sorted(kinds, key=lambda k: (order[k[0]], order[k[1]]))]
    chosen: list[Disagreement] = []
    depth = 0
    while len(chosen) < k and any(depth < len(queue) for queue in queues):
        chosen += [queue[depth] for queue in queues if depth < len(queue)][: k - len(chosen)]
        depth += 1
    return chosen


def to_example(rubric: Rubric, disagreement: Disagreement, tasks: TaskSet | None) -> RubricExample:
    """The run as a few-shot example: what was asked and answered (as the rubric shows it),
    the humans' majority label, and their notes as the ``why``."""
    item = disagreement.item
    run = item.run
    task = tasks.get(run.task_id) if tasks is not None else None
    asked = run.input if run.input is not None else (task.input if task else None)
    why = "; ".join(item.notes) or None
    shown = cap_text(asked if asked is not None else NO_INPUT, EXAMPLE_CHARS)
    if rubric.kind == "pairwise":
        answers = run.metadata.get("answers") or ["", ""]
        return RubricExample(
            input=shown,
            answer_a=cap_text(str(answers[0]), EXAMPLE_CHARS),
            answer_b=cap_text(str(answers[1]), EXAMPLE_CHARS),
            label=item.human,
            why=why,
        )
    if rubric.applies_to == "transcript":
        output = judge_transcript(run)
    elif rubric.applies_to == "tool_calls":
        output = judge_tool_calls(run.tool_calls)
    elif rubric.applies_to == "conversation":
        output = judge_conversation(run)
    else:
        output = final_answer_text(run)
    return RubricExample(
        input=shown, output=cap_text(output, EXAMPLE_CHARS), label=item.human, why=why
    )


def with_examples(rubric: Rubric, chosen: Sequence[Disagreement], tasks: TaskSet | None) -> Rubric:
    """``rubric`` with the chosen disagreements appended to its examples, validated again."""
    examples = [*rubric.examples, *(to_example(rubric, d, tasks) for d in chosen)]
    data = rubric.model_dump(mode="python")
    data["examples"] = [example.model_dump(mode="python") for example in examples]
    return type(rubric).model_validate(data)
