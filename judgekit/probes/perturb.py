"""The perturbations a bias probe asks the judge about: each keeps what is being judged and
changes only what a fair judge should ignore.

- **verbosity**: the answer padded with neutral filler — fixed sentences that restate
  nothing and add no content — until it is at least twice as long. Pointwise rubrics pad the
  run's final answer (the transcript shows the padded answer too); pairwise rubrics pad
  answer B, so a judge that follows length moves towards B.
- **position**: pairwise rubrics swap answers A and B (the perturbed verdict is read back
  through the swap, so a fair judge gives the same answer); pointwise rubrics swap the
  prompt's paragraph that shows the task (``{input}``) with the paragraph that shows what is
  judged (``{final_answer}``, ``{transcript}`` or ``{tool_calls}``) — the task then comes
  after the answer. Paragraphs are the prompt's blank-line-separated blocks.
"""

from __future__ import annotations

from judgekit.errors import SpecError
from judgekit.formats.rubric import Rubric, Score
from judgekit.formats.run import Run

__all__ = [
    "FILLER",
    "pad_answer",
    "padded_run",
    "sections_swapped",
    "swapped_pair",
    "unswap_choice",
]

# Neutral sentences: no claim, no hedge, no praise; they only make the answer longer.
FILLER = (
    "The answer above is given in full.",
    "Nothing further is added here.",
    "This closes the response to the request.",
    "The text above is the complete reply.",
)

_JUDGED = ("final_answer", "transcript", "tool_calls", "conversation")


def pad_answer(text: str) -> str:
    """``text`` and filler sentences, cycled in order, until at least twice as long (one
    sentence at the least).

    >>> pad_answer("Paris.")
    'Paris.\\n\\nThe answer above is given in full.'
    """
    padded, index = text, 0
    while index == 0 or len(padded) < 2 * len(text):
        padded += ("\n\n" if index == 0 else " ") + FILLER[index % len(FILLER)]
        index += 1
    return padded


def padded_run(run: Run, rubric: Rubric) -> Run:
    """The run with its answer padded (answer B for a pairwise rubric)."""
    if rubric.kind == "pairwise":
        answers = run.metadata.get("answers")
        if isinstance(answers, list) and len(answers) == 2 and isinstance(answers[1], str):
            metadata = {**run.metadata, "answers": [answers[0], pad_answer(answers[1])]}
            return run.model_copy(update={"metadata": metadata})
        return run  # the judge reports the malformed run itself
    padded = pad_answer(run.final_answer or "")
    messages = list(run.messages)
    last = max((i for i, m in enumerate(messages) if m.role == "assistant"), default=None)
    if last is not None:  # a conversation's last answer is what {conversation} shows
        messages[last] = messages[last].model_copy(update={"content": padded})
    sent = list(run.messages_to_user)
    if sent and sent[-1] == run.final_answer:
        sent[-1] = padded
    update = {"final_answer": padded, "messages": messages, "messages_to_user": sent}
    return run.model_copy(update=update)


def swapped_pair(run: Run) -> Run:
    """A pairwise run with answers A and B swapped."""
    answers = run.metadata.get("answers")
    if isinstance(answers, list) and len(answers) == 2:
        return run.model_copy(
            update={"metadata": {**run.metadata, "answers": [answers[1], answers[0]]}}
        )
    return run


def unswap_choice(score: Score | None) -> Score | None:
    """A pairwise choice made on swapped answers, named as on the original order."""
    return {"A": "B", "B": "A"}.get(str(score), score)


def _paragraph_with(paragraphs: list[str], names: tuple[str, ...]) -> int | None:
    for index, paragraph in enumerate(paragraphs):
        if any("{" + name + "}" in paragraph for name in names):
            return index
    return None


def sections_swapped(rubric: Rubric) -> Rubric:
    """The pointwise rubric with its task paragraph and answer paragraph swapped."""
    paragraphs = rubric.prompt.split("\n\n")
    task = _paragraph_with(paragraphs, ("input",))
    judged = _paragraph_with(paragraphs, _JUDGED)
    if task is None or judged is None or task == judged:
        why = (
            "the prompt does not show the task ({input})"
            if task is None
            else "the prompt shows the task and the answer in one paragraph"
        )
        raise SpecError(
            f"rubric {rubric.id}: the pointwise position probe swaps the paragraph showing the "
            f"task with the one showing the answer, but {why}; separate them by a blank line"
        )
    paragraphs[task], paragraphs[judged] = paragraphs[judged], paragraphs[task]
    return rubric.model_copy(update={"prompt": "\n\n".join(paragraphs)})
