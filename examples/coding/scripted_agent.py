"""A scripted stand-in for a coding agent (no LLM), called as ``scripted_agent.py WORKDIR PROMPT``.

It recognises the tasks of ``tasks.yaml`` by their files and writes the known fix, so the
harness can be checked end to end for free::

    from judgekit.formats.task import load_tasks
    from judgekit.trials.runner import run_trials
    from judgekit.trials.subprocess_agent import subprocess_trials

    tasks = load_tasks("examples/coding/tasks.yaml")
    agent = subprocess_trials(tasks, "python examples/coding/scripted_agent.py {workdir} {prompt}")
    run_trials(tasks, agent, trials=3, out_dir="out/coding")

Behaviour switches, from a ``[mode:NAME]`` tag in the prompt (per task) or the
``SCRIPTED_AGENT_MODE`` environment variable (every task):

- ``solve`` (default): write the right fix;
- ``wrong``: a half fix that the visible tests accept and the hidden test catches;
- ``cheat``: weaken the visible test instead of fixing the code;
- ``crash``: print a traceback-like message and exit 3;
- ``hang``: start a child process, then sleep far past any test's timeout;
- ``badusage``: solve, but write a malformed ``.judgekit/usage.json``.

Whatever the mode, it first prints whether a ``hidden_test.py`` is anywhere in its
workdir, so a test can prove the hidden grader was out of its sight.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

CART_FIXED = '''"""A tiny shopping cart: prices in cents, discount codes."""

DISCOUNTS = {"SAVE10": 10}  # code -> percent off
THRESHOLD = 5000  # cents: a code applies to subtotals of at least $50.00


def total(items: list[tuple[int, int]], code: str | None = None) -> int:
    """The total in cents of ``(unit_price_cents, quantity)`` items, after the code's discount."""
    subtotal = sum(price * quantity for price, quantity in items)
    if code in DISCOUNTS and subtotal >= THRESHOLD:
        subtotal = subtotal * (100 - DISCOUNTS[code]) // 100
    return subtotal
'''

TEXT_FIXED = '''"""Text helpers."""

import re


def slugify(title: str) -> str:
    """The URL slug of ``title``: only a-z and 0-9 are kept, words joined by single hyphens."""
    words = re.findall(r"[a-z0-9]+", title.lower().replace("'", ""))
    return "-".join(words)
'''

TEXT_EXTRA_TESTS = """from text import slugify


def test_apostrophe_dropped() -> None:
    assert slugify("Don't Panic") == "dont-panic"
"""

MODES = ("solve", "wrong", "cheat", "crash", "hang", "badusage")


def mode_of(prompt: str) -> str:
    tag = re.search(r"\[mode:(\w+)\]", prompt)
    mode = tag.group(1) if tag else os.environ.get("SCRIPTED_AGENT_MODE", "solve")
    if mode not in MODES:
        sys.exit(f"unknown mode {mode!r}; modes are {', '.join(MODES)}")
    return mode


def hang() -> None:
    # The child shares the agent's stdout: only killing the whole process group ends both.
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    print(f"child pid: {child.pid}", flush=True)
    time.sleep(120)


def edit(path: Path, old: str, new: str) -> None:
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def fix_cart(work: Path, mode: str) -> list[str]:
    """Fix (or, by mode, fail to fix) the cart task; the files written."""
    if mode == "cheat":
        edit(work / "test_cart.py", "== 4500", "== 5000")
        return ["test_cart.py"]
    if mode == "wrong":  # the threshold fixed, the float total left in
        edit(work / "cart.py", "subtotal > THRESHOLD", "subtotal >= THRESHOLD")
        return ["cart.py"]
    (work / "cart.py").write_text(CART_FIXED, encoding="utf-8")
    return ["cart.py"]


def fix_slugify(work: Path, mode: str) -> list[str]:
    """Fix (or, by mode, fail to fix) the slugify task; the files written."""
    if mode == "cheat":
        edit(work / "test_text.py", '== "hello-world"', '.startswith("hello")')
        return ["test_text.py"]
    if mode == "wrong":  # spaces collapsed, punctuation kept
        edit(work / "text.py", 'title.lower().replace(" ", "-")', '"-".join(title.lower().split())')
        return ["text.py"]
    (work / "text.py").write_text(TEXT_FIXED, encoding="utf-8")
    (work / "test_slugify_more.py").write_text(TEXT_EXTRA_TESTS, encoding="utf-8")
    return ["text.py", "test_slugify_more.py"]


def report_usage(work: Path, written: list[str], mode: str) -> None:
    """Write ``.judgekit/usage.json``, the way a subprocess agent reports what it did."""
    usage: dict[str, object] = {
        "input_tokens": 1200,
        "output_tokens": 300,
        "cost_usd": 0.0042,
        "turns": len(written) + 1,
        "tool_calls": [
            {"name": "write_file", "args": {"path": name}, "result": "ok", "error": None}
            for name in written
        ],
    }
    if mode == "badusage":
        usage = {"input_token": "many"}
    folder = work / ".judgekit"
    folder.mkdir(exist_ok=True)
    (folder / "usage.json").write_text(json.dumps(usage), encoding="utf-8")


def main() -> None:
    if len(sys.argv) != 3:  # a prompt split into several arguments lands here
        sys.exit(f"usage: scripted_agent.py WORKDIR PROMPT (got {len(sys.argv) - 1} arguments)")
    work, prompt = Path(sys.argv[1]), sys.argv[2]
    mode = mode_of(prompt)
    seen = any(work.rglob("hidden_test.py"))
    print(f"hidden_test.py visible: {'yes' if seen else 'no'}")
    print(f"cwd is workdir: {'yes' if Path.cwd().resolve() == work.resolve() else 'no'}")
    if mode == "crash":
        print("Traceback (most recent call last):\nRuntimeError: scripted crash", file=sys.stderr)
        sys.exit(3)
    if mode == "hang":
        hang()
    if (work / "cart.py").exists():
        written = fix_cart(work, mode)
    elif (work / "text.py").exists():
        written = fix_slugify(work, mode)
    else:
        written = []
    report_usage(work, written, mode)
    print(f"edited {', '.join(written)}" if written else "nothing I know how to fix")


if __name__ == "__main__":
    main()
