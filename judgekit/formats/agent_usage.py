"""How a subprocess agent reports its usage and tool calls: ``.judgekit/usage.json``.

A subprocess agent is a black box to judgekit: it sees only the files it leaves behind and
what it prints. An agent that wants its tokens, cost, turns and tool calls in the run (so
Truth and Path can grade its calls and the report can show cost per success) writes this
file in its working directory before it exits::

    {"input_tokens": 1200, "output_tokens": 310, "cost_usd": 0.0041, "turns": 3,
     "tool_calls": [{"name": "write_file", "args": {"path": "cart.py"},
                     "result": "ok", "error": null}]}

Every field is optional. A file that is absent is fine (the run simply has no usage); a
file that is not valid JSON or does not fit this shape is ignored as a whole and the reason
is noted in the run's metadata (``usage_error``), never raised; so is one that is not a
regular file (a FIFO would hold the trial for ever) or holds more than
:data:`USAGE_MAX_BYTES`.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgekit._util.input_paths import open_regular, os_reason
from judgekit._util.jsonl import parse_json
from judgekit._util.number_format import whole
from judgekit.formats.matchers import render_path
from judgekit.formats.numbers import NonNegativeFloat
from judgekit.formats.run import ToolCall

USAGE_FILE = Path(".judgekit") / "usage.json"
USAGE_MAX_BYTES = 16 * 2**20
"""The most of ``usage.json`` read: a usage report is a few kilobytes; 16 MiB holds
thousands of tool calls."""


class AgentUsage(BaseModel):
    """The content of ``.judgekit/usage.json``; unknown keys are refused, so a misspelt
    ``input_token`` is reported rather than silently read as zero."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int | None = Field(default=None, ge=0)
    output_tokens: int | None = Field(default=None, ge=0)
    cost_usd: NonNegativeFloat | None = None
    turns: int | None = Field(default=None, ge=0)
    tool_calls: list[ToolCall] = Field(default_factory=list)


def read_agent_usage(workdir: Path) -> tuple[AgentUsage | None, str | None]:
    """The usage an agent reported in ``workdir``, and why it could not be read.

    ``(None, None)`` when there is no file; ``(None, reason)`` when the file is malformed.
    """
    path = workdir / USAGE_FILE
    try:
        with open_regular(path) as fh:
            data = fh.read(USAGE_MAX_BYTES + 1)
        if len(data) > USAGE_MAX_BYTES:
            return None, f"{USAGE_FILE}: more than {whole(USAGE_MAX_BYTES / 2**20)} MiB"
        text = data.decode("utf-8")
    except FileNotFoundError:
        return None, None
    except OSError as exc:
        return None, f"{USAGE_FILE}: cannot be read: {os_reason(exc)}"
    except UnicodeDecodeError as exc:
        return None, f"{USAGE_FILE}: cannot be read: {exc}"
    try:
        data = parse_json(text)
    except json.JSONDecodeError as exc:
        return None, f"{USAGE_FILE}: not valid JSON: {exc}"
    try:
        return AgentUsage.model_validate(data), None
    except ValidationError as exc:
        error = exc.errors(include_url=False)[0]
        where = render_path(tuple(error["loc"]))
        return None, f"{USAGE_FILE}: {where + ': ' if where else ''}{error['msg']}"
