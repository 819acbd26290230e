"""``judgekit judge`` against a bare AsyncOpenAI loop, whole processes timed as a user runs them.

    python bench/judge_throughput.py [--items 1000] [--latency 0.1] [--concurrency 32] [--repeat 3]

The baseline, measured in the same run against the same fake server (in its own process, as a
remote API would be), is a bare script: read the runs file, fill the prompt with str.format, ask
through ``AsyncOpenAI`` with ``concurrency`` in flight, parse each JSON answer and append it to a
file. Both are started as fresh ``python`` processes, so start-up counts as a user sees it: with
the modules' bytecode written (as ``pip install`` writes it), so a machine that sets
PYTHONDONTWRITEBYTECODE does not time judgekit's source being compiled at every start while the
SDK's installed bytecode is read.
Then the same ``judgekit judge`` command again, into a fresh --out: every answer comes from the
cache, so it must make zero calls. The first judging creates the store (a new JUDGEKIT_HOME);
a fourth process judges again with an empty cache into a copy of that store, as every judging
after a project's first does. Every judging records in the store through
:func:`judgekit.store.open_store`, as every command does. Targets: judge ≤ 1.10× the bare loop,
into a new store and into the store there; the cache rerun of 1,000 items under 1.2 s. Each
figure is the median of ``--repeat`` rounds, with its spread.
"""

from __future__ import annotations

import argparse
import compileall
import json
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing.connection import Connection
from multiprocessing.synchronize import Event
from pathlib import Path

import judgekit
from judgekit.testing import FakeLLMServer

RUBRIC = """\
id: bench_refunds
description: Did the agent refund the order?
scale: binary
applies_to: final_answer
prompt: |
  You grade an AI agent's final answer to a user's request.
  The user asked:
  <task>{input}</task>
  The agent's final answer:
  <answer>{final_answer}</answer>
  Score "pass" when the refund is reported done, else "fail".
judge: {model: openai/gpt-4o-mini, temperature: 0, samples: 1}
"""

# The bare loop: what a user would write with the SDK alone, doing the same work per item.
BARE_LOOP = """\
import asyncio, json, sys
from openai import AsyncOpenAI

PROMPT = (
    "You grade an AI agent's final answer to a user's request.\\nThe user asked:\\n"
    "<task>{input}</task>\\nThe agent's final answer:\\n<answer>{final_answer}</answer>\\n"
    'Score "pass" when the refund is reported done, else "fail".\\n'
)

async def main(runs_path, base_url, out_path, concurrency):
    client = AsyncOpenAI(base_url=base_url, api_key="bench-not-a-key")
    slots = asyncio.Semaphore(concurrency)
    with open(runs_path, encoding="utf-8") as fh:
        runs = [json.loads(line) for line in fh]
    with open(out_path, "w", encoding="utf-8") as out:
        async def one(run):
            async with slots:
                reply = await client.chat.completions.create(
                    model="gpt-4o-mini", temperature=0,
                    messages=[{"role": "user", "content": PROMPT.format(**run)}],
                )
            verdict = json.loads(reply.choices[0].message.content)
            out.write(json.dumps({"run_id": run["run_id"], **verdict}) + "\\n")
        await asyncio.gather(*(one(run) for run in runs))
    await client.close()

asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
"""


def write_inputs(folder: Path, n: int) -> tuple[Path, Path]:
    runs = folder / "runs.jsonl"
    with runs.open("w", encoding="utf-8") as fh:
        for i in range(n):
            run = {
                "run_id": f"bench/{i}",
                "task_id": "t",
                "input": f"Request number {i}: refund order A{i} in full.",
                "tool_calls": [],
                "final_answer": f"Refunded order A{i}.",
            }
            fh.write(json.dumps(run) + "\n")
    rubric = folder / "bench_refunds.yaml"
    rubric.write_text(RUBRIC, encoding="utf-8")
    return runs, rubric


def serve(latency: float, port_out: Connection, stop: Event, report: Event) -> None:
    """The fake server in its own process: in the judge's process its request handling
    would compete with the judge for the interpreter, which a remote API never does."""
    verdict = json.dumps({"reason": "refund reported", "score": "pass"})
    with FakeLLMServer(reply=lambda request: verdict, latency_s=latency) as server:
        port_out.send(server.openai_base_url)
        while not stop.is_set():
            if report.wait(0.05):
                report.clear()
                port_out.send(server.calls)


KINDS = ("bare", "judge", "rerun", "judge, store there")
# Each process's user + system seconds: wall time less the waiting.
CPU: dict[str, list[float]] = {name: [] for name in KINDS}


def timed(kind: str, command: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[kind].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return wall


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.1)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=3)
    options = parser.parse_args()
    receive, send = multiprocessing.Pipe(duplex=False)
    stop, ask_calls = multiprocessing.Event(), multiprocessing.Event()
    server = multiprocessing.Process(
        target=serve, args=(options.latency, send, stop, ask_calls), daemon=True
    )
    server.start()
    base_url = receive.recv()

    def server_calls() -> int:
        ask_calls.set()
        calls: int = receive.recv()
        return calls

    # judgekit's bytecode, as an install writes it (an editable checkout may have none).
    compileall.compile_dir(Path(judgekit.__file__).parent, quiet=1)
    times: dict[str, list[float]] = {name: [] for name in KINDS}
    rerun_calls = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs, rubric = write_inputs(folder, options.items)
        script = folder / "bare_loop.py"
        script.write_text(BARE_LOOP, encoding="utf-8")
        concurrency = str(options.concurrency)
        judge = [sys.executable, "-m", "judgekit", "judge", str(runs), "--rubric", str(rubric)]
        judge += ["--base-url", base_url, "--concurrency", concurrency]
        for round_ in range(options.repeat):
            env = {**os.environ, "OPENAI_API_KEY": "bench-not-a-key"}
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            env["JUDGEKIT_HOME"] = str(folder / f"home{round_}")  # an empty cache, no store
            bare_out = str(folder / f"bare{round_}.jsonl")
            bare_loop = [sys.executable, str(script), str(runs), base_url, bare_out, concurrency]
            times["bare"].append(timed("bare", bare_loop, env))
            times["judge"].append(
                timed("judge", [*judge, "--out", str(folder / f"o{round_}")], env)
            )
            before = server_calls()
            rerun = [*judge, "--out", str(folder / f"rerun{round_}")]
            times["rerun"].append(timed("rerun", rerun, env))
            rerun_calls.append(server_calls() - before)
            # An empty cache again, into the store the first judging created.
            env["JUDGEKIT_HOME"] = str(folder / f"home{round_}b")
            store = folder / f"home{round_}" / "judgekit.sqlite"
            (folder / f"home{round_}b").mkdir()
            shutil.copy(store, folder / f"home{round_}b" / "judgekit.sqlite")
            again = [*judge, "--out", str(folder / f"again{round_}")]
            times["judge, store there"].append(timed("judge, store there", again, env))
    stop.set()
    server.join()
    report(options, times, rerun_calls)


def report(
    options: argparse.Namespace, times: dict[str, list[float]], rerun_calls: list[int]
) -> None:
    bare = times["bare"]
    print(
        f"{options.items} items, {options.latency * 1000:.0f} ms per request, "
        f"concurrency {options.concurrency}, {options.repeat} rounds (median, min, max)"
    )
    floor = options.items * options.latency / options.concurrency
    print(f"floor N × latency / concurrency: {floor:.2f} s")
    print(f"bare AsyncOpenAI loop: {spread(bare)}")
    for kind, label in (("judge", "a new store"), ("judge, store there", "the store there")):
        ratios = [j / b for j, b in zip(times[kind], bare, strict=True)]
        print(
            f"judgekit judge, {label}: {spread(times[kind])}; "
            f"{statistics.median(ratios):.2f}× the bare loop "
            f"(min {min(ratios):.2f}, max {max(ratios):.2f}; target ≤ 1.10)"
        )
    print(
        f"cache rerun:           {spread(times['rerun'])}, API calls {max(rerun_calls)} "
        f"(target < 1.2 s, 0 calls)"
    )
    print(
        "CPU seconds (median): "
        + ", ".join(f"{name} {statistics.median(CPU[name]):.2f}" for name in KINDS)
    )


if __name__ == "__main__":
    main()
