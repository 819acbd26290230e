"""A project judged by a jury of simulated judges on one fake server: runs whose truth is
known, labels that are that truth, a jury rubric, a price file, and `judgekit judge` run in
process through the real openai and anthropic SDKs."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.formats.run import Run
from judgekit.judging.fake_judge import FakeJudge
from judgekit.judging.prompt_runs import PromptRuns
from judgekit.testing import FakeLLMServer, FakeRequest

RATES = {"openai/a": 0.10, "anthropic/b": 0.15, "openai/c": 0.20}
PRICES = (
    "openai/a: {input: 1.0, output: 2.0}\n"
    "anthropic/b: {input: 3.0, output: 15.0}\n"
    "openai/c: {input: 0.5, output: 1.5}\n"
    "openai/d: {input: 0.25, output: 1.0}\n"
)
AT = "2026-11-01T00:00:00Z"


def jury_rubric(jurors: list[str], combine: str = "majority") -> str:
    """A jury rubric; a juror is its model, or its YAML mapping when it starts with ``{``."""
    listed = "".join(
        f"    - {juror}\n" if juror.startswith("{") else f"    - {{model: {juror}}}\n"
        for juror in jurors
    )
    return (
        "id: jury\n"
        "scale: binary\n"
        "prompt: |\n"
        "  Did the agent refund the order? <answer>{final_answer}</answer>\n"
        "promotion: {min_labels: 50, min_per_class: 10, min_kappa: 0.6}\n"
        f"judge:\n  jury:\n{listed}  combine: {combine}\n"
    )


class JuryWorld:
    """``n`` runs, every second one passing by its truth, in ``root``."""

    def __init__(self, root: Path, n: int, jurors: list[str] | None = None) -> None:
        self.root = root
        (root / "rubrics").mkdir(parents=True)
        (root / "labels").mkdir()
        self.runs = [
            Run(
                run_id=f"r{i:04d}",
                task_id="refund",
                input="Order A100 arrived broken. Refund it in full.",
                tool_calls=[],
                final_answer=f"Refund of $40 issued for A100 (ticket {i}).",
            )
            for i in range(n)
        ]
        self.truth = {run.run_id: i % 2 == 0 for i, run in enumerate(self.runs)}
        self.runs_file = root / "runs.jsonl"
        self.runs_file.write_text("".join(run.model_dump_json() + "\n" for run in self.runs))
        self.rubric = root / "rubrics" / "jury.yaml"
        self.set_jurors(jurors or list(RATES))
        self.prices = root / "prices.yaml"
        self.prices.write_text(PRICES)
        self.labels = root / "labels" / "jury.jsonl"
        self.out = root / "out"
        self.judge = FakeJudge(self.truth, PromptRuns(self.runs), model_error_rates=dict(RATES))

    def set_jurors(self, jurors: list[str]) -> None:
        self.rubric.write_text(jury_rubric(jurors))

    def write_labels(self) -> None:
        rows = [
            {"run_id": run, "rubric_id": "jury", "label": "pass" if passed else "fail",
             "labeler": "ana", "at": AT}
            for run, passed in self.truth.items()
        ]  # fmt: skip
        self.labels.write_text("".join(json.dumps(row) + "\n" for row in rows))

    @contextmanager
    def serving(self, monkeypatch: pytest.MonkeyPatch, **options: Any) -> Iterator[FakeLLMServer]:
        """The fake server (``options`` for it), with both SDKs pointed at it."""
        with FakeLLMServer(reply=lambda request: self.judge.reply(request), **options) as server:
            monkeypatch.setenv("OPENAI_BASE_URL", server.openai_base_url)
            monkeypatch.setenv("ANTHROPIC_BASE_URL", server.anthropic_base_url)
            yield server

    def judge_runs(self, *extra: str) -> Result:
        args = ["judge", str(self.runs_file), "--rubric", str(self.rubric), "--out", str(self.out)]
        args += ["--prices", str(self.prices), "--no-store", *extra]
        return CliRunner().invoke(main, args)

    def verdicts(self) -> list[dict[str, Any]]:
        text = (self.out / "verdicts.jsonl").read_text()
        return [json.loads(line) for line in text.splitlines()]

    def invoke(self, command: str, *extra: str) -> Result:
        args = [command, "--rubric", str(self.rubric), "--labels", str(self.labels)]
        args += ["--verdicts", str(self.out / "verdicts.jsonl"), "--no-store", *extra]
        return CliRunner().invoke(main, args)


def asked(server: FakeLLMServer, requests: list[FakeRequest] | None = None) -> Mapping[str, int]:
    """Requests the server received (or ``requests`` of them), by provider/model."""
    counts: dict[str, int] = {}
    for request in server.requests if requests is None else requests:
        name = f"{request.api}/{request.model}"
        counts[name] = counts.get(name, 0) + 1
    return counts
