"""Step 7: the commands that do the same with a real model, on a copy of the demo's project
in ``--out`` (so calibrating and promoting write there, never into the installed package),
its paths as the shell they are pasted into reads them."""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Final

from rich.console import Console

from judgekit._util.atomic_files import make_folders, write_bytes_atomically
from judgekit._util.terminal_text import visible_markup
from judgekit.demo.common import BASE_RUBRIC, SHOP, project_files, say

PROJECT: Final = "project"  # the subfolder of --out holding the copy of the demo's project


def copy_project(root: Path, out: Path) -> Path:
    """Copy the demo's tasks, rubric and stub agents from ``root`` into ``out/project``."""
    project = out / PROJECT
    for relative in project_files():
        target = project / relative
        make_folders(target.parent)
        write_bytes_atomically(target, (root / relative).read_bytes())
    return project


def next_steps(out: Path, cwd: Path | None = None) -> list[tuple[str, list[str]]]:
    """(what, commands) in the order a real evaluation runs them, on the copy of the
    project in ``out`` (:func:`copy_project`), run from ``cwd`` (the current folder)."""
    here = Path.cwd() if cwd is None else cwd

    def shown(path: Path) -> str:
        """``path`` relative to the folder the commands run in when it lies inside it."""
        absolute = path if path.is_absolute() else here / path
        inside = absolute.is_relative_to(here)
        return shlex.quote(os.path.relpath(absolute, here) if inside else str(absolute))

    project = out / PROJECT
    runs, rubric = out / SHOP.name / "runs.jsonl", project / "rubrics" / f"{BASE_RUBRIC}.yaml"
    candidate = out / "my-candidate"
    labels = out / "my-labels"  # your own labels, apart from the simulated labeller's
    judged = f"--rubric {shown(rubric)} --tasks {shown(project / 'tasks')}"
    model = "--model openai/gpt-4o-mini"
    calibrated = f"{judged} --labels {shown(labels / f'{BASE_RUBRIC}.jsonl')} --runs {shown(runs)}"
    return [
        (
            "Judge the shop runs with a real model (the rubric's default judge):",
            [f"OPENAI_API_KEY=your-key judgekit judge {shown(runs)} {judged} {model}"],
        ),
        (
            "or with a local OpenAI-compatible server (Ollama, vLLM, llama.cpp):",
            [
                f"judgekit judge {shown(runs)} {judged} --model local/llama3.1 "
                "--base-url http://localhost:11434/v1"
            ],
        ),
        (
            "then label a sample yourself, calibrate the judge and promote it if it agrees:",
            [
                f"judgekit label {shown(runs)} {judged} --labeler NAME "
                f"--labels-dir {shown(labels)} --strategy stratified --limit 80",
                f"judgekit calibrate {calibrated}",
                f"judgekit promote {calibrated}",
            ],
        ),
        (
            "watch it over time, report, and gate a change of the agent against these runs:",
            [
                f"judgekit monitor --rubric {shown(rubric)} --labels-dir {shown(labels)} "
                "--plot scores.png",
                f"judgekit report -o report.html --rubric {shown(rubric)} "
                f"--labels-dir {shown(labels)}",
                f"PYTHONPATH={shown(project)} judgekit run --tasks "
                f"{shown(project / 'tasks' / f'{SHOP.name}.yaml')} --agent {SHOP.agent} "
                f"--trials 40 --out {shown(candidate)}",
                f"OPENAI_API_KEY=your-key judgekit judge {shown(candidate / 'runs.jsonl')} "
                f"{judged} {model} --out {shown(candidate)}",
                f"judgekit gate --baseline {shown(out / SHOP.name)} --candidate "
                f"{shown(candidate)} --rubric {shown(rubric)}",
            ],
        ),
    ]


def print_next_steps(out: Path, console: Console) -> None:
    for what, commands in next_steps(out):
        say(console, what)
        for command in commands:
            say(console, f"  {visible_markup(command)}")
