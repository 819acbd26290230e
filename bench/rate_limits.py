"""Judging against a rate-limited provider: judgekit's pacing beside a fixed concurrency.

    python bench/rate_limits.py [--rpm 1200] [--window 5] [--items 400] [--latency 0.05]

The fake server (in its own thread) allows ``--rpm`` requests a minute in fixed windows of
``--window`` seconds (1200 a minute in 5-second windows: 100 a window, so a run of 400
items lasts four windows, about 20 s), answering 429 past it with the headers of the API
asked: OpenAI's ``x-ratelimit-*`` and ``retry-after-ms``, Anthropic's
``anthropic-ratelimit-*`` and ``retry-after``. Each API is judged twice, through the same
library path as ``judgekit judge`` (:func:`judgekit.judging.judge_file.judge_runs_file`),
``--concurrency 32`` and six tries per request both times:

- *paced*: judgekit as it is, concurrency adapting to the answers and their headers;
- *fixed*: the baseline measured in the same run, judgekit's former behaviour: 32 in
  flight whatever the answers say, 429s retried after their ``Retry-After``.

Printed for each: the sustained rate as a share of the limit (requests let through per
complete window, the last, partial window left out, over the window's allowance; goal
≥ 0.9), the share of requests answered 429 (goal ≤ 2%), the items left without a verdict
(goal 0) and the wall time, with the fixed run's 429 share and time as ratios of the paced.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

# Both SDKs imported before anything is timed: the first run must not pay for its import.
import anthropic  # noqa: F401
import openai  # noqa: F401

from judgekit.formats.rubric_file import effective_rubric, load_rubric
from judgekit.formats.run import Run
from judgekit.judging.judge_file import JudgeSettings, judge_runs_file
from judgekit.judging.pricing import PriceTable
from judgekit.providers.anthropic_provider import AnthropicProvider
from judgekit.providers.chat import ChatProvider
from judgekit.providers.client import ChatClient
from judgekit.providers.openai_provider import OpenAIProvider
from judgekit.testing import FakeLLMServer, RateLimit

RUBRIC = """\
id: bench_rate
description: Did the agent refund the order?
scale: binary
applies_to: final_answer
prompt: |
  You grade an AI agent's final answer. Reply in JSON.
  <task>{input}</task>
  <answer>{final_answer}</answer>
judge: {model: openai/gpt-4o-mini, temperature: 0, samples: 1}
"""
MODELS = {"openai": "openai/gpt-4o-mini", "anthropic": "anthropic/claude-haiku-4-5"}
CONCURRENCY = 32
MAX_ATTEMPTS = 6


def one_run(
    api: str, *, paced: bool, runs: list[Run], folder: Path, options: argparse.Namespace
) -> dict[str, float]:
    """Judge ``runs`` against a fresh limited server; the figures of that run."""
    limit = RateLimit(requests_per_minute=options.rpm, window_s=options.window)
    allowance = limit.allowance(options.rpm)
    assert allowance is not None
    rubric = effective_rubric(load_rubric(folder / "bench_rate.yaml"), MODELS[api])
    out = folder / f"{api}-{'paced' if paced else 'fixed'}"
    with FakeLLMServer(latency_s=options.latency, rate_limit=limit) as server:
        provider: ChatProvider = (
            OpenAIProvider(api_key="bench-not-a-key", base_url=server.openai_base_url)
            if api == "openai"
            else AnthropicProvider(api_key="bench-not-a-key", base_url=server.anthropic_base_url)
        )
        client = ChatClient(
            provider, concurrency=CONCURRENCY, max_attempts=MAX_ATTEMPTS, paced=paced
        )
        started = time.perf_counter()
        tally = judge_runs_file(
            runs,
            rubric,
            provider=provider,
            folder=out,
            run_ids=[run.run_id for run in runs],
            settings=JudgeSettings(concurrency=CONCURRENCY, max_attempts=MAX_ATTEMPTS),
            cache=None,
            prices=PriceTable(),
            client=client,
        )
        elapsed = time.perf_counter() - started
        counts = server.status_counts
        assert server.rate_window is not None
        windows = server.rate_window.admitted_per_window
    complete = windows[:-1] or windows
    verdicts = sum(1 for _ in (out / "verdicts.jsonl").open())
    return {
        "sustained": sum(complete) / len(complete) / allowance,
        "share_429": counts.get(429, 0) / sum(counts.values()),
        "lost": len(runs) - verdicts,
        "seconds": elapsed,
        "requests": sum(counts.values()),
        "verdicts": tally.verdicts,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rpm", type=int, default=1200)
    parser.add_argument("--window", type=float, default=5.0)
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--latency", type=float, default=0.05)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        (folder / "bench_rate.yaml").write_text(RUBRIC)
        runs = [
            Run.model_validate(
                {
                    "run_id": f"r{i}",
                    "task_id": "refund",
                    "tool_calls": [],
                    "input": f"Refund order A{i}.",
                    "final_answer": f"Refund of order A{i} issued.",
                }
            )
            for i in range(options.items)
        ]
        print(
            f"{options.items} items, limit {options.rpm} requests a minute in "
            f"{options.window:g}-second windows, latency {options.latency:g} s, "
            f"--concurrency {CONCURRENCY}, {MAX_ATTEMPTS} tries"
        )
        results = {}
        for api in ("openai", "anthropic"):
            for paced in (True, False):
                figures = one_run(api, paced=paced, runs=runs, folder=folder, options=options)
                results[f"{api} {'paced' if paced else 'fixed'}"] = figures
                print(
                    f"{api:9} {'paced' if paced else 'fixed (32, no pacing)':22} "
                    f"sustained {figures['sustained']:.3f} of the limit, "
                    f"429s {figures['share_429']:.1%} of {figures['requests']:.0f} requests, "
                    f"{figures['lost']:.0f} items lost, {figures['seconds']:.1f} s"
                )
            paced_run, fixed_run = results[f"{api} paced"], results[f"{api} fixed"]
            ratio = (
                fixed_run["share_429"] / paced_run["share_429"] if paced_run["share_429"] else None
            )
            print(
                f"{api:9} fixed / paced: 429 share "
                + (f"{ratio:.1f}×" if ratio is not None else "n/a (paced had none)")
                + f", time {fixed_run['seconds'] / paced_run['seconds']:.2f}×"
            )
        print(json.dumps(results))


if __name__ == "__main__":
    main()
