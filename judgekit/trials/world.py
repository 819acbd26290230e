"""The world an in-process agent acts on: fresh state, the suite's tools, a seeded rng.

Every call goes through :meth:`World.call`, which records it with its result or error, so
Truth and Path see exactly what the agent did and State sees what it left behind.
"""

from __future__ import annotations

import inspect
import random
import time
from collections.abc import Callable, Mapping
from typing import Any

from judgekit.formats.run import StopReason, ToolCall
from judgekit.trials.snapshot import snapshot

Tool = Callable[..., Any]  # function(state, **args) -> result


class ToolError(Exception):
    """Raised by a tool to refuse a call. The call is recorded with this message as its
    error, and :meth:`World.call` raises it on to the agent, which may recover."""


class TrialStopped(BaseException):
    """Ends a trial from inside ``world.call`` (a cap or the wall time).

    A BaseException, so an agent's ``except Exception`` cannot swallow it and run on.
    """

    def __init__(self, stop_reason: StopReason, message: str) -> None:
        self.stop_reason = stop_reason
        super().__init__(message)


class World:
    """One trial's world. Build a new one per trial; never share one between trials."""

    def __init__(
        self,
        *,
        state: dict[str, Any],
        tools: Mapping[str, Tool],
        rng: random.Random,
        max_tool_calls: int | None = None,
        deadline: float | None = None,
    ) -> None:
        self.state = state
        self.tools = tools
        self.rng = rng
        self.calls: list[ToolCall] = []
        self.max_tool_calls = max_tool_calls
        self.deadline = deadline  # time.monotonic() value
        self.turns: int | None = None
        self.input_tokens = 0
        self.output_tokens = 0
        self.cost_usd: float | None = None

    def call(self, name: str, /, **args: Any) -> Any:
        """Call tool ``name`` with ``args``; return its result.

        Raises :class:`ToolError` when the tool refuses (or does not exist, or the arguments
        do not fit it); the call is recorded either way.
        """
        if self.max_tool_calls is not None and len(self.calls) >= self.max_tool_calls:
            raise TrialStopped("max_tool_calls", f"tool-call cap of {self.max_tool_calls} reached")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TrialStopped("timeout", "wall-time cap reached")
        recorded_args = snapshot(args)
        tool = self.tools.get(name)
        if tool is None:
            return self._refuse(name, recorded_args, f"unknown tool {name!r}")
        try:
            inspect.signature(tool).bind(self.state, **args)
        except TypeError as exc:
            return self._refuse(name, recorded_args, f"bad arguments: {exc}")
        try:
            result = tool(self.state, **args)
        except ToolError as exc:
            self.calls.append(ToolCall(name=name, args=recorded_args, error=str(exc) or "refused"))
            raise
        except Exception as exc:
            # A bug in the tool, not the agent's fault: record it, then end the trial.
            self.calls.append(
                ToolCall(name=name, args=recorded_args, error=f"{type(exc).__name__}: {exc}")
            )
            raise
        self.calls.append(ToolCall(name=name, args=recorded_args, result=snapshot(result)))
        return result

    def _refuse(self, name: str, args: dict[str, Any], message: str) -> Any:
        self.calls.append(ToolCall(name=name, args=args, error=message))
        raise ToolError(message)

    def record_usage(
        self,
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost_usd: float = 0.0,
        turns: int = 0,
    ) -> None:
        """Add what one model call cost, so the report can show turns and cost per trial."""
        self.input_tokens += input_tokens
        self.output_tokens += output_tokens
        self.cost_usd = (self.cost_usd or 0.0) + cost_usd
        self.turns = (self.turns or 0) + turns
