"""Judging 10,000 items through the batch APIs against judging them directly, whole processes.

    python bench/batch_vs_direct.py [--items 10000] [--turnaround 30] [--rpm 10000]
                                    [--window 5] [--latency 0.1] [--concurrency 32]
                                    [--poll-interval 1]

For OpenAI and for Anthropic, the same ``judgekit judge`` command twice against one fake
server in its own process (as a remote API would be), each into a new JUDGEKIT_HOME (an
empty cache, a new store):

- *direct*: one request per item, the server allowing ``--rpm`` requests a minute in
  ``--window``-second windows with the provider's rate-limit headers, each answer
  ``--latency`` seconds late, ``--concurrency`` in flight at most (32 × 100 ms allows
  320 a second, past the limit's 167); judgekit's pacing finds the rate (the baseline);
- *batch*: ``--batch --poll-interval``; the server ends a batch no sooner than
  ``--turnaround`` seconds after it was created, a provider's turnaround scaled down from
  minutes or hours so the run lasts minutes.

Printed for each: the time to the last verdict (the process's wall time, start-up
included), the verdicts written, the cost the verdicts record; the direct judging's pace as
a share of the limit's (items / rpm, the least time the limit allows); then batch / direct as
ratios of both, and the batch's own time beyond the turnaround (uploading, polling and
reading 10,000 answers). A real turnaround is longer and a real rate limit may be
lower: the ratio of times moves with both, the ratio of cost (the batch discount) does not.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path

from judge_throughput import write_inputs  # the same runs and rubric, beside this file

from judgekit.testing import FakeLLMServer, RateLimit

MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-haiku-4-5"}


def serve(options: argparse.Namespace, urls_out: Connection, stop: Event) -> None:
    """The fake server in its own process, so its work never competes with the judge's."""
    verdict = json.dumps({"reason": "refund reported", "score": "pass"})
    limit = RateLimit(requests_per_minute=options.rpm, window_s=options.window)
    with FakeLLMServer(
        reply=lambda request: verdict, latency_s=options.latency, rate_limit=limit
    ) as server:
        server.batches.turnaround_s = options.turnaround
        urls_out.send({"openai": server.openai_base_url, "anthropic": server.anthropic_base_url})
        stop.wait()


def judged(out: Path) -> tuple[int, float]:
    """The verdicts in ``out`` and the cost they record."""
    count, cost = 0, 0.0
    with (out / "verdicts.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            verdict = json.loads(line)
            count += verdict.get("status") == "scored"
            cost += verdict.get("cost_usd") or 0.0
    return count, cost


def one_judging(command: list[str], folder: Path, name: str) -> dict[str, float]:
    out = folder / name
    env = {
        **os.environ,
        "OPENAI_API_KEY": "bench-not-a-key",
        "ANTHROPIC_API_KEY": "bench-not-a-key",
        "JUDGEKIT_HOME": str(folder / f"home-{name}"),
    }
    started = time.perf_counter()
    subprocess.run([*command, "--out", str(out)], env=env, check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - started
    verdicts, cost = judged(out)
    return {"seconds": seconds, "verdicts": verdicts, "cost_usd": cost}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--turnaround", type=float, default=30.0)
    parser.add_argument("--rpm", type=int, default=10_000)
    parser.add_argument("--window", type=float, default=5.0)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--poll-interval", type=float, default=1.0)
    options = parser.parse_args()
    receive, send = multiprocessing.Pipe(duplex=False)
    stop = multiprocessing.Event()
    server = multiprocessing.Process(target=serve, args=(options, send, stop), daemon=True)
    server.start()
    urls = receive.recv()
    print(
        f"{options.items:,} items; direct: limit {options.rpm:,} requests a minute in "
        f"{options.window:g}-s windows, {options.latency * 1000:.0f} ms a request; batch: "
        f"turnaround {options.turnaround:g} s, polled every {options.poll_interval:g} s"
    )
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs, rubric = write_inputs(folder, options.items)
        for api, model in MODELS.items():
            judge = [sys.executable, "-m", "judgekit", "judge", str(runs), "--rubric", str(rubric)]
            judge += ["--model", model, "--base-url", urls[api]]
            paced = [*judge, "--concurrency", str(options.concurrency)]
            batch = [*judge, "--batch", "--poll-interval", str(options.poll_interval)]
            for kind, command in (("direct", paced), ("batch", batch)):
                figures = one_judging(command, folder, f"{api}-{kind}")
                results[f"{api} {kind}"] = figures
                print(
                    f"{api:9} {kind:6} last verdict at {figures['seconds']:6.1f} s, "
                    f"{figures['verdicts']:,.0f} verdicts, ${figures['cost_usd']:.4f}"
                )
            direct, batched = results[f"{api} direct"], results[f"{api} batch"]
            floor = options.items / options.rpm * 60
            print(
                f"{api:9} direct at {floor / direct['seconds']:.2f} of the limit's pace "
                f"({floor:.1f} s for {options.items:,} requests)"
            )
            print(
                f"{api:9} batch / direct: time {batched['seconds'] / direct['seconds']:.2f}×, "
                f"cost {batched['cost_usd'] / direct['cost_usd']:.2f}×; the batch's time beyond "
                f"its turnaround {batched['seconds'] - options.turnaround:.1f} s"
            )
    stop.set()
    server.join()
    print(json.dumps(results))


if __name__ == "__main__":
    main()
