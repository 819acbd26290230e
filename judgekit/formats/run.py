"""The Run format: one agent run, one JSON object per line of ``runs.jsonl``."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from judgekit.jsonl import iter_models

StopReason = Literal["completed", "max_turns", "max_tool_calls", "max_cost", "timeout", "error"]


class ToolCall(BaseModel):
    """One tool call the agent made, with what the tool answered.

    ``args`` holds the parsed arguments. When the agent sent arguments that are not a JSON
    object, ``args`` is empty, ``raw_arguments`` keeps exactly what was sent and
    ``arguments_error`` says why it could not be parsed: the call is kept and flagged,
    never dropped.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = Field(
        default=None, description="Set when the tool refused or failed the call."
    )
    id: str | None = None
    raw_arguments: str | None = Field(
        default=None, description="The arguments as sent, when they could not be parsed."
    )
    arguments_error: str | None = Field(
        default=None, description="Why the arguments could not be parsed (None when they could)."
    )


class Usage(BaseModel):
    """Token counts for the whole run."""

    model_config = ConfigDict(extra="allow")

    input_tokens: int = 0
    output_tokens: int = 0


class Run(BaseModel):
    """One agent run: what it was asked, which tools it called, how it ended."""

    model_config = ConfigDict(extra="forbid")

    run_id: str
    task_id: str
    trial: int | None = None
    input: str | None = None
    tool_calls: list[ToolCall]
    final_answer: str | None = None
    turns: int | None = None
    usage: Usage | None = None
    cost_usd: float | None = None
    duration_s: float | None = None
    stop_reason: StopReason | None = Field(
        default=None, description="How the run ended; absent means it completed."
    )
    initial_state: dict[str, Any] | None = None
    final_state: dict[str, Any] | None = None
    violations: list[str] = Field(
        default_factory=list,
        description="Rules the agent broke while running (an edited protected file); any fails the run.",
    )
    metadata: dict[str, Any] = Field(default_factory=dict)

    @property
    def completed(self) -> bool:
        return self.stop_reason in (None, "completed")


def load_runs(path: str | Path) -> Iterator[Run]:
    """Stream the runs of a JSONL file, one at a time.

    A malformed line raises :class:`judgekit.errors.DataError` naming the file, the line
    and the field::

        for run in load_runs("runs.jsonl"):
            print(run.run_id, len(run.tool_calls))
    """
    for _, run in iter_models(path, Run):
        yield run


def iter_runs_with_lines(path: str | Path) -> Iterator[tuple[int, Run]]:
    """Like :func:`load_runs`, with each run's line number (for error messages)."""
    return iter_models(path, Run)
