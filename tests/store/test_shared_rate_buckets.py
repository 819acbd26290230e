"""``--share-rate-limits`` through the store: two openings of one store (two machines, each
with its own JUDGEKIT_HOME) count against one bucket, on SQLite and PostgreSQL; two judge
processes on a PostgreSQL store stay within one --rpm together."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
import time
from pathlib import Path

from judgekit.judging.store_rate_bucket import StoreBuckets
from judgekit.store import open_store, schema
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.conftest import REPO
from tests.judging.conftest import judge_command, verdict_json
from tests.judging.test_rate_limited_judging import runs_file


def test_two_openings_of_a_store_take_from_one_bucket(store_url: str) -> None:
    here, there = StoreBuckets(store_url), StoreBuckets(store_url)
    requests_here = here(60, "http://x/v1/ requests")  # one a second, holding one
    requests_there = there(60, "http://x/v1/ requests")
    assert requests_here.take(1) == 0.0
    assert 0.9 < requests_there.take(1) <= 1.0  # taken here: there waits its second
    tokens_here = here(600, "http://x/v1/ tokens")  # ten a second, holding ten
    tokens_there = there(600, "http://x/v1/ tokens")
    assert tokens_here.take(10) == 0.0
    assert tokens_there.take(5) > 0.4
    tokens_here.settle(8)  # the answer used 2 of the 10: 8 given back, seen there
    assert tokens_there.take(5) == 0.0
    other = there(60, "http://y/v1/ requests")  # another endpoint, its own bucket
    assert other.take(1) == 0.0
    with open_store(store_url) as store:
        assert store.count(schema.rate_buckets.name) == 3


def test_threads_of_two_openings_start_no_more_than_the_bucket_allows(store_url: str) -> None:
    buckets = [StoreBuckets(store_url), StoreBuckets(store_url)]
    started: list[float] = []
    lock = threading.Lock()

    def ask(bucket_number: int) -> None:
        bucket = buckets[bucket_number](600, "http://x/v1/ requests")
        while (wait := bucket.take(1)) > 0:
            time.sleep(min(wait, 0.05))
        with lock:
            started.append(time.monotonic())

    threads = [threading.Thread(target=ask, args=(i % 2,)) for i in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(started) == 30
    # Ten a second, holding ten: the first ten at once, the other twenty over two seconds.
    assert max(started) - min(started) >= 1.8


def test_two_judges_on_machines_of_their_own_share_rpm_through_the_store(
    postgres_url: str, tmp_path: Path
) -> None:
    arrivals: list[float] = []
    lock = threading.Lock()

    def reply(request: FakeRequest) -> str:
        with lock:
            arrivals.append(time.monotonic())
        assert re.search(r"Refunded [ab][0-9]+", request.text)
        return verdict_json("pass")

    shared = ("--rpm", "600", "--share-rate-limits", "--no-store", "--concurrency", "4")
    with FakeLLMServer(reply=reply) as server:
        jobs = [
            subprocess.Popen(
                judge_command(
                    runs_file(tmp_path, 25, prefix), server.openai_base_url, tmp_path / prefix,
                    *shared,
                ),
                # Each its own JUDGEKIT_HOME, as on two machines: only the store is shared.
                env={
                    **os.environ,
                    "PYTHONPATH": str(REPO),
                    "JUDGEKIT_HOME": str(tmp_path / f"home-{prefix}"),
                    "JUDGEKIT_DB": postgres_url,
                },
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for prefix in ("a", "b")
        ]  # fmt: skip
        outcomes = [job.communicate(timeout=120) for job in jobs]
    assert [job.returncode for job in jobs] == [0, 0], outcomes
    assert [json.loads(out)["verdicts"] for out, _ in outcomes] == [25, 25]
    times = sorted(arrivals)
    assert len(times) == 50
    assert not (tmp_path / "home-a" / "rate-limits").exists()  # not the machine's file
    # 10 a second for both together: the last 20 take 1.9 s (0.95 s with a bucket each).
    assert times[-1] - times[-20] >= 1.7
    with open_store(postgres_url) as store:
        assert store.count(schema.rate_buckets.name) == 1  # the requests' bucket
