"""`judgekit run --shard-from-env`: the shard of a Kubernetes Indexed Job or a Slurm array."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from judgekit.errors import ConfigError
from judgekit.formats.shard import Shard
from judgekit.store import open_store
from judgekit.trials.shard_env import EngineShard, shard_from_env
from judgekit.trials.shards import shard_group
from tests.conftest import REPO
from tests.trials.test_shards import invoke, rows, run_args

K8S = {"JUDGEKIT_SHARD_COUNT": "4", "JUDGEKIT_JOB_UID": "7f3c"}
SLURM = {"SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_JOB_ID": "812"}


def test_an_indexed_job_s_index_counts_from_zero() -> None:
    for index in range(4):
        found = shard_from_env({"JOB_COMPLETION_INDEX": str(index), **K8S})
        assert found == EngineShard(Shard(index + 1, 4), "k8s-7f3c", "Kubernetes Indexed Job")


@pytest.mark.parametrize("low", [0, 1, 5])
def test_a_slurm_array_s_ids_count_from_its_min(low: int) -> None:
    env = SLURM | {"SLURM_ARRAY_TASK_MIN": str(low), "SLURM_ARRAY_TASK_MAX": str(low + 3)}
    shards = [shard_from_env(env | {"SLURM_ARRAY_TASK_ID": str(low + i)}) for i in range(4)]
    assert [s.shard for s in shards] == [Shard(i, 4) for i in range(1, 5)]
    assert {s.group for s in shards} == {"slurm-812"}


@pytest.mark.parametrize(
    ("env", "message"),
    [
        (
            {},
            "--shard-from-env found neither $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) "
            "nor $SLURM_ARRAY_TASK_ID (a Slurm job array): run it as one of those, or pass "
            "--shard I/N",
        ),
        (
            {"JOB_COMPLETION_INDEX": "1", "SLURM_ARRAY_TASK_ID": "1"},
            "--shard-from-env found both $JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) and "
            "$SLURM_ARRAY_TASK_ID (a Slurm job array): unset the one of the engine that does "
            "not run this shard",
        ),
        (
            {"JOB_COMPLETION_INDEX": "2"},
            "$JOB_COMPLETION_INDEX=2 is a Kubernetes Indexed Job's index, but a pod is not told "
            "the Job's completions: set $JUDGEKIT_SHARD_COUNT to them in the Job's spec",
        ),
        (
            {"JOB_COMPLETION_INDEX": "two", **K8S},
            "$JOB_COMPLETION_INDEX must be a whole number, got 'two'",
        ),
        (
            {"JOB_COMPLETION_INDEX": "-1", **K8S},
            "$JOB_COMPLETION_INDEX=-1 is below 0, the least it can be",
        ),
        (
            {"JOB_COMPLETION_INDEX": "4", **K8S},
            "$JOB_COMPLETION_INDEX=4 is out of range for $JUDGEKIT_SHARD_COUNT=4: an Indexed "
            "Job's indexes run from 0 to 3; set $JUDGEKIT_SHARD_COUNT to the Job's completions",
        ),
        (
            {"JOB_COMPLETION_INDEX": "0", "JUDGEKIT_SHARD_COUNT": "0"},
            "$JUDGEKIT_SHARD_COUNT=0 is below 1, the least it can be",
        ),
        (
            {"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "1"},
            "$SLURM_ARRAY_TASK_ID=3 is set but $SLURM_ARRAY_TASK_COUNT is not: Slurm sets both "
            "in every task of a job array (sbatch --array=1-4); set $SLURM_ARRAY_TASK_COUNT "
            "as it would",
        ),
        (
            {**SLURM, "SLURM_ARRAY_TASK_ID": "x3"},
            "$SLURM_ARRAY_TASK_ID must be a whole number, got 'x3'",
        ),
        (
            {**SLURM, "SLURM_ARRAY_TASK_ID": "0"},
            "$SLURM_ARRAY_TASK_ID=0 is out of range for $SLURM_ARRAY_TASK_MIN=1 and "
            "$SLURM_ARRAY_TASK_COUNT=4: the array's ids run from 1 to 4",
        ),
        (
            {**SLURM, "SLURM_ARRAY_TASK_ID": "5"},
            "$SLURM_ARRAY_TASK_ID=5 is out of range for $SLURM_ARRAY_TASK_MIN=1 and "
            "$SLURM_ARRAY_TASK_COUNT=4: the array's ids run from 1 to 4",
        ),
        (
            {**SLURM, "SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MAX": "7"},
            "$SLURM_ARRAY_TASK_MIN=1 to $SLURM_ARRAY_TASK_MAX=7 is not the "
            "$SLURM_ARRAY_TASK_COUNT=4 ids of the array: --shard-from-env needs consecutive "
            "ids, such as --array=1-4 (not a list or a step)",
        ),
    ],
)
def test_bad_variables_are_refused_with_what_to_set(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError) as raised:
        shard_from_env(env)
    assert str(raised.value) == message


def test_the_command_exits_2_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    bad = {"JOB_COMPLETION_INDEX": "9", **K8S}
    code, _, stderr = invoke(*run_args(out, "--shard-from-env", "--no-store"), env=bad)
    assert (code, stderr.strip()) == (
        2,
        "judgekit: error: $JOB_COMPLETION_INDEX=9 is out of range for $JUDGEKIT_SHARD_COUNT=4: "
        "an Indexed Job's indexes run from 0 to 3; set $JUDGEKIT_SHARD_COUNT to the Job's "
        "completions",
    )
    code, _, stderr = invoke(
        *run_args(out, "--shard-from-env", "--shard", "1/4", "--no-store"),
        env={"JOB_COMPLETION_INDEX": "0", **K8S},
    )
    assert (code, stderr.strip()) == (
        2,
        "judgekit: error: --shard-from-env reads the shard from the environment: pass it or "
        "--shard I/N, not both (got --shard 1/4)",
    )
    code, _, stderr = invoke(
        *run_args(out, "--shard-from-env"),
        env={"JOB_COMPLETION_INDEX": "0", "JUDGEKIT_SHARD_COUNT": "4", "JUDGEKIT_JOB_UID": "",
             "JUDGEKIT_SHARD_GROUP": "", "GITHUB_RUN_ID": "", "JUDGEKIT_DB": f"sqlite:///{tmp_path / 's.sqlite'}"},
    )  # fmt: skip
    assert (code, stderr.strip()) == (
        2,
        "judgekit: error: shard 1/4 of a Kubernetes Indexed Job records in the store, where "
        "the shards meet by a group id: set $JUDGEKIT_JOB_UID in the Job's spec from the "
        "downward API (fieldPath metadata.labels['batch.kubernetes.io/controller-uid']), or "
        "pass --shard-group ID (the same on every shard), or --no-store",
    )
    assert not out.exists()


def clean_env(tmp_path: Path, store: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GITHUB_", "JUDGEKIT_", "SLURM_", "JOB_COMPLETION"))
    }
    return env | {
        "JUDGEKIT_DB": store,
        "JUDGEKIT_HOME": str(tmp_path / "home"),
        "JUDGEKIT_GIT_SHA": "0" * 40,
        "JUDGEKIT_BRANCH": "main",
    }


@pytest.mark.parametrize(
    ("engine", "variables"),
    [
        ("kubernetes", [{"JOB_COMPLETION_INDEX": str(i), **K8S} for i in range(4)]),
        ("slurm", [{"SLURM_ARRAY_TASK_ID": str(i), **SLURM} for i in range(1, 5)]),
    ],
)
def test_four_shards_from_an_engine_s_variables_equal_the_unsharded_run(
    tmp_path: Path, engine: str, variables: list[dict[str, str]]
) -> None:
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    env = clean_env(tmp_path, store)
    command = [sys.executable, "-m", "judgekit", *map(str, run_args(tmp_path / "whole"))]
    subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True)
    shards = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "judgekit",
                *map(str, run_args(tmp_path / "shards" / str(i))),
                "--shard-from-env",
            ],
            cwd=REPO,
            env=env | extra,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for i, extra in enumerate(variables)
    ]
    reports = []
    for process in shards:
        stdout, stderr = process.communicate(timeout=300)
        assert process.returncode == 0, stderr.decode()
        reports.append(json.loads(stdout))
    assert [report["runs"] for report in reports] == [5, 5, 5, 5]
    (shared,) = {report["store"]["batch_id"] for report in reports}
    with open_store(store) as opened:
        (whole,) = [b.id for b in opened.batches() if b.id != shared]
        batch = opened.find_batch(
            json.loads((tmp_path / "shards/0/shard.json").read_text())["batch_key"]
        )
        assert batch is not None and batch.id == shared
        assert batch.tags == {
            "shard_group": "k8s-7f3c" if engine == "kubernetes" else "slurm-812",
            "shards": "4",
            "shard_runs": "20",
        }
        whole_grades, shard_grades = opened.grades(whole), opened.grades(shared)
        assert rows(shard_grades) == rows(whole_grades)
        assert len(whole_grades) == 20 and opened.count("runs") == 40
        labels = opened.run_shards(shared)
        assert set(opened.run_shards(whole).values()) == {None}
    assert sorted(labels) == sorted(g.run_id for g in whole_grades)
    assert Counter(labels.values()) == {"1/4": 5, "2/4": 5, "3/4": 5, "4/4": 5}
    for i in range(4):
        ran = [
            json.loads(line)["run_id"]
            for line in (tmp_path / "shards" / str(i) / "runs.jsonl").read_text().splitlines()
        ]
        assert {labels[run_id] for run_id in ran} == {f"{i + 1}/4"}
    per_task = Counter(g.task_id for g in shard_grades if g.passed)
    assert per_task == Counter(g.task_id for g in whole_grades if g.passed)
    assert sorted(per_task.items()) == [
        ("cancel_shipped", 5),
        ("refund_and_notify", 2),
        ("refund_full", 3),
        ("refuse_overrefund", 3),
    ]


def test_grading_the_shards_with_the_store_records_into_their_batch(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    env = {"JUDGEKIT_DB": store, "JUDGEKIT_SHARD_GROUP": "", "GITHUB_RUN_ID": "", **SLURM}
    shards = tmp_path / "shards"
    grade = ["grade", shards, "--tasks", REPO / "tasks" / "shop.yaml", "--out", tmp_path / "all"]
    for task_id in range(1, 5):
        store_flag = ["--no-store"] if task_id == 4 else []  # shard 4 not recorded yet
        code, _, stderr = invoke(
            *run_args(shards / str(task_id), "--shard-from-env", *store_flag),
            env=env | {"SLURM_ARRAY_TASK_ID": str(task_id)},
        )
        assert code == 0, stderr
    with open_store(store) as opened:
        (batch,) = opened.batches()
    code, _, stderr = invoke(*grade, env=env)
    assert (code, stderr.strip()) == (
        2,
        f"judgekit: error: {shards} (its shards) is batch {batch.id}, the 4 shards of group "
        "'slurm-812', with 15 of their 20 runs graded: a shard is missing or unfinished (gate "
        "the shards' folders to see which)",
    )
    assert not (tmp_path / "all").exists()
    code, _, stderr = invoke(
        *run_args(shards / "4", "--shard-from-env", "--resume"),
        env=env | {"SLURM_ARRAY_TASK_ID": "4"},
    )
    assert code == 0, stderr
    code, stdout, stderr = invoke(*grade, "--json", env=env)
    assert code == 0, stderr
    report = json.loads(stdout)
    assert (report["runs"], report["passed"], report["store"]["batch_id"]) == (20, 13, batch.id)
    with open_store(store) as opened:
        assert [b.id for b in opened.batches()] == [batch.id]  # no batch of its own
        assert (opened.count("runs"), opened.count("grades")) == (20, 20)  # none twice
        assert Counter(opened.run_shards(batch.id).values()) == {
            "1/4": 5, "2/4": 5, "3/4": 5, "4/4": 5
        }  # fmt: skip


def test_the_group_is_the_option_then_the_variable_then_the_engine_s(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("JUDGEKIT_SHARD_GROUP", raising=False)
    monkeypatch.setenv("GITHUB_RUN_ID", "9876543210")
    assert shard_group(None, "slurm-812") == "slurm-812"  # before GitHub's run id
    assert shard_group(None, None) == "github-9876543210"
    monkeypatch.setenv("JUDGEKIT_SHARD_GROUP", "nightly-7")
    assert shard_group(None, "slurm-812") == "nightly-7"
    assert shard_group("mine", "slurm-812") == "mine"
