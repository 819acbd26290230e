"""A project that imports runs and human labels of a platform: a binary rubric, the
platform's exports (:mod:`tests.labelling.platform_exports`), the runs imported by the
platform's run importer, and the command line driven in-process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.label import item_hash, item_text
from judgekit.formats.run import load_runs
from tests.conftest import REPO
from tests.labelling.platform_exports import EXPORTS, MAPS, RUN_IMPORTERS

RUBRIC = """\
id: correct
scale: binary
prompt: |
  The user asked: <task>{input}</task>
  The agent answered: <answer>{final_answer}</answer>
  Score "pass" when the answer does what was asked, "fail" otherwise.
judge: {model: openai/gpt-4o-mini, temperature: 0, samples: 1}
promotion: {min_labels: 12, min_per_class: 4, min_kappa: 0.6, confidence: 0.95, test_share: 0.5}
"""


def traced_mlflow(path: Path, n: int) -> Path:
    """``n`` traces made by MLflow's tracing SDK in a process of their own (it sets the global
    tracer provider), each holding a person's and a judge's feedback."""
    recorder = [sys.executable, "-m", "tests.labelling.mlflow_traced", str(path), str(n)]
    done = subprocess.run(recorder, cwd=REPO, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return path


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


class World:
    """``root`` with ``rubrics/correct.yaml``, the platform's exports of ``n`` traces and
    ``runs.jsonl`` (imported from the platform's trace export, or, for MLflow, made as its
    run importer names them). ``traced``: MLflow's traces are made by its tracing SDK
    (:mod:`tests.labelling.mlflow_traced`), one file imported as both runs and labels."""

    def __init__(self, root: Path, platform: str, n: int, *, traced: bool = False) -> None:
        self.root, self.platform = root, platform
        (root / "rubrics").mkdir(parents=True)
        self.rubric = root / "rubrics" / "correct.yaml"
        self.rubric.write_text(RUBRIC)
        if traced:
            assert platform == "mlflow"
            self.export = self.labels_export = traced_mlflow(root / "traces.jsonl", n)
        else:
            self.export, self.labels_export = EXPORTS[platform](root, n)
        self.runs = root / "runs.jsonl"
        if platform in RUN_IMPORTERS or traced:
            importer = RUN_IMPORTERS.get(platform, platform)
            code, _, err = invoke("import", importer, self.export, "-o", self.runs)
            assert code == 0, err
        else:
            assert self.export == self.runs
        self.labels = root / "labels" / "correct.jsonl"
        self.split = root / "labels" / "correct.split.jsonl"

    def import_labels(
        self, *extra: str | Path, files: tuple[Path, ...] = (), runs_files: tuple[Path, ...] = ()
    ) -> tuple[int, str, str]:
        maps = [arg for value in MAPS[self.platform] for arg in ("--map", value)]
        return invoke(
            *("labels", "import", self.platform, *(files or (self.labels_export,))),
            *("--rubric", self.rubric, "--labels-dir", self.root / "labels"),
            *(arg for runs in runs_files or (self.runs,) for arg in ("--runs", runs)),
            *maps,
            *extra,
        )

    def label_lines(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.labels.read_text().splitlines()]

    def hashes(self) -> dict[str, str]:
        """Each run's text hash, as the terminal labeller records it."""
        return {run.run_id: item_hash(item_text(run)) for run in load_runs(self.runs)}
