"""`judgekit calibrate` on a pairwise (A/B/tie) rubric: per-class and macro precision, recall,
F1 and support in text, --md and --json, equal to scikit-learn's, undefined figures null
and said why."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result
from sklearn.metrics import precision_recall_fscore_support  # type: ignore[import-untyped]

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from tests.conftest import REPO

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
CLASSES = ["A", "B", "tie"]

# The judge never answers "tie": its precision is undefined, its recall and F1 are 0.
NEVER_TIE_HUMAN = ["A"] * 5 + ["B"] * 4 + ["tie"] * 3
NEVER_TIE_JUDGE = ["A", "A", "A", "A", "B", "B", "B", "B", "A", "A", "B", "B"]
# No human says "tie" but the judge does twice: its recall is undefined, its precision 0.
NO_HUMAN_TIE_HUMAN = ["A"] * 4 + ["B"] * 4
NO_HUMAN_TIE_JUDGE = ["A", "A", "A", "tie", "B", "B", "tie", "A"]


def _calibrate(root: Path, human: list[str], judge: list[str], *options: str) -> Result:
    """``calibrate --split all`` of a copy of rubrics/preference.yaml on these choices."""
    rubrics = root / "rubrics"
    rubrics.mkdir(exist_ok=True)
    rubric = rubrics / "preference.yaml"
    shutil.copy(REPO / "rubrics" / "preference.yaml", rubric)
    loaded = load_rubric(rubric)
    at = [(T0 + timedelta(minutes=i)).isoformat() for i in range(len(human))]
    verdicts = [
        {
            "run_id": f"pair/{i}",
            "rubric_id": "preference",
            "rubric_version": rubric_version(loaded),
            "model": loaded.judge.model,
            "status": "scored",
            "score": choice,
            "reason": f"{choice} follows the instruction better",
            "at": at[i],
        }
        for i, choice in enumerate(judge)
    ]
    labels = [
        {
            "run_id": f"pair/{i}",
            "rubric_id": "preference",
            "label": h,
            "labeler": "ana",
            "at": at[i],
        }
        for i, h in enumerate(human)
    ]
    (root / "labels").mkdir(exist_ok=True)
    (root / "verdicts.jsonl").write_text("".join(json.dumps(v) + "\n" for v in verdicts))
    (root / "labels" / "preference.jsonl").write_text("".join(json.dumps(x) + "\n" for x in labels))
    args = ["calibrate", "--rubric", str(rubric), "--verdicts", str(root / "verdicts.jsonl")]
    args += ["--labels", str(root / "labels" / "preference.jsonl"), "--no-store"]
    return CliRunner().invoke(main, [*args, "--split", "all", *options])


def _json(root: Path, human: list[str], judge: list[str]) -> dict[str, Any]:
    result = _calibrate(root, human, judge, "--json")
    assert result.exit_code == 0, result.output
    scores: dict[str, Any] = json.loads(result.stdout)["scale_errors"]
    return scores


def _sklearn(human: list[str], judge: list[str], **options: Any) -> Any:
    return precision_recall_fscore_support(
        human, judge, labels=CLASSES, zero_division=np.nan, **options
    )


def _null(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


@pytest.mark.parametrize(
    ("human", "judge"),
    [(NEVER_TIE_HUMAN, NEVER_TIE_JUDGE), (NO_HUMAN_TIE_HUMAN, NO_HUMAN_TIE_JUDGE)],
    ids=["judge-never-says-tie", "no-human-says-tie"],
)
def test_json_equals_sklearn(tmp_path: Path, human: list[str], judge: list[str]) -> None:
    scores = _json(tmp_path, human, judge)
    precision, recall, f1, support = _sklearn(human, judge)
    assert list(scores["per_class"]) == CLASSES
    for i, name in enumerate(CLASSES):
        got = scores["per_class"][name]
        # scikit-learn's own figures, unchanged on the way to JSON
        assert [got["precision"], got["recall"], got["f1"]] == [
            _null(precision[i]),
            _null(recall[i]),
            _null(f1[i]),
        ]
        assert got["support"] == support[i]
        assert got["predicted"] == judge.count(name)
    macro = _sklearn(human, judge, average="macro")
    assert [scores["macro"][k] for k in ("precision", "recall", "f1")] == pytest.approx(
        list(macro[:3]), abs=1e-15
    )


def test_a_class_the_judge_never_chose_has_no_precision(tmp_path: Path) -> None:
    scores = _json(tmp_path, NEVER_TIE_HUMAN, NEVER_TIE_JUDGE)
    assert scores["per_class"]["tie"] == {
        "precision": None,
        "recall": 0.0,
        "f1": 0.0,
        "support": 3,
        "predicted": 0,
    }
    # Left out of the macro precision, (2/3 + 1/2) / 2, not counted as 0 ((2/3 + 1/2) / 3).
    assert scores["macro"]["precision"] == pytest.approx(7 / 12, rel=1e-15)
    default = precision_recall_fscore_support(
        NEVER_TIE_HUMAN, NEVER_TIE_JUDGE, labels=CLASSES, average="macro", zero_division=0.0
    )
    assert default[0] == pytest.approx(7 / 18)


def test_a_class_no_human_chose_has_no_recall(tmp_path: Path) -> None:
    scores = _json(tmp_path, NO_HUMAN_TIE_HUMAN, NO_HUMAN_TIE_JUDGE)
    assert scores["per_class"]["tie"] == {
        "precision": 0.0,
        "recall": None,
        "f1": 0.0,
        "support": 0,
        "predicted": 2,
    }
    assert scores["macro"] == {"precision": 7 / 12, "recall": 0.625, "f1": pytest.approx(17 / 36)}


def test_text_shows_a_table_and_why_a_figure_is_undefined(tmp_path: Path) -> None:
    result = _calibrate(tmp_path, NEVER_TIE_HUMAN, NEVER_TIE_JUDGE)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = lines.index("per-class scores (human label = truth, judge's choice = prediction):")
    assert lines[start : start + 8] == [
        "per-class scores (human label = truth, judge's choice = prediction):",
        "  class  precision  recall     F1  support  judged",
        "  A          0.667   0.800  0.727        5       6",
        "  B          0.500   0.750  0.600        4       6",
        "  tie    undefined   0.000  0.000        3       0",
        "  macro      0.583   0.517  0.442",
        "  tie: precision undefined (the judge never chose it)",
        "  macro averages leave the undefined figures out (not counted as 0)",
    ]
    assert lines[start + 8] == "confusion (rows: human, columns: judge):"


def test_text_says_why_recall_is_undefined(tmp_path: Path) -> None:
    result = _calibrate(tmp_path, NO_HUMAN_TIE_HUMAN, NO_HUMAN_TIE_JUDGE)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    start = lines.index("  class  precision     recall     F1  support  judged")
    assert lines[start + 1 : start + 6] == [
        "  A          0.750      0.750  0.750        4       4",
        "  B          1.000      0.500  0.667        4       2",
        "  tie        0.000  undefined  0.000        0       2",
        "  macro      0.583      0.625  0.472",
        "  tie: recall undefined (no human label in it)",
    ]


def test_markdown_has_the_table(tmp_path: Path) -> None:
    result = _calibrate(tmp_path, NEVER_TIE_HUMAN, NEVER_TIE_JUDGE, "--md")
    assert result.exit_code == 0, result.output
    assert (
        "\n\n**Per-class scores (human label = truth, judge's choice = prediction)**\n\n"
        "| class | precision | recall | F1 | support | judged |\n"
        "| --- | ---: | ---: | ---: | ---: | ---: |\n"
        "| A | 0.667 | 0.800 | 0.727 | 5 | 6 |\n"
        "| B | 0.500 | 0.750 | 0.600 | 4 | 6 |\n"
        "| tie | undefined | 0.000 | 0.000 | 3 | 0 |\n"
        "| macro | 0.583 | 0.517 | 0.442 |  |  |\n\n"
        "- tie: precision undefined (the judge never chose it)\n"
        "- macro averages leave the undefined figures out (not counted as 0)\n\n"
        "**Confusion** (rows: human, columns: judge)\n"
    ) in result.stdout


def test_every_figure_defined_needs_no_note(tmp_path: Path) -> None:
    human = ["A", "A", "B", "B", "tie", "tie"]
    judge = ["A", "B", "B", "B", "tie", "A"]
    text = _calibrate(tmp_path, human, judge).stdout
    assert "  macro      0.722   0.667  0.656\n" in text
    assert "undefined (" not in text and "macro averages leave" not in text
    markdown = _calibrate(tmp_path, human, judge, "--md").stdout
    assert "| macro | 0.722 | 0.667 | 0.656 |  |  |\n\n**Confusion**" in markdown


def test_a_class_in_neither_the_labels_nor_the_choices(tmp_path: Path) -> None:
    human = ["A", "A", "A", "B", "B", "B"]
    judge = ["A", "A", "B", "B", "B", "A"]
    scores = _json(tmp_path, human, judge)
    assert scores["per_class"]["tie"] == {
        "precision": None,
        "recall": None,
        "f1": None,
        "support": 0,
        "predicted": 0,
    }
    # As scikit-learn averages over A and B alone; counting tie as 0 would print 0.444.
    assert scores["macro"] == pytest.approx({"precision": 2 / 3, "recall": 2 / 3, "f1": 2 / 3})
    counted = precision_recall_fscore_support(
        human, judge, labels=CLASSES, average="macro", zero_division=0.0
    )
    assert list(counted[:3]) == pytest.approx([4 / 9] * 3)
    lines = _calibrate(tmp_path, human, judge).stdout.splitlines()
    start = lines.index("  class  precision     recall         F1  support  judged")
    assert lines[start + 3 : start + 7] == [
        "  tie    undefined  undefined  undefined        0       0",
        "  macro      0.667      0.667      0.667",
        "  tie: precision, recall and F1 undefined (neither a human label nor the judge's choice)",
        "  macro averages leave the undefined figures out (not counted as 0)",
    ]
    markdown = _calibrate(tmp_path, human, judge, "--md").stdout
    assert (
        "| tie | undefined | undefined | undefined | 0 | 0 |\n"
        "| macro | 0.667 | 0.667 | 0.667 |  |  |\n\n"
        "- tie: precision, recall and F1 undefined (neither a human label nor the judge's choice)\n"
    ) in markdown
