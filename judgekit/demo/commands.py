"""Step 6: the commands that do the same with a real model (absolute paths: they work from
any folder)."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import BASE_RUBRIC, SHOP, say


def next_steps(root: Path, out: Path) -> list[tuple[str, list[str]]]:
    """(what, commands) in the order a real evaluation runs them."""
    runs = out / SHOP.name / "runs.jsonl"
    tasks = root / "tasks"
    rubric = root / "rubrics" / f"{BASE_RUBRIC}.yaml"
    # Your own labels, apart from the bundled ones of the simulated labeller.
    labels = out / "my-labels"
    judged = f"--rubric {rubric} --tasks {tasks}"
    calibrated = f"--rubric {rubric} --labels {labels / f'{BASE_RUBRIC}.jsonl'} --runs {runs} "
    calibrated += f"--tasks {tasks}"
    return [
        (
            "Judge the shop runs with a real model (the rubric's default judge):",
            [f"OPENAI_API_KEY=your-key judgekit judge {runs} {judged} --model openai/gpt-4o-mini"],
        ),
        (
            "or with a local OpenAI-compatible server (Ollama, vLLM, llama.cpp):",
            [
                f"judgekit judge {runs} {judged} --model local/llama3.1 "
                "--base-url http://localhost:11434/v1"
            ],
        ),
        (
            "then label a sample yourself, calibrate the judge and promote it if it agrees:",
            [
                f"judgekit label {runs} {judged} --labeler NAME --labels-dir {labels} "
                "--strategy stratified --limit 80",
                f"judgekit calibrate {calibrated}",
                f"judgekit promote {calibrated}",
            ],
        ),
        (
            "watch it over time, report, and gate a change of the agent against these runs:",
            [
                f"judgekit monitor --rubric {rubric} --labels-dir {labels} --plot scores.png",
                f"judgekit report -o report.html --rubric {rubric} --labels-dir {labels}",
                f"judgekit run --tasks {tasks / 'shop.yaml'} --agent your.module:agent --trials 40 "
                "--out candidate",
                f"judgekit gate --baseline {out / SHOP.name} --candidate candidate --rubric {rubric}",
            ],
        ),
    ]


def print_next_steps(root: Path, out: Path, console: Console) -> None:
    for what, commands in next_steps(root, out):
        say(console, what)
        for command in commands:
            say(console, f"  {visible_markup(command)}")
