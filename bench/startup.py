"""Start-up benchmark: how long ``judgekit --help`` and a command's ``--help`` take, whole
process, against the interpreter alone and the interpreter importing click.

Usage::

    python bench/startup.py [--repeats R] [--importtime]

Each command below is started R times (20 by default) as a fresh process, the commands taken
in turn so that a busy moment of the machine falls on all of them alike; the median wall time
of each is printed with its spread (fastest–slowest), its ratio to ``python -c pass`` and what
it costs beyond ``python -c "import click"`` (the floor of any click program). The target:
``judgekit --help`` under 0.15 s. ``--importtime`` adds the ten slowest imports (cumulative,
``python -X importtime``) of ``judgekit --help`` and of ``judgekit judge --help``.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_HELP_S = 0.15
PYTHON = sys.executable
# The console script pip installed beside this interpreter: `judgekit` as a user types it.
SCRIPT = shutil.which("judgekit", path=str(Path(PYTHON).parent))

BASELINE = "python -c pass"
CLICK = 'python -c "import click"'


def commands() -> dict[str, list[str]]:
    """Each measured command line, as printed, and the process that runs it."""
    found = {
        BASELINE: [PYTHON, "-c", "pass"],
        CLICK: [PYTHON, "-c", "import click"],
        'python -c "import judgekit.cli"': [PYTHON, "-c", "import judgekit.cli"],
        "python -m judgekit --help": [PYTHON, "-m", "judgekit", "--help"],
    }
    if SCRIPT is not None:
        found["judgekit --help"] = [SCRIPT, "--help"]
        found["judgekit --version"] = [SCRIPT, "--version"]
        found["judgekit judge --help"] = [SCRIPT, "judge", "--help"]
        found["judgekit grade --help"] = [SCRIPT, "grade", "--help"]
    else:
        found["python -m judgekit judge --help"] = [PYTHON, "-m", "judgekit", "judge", "--help"]
    return found


def wall_time(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()}")
    return elapsed


def measure(lines: dict[str, list[str]], repeats: int) -> dict[str, list[float]]:
    """R wall times per command, the commands in turn (one warm-up round first, not kept)."""
    times: dict[str, list[float]] = {line: [] for line in lines}
    for round_number in range(repeats + 1):
        for line, argv in lines.items():
            elapsed = wall_time(argv)
            if round_number > 0:
                times[line].append(elapsed)
    return times


def report(times: dict[str, list[float]], repeats: int) -> None:
    base = statistics.median(times[BASELINE])
    floor = statistics.median(times[CLICK])
    width = max(len(line) for line in times)
    print(f"start-up, whole process, median of {repeats} fresh processes each")
    print(f"{'command':<{width}}  median   spread           × pass   beyond click")
    for line, samples in times.items():
        median = statistics.median(samples)
        spread = f"{min(samples):.3f}–{max(samples):.3f} s"
        beyond = f"{median - floor:+.3f} s"
        print(f"{line:<{width}}  {median:.3f} s  {spread}  {median / base:5.2f}×  {beyond}")
    help_line = "judgekit --help" if "judgekit --help" in times else "python -m judgekit --help"
    help_s = statistics.median(times[help_line])
    verdict = "met" if help_s < TARGET_HELP_S else "NOT met"
    print(f"target: {help_line} under {TARGET_HELP_S:.2f} s: {help_s:.3f} s, {verdict}")


def slowest_imports(argv: list[str], count: int = 10) -> list[str]:
    """The ``count`` imports of ``argv`` with the largest cumulative time (``-X importtime``)."""
    done = subprocess.run(
        [PYTHON, "-X", "importtime", *argv], capture_output=True, text=True, check=True
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.removeprefix("import time:").split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return [f"{micros / 1000:7.1f} ms {name}" for micros, name in sorted(rows)[-count:][::-1]]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Start-up benchmark (see the module doc).")
    parser.add_argument("--repeats", type=int, default=20, help="processes per command (20)")
    parser.add_argument("--importtime", action="store_true", help="also the slowest imports")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    report(measure(commands(), args.repeats), args.repeats)
    if args.importtime:
        for what in (["--help"], ["judge", "--help"]):
            print(f"\nslowest imports (cumulative) of judgekit {' '.join(what)}:")
            print("\n".join(slowest_imports(["-m", "judgekit", *what])))


if __name__ == "__main__":
    main()
