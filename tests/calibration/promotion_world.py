"""A labelled world for trying to fool held-out promotion: runs with a human label each and a
judge whose verdicts are those labels with a known share flipped, so its kappa is known
(1 - 2 × the flipped share, on balanced labels). Files are written as the real producers
write them: labels as `judgekit label` does, verdicts as `judgekit judge` does."""

from __future__ import annotations

import json
import random
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from judgekit.calibration.split import assign_label
from judgekit.cli import main
from judgekit.formats.label import Label
from judgekit.formats.rubric_file import load_rubric, rubric_version
from tests.conftest import REPO

MODEL = "openai/gpt-4o-mini"
T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def lines(rows: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


class World:
    """A project folder: rubrics/goal_completion.yaml, labels/, verdicts.jsonl."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "rubrics").mkdir(parents=True)
        (root / "labels").mkdir()
        shutil.copy(REPO / "rubrics" / "goal_completion.yaml", root / "rubrics")
        self.rubric = root / "rubrics" / "goal_completion.yaml"
        self.labels = root / "labels" / "goal_completion.jsonl"
        self.split = root / "labels" / "goal_completion.split.jsonl"
        self.verdicts = root / "verdicts.jsonl"
        self.rubric_model = load_rubric(self.rubric)
        self.version = rubric_version(self.rubric_model)
        self.human: dict[str, str] = {}
        self.judge: dict[str, str] = {}
        self._minute = 0

    def add_runs(self, prefix: str, n: int, *, flipped: float, seed: int) -> list[str]:
        """``n`` runs, half pass and half fail by their human label (shuffled), judged with
        a share ``flipped`` of the verdicts (exactly, rounded) turned the other way."""
        rng = random.Random(seed)
        runs = [f"{prefix}{i:03d}" for i in range(n)]
        human = ["pass", "fail"] * (n // 2)
        rng.shuffle(human)
        wrong = set(rng.sample(range(n), round(flipped * n)))
        for i, (run, label) in enumerate(zip(runs, human, strict=True)):
            self.human[run] = label
            self.judge[run] = ("fail" if label == "pass" else "pass") if i in wrong else label
        self.verdicts.write_text(lines([self.verdict(run) for run in self.judge]))
        return runs

    def verdict(self, run: str) -> dict[str, Any]:
        return {
            "run_id": run,
            "rubric_id": "goal_completion",
            "rubric_version": self.version,
            "model": MODEL,
            "status": "scored",
            "score": self.judge[run],
            "reason": f"judged {run}",
            "at": T0.isoformat(),
        }

    def label(
        self, runs: list[str], *, labeler: str = "ana", flip: bool = False, imported: bool = False
    ) -> None:
        """Label ``runs`` as `judgekit label` does: append each label (``revealed`` false)
        and assign its run to a side at once; ``imported``: append them as labels made
        elsewhere (no ``revealed``, no assignment until a command sees them). With
        ``flip``, each gets the other label than the run's human one."""
        for run in runs:
            label = self.human[run]
            if flip:
                label = "fail" if label == "pass" else "pass"
            self._minute += 1
            at = T0 + timedelta(minutes=self._minute)
            row: dict[str, Any] = {
                "run_id": run,
                "rubric_id": "goal_completion",
                "label": label,
                "labeler": labeler,
                "at": at.isoformat().replace("+00:00", "Z"),
            }
            if not imported:
                row["revealed"] = False
            with self.labels.open("a", encoding="utf-8") as fh:
                fh.write(lines([row]))
            if not imported:
                assign_label(self.rubric_model, self.labels, Label.model_validate(row))

    def invoke(self, command: str, *args: str) -> Result:
        common = ["--rubric", str(self.rubric), "--verdicts", str(self.verdicts)]
        return CliRunner().invoke(
            main, [command, *common, "--labels", str(self.labels), "--no-store", *args]
        )

    def sides(self) -> dict[str, str]:
        """Run → side, as the split file first assigned it."""
        found: dict[str, str] = {}
        for text in self.split.read_text().splitlines():
            row = json.loads(text)
            if "side" in row:
                found.setdefault(row["run_id"], row["side"])
        return found

    def disagreements(self, runs: list[str]) -> list[str]:
        return [run for run in runs if self.human[run] != self.judge[run]]
