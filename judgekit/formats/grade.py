"""The Grade format: one row per graded run (``results.jsonl``; ``results.csv`` flattens it)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from judgekit.formats.numbers import Count, NonNegativeFloat
from judgekit.formats.run import StopReason


class GraderResult(BaseModel):
    """One grader's verdict on one run, with the reason a person can act on."""

    model_config = ConfigDict(extra="forbid")

    passed: bool
    reason: str


class Grade(BaseModel):
    """Truth, Path and State on one run. A grader the task does not configure is ``None``.

    ``passed`` is true only when every configured grader passed, the run completed and it
    broke no rule (``violations``).
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str
    task_id: str
    trial: int | None = None
    passed: bool
    truth: GraderResult | None = None
    path: GraderResult | None = None
    state: GraderResult | None = None
    claimed_success: bool | None = None
    violations: list[str] = Field(default_factory=list)
    turns: Count | None = None
    cost_usd: NonNegativeFloat | None = None
    stop_reason: StopReason | None = None
    tool_calls: Count = 0
    tool_errors: Count = 0

    @property
    def first_failure(self) -> str | None:
        """The first failing reason: Truth, Path, State, a violation, then how the run ended."""
        for name in ("truth", "path", "state"):
            result: GraderResult | None = getattr(self, name)
            if result is not None and not result.passed:
                return f"{name}: {result.reason}"
        if self.violations:
            return f"violation: {'; '.join(self.violations)}"
        if self.stop_reason not in (None, "completed"):
            return f"run ended with stop_reason {self.stop_reason}"
        return None
