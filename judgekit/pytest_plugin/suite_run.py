"""The session's trials of the suite given by ``--judgekit-tasks``."""

from __future__ import annotations

from pathlib import Path

from judgekit.formats.grade import Grade
from judgekit.formats.task import Task
from judgekit.formats.task_files import load_task_files
from judgekit.pytest_plugin.agent_reference import load_agent
from judgekit.pytest_plugin.settings import Settings
from judgekit.trials.runner import TrialFunction, in_process_trials, run_trials
from judgekit.trials.task_outcome import TaskOutcome, run_task_trials, task_name

__all__ = ["SuiteRun"]


class SuiteRun:
    """The session's trials: each task's trials run once, on first demand, and are kept for
    the regression test (and written to ``--judgekit-out`` when given)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.tasks = load_task_files(settings.tasks_path)
        self._trial: TrialFunction = in_process_trials(
            self.tasks, load_agent(settings.agent, what="--judgekit-agent")
        )
        self._grades: dict[str, list[Grade]] = {}

    def grades(self, task: Task) -> list[Grade]:
        if task.id not in self._grades:
            if self.settings.out_dir is not None:
                self._run_recorded(self.settings.out_dir)
            else:
                self._grades[task.id] = run_task_trials(self._trial, task, self.settings.trials)
        return self._grades[task.id]

    def _run_recorded(self, out_dir: Path) -> None:
        """Every task through ``run_trials``, so the files match ``judgekit run``'s, holding
        the folder's lock as ``judgekit run`` does."""
        from judgekit._util.folder_lock import output_folder_lock

        collected: dict[str, list[Grade]] = {task.id: [] for task in self.tasks}
        with output_folder_lock(out_dir):
            run_trials(
                self.tasks,
                self._trial,
                trials=self.settings.trials,
                out_dir=out_dir,
                on_trial=lambda _run, grade: collected[grade.task_id].append(grade),
            )
        self._grades.update(collected)

    def outcome(self, task: Task) -> TaskOutcome:
        return TaskOutcome(task_name(task), tuple(self.grades(task)), self.settings.min_pass_rate)

    def all_grades(self) -> list[Grade]:
        return [grade for task in self.tasks for grade in self.grades(task)]
