"""judgekit: numbers you can trust about whether your AI agent works.

The Python API under every command::

    from judgekit import load_runs, load_tasks, grade_run

    tasks = load_tasks("tasks/shop.yaml")
    for run in load_runs("runs.jsonl"):
        grade = grade_run(run, tasks.get(run.task_id))
        print(grade.run_id, grade.passed, grade.first_failure)
"""

from __future__ import annotations

from judgekit.errors import (
    CalibrationError,
    ConfigError,
    DataError,
    JudgekitError,
    JudgeOutputError,
    ProviderError,
    StoreError,
)
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

__version__ = "0.1.0"

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
