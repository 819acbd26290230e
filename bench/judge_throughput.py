"""Judge throughput against the fake server, as a ratio to the floor N × latency / concurrency.

    python bench/judge_throughput.py [--items 1000] [--latency 0.1] [--concurrency 32]

With every request taking ``latency`` seconds and ``concurrency`` in flight, no judge can
finish N items faster than N × latency / concurrency: that floor is the baseline, measured
in the same run. The judge's speed as a share of it (floor / measured wall time) should be
at least 0.85. A second, unchanged run must make zero API calls (all from the cache).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import tempfile
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path

from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import Run
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge import Judge, JudgeTally
from judgekit.judging.pricing import PriceTable
from judgekit.providers.client import ChatClient
from judgekit.providers.registry import make_provider
from judgekit.testing import FakeLLMServer

RUBRIC = Path(__file__).resolve().parents[1] / "rubrics" / "goal_completion.yaml"


def runs(n: int) -> list[Run]:
    return [
        Run(
            run_id=f"bench/{i}",
            task_id="t",
            input=f"Request number {i}: refund order A{i} in full.",
            tool_calls=[],
            final_answer=f"Refunded order A{i}.",
        )
        for i in range(n)
    ]


async def judge_all(
    base_url: str, items: list[Run], concurrency: int, cache: JudgeCache
) -> JudgeTally:
    rubric = load_rubric(RUBRIC)
    # The rubric asks for {reference}; a benchmark without tasks uses a prompt without it.
    rubric = rubric.model_copy(update={"prompt": rubric.prompt.replace("{reference}", "refunded")})
    provider = make_provider("openai", base_url=base_url)
    client = ChatClient(provider, concurrency=concurrency)
    judge = Judge(rubric, client, model="openai/gpt-4o-mini", cache=cache, prices=PriceTable())
    try:
        return await judge.judge_many(items, concurrency=concurrency)
    finally:
        await provider.aclose()


def serve(latency: float, port_out: Connection, stop: Event) -> None:
    """The fake server in its own process: in the judge's process its request handling
    would compete with the judge for the interpreter, which a remote API never does."""
    verdict = json.dumps({"reason": "refund reported", "score": "pass"})
    with FakeLLMServer(reply=lambda request: verdict, latency_s=latency) as server:
        port_out.send((server.openai_base_url, 0))
        stop.wait()
        port_out.send((server.calls, server.max_in_flight))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    options = parser.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "bench-not-a-key")
    items = runs(options.items)
    floor = options.items * options.latency / options.concurrency
    receive, send = multiprocessing.Pipe(duplex=False)
    stop = multiprocessing.Event()
    server = multiprocessing.Process(target=serve, args=(options.latency, send, stop), daemon=True)
    server.start()
    base_url, _ = receive.recv()
    with tempfile.TemporaryDirectory() as folder:
        cache = JudgeCache(Path(folder) / "cache.sqlite")
        started = time.perf_counter()
        first = asyncio.run(judge_all(base_url, items, options.concurrency, cache))
        wall = time.perf_counter() - started
        started = time.perf_counter()
        second = asyncio.run(judge_all(base_url, items, options.concurrency, cache))
        rerun_wall = time.perf_counter() - started
    stop.set()
    server_calls, peak = receive.recv()
    server.join()
    calls_second = server_calls - first.api_calls
    print(
        f"{options.items} items, {options.latency * 1000:.0f} ms per request, "
        f"concurrency {options.concurrency}"
    )
    print(f"floor N × latency / concurrency: {floor:.2f} s")
    print(
        f"judge: {wall:.2f} s ({options.items / wall:,.0f} verdicts/s), {first.api_calls} API "
        f"calls, peak {peak} in flight; speed {floor / wall:.2f} of the floor (target ≥ 0.85)"
    )
    print(
        f"rerun: {rerun_wall:.2f} s, {calls_second} API calls, "
        f"{second.cache_hits} cache hits (target: 0 calls)"
    )


if __name__ == "__main__":
    main()
