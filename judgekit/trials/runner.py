"""Run an agent over every task of a suite for N trials, grade each, record as they finish."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from judgekit._util.references import UnresolvedReference, resolve_reference
from judgekit.errors import ConfigError
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run
from judgekit.formats.shard import Shard, write_shard_manifest
from judgekit.formats.task import Suite, Task, TaskSet
from judgekit.graders.grade import grade_run
from judgekit.graders.summary import GradeSummary
from judgekit.trials.in_process import Agent, run_in_process_trial
from judgekit.trials.shards import check_resumed_shard, shard_manifest, shard_pairs
from judgekit.trials.trial_files import RUNS, TrialFiles, read_finished_runs
from judgekit.trials.world import Tool

TrialFunction = Callable[[Task, int], Run]  # (task, trial number) -> the run


@dataclass(frozen=True)
class TrialLimits:
    """Hard caps per trial; reaching one fails the trial with its stop_reason."""

    max_tool_calls: int | None = 50
    timeout_s: float | None = 300.0


def load_agent(reference: str) -> Agent:
    try:
        agent = resolve_reference(reference, what="--agent")
    except UnresolvedReference as exc:
        raise ConfigError(str(exc)) from None
    if not callable(agent):
        raise ConfigError(f"--agent {reference!r} is not a function agent(task, world) -> str")
    return agent  # type: ignore[no-any-return]


def load_tools(suite: Suite) -> Mapping[str, Tool]:
    """The suite's tools: ``tools: module:NAME`` names a dict of tool name -> function."""
    if suite.tools is None:
        return {}
    try:
        tools = resolve_reference(suite.tools, what=f"suite {suite.suite!r} tools")
    except UnresolvedReference as exc:
        raise ConfigError(str(exc)) from None
    if not isinstance(tools, Mapping) or not all(callable(t) for t in tools.values()):
        raise ConfigError(
            f"suite {suite.suite!r} tools {suite.tools!r} must be a dict of name -> function"
        )
    return tools


def in_process_trials(
    tasks: TaskSet, agent: Agent, limits: TrialLimits = TrialLimits()
) -> TrialFunction:
    """A trial function running ``agent`` in process, each trial in a fresh world."""
    tools = {suite.suite: load_tools(suite) for suite in tasks.suites}

    def trial(task: Task, number: int) -> Run:
        return run_in_process_trial(
            agent,
            task,
            trial=number,
            tools=tools.get(task.suite or "", {}),
            max_tool_calls=limits.max_tool_calls,
            timeout_s=limits.timeout_s,
        )

    return trial


def run_trials(
    tasks: TaskSet,
    trial: TrialFunction,
    *,
    trials: int,
    out_dir: str | Path,
    concurrency: int = 1,
    resume: bool = False,
    on_trial: Callable[[Run, Grade], None] | None = None,
    keep_failures: int = 20,
    shard: Shard | None = None,
    shard_group: str | None = None,
    batch_key: str | None = None,
) -> GradeSummary:
    """Run every task ``trials`` times (trials numbered from 1), ``concurrency`` at once.

    Each finished trial is graded and appended to ``out_dir``'s ``runs.jsonl``,
    ``results.jsonl`` and ``results.csv``. With ``resume``, trials already in
    ``runs.jsonl`` are kept and only the missing ones run. With ``shard``, only that
    shard's pairs (:func:`judgekit.trials.shards.shard_pairs`) run, and ``shard.json`` says
    so, naming ``shard_group``, the store's ``batch_key`` and the suite; once every trial
    is written it is rewritten with the sha256 of the runs and results files.
    """
    if trials < 1:
        raise ConfigError(f"--trials must be at least 1, got {trials}")
    if concurrency < 1:
        raise ConfigError(f"--concurrency must be at least 1, got {concurrency}")
    out = Path(out_dir)
    pairs = shard_pairs(tasks, trials, shard)
    manifest = None
    if shard is not None:
        manifest = shard_manifest(tasks, trials, shard, shard_group, batch_key)
    if resume:
        check_resumed_shard(out, manifest)
    summary = GradeSummary(keep_failures=keep_failures)
    previous: list[tuple[Run, Grade]] = []
    if resume:
        for run in read_finished_runs(out / RUNS):
            task = tasks.get(run.task_id)
            if task is not None and run.trial is not None:
                previous.append((run, grade_run(run, task)))
    done = {(run.task_id, run.trial) for run, _ in previous}
    for _, grade in previous:
        summary.add(grade)
    plan = [(task, number) for task, number in pairs if (task.id, number) not in done]
    trial_files = TrialFiles(out, resume=resume, previous=previous)
    try:
        if manifest is not None:  # unfinished until the digests below: refused when read
            write_shard_manifest(out, manifest)
        _execute(plan, trial, concurrency, trial_files, summary, on_trial)
    finally:
        trial_files.close()
    if manifest is not None:  # every trial written and fsynced: the files as they stay
        write_shard_manifest(out, manifest.finished(out))
    return summary


def _execute(
    plan: list[tuple[Task, int]],
    trial: TrialFunction,
    concurrency: int,
    trial_files: TrialFiles,
    summary: GradeSummary,
    on_trial: Callable[[Run, Grade], None] | None,
) -> None:
    def finish(task: Task, run: Run) -> None:
        grade = grade_run(run, task)
        trial_files.write(run, grade)  # one writer: only this thread touches the files
        summary.add(grade)
        if on_trial is not None:
            on_trial(run, grade)

    if concurrency == 1:
        for task, number in plan:
            finish(task, trial(task, number))
        return
    with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="judgekit-trial") as pool:
        pending: dict[Future[Run], Task] = {}
        queue = iter(plan)
        try:
            for task, number in queue:
                pending[pool.submit(trial, task, number)] = task
                if len(pending) >= concurrency * 2:  # bounded: a million trials never queue at once
                    break
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    finish(pending.pop(future), future.result())
                    following = next(queue, None)
                    if following is not None:
                        pending[pool.submit(trial, *following)] = following[0]
        except BaseException:
            for future in pending:
                future.cancel()
            raise
