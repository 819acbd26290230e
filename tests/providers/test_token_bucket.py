"""--rpm and --tpm buckets: the arithmetic, settling, a shared file two processes stay within,
and a malformed or hostile state file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from judgekit.errors import ConfigError
from judgekit.providers.rate_headers import MAX_RESET_S
from judgekit.providers.token_bucket import BucketState, SharedTokenBucket, capacity_of
from tests.conftest import REPO


def test_a_bucket_holds_one_seconds_worth_then_says_when_to_look_again() -> None:
    state = BucketState(capacity_of(600), at=0.0)  # 10 a second, holding 10
    waits = []
    for _ in range(12):
        state, wait = state.take(1, per_minute=600, now=0.0)
        waits.append(round(wait, 6))
    assert waits == [0.0] * 10 + [0.1, 0.1]
    state, wait = state.take(1, per_minute=600, now=0.1)
    assert (round(state.level, 6), wait) == (0.0, 0.0)


def test_the_bucket_refills_at_the_rate_and_never_past_its_capacity() -> None:
    state = BucketState(-5.0, at=0.0)
    state, wait = state.take(1, per_minute=600, now=0.2)  # 2 refilled: -3, 4 short of 1
    assert (state.level, round(wait, 6)) == (-3.0, 0.4)
    state, wait = state.take(1, per_minute=600, now=100.0)
    assert (state.level, wait) == (9.0, 0.0)  # full at 10, then one taken


def test_a_request_larger_than_the_bucket_goes_once_it_is_full() -> None:
    state = BucketState(50.0, at=0.0)  # 100 tokens a second, holding at most 100
    state, wait = state.take(350, per_minute=6000, now=0.0)
    assert (state.level, wait) == (50.0, 0.5)
    state, wait = state.take(350, per_minute=6000, now=0.5)
    assert (state.level, wait) == (-250.0, 0.0)  # the next waits out its debt
    assert state.take(1, per_minute=6000, now=0.5)[1] == pytest.approx(2.51)


def test_settling_gives_back_what_a_request_did_not_use() -> None:
    state = BucketState(capacity_of(6000), at=0.0)
    state, _ = state.take(300, per_minute=6000, now=0.0)  # -200: 2 s of debt
    state = state.settle(250, per_minute=6000, now=0.0)  # it used 50
    assert state.level == 50.0
    state = state.settle(1000, per_minute=6000, now=0.0)
    assert state.level == 100.0  # never past the capacity


def test_a_wait_is_never_longer_than_the_cap() -> None:
    _, wait = BucketState(-1e12, at=0.0).take(1, per_minute=60, now=0.0)
    assert wait == MAX_RESET_S


TAKER = """
import sys, time
from pathlib import Path
from judgekit.providers.token_bucket import SharedTokenBucket
bucket = SharedTokenBucket(600, key="http://127.0.0.1:1/v1/ requests")
go = Path(sys.argv[1])
print("ready", flush=True)
while not go.exists():
    time.sleep(0.005)
for _ in range(15):
    while (wait := bucket.take(1)) > 0:
        time.sleep(wait)
    print(time.time(), flush=True)
"""


def test_two_processes_sharing_a_bucket_stay_within_the_limit_together(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO), "JUDGEKIT_HOME": str(tmp_path / "home")}
    go = tmp_path / "go"
    takers = [
        subprocess.Popen(
            [sys.executable, "-c", TAKER, str(go)], env=env, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    for taker in takers:
        assert taker.stdout is not None and taker.stdout.readline() == "ready\n"
    go.touch()
    outputs = [taker.communicate(timeout=60)[0] for taker in takers]
    assert [taker.returncode for taker in takers] == [0, 0]
    starts = sorted(float(line) for output in outputs for line in output.split())
    assert len(starts) == 30
    # 600 a minute is 10 a second, 10 at once: 30 starts need 2 s at least, where each
    # process alone would have needed 0.5 s.
    assert starts[-1] - starts[0] >= 1.95
    # And no stretch of time saw more than the bucket allows (one start of slack for clocks).
    for first in range(30):
        for last in range(first, 30):
            allowed = capacity_of(600) + 10 * (starts[last] - starts[first])
            assert last - first + 1 <= allowed + 1, (first, last, starts)
    state = json.loads(next((tmp_path / "home" / "rate-limits").glob("*.json")).read_text())
    assert set(state) == {"level", "at"}


@pytest.mark.parametrize(
    ("content", "why"),
    [
        (b"not json", "Expecting value: line 1 column 1 (char 0)"),
        (b'{"level": 1}', "'at'"),
        (b'{"level": "many", "at": 0}', "could not convert string to float: 'many'"),
        (b"[1, 2]", "list indices must be integers or slices, not str"),
        (b" " * 5000, "larger than 4096 bytes"),
    ],
)
def test_a_malformed_state_file_is_an_error_naming_it(content: bytes, why: str) -> None:
    bucket = SharedTokenBucket(60, key="k")
    bucket.path.write_bytes(content)
    with pytest.raises(ConfigError) as raised:
        bucket.take(1)
    assert str(raised.value) == (
        f"{bucket.path}: not a rate-limit state file ({why}); it should hold "
        '{"level": <number>, "at": <Unix time>}: delete it to start the shared count afresh'
    )


def test_a_state_file_of_infinities_is_an_error() -> None:
    bucket = SharedTokenBucket(60, key="k")
    bucket.path.write_text('{"level": NaN, "at": 0}')
    with pytest.raises(ConfigError, match=r"level and at must be finite numbers, got nan and 0.0"):
        bucket.take(1)


def test_a_hostile_state_file_never_holds_past_the_cap() -> None:
    bucket = SharedTokenBucket(60, key="k")
    bucket.path.write_text(json.dumps({"level": -1e300, "at": time.time() + 1e9}))
    assert bucket.take(1) <= MAX_RESET_S
