"""The whole flow on each platform's human labels: runs imported from the platform's trace
export (MLflow's made as its run importer names them), the human labels imported, the runs
judged by the simulated judge through the real openai SDK, then `calibrate` on the dev
labels and `promote` on the held-out test labels, both on the imported labels alone."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.formats.run import load_runs
from judgekit.formats.split_file import read_split_file
from judgekit.judging.fake_judge import FakeJudge
from judgekit.judging.prompt_runs import PromptRuns
from judgekit.testing import FakeLLMServer
from tests.labelling import platform_exports as px
from tests.labelling.import_world import World, invoke

N = 40


@pytest.mark.parametrize("platform", ["langfuse", "langsmith", "phoenix", "mlflow"])
def test_imported_labels_calibrate_and_promote(tmp_path: Path, platform: str) -> None:
    world = World(tmp_path, platform, N)
    code, out, err = world.import_labels()
    assert (code, err) == (0, ""), err
    split = read_split_file(world.split)
    sides = [line.side for line in split.assignments.values()]
    n_test = sides.count("test")
    assert (len(sides), n_test) == (N, 20)  # test_share 0.5, each class halved
    assert f"imported: {N} new into {world.labels} (dev 20, test 20)" in out

    runs = list(load_runs(world.runs))
    truth = {run.run_id: px.correct(int(str(run.input)[14:-1])) for run in runs}
    judge = FakeJudge(truth, PromptRuns(runs), error_rate=0.0)
    verdicts = tmp_path / "out" / "verdicts.jsonl"
    with FakeLLMServer(reply=judge.reply) as server:
        code, _, err = invoke(
            *("judge", world.runs, "--rubric", world.rubric, "--base-url", server.openai_base_url),
            *("--out", tmp_path / "out", "--no-store"),
        )
    assert code == 0, err
    assert judge.answered["unknown"] == 0
    labels = ("--verdicts", verdicts, "--labels", world.labels, "--no-store")
    code, out, err = invoke("calibrate", "--rubric", world.rubric, *labels, "--json")
    assert code == 0, err
    report = json.loads(out)
    assert (report["n"], report["kappa"]) == (N - n_test, 1.0)
    assert list(report["labelers"]) == [world.label_lines()[0]["labeler"]]
    code, out, err = invoke("promote", "--rubric", world.rubric, *labels)
    assert code == 0, out + err
    record = json.loads((tmp_path / "rubrics" / "correct.promotion.json").read_text())
    assert (record["n"], record["kappa"]) == (n_test, 1.0)
