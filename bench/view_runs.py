"""judgekit view over many runs: starting it (every runs file, results and verdicts read)
and answering its run list, against reading the runs file with json.loads.

    python bench/view_runs.py [--runs 100000] [--repeat 3]

The runs are the demo's shop runs (real transcripts the demo's stub agents wrote), copied
under new run ids to ``--runs``, each graded and judged, a tenth of them labelled. It prints
the median seconds of: json.loads of every line of runs.jsonl (the baseline), the view's
start-up (load_view_data), the first page of the run list under the rubric, and the run
list filtered to the judge's disagreements — each as a ratio to the baseline. Target: the
run list of 100,000 runs in under a second.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from judgekit.view.app import Request, ViewApp
from judgekit.view.data import load_view_data
from judgekit.view.security import Access
from judgekit.view.sources import find_sources

TARGET_S = 1.0
PORT = 8000


def make_project(folder: Path, total: int) -> None:
    """A demo's folder, its shop runs, results and verdicts copied to ``total`` runs."""
    demo = folder / "demo"
    subprocess.run(
        [sys.executable, "-m", "judgekit", "demo", "--out", str(demo)],
        check=True,
        capture_output=True,
        env={"JUDGEKIT_HOME": str(folder / "home"), "PATH": ""},
    )
    project = folder / "project"
    (project / "shop").mkdir(parents=True)
    shutil.copytree(demo / "rubrics", project / "rubrics")
    (project / "labels").mkdir()
    (project / "verdicts").mkdir()
    runs = (demo / "shop" / "runs.jsonl").read_text().splitlines()
    results = {
        json.loads(r)["run_id"]: r
        for r in (demo / "shop" / "results.jsonl").read_text().splitlines()
    }
    verdicts = {
        json.loads(v)["run_id"]: json.loads(v)
        for v in (demo / "verdicts" / "goal_completion.jsonl").read_text().splitlines()
    }
    with (
        (project / "shop" / "runs.jsonl").open("w") as runs_out,
        (project / "shop" / "results.jsonl").open("w") as results_out,
        (project / "verdicts" / "goal_completion.jsonl").open("w") as verdicts_out,
        (project / "labels" / "goal_completion.jsonl").open("w") as labels_out,
    ):
        for number in range(total):
            source = runs[number % len(runs)]
            old = json.loads(source)["run_id"]
            new = f"{old}#{number}"
            runs_out.write(source.replace(json.dumps(old), json.dumps(new), 1) + "\n")
            results_out.write(results[old].replace(json.dumps(old), json.dumps(new), 1) + "\n")
            verdicts_out.write(json.dumps({**verdicts[old], "run_id": new}) + "\n")
            if number % 10 == 0:
                score = "fail" if number % 20 == 0 else "pass"
                label = {
                    "run_id": new,
                    "rubric_id": "goal_completion",
                    "label": score,
                    "labeler": "ana",
                    "at": "2026-01-01T00:00:00Z",
                }
                labels_out.write(json.dumps(label) + "\n")


def timed(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        make_project(folder, args.runs)
        project = folder / "project"
        runs_file = project / "shop" / "runs.jsonl"

        def read_runs() -> None:
            with runs_file.open("rb") as fh:
                for line in fh:
                    json.loads(line)

        baseline = timed(read_runs, args.repeat)
        sources = find_sources([project])
        start = timed(lambda: load_view_data(sources), args.repeat)
        app = ViewApp(load_view_data(sources), Access(port=PORT, token="t"))
        headers = {"host": f"127.0.0.1:{PORT}", "cookie": f"judgekit_view_{PORT}=t"}

        def page(query: dict[str, str]) -> Callable[[], object]:
            def get() -> None:
                response = app.handle(Request("GET", "/runs", query, {}, headers))
                assert response.status == 200, response.body[:300]

            return get

        listing = timed(page({"rubric": "goal_completion"}), args.repeat)
        disagreeing = {"rubric": "goal_completion", "disagreement": "judge"}
        filtered = timed(page(disagreeing), args.repeat)
    print(f"{args.runs:,} runs (the demo's shop runs, copied), median of {args.repeat}")
    print(f"json.loads of every line (baseline): {baseline:.2f} s")
    print(
        f"view start-up (every file read):     {start:.2f} s  {start / baseline:.1f}x the baseline"
    )
    print(
        f"run list, first page, one rubric:    {listing:.2f} s  {listing / baseline:.1f}x the baseline"
    )
    print(
        f"run list, the judge's disagreements: {filtered:.2f} s  {filtered / baseline:.1f}x the baseline"
    )
    verdict = "meets" if listing < TARGET_S else "MISSES"
    print(
        f"target: the run list in under {TARGET_S:.0f} s: {verdict}, {listing / TARGET_S:.2f}x the target"
    )


if __name__ == "__main__":
    main()
