"""Which run a judge prompt is about, found by the run's own text quoted in the prompt.

A judge prompt quotes a run's fields (``{input}``, ``{final_answer}``, ``{tool_calls}``,
``{transcript}``) each in its ``<untrusted_NAME>`` block, built by
:func:`judgekit.judging.prompts.quote_untrusted`. Every run's blocks are built the same way
and indexed; a prompt's blocks are looked up, and the runs that every block found points at
are the runs it may be about. Nothing else is read (no run id is in a prompt: judges are
blind to it), so two runs whose quoted fields are the same cannot be told apart — by this,
or by a real judge::

    finder = PromptRuns(runs)
    finder.runs_of(prompt_text)   # ('support/upgrade_plan/3',)
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from typing import Final

from judgekit.formats.run import Run
from judgekit.formats.transcript import final_answer_text, judge_tool_calls, judge_transcript
from judgekit.judging.prompts import MAX_CHARS, TAG_PREFIX, cap_text, quote_untrusted

__all__ = ["PromptRuns"]

# Quoting writes every "<" inside a block as "&lt;", so a block ends at its first closing tag.
_BLOCK: Final = re.compile(rf"<({TAG_PREFIX}\w+)>\n.*?\n</\1>", re.S)
# The blocks of a run's own text (its input aside): one no run has means an unknown run.
_RUN_TAGS: Final = frozenset(
    TAG_PREFIX + name for name in ("final_answer", "tool_calls", "transcript")
)


class PromptRuns:
    """An index from each quoted field of ``runs`` to the runs it quotes, in file order."""

    def __init__(self, runs: Iterable[Run]) -> None:
        self._order: dict[str, int] = {}
        # Keyed by digest: a transcript block may be 32,000 characters, a digest is 32 bytes.
        self._by_block: dict[bytes, set[str]] = {}
        for run in runs:
            self._order.setdefault(run.run_id, len(self._order))
            for block in _blocks_of(run):
                self._by_block.setdefault(_digest(block), set()).add(run.run_id)

    def __len__(self) -> int:
        return len(self._order)

    def runs_of(self, prompt: str) -> tuple[str, ...]:
        """The ids of the runs every run block of ``prompt`` quotes, in file order; empty
        when it quotes an answer, calls or a transcript no run has, or none at all. Other
        blocks (a task's reference) are skipped, and so is an input no run recorded (the
        prompt's may come from the task)."""
        found: set[str] | None = None
        for match in _BLOCK.finditer(prompt):
            ids = self._by_block.get(_digest(match.group()))
            if ids is None and match.group(1) in _RUN_TAGS:
                return ()
            if ids is not None:
                found = set(ids) if found is None else found & ids
        return tuple(sorted(found or (), key=self._order.__getitem__))


def _digest(block: str) -> bytes:
    return hashlib.sha256(block.encode("utf-8", "surrogatepass")).digest()


def _blocks_of(run: Run) -> list[str]:
    """The blocks a judge prompt quoting ``run`` would hold, at the default size cap."""
    fields = {
        "final_answer": final_answer_text(run),
        "tool_calls": judge_tool_calls(run.tool_calls),
        "transcript": judge_transcript(run),
    }
    if run.input is not None:
        fields["input"] = run.input
    return [quote_untrusted(name, cap_text(text, MAX_CHARS)) for name, text in fields.items()]
