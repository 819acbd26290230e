"""judgekit: numbers you can trust about whether your AI agent works.

The Python API under every command::

    from judgekit import load_runs, load_tasks, grade_run

    tasks = load_tasks("tasks/shop.yaml")
    for run in load_runs("runs.jsonl"):
        grade = grade_run(run, tasks.get(run.task_id))
        print(grade.run_id, grade.passed, grade.first_failure)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from judgekit._util.lazy_exports import lazy_exports
from judgekit._util.version import __version__
from judgekit.errors import (
    CalibrationError,
    ConfigError,
    DataError,
    JudgekitError,
    JudgeOutputError,
    ProviderError,
    StoreError,
)

if TYPE_CHECKING:
    from judgekit.formats.grade import Grade, GraderResult, load_results
    from judgekit.formats.matchers import Matcher, MatcherSpecError, Mismatch, compile_matcher
    from judgekit.formats.rubric import Rubric
    from judgekit.formats.rubric_file import load_rubric, rubric_version
    from judgekit.formats.run import Run, ToolCall, Usage, load_runs
    from judgekit.formats.schema import json_schema
    from judgekit.formats.task import ExpectedCall, Suite, Task, TaskSet, load_tasks
    from judgekit.formats.verdict import Verdict
    from judgekit.gate.compare import GateReport, compare_results
    from judgekit.graders.grade import grade_run, grade_runs
    from judgekit.graders.grade_file import grade_file
    from judgekit.graders.path import grade_path
    from judgekit.graders.state import grade_state
    from judgekit.graders.truth import grade_truth
    from judgekit.importers import import_anthropic, import_openai
    from judgekit.judging.judge import Judge
    from judgekit.trials.runner import TrialLimits, in_process_trials, run_trials
    from judgekit.trials.world import ToolError, World

__all__ = [
    "CalibrationError",
    "ConfigError",
    "DataError",
    "ExpectedCall",
    "GateReport",
    "Grade",
    "GraderResult",
    "Judge",
    "JudgeOutputError",
    "JudgekitError",
    "Matcher",
    "MatcherSpecError",
    "Mismatch",
    "ProviderError",
    "Rubric",
    "Run",
    "StoreError",
    "Suite",
    "Task",
    "TaskSet",
    "ToolCall",
    "ToolError",
    "TrialLimits",
    "Usage",
    "Verdict",
    "World",
    "__version__",
    "compare_results",
    "compile_matcher",
    "grade_file",
    "grade_path",
    "grade_run",
    "grade_runs",
    "grade_state",
    "grade_truth",
    "import_anthropic",
    "import_openai",
    "in_process_trials",
    "json_schema",
    "load_results",
    "load_rubric",
    "load_runs",
    "load_tasks",
    "rubric_version",
    "run_trials",
]

# Loaded on first use: importing judgekit (as every command does, for its version and its
# errors) must not load pydantic's models, the graders or the judge.
_LAZY = {
    "ExpectedCall": "judgekit.formats.task",
    "GateReport": "judgekit.gate.compare",
    "Grade": "judgekit.formats.grade",
    "GraderResult": "judgekit.formats.grade",
    "Judge": "judgekit.judging.judge",
    "Matcher": "judgekit.formats.matchers",
    "MatcherSpecError": "judgekit.formats.matchers",
    "Mismatch": "judgekit.formats.matchers",
    "Rubric": "judgekit.formats.rubric",
    "Run": "judgekit.formats.run",
    "Suite": "judgekit.formats.task",
    "Task": "judgekit.formats.task",
    "TaskSet": "judgekit.formats.task",
    "ToolCall": "judgekit.formats.run",
    "ToolError": "judgekit.trials.world",
    "TrialLimits": "judgekit.trials.runner",
    "Usage": "judgekit.formats.run",
    "Verdict": "judgekit.formats.verdict",
    "World": "judgekit.trials.world",
    "compare_results": "judgekit.gate.compare",
    "compile_matcher": "judgekit.formats.matchers",
    "grade_file": "judgekit.graders.grade_file",
    "grade_path": "judgekit.graders.path",
    "grade_run": "judgekit.graders.grade",
    "grade_runs": "judgekit.graders.grade",
    "grade_state": "judgekit.graders.state",
    "grade_truth": "judgekit.graders.truth",
    "import_anthropic": "judgekit.importers",
    "import_openai": "judgekit.importers",
    "in_process_trials": "judgekit.trials.runner",
    "json_schema": "judgekit.formats.schema",
    "load_results": "judgekit.formats.grade",
    "load_rubric": "judgekit.formats.rubric_file",
    "load_runs": "judgekit.formats.run",
    "load_tasks": "judgekit.formats.task",
    "rubric_version": "judgekit.formats.rubric_file",
    "run_trials": "judgekit.trials.runner",
}

__getattr__ = lazy_exports(__name__, _LAZY)
