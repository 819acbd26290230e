"""The GitHub Actions examples are well-formed workflows whose judgekit commands all parse.

Every `judgekit ...` line of a `run:` script (and of the comments, which show the commands to
run by hand) is parsed by click, down to the subcommand, without running it: GitHub's
`${{ ... }}` expressions and shell variables are first replaced with plausible values.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

import judgekit
from tests.cli.test_help import assert_parses, judgekit_args, split_simple_commands
from tests.conftest import REPO

EXAMPLES = REPO / "examples" / "github-actions"
WITH_STORE = EXAMPLES / "judgekit.yml"
WITHOUT_STORE = EXAMPLES / "judgekit-no-store.yml"
WITH_SHARDS = EXAMPLES / "judgekit-shards.yml"
WORKFLOWS = sorted(EXAMPLES.glob("*.yml"))

# What GitHub would put in place of each expression, on a pull request.
EXPRESSIONS = {
    "github.head_ref": "feature/faster-refunds",
    "github.ref": "refs/pull/42/merge",
    "github.run_id": "9876543210",
    "matrix.shard": "2",
    "github.event_name": "pull_request",
    "github.event.pull_request.number": "42",
    "secrets.JUDGEKIT_DB": "postgresql+psycopg://judgekit:secret@db.example.com/judgekit",
    # The nightly example's (examples/nightly/, tests/test_nightly_workflow_example.py).
    "secrets.OPENAI_API_KEY": "sk-placeholder",
    "secrets.LANGFUSE_PUBLIC_KEY": "pk-lf-placeholder",
    "secrets.LANGFUSE_SECRET_KEY": "sk-lf-placeholder",
    "secrets.LANGFUSE_HOST": "https://cloud.langfuse.com",
}
# Variables GitHub sets in every job.
RUNNER_ENV = {
    "GITHUB_HEAD_REF": "feature/faster-refunds",
    "GITHUB_REF_NAME": "42/merge",
    "GITHUB_SHA": "0123456789abcdef0123456789abcdef01234567",
    "GITHUB_WORKSPACE": "/home/runner/work/app/app",
    "RUNNER_TEMP": "/home/runner/work/_temp",
}
_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_VARIABLE = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")


@dataclass(frozen=True)
class CommandLine:
    """One judgekit command of a workflow, as written and as the shell would pass it."""

    where: str
    written: str
    expanded: str

    @property
    def args(self) -> list[str]:
        (args,) = [a for w in split_simple_commands(self.expanded) if (a := judgekit_args(w))]
        return args

    def option(self, name: str) -> str | None:
        args = self.args
        return args[args.index(name) + 1] if name in args else None


def load(path: Path) -> dict[Any, Any]:
    workflow = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(workflow, dict), f"{path.name}: not a mapping"
    return workflow


def triggers(workflow: dict[Any, Any]) -> dict[str, Any]:
    # YAML 1.1 reads a bare `on` key as the boolean true.
    value = workflow.get("on", workflow.get(True))
    if isinstance(value, str):
        return {value: None}
    if isinstance(value, list):
        return dict.fromkeys(value)
    assert isinstance(value, dict), f"unexpected `on:` {value!r}"
    return value


def substitute_expressions(text: str, where: str) -> str:
    def value(match: re.Match[str]) -> str:
        expression = match.group(1)
        if expression not in EXPRESSIONS:
            pytest.fail(f"{where}: no plausible value for ${{{{ {expression} }}}}; add one")
        return EXPRESSIONS[expression]

    return _EXPRESSION.sub(value, text)


def expand_variables(text: str, env: dict[str, str], where: str) -> str:
    def value(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        if name not in env:
            pytest.fail(f"{where}: ${name} is not set by the workflow or the runner")
        return env[name]

    return _VARIABLE.sub(value, text)


def logical_lines(script: str) -> list[str]:
    """The script's lines with `\\` continuations joined, comments and blank lines left out."""
    joined = re.sub(r"\s*\\\n\s*", " ", script)
    return [line.strip() for line in joined.splitlines() if line.strip() and not _comment(line)]


def _comment(line: str) -> bool:
    return line.lstrip().startswith("#")


def _runs_judgekit(line: str) -> bool:
    return any(judgekit_args(words) is not None for words in split_simple_commands(line))


def step_name(step: dict[str, Any]) -> str:
    return str(step.get("name") or step.get("uses") or step.get("run", "").split("\n")[0])


def run_commands(path: Path) -> list[CommandLine]:
    """Every judgekit command of the workflow's `run:` scripts."""
    workflow = load(path)
    found = []
    for job_id, job in workflow["jobs"].items():
        for step in job["steps"]:
            if "run" not in step:
                continue
            where = f"{path.name}: job {job_id}, step {step_name(step)!r}"
            env_values = {**workflow.get("env", {}), **job.get("env", {}), **step.get("env", {})}
            env = {
                **RUNNER_ENV,
                **{k: substitute_expressions(str(v), where) for k, v in env_values.items()},
            }
            for line in logical_lines(step["run"]):
                expanded = expand_variables(substitute_expressions(line, where), env, where)
                if _runs_judgekit(expanded):
                    found.append(CommandLine(where, line, expanded))
    return found


def comment_commands(path: Path) -> list[CommandLine]:
    """The judgekit commands the comments tell a reader to run (`#   judgekit ... \\`)."""
    comments = [
        line.lstrip()[1:]
        for line in path.read_text(encoding="utf-8").splitlines()
        if _comment(line)
    ]
    return [
        CommandLine(f"{path.name}: comment", line, line)
        for line in logical_lines("\n".join(comments))
        if line.startswith("judgekit ")
    ]


def job_steps(path: Path, job_id: str) -> list[dict[str, Any]]:
    steps: list[dict[str, Any]] = load(path)["jobs"][job_id]["steps"]
    return steps


def commands_of(path: Path, job_id: str, subcommand: str) -> list[CommandLine]:
    return [
        c
        for c in run_commands(path)
        if f"job {job_id}," in c.where and c.args and c.args[0] == subcommand
    ]


# --- Every workflow ----------------------------------------------------------------------


def test_both_variants_are_there() -> None:
    assert set(WORKFLOWS) == {WITH_STORE, WITHOUT_STORE, WITH_SHARDS}


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_the_workflow_is_well_formed(path: Path) -> None:
    workflow = load(path)
    assert workflow.get("name")
    assert "pull_request" in triggers(workflow)
    jobs = workflow.get("jobs")
    assert isinstance(jobs, dict) and jobs
    for job_id, job in jobs.items():
        assert job.get("runs-on"), f"job {job_id} has no runs-on"
        steps = job.get("steps")
        assert isinstance(steps, list) and steps, f"job {job_id} has no steps"
        for step in steps:
            assert isinstance(step, dict)
            assert ("run" in step) != ("uses" in step), f"{job_id}: {step}: one of run / uses"
            if "run" in step:
                assert isinstance(step["run"], str) and step["run"].strip()
            else:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@v\d+", step["uses"]), step["uses"]
        assert any("judgekit " in step.get("run", "") for step in steps), job_id


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_every_judgekit_command_parses(path: Path) -> None:
    commands = run_commands(path) + comment_commands(path)
    assert commands
    for command in commands:
        assert "${{" not in command.expanded, command.where
        assert_parses(command.expanded)


def test_a_continued_line_is_one_command() -> None:
    script = (
        'judgekit run --tasks t.yaml \\\n    --trials 3 && echo "done"  # ok\n# judgekit gate\n'
    )
    assert logical_lines(script) == ['judgekit run --tasks t.yaml --trials 3 && echo "done"  # ok']


def test_an_unknown_option_in_a_workflow_fails_the_check(tmp_path: Path) -> None:
    broken = tmp_path / "broken.yml"
    text = WITH_STORE.read_text(encoding="utf-8").replace("--candidate", "--candidates")
    broken.write_text(text, encoding="utf-8")
    (gate,) = [c for c in run_commands(broken) if c.args[0] == "gate"]
    with pytest.raises(pytest.fail.Exception, match="--candidates"):
        assert_parses(gate.expanded)


# --- With the shared store ---------------------------------------------------------------


def test_store_variant_records_main_and_gates_pull_requests_on_it() -> None:
    workflow = load(WITH_STORE)
    on = triggers(workflow)
    assert on["push"] == {"branches": ["main"]}
    assert workflow["env"]["JUDGEKIT_DB"] == "${{ secrets.JUDGEKIT_DB }}"
    for job_id in ("baseline", "gate"):
        runs = [step["run"] for step in job_steps(WITH_STORE, job_id) if "run" in step]
        assert f'pip install "judgekit-agents[postgres]=={judgekit.__version__}"' in runs

    (main_run,) = commands_of(WITH_STORE, "baseline", "run")
    assert main_run.option("--tasks") == "tasks/shop.yaml"
    assert main_run.option("--agent") == "examples.shop:agent"
    assert main_run.option("--trials") == "30"
    assert main_run.option("--out") == "results/main"
    assert main_run.option("--branch") == "main"
    assert "--no-store" not in main_run.args

    (pr_run,) = commands_of(WITH_STORE, "gate", "run")
    assert pr_run.option("--out") == "results/pr"
    assert pr_run.option("--trials") == "30"
    assert pr_run.option("--branch") == EXPRESSIONS["github.head_ref"]
    (gate,) = commands_of(WITH_STORE, "gate", "gate")
    assert gate.args == [
        "gate", "--baseline", "latest:main", "--branch", "main", "--candidate", "results/pr"
    ]  # fmt: skip
    (report,) = commands_of(WITH_STORE, "gate", "report")
    assert report.option("-o") == "report.html"


def test_store_variant_reads_main_s_history_from_main_only() -> None:
    # Pull requests record their runs in the same store under their own branch: whatever
    # reads main's series, report or baseline says --branch main, or they would blend in.
    readers = [
        c
        for c in run_commands(WITH_STORE)
        if c.args[0] in ("monitor", "gate") or (c.args[0] == "report" and "--batch" in c.args)
    ]
    assert [(c.where.split(",")[0], c.args[0], c.option("--branch")) for c in readers] == [
        ("judgekit.yml: job baseline", "monitor", "main"),
        ("judgekit.yml: job baseline", "report", "main"),
        ("judgekit.yml: job gate", "gate", "main"),
    ]
    (monitor,) = commands_of(WITH_STORE, "baseline", "monitor")
    assert monitor.args == [
        "monitor", "--branch", "main", "--since", "30d", "--plot", "scores.png"
    ]  # fmt: skip
    (upload,) = [
        s for s in job_steps(WITH_STORE, "baseline") if "uses" in s and "upload" in s["uses"]
    ]
    assert "scores*.png" in upload["with"]["path"].split()


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_the_gate_fails_the_job_and_the_evidence_is_kept(path: Path) -> None:
    steps = job_steps(path, "gate")
    names = [step_name(step) for step in steps]
    gate_index = next(i for i, s in enumerate(steps) if "judgekit gate" in s.get("run", ""))
    gate = steps[gate_index]
    # Nothing may swallow the gate's exit code.
    assert "if" not in gate and not gate.get("continue-on-error")
    assert "|| true" not in gate["run"]
    after = steps[gate_index + 1 :]
    assert any("judgekit report -o report.html" in s.get("run", "") for s in after), names
    uploads = [s for s in after if str(s.get("uses", "")).startswith("actions/upload-artifact@")]
    assert len(uploads) == 1, names
    assert all(s.get("if") == "always()" for s in after), names
    uploaded = uploads[0]["with"]["path"].split()
    assert {"results/", "report.html"} <= set(uploaded)


# --- Without a store ---------------------------------------------------------------------


def test_no_store_variant_gates_on_the_committed_baseline() -> None:
    text = WITHOUT_STORE.read_text(encoding="utf-8")
    assert "JUDGEKIT_DB" not in text and "secrets." not in text
    (gate,) = commands_of(WITHOUT_STORE, "gate", "gate")
    assert gate.args == ["gate", "--baseline", "baselines/shop.jsonl", "--candidate", "results/pr"]
    runs = [c for c in run_commands(WITHOUT_STORE) if c.args[0] == "run"]
    assert runs and all("--no-store" in c.args for c in runs)
    (pr_run,) = commands_of(WITHOUT_STORE, "gate", "run")
    assert pr_run.option("--out") == "results/pr"
    assert pr_run.option("--trials") == "30"
    # How the baseline is refreshed: by hand (the comment) and by the manual job.
    refreshes = [
        c
        for c in run_commands(WITHOUT_STORE) + comment_commands(WITHOUT_STORE)
        if c.option("--save-baseline") == "baselines/shop.jsonl"
    ]
    assert [c.where.split(":")[1].strip() for c in refreshes] == [
        "job refresh-baseline, step 'Run the trials and save them as the baseline'",
        "comment",
    ]


# --- Sharded -----------------------------------------------------------------------------


def test_sharded_variant_runs_four_shards_then_gates_them_as_one() -> None:
    workflow = load(WITH_SHARDS)
    trials = workflow["jobs"]["trials"]
    assert trials["strategy"]["matrix"] == {"shard": [1, 2, 3, 4]}
    assert trials["strategy"]["fail-fast"] is False
    (run,) = commands_of(WITH_SHARDS, "trials", "run")
    assert run.option("--shard") == "2/4"
    assert run.option("--out") == "shards/2"
    assert run.option("--trials") == "30"
    assert "--no-store" not in run.args  # the shards meet in the store by GITHUB_RUN_ID
    (upload,) = [
        s for s in job_steps(WITH_SHARDS, "trials") if "uses" in s and "upload" in s["uses"]
    ]
    assert upload["with"]["path"] == "shards/${{ matrix.shard }}/"
    for job_id in ("baseline", "gate"):
        assert workflow["jobs"][job_id]["needs"] == "trials"
    (download,) = [s for s in job_steps(WITH_SHARDS, "gate") if "download" in s.get("uses", "")]
    assert download["with"] == {"pattern": "judgekit-shard-*", "path": "results/pr"}
    (gate,) = commands_of(WITH_SHARDS, "gate", "gate")
    assert gate.args == [
        "gate", "--baseline", "latest:main", "--branch", "main", "--candidate", "results/pr"
    ]  # fmt: skip
