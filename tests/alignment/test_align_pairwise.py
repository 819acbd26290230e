"""`judgekit align` on a pairwise rubric (rubrics/preference.yaml): examples carry both
answers, and the judge is asked in both orders as `judgekit judge` asks it."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.conftest import REPO

GOOD, BAD = "Done: exactly what was asked.", "Something else entirely."


def write_pairs(folder: Path) -> None:
    (folder / "rubrics").mkdir()
    (folder / "labels").mkdir()
    rubric = yaml.safe_load((REPO / "rubrics" / "preference.yaml").read_text(encoding="utf-8"))
    rubric["judge"]["model"] = "openai/pair-judge"
    (folder / "rubrics" / "preference.yaml").write_text(yaml.safe_dump(rubric), encoding="utf-8")
    runs, labels = [], []
    for index in range(40):
        kind = "recipe" if index % 2 else "poem"
        good_first = index % 4 < 2
        answers = [GOOD, BAD] if good_first else [BAD, GOOD]
        run_id = f"{kind}-{index:02d}"
        runs.append(
            {
                "run_id": run_id,
                "task_id": kind,
                "input": f"Write a {kind} about item {index}.",
                "tool_calls": [],
                "metadata": {"answers": answers},
            }
        )
        labels.append(
            {
                "run_id": run_id,
                "rubric_id": "preference",
                "label": "A" if good_first else "B",
                "labeler": "ana",
                "at": datetime(2026, 11, 30, tzinfo=UTC).isoformat(),
                "note": f"the {kind} that follows the instruction wins",
            }
        )
    (folder / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))
    (folder / "labels" / "preference.jsonl").write_text(
        "".join(json.dumps(label) + "\n" for label in labels)
    )


def judge(request: FakeRequest) -> str:
    """Picks the instruction-following answer, except that it picks the other one for a
    recipe unless it has seen a recipe among its examples."""
    system, user = request.messages[0]["content"], request.messages[1]["content"]
    answer_a = re.search(r"<untrusted_answer_a>\n(.*?)\n</untrusted_answer_a>", user, re.S)
    assert answer_a is not None
    score = "A" if answer_a.group(1) == GOOD else "B"
    if "Write a recipe" in user and "Write a recipe" not in system:
        score = "B" if score == "A" else "A"
    return json.dumps({"reason": "compared", "score": score})


def test_align_teaches_a_pairwise_judge_with_an_example_holding_both_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-pairs")
    write_pairs(tmp_path)
    with FakeLLMServer(reply=judge) as server:
        args = ["align", "runs.jsonl", "--rubric", "preference", "--folds", "4"]
        result = CliRunner().invoke(main, [*args, "--base-url", server.openai_base_url, "--json"])
        calls = server.calls
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert (report["dev"]["n"], report["dev"]["n_disagreements"]) == (20, 8)
    assert calls == 2 * 20 * 4  # both orders of every dev run: the current rubric and 3 candidates
    figures = [
        (row["name"], row["kappa"], row["gain"], row["gain_ci"]) for row in report["candidates"]
    ]
    assert figures == [
        ("current", pytest.approx(0.2), None, [None, None]),
        ("examples-2", 1.0, pytest.approx(0.8), pytest.approx([0.4, 1.2])),
        ("examples-4", 1.0, pytest.approx(0.8), pytest.approx([0.4, 1.2])),
        ("examples-8", 1.0, pytest.approx(0.8), pytest.approx([0.4, 1.2])),
    ]
    assert report["best"] == "examples-2"
    written = yaml.safe_load(Path("rubrics/preference.yaml").read_text(encoding="utf-8"))
    added = written["examples"][1:]
    assert all(
        set(example) == {"input", "answer_a", "answer_b", "label", "why"} for example in added
    )
    assert any(example["input"].startswith("Write a recipe") for example in added)
    # The rubric's own example is kept first.
    assert written["examples"][0]["answer_a"] == "Hat."
