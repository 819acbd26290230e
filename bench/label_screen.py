"""Keystroke to next run on screen, in the labelling prompt.

Each label key goes through the real session: the label is appended and fsynced, and the
next run (50 tool calls, some results long enough to fold) is drawn by rich on a console
writing to a StringIO at terminal width. The baseline is the same loop over runs with no
tool calls, measured in the same process. Target: under 50 ms per key.

    python bench/label_screen.py
"""

from __future__ import annotations

import io
import statistics
import tempfile
import time
from pathlib import Path

from rich.console import Console

from judgekit.formats.rubric import Rubric
from judgekit.formats.run import Run, ToolCall
from judgekit.labelling.keys import scale_keys
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.screen import LabelScreen, make_item
from judgekit.labelling.session import label_items

RUNS = 60
TARGET_MS = 50.0

RUBRIC = Rubric(
    id="goal_completion",
    description="Did the final answer accomplish the user's goal?",
    scale="binary",
    prompt="{input} {final_answer}",
    judge={"model": "openai/gpt-4o-mini"},  # type: ignore[arg-type]
)


def busy_run(number: int) -> Run:
    calls = [
        ToolCall(
            name="search_flights",
            args={"origin": "DEN", "destination": "SFO", "page": step, "query": "x" * 120},
            result={"flights": [{"id": f"AA{n}", "price": 100 + n} for n in range(40)]},
        )
        for step in range(50)
    ]
    return Run(
        run_id=f"bench/busy/{number}",
        task_id="busy",
        input="Find the cheapest flight from Denver to San Francisco on Friday and book it.",
        tool_calls=calls,
        final_answer="Booked AA0 for $100 on Friday.",
    )


def empty_run(number: int) -> Run:
    return Run(run_id=f"bench/empty/{number}", task_id="empty", tool_calls=[])


class TimedKeys:
    """Answers 'p' forever, noting when each key is asked for."""

    def __init__(self) -> None:
        self.asked: list[float] = []

    def key(self) -> str | None:
        self.asked.append(time.perf_counter())
        return "p"

    def line(self, prompt: str) -> str | None:
        return None


def key_to_screen_ms(runs: list[Run]) -> list[float]:
    items = [make_item(run) for run in runs]
    console = Console(file=io.StringIO(), width=120, force_terminal=True, color_system="truecolor")
    screen = LabelScreen(console, RUBRIC, scale_keys(RUBRIC), clear=True)
    keys = TimedKeys()
    with (
        tempfile.TemporaryDirectory() as folder,
        LabelWriter(Path(folder) / "goal_completion.jsonl") as writer,
    ):
        label_items(items, screen=screen, answers=keys, writer=writer, labeler="bench", mine={})
    # From one key handed over to the next key asked for: write, fsync, draw the next run.
    return [(b - a) * 1000 for a, b in zip(keys.asked, keys.asked[1:], strict=False)]


def summary(name: str, times: list[float]) -> str:
    p95 = statistics.quantiles(times, n=20)[-1]
    return f"{name:<28} median {statistics.median(times):6.2f} ms   p95 {p95:6.2f} ms"


def main() -> None:
    key_to_screen_ms([empty_run(n) for n in range(5)])  # warm up imports and caches
    baseline = key_to_screen_ms([empty_run(n) for n in range(RUNS)])
    busy = key_to_screen_ms([busy_run(n) for n in range(RUNS)])
    print(summary("baseline (empty runs)", baseline))
    print(summary("50 tool calls per run", busy))
    ratio = statistics.median(busy) / statistics.median(baseline)
    verdict = "meets" if statistics.quantiles(busy, n=20)[-1] < TARGET_MS else "MISSES"
    print(f"ratio {ratio:.1f}x the baseline; p95 {verdict} the {TARGET_MS:.0f} ms target")


if __name__ == "__main__":
    main()
