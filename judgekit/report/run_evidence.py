"""What the report shows of one run under a failing run or a disagreement: the task, the
transcript (turns, tool calls with their arguments and results), the answer, the graders'
reasons and the judge's, each folded in ``<details>`` (no script opens them).

Everything here is agent or judge text, so every value goes through :func:`escape`; the
markup around it is fixed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from judgekit.formats.grade import Grade
from judgekit.formats.run import Run, ToolCall
from judgekit.report.html_blocks import escape
from judgekit.report.report_data import RunEvidence

__all__ = ["FOLD_CHARACTERS", "run_evidence"]

# A text longer than this (or of more than FOLD_LINES lines) is folded under its first line.
FOLD_CHARACTERS = 240
FOLD_LINES = 4
_SUMMARY_CHARACTERS = 80
_GRADERS = ("truth", "path", "state", "answer")


def run_evidence(
    run_id: str, evidence: RunEvidence | None, *, summary: str, judge: str | None = None
) -> str:
    """One folded block: ``summary`` as its title line, then the task, the graders' and the
    judge's reasons, the transcript and the answer ("" when nothing of the run is known)."""
    if evidence is None or (evidence.run is None and evidence.grade is None):
        return ""
    run, grade = evidence.run, evidence.grade
    task_id = run.task_id if run is not None else grade.task_id if grade is not None else None
    items = [("task", escape(task_id) if task_id is not None else '<span class="none">none</span>')]
    if run is not None and run.input:
        items.append(("input", _text(run.input)))
    if run is not None and run.reference is not None:
        items.append(("reference", _text(run.reference)))
    if grade is not None:
        items.append(("graders", _graders(grade)))
    if judge is not None:
        items.append(("judge", _text(judge)))
    if run is None:
        items.append(("transcript", '<span class="none">not recorded in the store</span>'))
    else:
        items.append(("transcript", _transcript(run)))
        earlier = [m for m in run.messages_to_user if m != run.final_answer]
        if earlier:
            items.append(("told the user before", "".join(_text(m) for m in earlier)))
        items.append(("answer", _answer(run.final_answer)))
    body = "".join(f"<dt>{escape(name)}</dt><dd>{html}</dd>" for name, html in items)
    return (
        f'<details class="run"><summary><code>{escape(run_id)}</code> {escape(summary)}'
        f"</summary>\n<dl>{body}</dl>\n</details>"
    )


def _text(value: str) -> str:
    """A text as written (lines kept), folded under its start when it is long."""
    shown = f"<pre>{escape(value)}</pre>"
    if len(value) <= FOLD_CHARACTERS and value.count("\n") < FOLD_LINES:
        return shown
    start = value.split("\n", 1)[0][:_SUMMARY_CHARACTERS]
    return (
        f"<details><summary>{escape(start)}… ({len(value):,} characters)</summary>{shown}</details>"
    )


def _json(value: Any) -> str:
    """A value as JSON text (a string as itself): what the agent sent or the tool answered."""
    if isinstance(value, str):
        return value
    line = json.dumps(value, ensure_ascii=False, default=str)
    # A short value reads best on one line; a long one is laid out, then folded.
    return (
        line
        if len(line) <= _SUMMARY_CHARACTERS
        else json.dumps(value, ensure_ascii=False, indent=2, default=str)
    )


def _graders(grade: Grade) -> str:
    results = [(name, getattr(grade, name)) for name in _GRADERS]
    lines = [
        f"{name}{_outcome(result.passed)}: {result.reason}"
        for name, result in results
        if result is not None
    ]
    lines += [f"violation: {violation}" for violation in grade.violations]
    if grade.stop_reason not in (None, "completed"):
        lines.append(f"run ended with stop_reason {grade.stop_reason}")
    return _list(lines) if lines else '<span class="none">no grader configured</span>'


def _outcome(passed: bool | None) -> str:
    """ " passed", " failed", or nothing when the reason says there was nothing to check."""
    return "" if passed is None else " passed" if passed else " failed"


def _list(lines: Sequence[str]) -> str:
    return "<ul>" + "".join(f"<li>{escape(line)}</li>" for line in lines) + "</ul>"


def _transcript(run: Run) -> str:
    """The run's turns and stop reason, then each tool call in order."""
    calls = run.tool_calls
    facts = [f"{len(calls)} tool call{'s' * (len(calls) != 1)}"]
    if run.turns is not None:
        facts.insert(0, f"{run.turns} turn{'s' * (run.turns != 1)}")
    facts.append(f"stopped: {run.stop_reason or 'completed'}")
    head = f"<p>{escape(', '.join(facts))}</p>"
    if not calls:
        return head
    return head + "<ol>" + "".join(f"<li>{_call(call)}</li>" for call in calls) + "</ol>"


def _call(call: ToolCall) -> str:
    """A call's name and arguments, then what came back: its result, or the refusal."""
    parts = [f"<code>{escape(call.name)}</code>"]
    if call.executed_by != "agent":
        parts.append(f" ({escape(f'run by the {call.executed_by}')})")
    if call.arguments_error is not None:
        parts.append(f"<p>{escape(f'invalid arguments ({call.arguments_error}):')}</p>")
        parts.append(_text(call.raw_arguments or ""))
    else:
        parts.append(_text(_json(call.args)))
    if call.error is not None:
        parts.append(f"<p>refused:</p>{_text(call.error)}")
    else:
        parts.append(f"<p>result:</p>{_text(_json(call.result))}")
    return "".join(parts)


def _answer(final_answer: str | None) -> str:
    return '<span class="none">no answer</span>' if final_answer is None else _text(final_answer)
