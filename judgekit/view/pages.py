"""The view's pages, rendered on the server from Jinja2 templates shipped in the package.

Every value from a file — agent text, model answers, labellers' names and notes, ids — goes
through the ``shown`` filter: control and bidi characters become visible stand-ins
(``␛``, ``\\u202e``), as in the terminal, and autoescaping then makes the text inert HTML.
Nothing from a file is ever marked safe.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from judgekit._util.number_format import cost, statistic, statistic_interval
from judgekit._util.terminal_text import visible
from judgekit.formats.conversation import conversation_steps, is_conversation
from judgekit.formats.matchers import render_value
from judgekit.formats.run import ToolCall
from judgekit.graders.state import changes
from judgekit.view.data import ViewData, ViewRun
from judgekit.view.run_rows import DISAGREEMENTS, OUTCOMES, SORTS, RowQuery, RunRows

__all__ = ["Pages"]

TEMPLATES = Path(__file__).parent / "templates"
FOLD_KEEP = 20  # a run of more tool calls shows the first and last 20


class Pages:
    """Renders each page to UTF-8 bytes."""

    def __init__(self, data: ViewData, *, form_token: str) -> None:
        from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

        self._data = data
        runs = data.runs.values()  # the filters' choices, the same on every page
        self._sources = sorted({run.source.parent.name for run in runs})
        self._tasks = sorted({run.task_id for run in runs if run.task_id})
        self._env = Environment(
            loader=FileSystemLoader(TEMPLATES),
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        self._env.filters["shown"] = lambda value: visible(str(value))
        self._env.globals.update(
            rubric_ids=sorted(data.rubrics),
            form_token=form_token,
            notices=_notices(data),
            cost=cost,
            statistic=statistic,
            statistic_interval=statistic_interval,
            as_json=_as_json,
        )

    def render(self, template: str, **context: Any) -> bytes:
        return self._env.get_template(template).render(**context).encode("utf-8")

    def runs(self, result: RunRows, query: RowQuery) -> bytes:

        def page_link(page: int) -> str:
            fields = {k: v for k, v in asdict(query).items() if v not in ("", None)}
            return "/runs?" + urlencode({**fields, "page": page})

        return self.render(
            "runs.html",
            result=result,
            query=query,
            sources=self._sources,
            tasks=self._tasks,
            outcomes=OUTCOMES,
            disagreements=DISAGREEMENTS,
            sorts=SORTS,
            page_link=page_link,
        )

    def run(
        self,
        view_run: ViewRun,
        *,
        labels: list[tuple[str, list[Any], int]],
        task_input: str | None,
    ) -> bytes:
        run = view_run.run
        grade = view_run.grade
        graders = [
            (name, result)
            for name in ("truth", "path", "state", "answer")
            if grade is not None and (result := getattr(grade, name)) is not None
        ]
        calls, shown_calls, folded = _folded(run.tool_calls)
        return self.render(
            "run.html",
            run=run,
            view_run=view_run,
            grade=grade,
            graders=graders,
            calls=calls,
            shown_calls=shown_calls,
            folded=folded,
            keep=FOLD_KEEP,
            state_diff=_state_diff(run.initial_state, run.final_state),
            conversation=conversation_steps(run) if is_conversation(run) else [],
            verdicts=self._data.run_verdicts(run.run_id),
            labels=labels,
            task_input=task_input,
        )


def _notices(data: ViewData) -> list[str]:
    notes = [
        f"{gone.file}: {gone.count} runs not shown: their run ids are those of {gone.earlier}'s "
        f"runs (labels and verdicts name runs by id alone); view it on its own: judgekit view "
        f"{gone.file.parent}"
        for gone in data.left_out
    ]
    notes.append(f"verdicts from {data.verdicts_source}")
    return notes


def _as_json(value: Any) -> str:
    try:
        return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    except (TypeError, ValueError):
        return repr(value)


def _folded(
    calls: list[ToolCall],
) -> tuple[list[ToolCall], list[tuple[int | None, ToolCall | None]], int]:
    """The calls to show, numbered from 1; past ``2 * FOLD_KEEP`` calls the middle ones
    fold into one line (None), so a run of 1,000 turns stays readable and quick."""
    numbered: list[tuple[int | None, ToolCall | None]] = [
        (number, call) for number, call in enumerate(calls, start=1)
    ]
    if len(calls) <= 2 * FOLD_KEEP:
        return calls, numbered, 0
    folded = len(calls) - 2 * FOLD_KEEP
    return calls, [*numbered[:FOLD_KEEP], (None, None), *numbered[-FOLD_KEEP:]], folded


def _state_diff(
    before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> list[tuple[str, str, str]]:
    if before is None or after is None:
        return []
    return [
        (".".join(path), render_value(old), render_value(new))
        for path, old, new in changes(dict(before), dict(after), json_values=True)
    ]
