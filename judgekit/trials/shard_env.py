"""The shard a batch engine gives a worker: ``judgekit run --shard-from-env``.

A Kubernetes Indexed Job sets ``JOB_COMPLETION_INDEX`` (from 0) in each pod but not the
Job's ``completions``, so the count comes from ``JUDGEKIT_SHARD_COUNT``, set in the Job's
spec; its group from ``JUDGEKIT_JOB_UID``, the Job's uid passed by the downward API. A
Slurm job array sets ``SLURM_ARRAY_TASK_ID`` with ``SLURM_ARRAY_TASK_COUNT`` and
``SLURM_ARRAY_TASK_MIN`` (``--array=0-3`` counts from 0, ``--array=1-4`` from 1: the shard
is id − min + 1) and ``SLURM_ARRAY_JOB_ID``, the same in every task of the array.

>>> shard_from_env({"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4",
...                 "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_JOB_ID": "812"})
EngineShard(shard=Shard(index=2, count=4), group='slurm-812', engine='Slurm job array')
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

from judgekit.errors import ConfigError
from judgekit.formats.shard import Shard

K8S_INDEX: Final = "JOB_COMPLETION_INDEX"
K8S_COUNT: Final = "JUDGEKIT_SHARD_COUNT"
K8S_JOB_UID: Final = "JUDGEKIT_JOB_UID"
SLURM_ID: Final = "SLURM_ARRAY_TASK_ID"
SLURM_COUNT: Final = "SLURM_ARRAY_TASK_COUNT"
SLURM_MIN: Final = "SLURM_ARRAY_TASK_MIN"
SLURM_MAX: Final = "SLURM_ARRAY_TASK_MAX"
SLURM_JOB_ID: Final = "SLURM_ARRAY_JOB_ID"
_WHOLE = re.compile(r"^-?\d+$")


@dataclass(frozen=True)
class EngineShard:
    """The shard an engine's variables give, the group its workers share (None: the engine
    was not told one), and the engine's name."""

    shard: Shard
    group: str | None
    engine: str

    def missing_group(self) -> str:
        """What to set so the shards meet in the store."""
        if self.engine == KUBERNETES:
            return (
                f"set ${K8S_JOB_UID} in the Job's spec from the downward API (fieldPath "
                "metadata.labels['batch.kubernetes.io/controller-uid'])"
            )
        return f"set ${SLURM_JOB_ID} (Slurm sets it in every task of an array)"


KUBERNETES: Final = "Kubernetes Indexed Job"
SLURM: Final = "Slurm job array"


def shard_from_env(env: Mapping[str, str]) -> EngineShard:
    """The shard of a Kubernetes Indexed Job's pod or a Slurm array's task, from ``env``;
    a ConfigError saying what to set when the variables are missing or disagree."""
    found = {name for name in (K8S_INDEX, SLURM_ID) if env.get(name)}
    if found == {K8S_INDEX, SLURM_ID}:
        raise ConfigError(
            f"--shard-from-env found both ${K8S_INDEX} (a {KUBERNETES}) and ${SLURM_ID} (a "
            f"{SLURM}): unset the one of the engine that does not run this shard"
        )
    if K8S_INDEX in found:
        return _kubernetes(env)
    if SLURM_ID in found:
        return _slurm(env)
    raise ConfigError(
        f"--shard-from-env found neither ${K8S_INDEX} (a {KUBERNETES}) nor ${SLURM_ID} "
        f"(a {SLURM}): run it as one of those, or pass --shard I/N"
    )


def _kubernetes(env: Mapping[str, str]) -> EngineShard:
    index = _whole(env, K8S_INDEX, minimum=0)
    if not env.get(K8S_COUNT):
        raise ConfigError(
            f"${K8S_INDEX}={index} is a {KUBERNETES}'s index, but a pod is not told the Job's "
            f"completions: set ${K8S_COUNT} to them in the Job's spec"
        )
    count = _whole(env, K8S_COUNT, minimum=1)
    if index >= count:
        raise ConfigError(
            f"${K8S_INDEX}={index} is out of range for ${K8S_COUNT}={count}: an Indexed "
            f"Job's indexes run from 0 to {count - 1}; set ${K8S_COUNT} to the Job's completions"
        )
    uid = env.get(K8S_JOB_UID)
    return EngineShard(Shard(index + 1, count), f"k8s-{uid}" if uid else None, KUBERNETES)


def _slurm(env: Mapping[str, str]) -> EngineShard:
    task_id = _whole(env, SLURM_ID, minimum=0)
    for name in (SLURM_COUNT, SLURM_MIN):
        if not env.get(name):
            raise ConfigError(
                f"${SLURM_ID}={task_id} is set but ${name} is not: Slurm sets both in every "
                f"task of a job array (sbatch --array=1-4); set ${name} as it would"
            )
    count = _whole(env, SLURM_COUNT, minimum=1)
    low = _whole(env, SLURM_MIN, minimum=0)
    if env.get(SLURM_MAX):
        high = _whole(env, SLURM_MAX, minimum=low)
        if high - low + 1 != count:
            raise ConfigError(
                f"${SLURM_MIN}={low} to ${SLURM_MAX}={high} is not the ${SLURM_COUNT}={count} "
                "ids of the array: --shard-from-env needs consecutive ids, such as "
                "--array=1-4 (not a list or a step)"
            )
    if not low <= task_id < low + count:
        raise ConfigError(
            f"${SLURM_ID}={task_id} is out of range for ${SLURM_MIN}={low} and "
            f"${SLURM_COUNT}={count}: the array's ids run from {low} to {low + count - 1}"
        )
    job = env.get(SLURM_JOB_ID)
    return EngineShard(Shard(task_id - low + 1, count), f"slurm-{job}" if job else None, SLURM)


def _whole(env: Mapping[str, str], name: str, *, minimum: int) -> int:
    """The whole number ``env[name]`` holds, at least ``minimum``."""
    text = env[name].strip()
    if not _WHOLE.match(text):
        raise ConfigError(f"${name} must be a whole number, got {env[name]!r}")
    value = int(text)
    if value < minimum:
        raise ConfigError(f"${name}={value} is below {minimum}, the least it can be")
    return value
