"""Per-class precision, recall and F1 on LLMBar's real pairwise data, through `judgekit
calibrate --split all`: the MT-Bench expert subset judged by GPT-4 (Vanilla_NoRules, 200
items) and the adversarial Neighbor subset judged by Falcon (CoT, 134 items, 2 unreadable),
a judge that says A almost always — which kappa hides and B's recall of 0.138 shows. Each
figure equals scikit-learn's on the gold labels and the judge's original-order choices.
Skipped without ../shared/data."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from sklearn.metrics import precision_recall_fscore_support  # type: ignore[import-untyped]

from judgekit._util.number_format import statistic
from judgekit.cli import main
from tests.conftest import REPO, shared_data_path

CLASSES = ["A", "B", "tie"]
CHOICE = {"1": "A", "2": "B"}

MT_BENCH_TABLE = [
    "per-class scores (human label = truth, judge's choice = prediction):",
    "  class  precision     recall         F1  support  judged",
    "  A          0.794      0.802      0.798      101     102",
    "  B          0.796      0.788      0.792       99      98",
    "  tie    undefined  undefined  undefined        0       0",
    "  macro      0.795      0.795      0.795",
    "  tie: precision, recall and F1 undefined (neither a human label nor the judge's choice)",
    "  macro averages leave the undefined figures out (not counted as 0)",
]
NEIGHBOR_TABLE = [
    *MT_BENCH_TABLE[:2],
    "  A          0.580      0.932      0.715       74     119",
    "  B          0.615      0.138      0.225       58      13",
    MT_BENCH_TABLE[4],
    "  macro      0.598      0.535      0.470",
    *MT_BENCH_TABLE[6:],
]


def _group(path: Path, dataset: str, evaluator: str, strategy: str) -> tuple[list[str], list[str]]:
    """The gold choices and the judge's original-order choices, where the judge's was read."""
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    rows = [
        r
        for r in rows
        if (r["dataset"], r["evaluator"], r["strategy"]) == (dataset, evaluator, strategy)
        and r["winner_swap_false"] is not None
    ]
    return (
        [CHOICE[str(r["label"])] for r in rows],
        [CHOICE[str(r["winner_swap_false"])] for r in rows],
    )


@pytest.mark.parametrize(
    ("dataset", "evaluator", "strategy", "n", "table", "tie_as_zero"),
    [
        ("Processed/MT-Bench", "GPT-4", "Vanilla_NoRules", 200, MT_BENCH_TABLE, "0.530"),
        ("LLMBar/Adversarial/Neighbor", "Falcon", "CoT", 132, NEIGHBOR_TABLE, "0.313"),
    ],
    ids=["mt-bench-gpt-4", "neighbor-falcon"],
)
def test_llmbar_per_class_scores(
    tmp_path: Path,
    dataset: str,
    evaluator: str,
    strategy: str,
    n: int,
    table: list[str],
    tie_as_zero: str,
) -> None:
    data = shared_data_path("llmbar", "verdicts.jsonl")
    out = tmp_path / "llmbar"
    subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "llmbar" / "to_judgekit.py"),
            *("--data", str(data), "--dataset", dataset, "--evaluator", evaluator),
            *("--strategy", strategy, "--out", str(out)),
        ],
        capture_output=True,
        check=True,
    )
    rubric = tmp_path / "rubrics" / "preference.yaml"
    rubric.parent.mkdir()
    shutil.copy(REPO / "rubrics" / "preference.yaml", rubric)
    args = ["calibrate", "--rubric", str(rubric), "--verdicts", str(out / "verdicts.jsonl")]
    args += ["--labels", str(out / "labels" / "preference.jsonl"), "--no-store"]
    args += ["--model", f"llmbar/{evaluator}", "--split", "all"]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["n"] == n
    scores = report["scale_errors"]

    gold, judged = _group(data, dataset, evaluator, strategy)
    precision, recall, f1, support = precision_recall_fscore_support(
        gold, judged, labels=CLASSES, zero_division=np.nan
    )
    for i, name in enumerate(CLASSES[:2]):
        got = scores["per_class"][name]
        assert [got["precision"], got["recall"], got["f1"]] == [precision[i], recall[i], f1[i]]
        assert (got["support"], got["predicted"]) == (support[i], judged.count(name))
    # No tie anywhere in LLMBar: every figure of the class is undefined, none a silent 0.
    assert scores["per_class"]["tie"] == {
        "precision": None,
        "recall": None,
        "f1": None,
        "support": 0,
        "predicted": 0,
    }
    macro = precision_recall_fscore_support(
        gold, judged, labels=CLASSES, zero_division=np.nan, average="macro"
    )
    assert [scores["macro"][k] for k in ("precision", "recall", "f1")] == pytest.approx(
        list(macro[:3]), abs=1e-15
    )
    # The same averages as over A and B alone, as LLMBar's data has no tie.
    two = precision_recall_fscore_support(gold, judged, labels=CLASSES[:2], average="macro")
    assert [scores["macro"][k] for k in ("precision", "recall", "f1")] == pytest.approx(
        list(two[:3]), abs=1e-15
    )
    # What scikit-learn's default (zero_division=0) would print: tie's F1 averaged in as 0.
    default = precision_recall_fscore_support(
        gold, judged, labels=CLASSES, average="macro", zero_division=0.0
    )
    assert statistic(default[2]) == tie_as_zero

    lines = CliRunner().invoke(main, args).stdout.splitlines()
    start = lines.index(table[0])
    assert lines[start : start + len(table)] == table
