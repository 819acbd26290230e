"""The task model: what a right run of one task looks like.

A task names the tool calls expected (Truth), the rules of a sane path (Path) and the end
state of the world (State). Its matchers are compiled when it is validated, so a bad
matcher is reported with its file and line before any grading starts. Suites of tasks
and their loader are in :mod:`judgekit.formats.task`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationInfo,
    model_validator,
)

from judgekit._util.yamlfile import Location
from judgekit.formats.answer_spec import AnswerItem, AnswerNormalisation, compile_answer_items
from judgekit.formats.matchers import DictOf, Matcher, MatcherSpecError, compile_matcher
from judgekit.formats.numbers import Count

__all__ = [
    "DEFAULT_PROTECTED",
    "PATH_FIELDS",
    "ExpectedCall",
    "LoopRule",
    "OrderMode",
    "StatePath",
    "StepBudget",
    "Task",
    "parse_state_path",
]

OrderMode = Literal["strict", "in_order", "unordered", "subset", "superset"]
StatePath = tuple[str, ...]

PATH_FIELDS = (
    "max_calls",
    "step_budget",
    "max_turns",
    "duplicates",
    "loops",
    "max_tool_error_rate",
)

# Visible tests are what an agent is most tempted to edit instead of fixing the code.
DEFAULT_PROTECTED = ("test_*.py", "**/test_*.py")


@dataclass(slots=True)
class _Compiled:
    """What validating a task compiles, and where it was loaded from. One private attribute
    rather than six: pydantic sets up each private attribute of every task it builds, which
    weighed heavily on validating a large suite."""

    call_matchers: list[DictOf]
    state_matchers: list[tuple[StatePath, Matcher]]
    allowed_changes: list[StatePath]
    answer_items: list[AnswerItem]
    suite: str | None = None
    base_dir: Path | None = None


class ExpectedCall(BaseModel):
    """A call the agent should make: the tool's name and matchers for its arguments."""

    model_config = ConfigDict(extra="forbid")

    name: str
    args: dict[str, Any] = Field(
        default_factory=dict,
        description="Argument matchers: a plain value means equal; {$op: ...} is a matcher.",
    )


class StepBudget(BaseModel):
    """How many tool calls a run may make: an absolute cap or a multiple of the expected calls."""

    model_config = ConfigDict(extra="forbid")

    multiplier: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    max_tool_calls: int | None = Field(default=None, ge=0)

    @model_validator(mode="after")
    def _exactly_one(self) -> StepBudget:
        if (self.multiplier is None) == (self.max_tool_calls is None):
            raise ValueError("give exactly one of multiplier or max_tool_calls")
        return self


class LoopRule(BaseModel):
    """A loop is a unit of 1..max_period calls repeated min_repeats times in a row."""

    model_config = ConfigDict(extra="forbid")

    min_repeats: int = Field(default=3, ge=2)
    max_period: int = Field(default=3, ge=1)


class Task(BaseModel):
    """One task of a suite, with the graders it configures.

    A grader is configured by its fields: Truth by ``expect_tools``, ``forbid_tools`` or
    ``allow_tools``; Path by any of ``max_calls``, ``step_budget``, ``max_turns``,
    ``duplicates``, ``loops``, ``max_tool_error_rate``; State by ``expect_state`` or
    ``only_changes``; Answer by ``expect_answer``. A grader left unconfigured is not run
    (its grade is null).

    Tasks for a subprocess agent (``judgekit.trials.subprocess_agent``) may also say where
    the agent works and how its work is checked:

    - ``workdir``: a folder, relative to the suite file's folder, copied fresh for every
      trial into a temporary directory; the agent runs with that copy as its working
      directory.
    - ``protected``: glob patterns, relative to the workdir, of files the agent must not
      change or delete (default ``test_*.py`` and ``**/test_*.py`` when ``workdir`` is
      set); a change is a violation, which fails the run. New files are allowed.
    - ``check``: a hidden-grader command run in the copy after the agent exits (``python
      -m pytest -q hidden_test.py``). Its outcome becomes the run's final state
      ``{"check": {"passed", "exit_code", "output"}}``, and a task with ``check`` but no
      ``expect_state`` expects ``check.passed: true``.
    - ``hidden``: files, relative to the suite file's folder, copied into the workdir only
      after the agent has finished, so the agent never sees them.
    - ``timeout_s``: this task's agent timeout, overriding the default.
    """

    model_config = ConfigDict(extra="forbid")

    id: str = Field(min_length=1)
    input: str | None = None
    # Truth
    expect_tools: list[ExpectedCall] | None = None
    order: OrderMode = "superset"
    extra_args: Literal["allow", "forbid"] = "allow"
    forbid_tools: list[str] = Field(default_factory=list)
    allow_tools: list[str] | None = None
    ignore_tools: list[str] = Field(
        default_factory=list,
        description="Tools whose calls expected-call matching leaves out (read-only lookups "
        "in an order mode that would otherwise count them as unexpected).",
    )
    ignore_failed_calls: bool = Field(
        default=False,
        description="Leave calls the tool refused out of expected-call matching (a refused "
        "call changed nothing); forbid_tools and allow_tools still see every attempt.",
    )
    idempotent_tools: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list,
        description="Tools whose exact repeat (same name and arguments) of their last "
        "successful call leaves the world as it was: Truth sets the repeat aside (Path still "
        "counts it as a duplicate).",
    )
    # Path
    max_calls: dict[str, Count] | None = None
    step_budget: StepBudget | None = None
    max_turns: int | None = Field(default=None, ge=0)
    duplicates: Literal["forbid", "allow"] | None = None
    loops: bool | LoopRule | None = None
    max_tool_error_rate: float | None = Field(default=None, ge=0, le=1, allow_inf_nan=False)
    # State
    expect_state: dict[str, Any] | None = None
    only_changes: list[str] | None = None
    initial_state: dict[str, Any] | None = None
    # Answer
    expect_answer: list[Any] | None = Field(
        default=None,
        description="What the agent must have told the user: each item a string or number "
        "found in the final answer or any message to the user, or a $-matcher on such a text.",
    )
    answer_normalise: list[AnswerNormalisation] = Field(
        default_factory=list,
        description="Rewrites applied to the texts and plain items before expect_answer "
        "searches: lowercase, remove_commas, collapse_spaces ([lowercase, remove_commas] is "
        "τ-bench's rule).",
    )
    # Judges
    reference: str | None = None
    rubrics: list[str] = Field(default_factory=list)
    metadata: dict[str, Any] = Field(default_factory=dict)
    # Subprocess agents
    workdir: str | None = Field(
        default=None,
        description="Folder (relative to the suite file's folder) copied fresh for every "
        "trial; the agent runs in the copy.",
    )
    protected: list[str] | None = Field(
        default=None,
        description="Glob patterns (relative to the workdir) of files the agent must not "
        "change; default test_*.py and **/test_*.py when workdir is set.",
    )
    check: str | None = Field(
        default=None,
        description="Hidden-grader command run in the workdir copy after the agent exits; "
        "its result is final_state.check.",
    )
    hidden: list[str] = Field(
        default_factory=list,
        description="Files (relative to the suite file's folder) copied into the workdir "
        "after the agent finishes, for check.",
    )
    timeout_s: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="This task's agent timeout in seconds (overrides the default).",
    )

    # Set by _compile on every validation. No default: pydantic inspects a default on each
    # construction, which made building thousands of tasks much slower.
    _compiled: _Compiled = PrivateAttr()

    @model_validator(mode="after")
    def _compile(self, info: ValidationInfo) -> Task:
        # Validated with context {"resolve_code": False}, no $custom function is imported.
        code = not (isinstance(info.context, dict) and info.context.get("resolve_code") is False)
        self._subprocess_defaults()
        allow_extra = self.extra_args == "allow"
        call_matchers: list[DictOf] = []
        for index, call in enumerate(self.expect_tools or []):
            where: Location = ("expect_tools", index, "args")
            matcher = compile_matcher(
                call.args,
                where=where,
                allow_extra_keys=allow_extra,
                noun="argument",
                resolve_code=code,
            )
            assert isinstance(matcher, DictOf)
            call_matchers.append(matcher)
        state_matchers: list[tuple[StatePath, Matcher]] = []
        for dotted, spec in (self.expect_state or {}).items():
            state_path = parse_state_path(dotted, where=("expect_state", dotted))
            matcher = compile_matcher(spec, where=("expect_state", dotted), resolve_code=code)
            state_matchers.append((state_path, matcher))
        allowed_changes = [
            parse_state_path(p, where=("only_changes", i))
            for i, p in enumerate(self.only_changes or [])
        ]
        answer_items = (
            []
            if self.expect_answer is None
            else compile_answer_items(self.expect_answer, self.answer_normalise, resolve_code=code)
        )
        self._compiled = _Compiled(call_matchers, state_matchers, allowed_changes, answer_items)
        ignored = set(self.ignore_tools)
        for index, call in enumerate(self.expect_tools or []):
            if call.name in ignored:
                raise MatcherSpecError(
                    f"{call.name} is expected but also listed in ignore_tools; drop one",
                    ("expect_tools", index, "name"),
                )
        budget = self.step_budget
        if budget is not None and budget.multiplier is not None and self.expect_tools is None:
            raise MatcherSpecError(
                "a multiplier budget needs expect_tools; use max_tool_calls instead",
                ("step_budget", "multiplier"),
            )
        for tool, cap in (self.max_calls or {}).items():
            if cap < 0:
                raise MatcherSpecError(f"must be ≥ 0, got {cap}", ("max_calls", tool))
        return self

    def _subprocess_defaults(self) -> None:
        """Fill the defaults of the subprocess-agent fields and check they fit together."""
        if self.protected is None:
            self.protected = list(DEFAULT_PROTECTED) if self.workdir is not None else []
        for index, pattern in enumerate(self.protected):
            # Path.glob refuses absolute patterns, and ".." would reach outside the copy.
            if not pattern or Path(pattern).is_absolute() or ".." in Path(pattern).parts:
                raise MatcherSpecError(
                    f"{pattern!r} must be a glob pattern relative to the workdir",
                    ("protected", index),
                )
        if self.hidden and self.check is None:
            raise MatcherSpecError("hidden files are only used by check; add a check", ("hidden",))
        names: dict[str, int] = {}
        for index, hidden in enumerate(self.hidden):
            name = Path(hidden).name
            if name in names:
                raise MatcherSpecError(
                    f"{name!r} is already hidden[{names[name]}]; both would land on the same "
                    "file in the workdir",
                    ("hidden", index),
                )
            names[name] = index
        if self.check is not None and self.expect_state is None:
            # Without this the hidden grader would run and nobody would read its verdict.
            self.expect_state = {"check.passed": True}

    # Read through __pydantic_private__: pydantic's attribute hook for private names costs
    # microseconds per read, and grading reads these for every run.
    @property
    def _compiled_now(self) -> _Compiled:
        return self.__pydantic_private__["_compiled"]  # type: ignore[index,no-any-return]

    @property
    def call_matchers(self) -> list[DictOf]:
        """The compiled argument matcher of each expected call, in order."""
        return self._compiled_now.call_matchers

    @property
    def state_matchers(self) -> list[tuple[StatePath, Matcher]]:
        return self._compiled_now.state_matchers

    @property
    def allowed_changes(self) -> list[StatePath]:
        return self._compiled_now.allowed_changes

    @property
    def answer_items(self) -> list[AnswerItem]:
        """The compiled items of ``expect_answer``, in order (empty when it is not set)."""
        return self._compiled_now.answer_items

    @property
    def suite(self) -> str | None:
        return self._compiled_now.suite

    @property
    def base_dir(self) -> Path | None:
        """The folder of the suite file the task came from (None when built in code)."""
        return self._compiled_now.base_dir

    def _loaded_from(self, suite: str, base_dir: Path) -> None:
        """Say which suite, in which folder, the task was loaded from."""
        compiled = self._compiled_now
        compiled.suite, compiled.base_dir = suite, base_dir

    def resolve_path(self, relative: str) -> Path:
        """``relative`` (a workdir or hidden file) against the suite file's folder, or the
        current directory for a task built in code; an absolute path stays as it is."""
        return (self.base_dir or Path.cwd()) / relative

    @property
    def has_truth(self) -> bool:
        return (
            self.expect_tools is not None or bool(self.forbid_tools) or self.allow_tools is not None
        )

    @property
    def has_path(self) -> bool:
        return any(getattr(self, name) is not None for name in PATH_FIELDS)

    @property
    def has_state(self) -> bool:
        return self.expect_state is not None or self.only_changes is not None

    @property
    def has_answer(self) -> bool:
        return self.expect_answer is not None


def parse_state_path(dotted: str, *, where: Location) -> StatePath:
    """``"orders.A100.refunded"`` as ``("orders", "A100", "refunded")``."""
    parts = tuple(dotted.split("."))
    if not dotted or any(not part for part in parts):
        raise MatcherSpecError(f"{dotted!r} is not a dotted path like orders.A100.status", where)
    return parts
