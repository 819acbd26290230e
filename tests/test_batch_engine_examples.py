"""The Kubernetes Indexed Job and Slurm array examples, run as their engine would run them.

Each example's command runs four times in a copy of the project, once per index, with the
variables its engine sets (and those its spec sets or passes), then the merge its comments
show; the store, a real SQLite file, ends up holding the unsharded run's results once.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from judgekit.formats.grade import Grade, load_results
from judgekit.store import open_store
from tests.cli.test_help import assert_parses
from tests.conftest import REPO
from tests.test_github_actions_example import comment_commands
from tests.trials.test_shards import interrupted

KUBERNETES = REPO / "examples" / "kubernetes" / "judgekit-trials.yaml"
SLURM = REPO / "examples" / "slurm" / "trials.sbatch"
_K8S_VARIABLE = re.compile(r"\$\(([A-Za-z_]\w*)\)")


def project(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A copy of the project's suites, and a worker's environment: judgekit on the PATH, the
    store a SQLite file, no engine's or CI's variables."""
    folder, bin_dir = tmp_path / "project", tmp_path / "bin"
    shutil.copytree(REPO / "tasks", folder / "tasks")
    bin_dir.mkdir()
    shim = bin_dir / "judgekit"
    shim.write_text(f'#!/bin/sh\nexec {sys.executable} -m judgekit "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "JUDGEKIT_", "SLURM_", "JOB_COMPLETION"))
    }
    env |= {
        "PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": str(REPO),
        "JUDGEKIT_HOME": str(tmp_path / "home"),
        "JUDGEKIT_DB": f"sqlite:///{tmp_path / 'store.sqlite'}",
        "JUDGEKIT_BRANCH": "main",
        "JUDGEKIT_GIT_SHA": "0" * 40,
    }
    return folder, env


def rows(grades: list[Grade]) -> list[dict[str, object]]:
    return sorted((g.model_dump() for g in grades), key=lambda row: str(row["run_id"]))


def merged_as_unsharded(folder: Path, env: dict[str, str], example: Path, shards: str) -> None:
    """The example's merge (its `judgekit grade` comment) run, every other command of its
    comments parsed; the merged results and the store are the unsharded run's."""
    commands = comment_commands(example)
    assert [c.args[0] for c in commands] == ["grade", "gate"]
    for command in commands:
        assert_parses(command.expanded)
    (grade,) = [c for c in commands if c.args[0] == "grade"]
    assert grade.args[1] == shards
    subprocess.run(["bash", "-c", grade.expanded], cwd=folder, env=env, check=True)
    whole = [
        "judgekit", "run", "--tasks", "tasks/shop.yaml", "--agent", "examples.shop:agent",
        "--trials", "30", "--out", "whole", "--no-store",
    ]  # fmt: skip
    subprocess.run(whole, cwd=folder, env=env, check=True, capture_output=True)
    merged = list(load_results(folder / grade.option("--out")))  # type: ignore[operator]
    assert rows(merged) == rows(list(load_results(folder / "whole")))
    assert len(merged) == 120 and sum(g.passed for g in merged) == 82
    with open_store(env["JUDGEKIT_DB"]) as store:
        (batch,) = store.batches()  # the shards and their merge: one batch
        assert (store.count("runs"), store.count("grades")) == (120, 120)
        assert rows(store.grades(batch.id)) == rows(merged)
        shard_of = store.run_shards(batch.id)
    assert Counter(shard_of.values()) == {"1/4": 30, "2/4": 30, "3/4": 30, "4/4": 30}


def expand(arg: str, env: dict[str, str]) -> str:
    """``$(VAR)`` replaced as Kubernetes does in a container's args."""
    return _K8S_VARIABLE.sub(lambda found: env[found.group(1)], arg)


def container(spec: dict[str, Any]) -> dict[str, Any]:
    (only,) = spec["spec"]["template"]["spec"]["containers"]
    assert isinstance(only, dict)
    return only


def test_the_kubernetes_indexed_job_runs_four_shards_that_merge_as_one_run(
    tmp_path: Path,
) -> None:
    spec = yaml.safe_load(KUBERNETES.read_text(encoding="utf-8"))
    assert (spec["kind"], spec["spec"]["completionMode"]) == ("Job", "Indexed")
    trials = container(spec)
    values = {e["name"]: e["value"] for e in trials["env"] if "value" in e}
    passed = {e["name"]: e["valueFrom"] for e in trials["env"] if "valueFrom" in e}
    assert values == {"JUDGEKIT_SHARD_COUNT": str(spec["spec"]["completions"])}
    assert passed["JUDGEKIT_JOB_UID"] == {
        "fieldRef": {"fieldPath": "metadata.labels['batch.kubernetes.io/controller-uid']"}
    }
    assert set(passed) == {"JUDGEKIT_JOB_UID", "JUDGEKIT_DB"}
    folder, env = project(tmp_path)
    for index in range(spec["spec"]["completions"]):
        pod = env | values | {"JOB_COMPLETION_INDEX": str(index), "JUDGEKIT_JOB_UID": "5e1f0c"}
        # Kubernetes expands $(VAR) in args from the container's environment.
        args = [expand(arg, pod) for arg in trials["args"]]
        done = subprocess.run(
            [*trials["command"], *args], cwd=folder, env=pod, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert (folder / "results" / "shards" / str(index) / "shard.json").is_file()
    merged_as_unsharded(folder, env, KUBERNETES, "results/shards")


@pytest.mark.parametrize("low", [1, 0], ids=["array=1-4", "array=0-3"])
def test_the_slurm_array_runs_four_shards_that_merge_as_one_run(tmp_path: Path, low: int) -> None:
    text = SLURM.read_text(encoding="utf-8")
    assert "#SBATCH --array=1-4\n" in text
    folder, env = project(tmp_path)

    def array_task(task_id: int) -> None:
        task = env | {
            "SLURM_ARRAY_JOB_ID": "4242",
            "SLURM_ARRAY_TASK_ID": str(task_id),
            "SLURM_ARRAY_TASK_COUNT": "4",
            "SLURM_ARRAY_TASK_MIN": str(low),
            "SLURM_ARRAY_TASK_MAX": str(low + 3),
        }
        done = subprocess.run(
            ["bash", str(SLURM)], cwd=folder, env=task, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr

    for task_id in range(low, low + 4):
        array_task(task_id)
    # A task cut short and requeued completes its shard: it runs only the missing trials.
    interrupted(folder / "shards" / str(low + 1), keep=12)
    array_task(low + 1)
    assert sorted(p.name for p in (folder / "shards").iterdir()) == [
        str(i) for i in range(low, low + 4)
    ]
    merged_as_unsharded(folder, env, SLURM, "shards")
