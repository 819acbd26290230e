"""examples/llmbar/to_judgekit.py on the real LLMBar data, then `judgekit calibrate`.

The MT-Bench expert subset judged by GPT-4 (Vanilla_NoRules): 200 items, no missing choice.
Skipped without ../shared/data.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from scipy.stats import binom, binomtest  # type: ignore[import-untyped]
from sklearn.metrics import cohen_kappa_score as sklearn_kappa  # type: ignore[import-untyped]

from judgekit.cli import main
from judgekit.stats import cohen_kappa_score
from judgekit.stats.proportions import wilson_interval
from tests.conftest import REPO, shared_data_path

GROUP = ("Processed/MT-Bench", "GPT-4", "Vanilla_NoRules")


def _group_rows(path: Path) -> list[dict[str, object]]:
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    return [r for r in rows if (r["dataset"], r["evaluator"], r["strategy"]) == GROUP]


def test_llmbar_mtbench_gpt4_through_calibrate(tmp_path: Path) -> None:
    data = shared_data_path("llmbar", "verdicts.jsonl")
    published_path = shared_data_path("llmbar", "published_statistics.jsonl")
    out = tmp_path / "llmbar"
    dataset, evaluator, strategy = GROUP
    script = subprocess.run(
        [
            sys.executable,
            str(REPO / "examples" / "llmbar" / "to_judgekit.py"),
            "--data",
            str(data),
            "--published",
            str(published_path),
            "--dataset",
            dataset,
            "--evaluator",
            evaluator,
            "--strategy",
            strategy,
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "position-bias rate 0.130 (of 200 items with both orders judged)" in script.stdout
    assert "correct_False 159/200, correct_True 165/200, correct_both 149/200" in script.stdout

    rubric = tmp_path / "rubrics" / "preference.yaml"
    rubric.parent.mkdir()
    shutil.copy(REPO / "rubrics" / "preference.yaml", rubric)
    args = [
        "calibrate",
        "--rubric",
        str(rubric),
        "--verdicts",
        str(out / "verdicts.jsonl"),
        "--labels",
        str(out / "labels" / "preference.jsonl"),
        "--model",
        "llmbar/GPT-4",
        "--no-store",
        "--split",
        "all",  # every label, to check the figures against LLMBar's published ones
    ]
    result = CliRunner().invoke(main, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    # Pairwise: every verdict is scored, though no pass rate is computed; all 41 listed.
    assert (report["n_scored_verdicts"], report["n_unlabelled"]) == (200, 0)
    assert len(report["disagreements"]) == 41
    console = CliRunner().invoke(main, args).stdout.splitlines()
    start = console.index("disagreements: 41 (10 shown, natural order of run id)")
    assert console[start + 1] == "  mt-bench-0012: human B, judge A"
    assert console[start + 31] == (
        "  ... 31 more: --disagreements all lists every one; --json always has all"
    )
    markdown = CliRunner().invoke(main, [*args, "--md"]).stdout
    assert markdown.count("| `mt-bench-") == 41 and "not shown" not in markdown
    assert (report["model"], report["n"], report["n_unscored"]) == ("llmbar/GPT-4", 200, 0)
    assert report["labelers"]["mtbench-expert"]["compared"] == 200
    assert report["agreement"] == pytest.approx(159 / 200)
    assert report["confusion"]["A"] == {"A": 81, "B": 20, "tie": 0}
    assert report["confusion"]["B"] == {"A": 21, "B": 78, "tie": 0}
    assert report["kappa"] == pytest.approx(0.5899179835967193, abs=1e-12)
    assert report["kappa_ci"] == pytest.approx([0.47800523957544605, 0.7018307276179926])

    rows = _group_rows(data)
    first = [str(r["winner_swap_false"]) for r in rows]
    swapped = [str(r["winner_swap_true"]) for r in rows]
    gold = [str(r["label"]) for r in rows]
    # Position bias: the choice changed when the two outputs swapped places.
    flips = sum(a != b for a, b in zip(first, swapped, strict=True))
    assert flips == 26
    assert report["position_bias"]["checked"] == 200
    assert report["position_bias"]["flipped"] == flips
    assert report["position_bias"]["ci"] == pytest.approx(list(wilson_interval(26, 200)))
    # The report's kappa is sklearn's kappa of the original-order choice against the gold.
    assert report["kappa"] == pytest.approx(sklearn_kappa(gold, first), abs=1e-12)
    published = next(
        json.loads(line)["statistics"]
        for line in published_path.open(encoding="utf-8")
        if tuple(json.loads(line)[k] for k in ("dataset", "evaluator", "strategy")) == GROUP
    )
    # Self-consistency (original vs swapped order) is LLMBar's kappa_agreement, exactly.
    assert cohen_kappa_score(first, swapped) == published["kappa_agreement"]
    assert published["correct_False"].startswith("159 / 200 ")
    equal = sum(a == b for a, b in zip(first, swapped, strict=True))
    assert published["equal"] == f"{equal} / 200 = 87.0%"
    # LLMBar's kappa_False is not Cohen's kappa against the gold label (0.199 vs 0.590).
    assert published["kappa_False"] != pytest.approx(report["kappa"], abs=0.1)

    # Selective judging on real data: the two orders are two samples, so a verdict is sure
    # (confidence 1) where they agree and half sure where the choice followed the position.
    sure = [a == b for a, b in zip(first, swapped, strict=True)]
    right = [a == g for a, g in zip(first, gold, strict=True)]
    kept_right = sum(r for r, s in zip(right, sure, strict=True) if s)
    assert (sum(sure), kept_right) == (174, 149)  # 0.856 where sure, 10 of 26 where not
    by_alpha = {row["alpha"]: row for row in report["selective"]["by_alpha"]}
    # At α = 0.2, δ = 0.1: keeping the 174 sure verdicts passes the exact binomial test
    # (P(Bin(174, 0.2) ≤ 25 errors) ≤ 0.1).
    assert binom.cdf(174 - kept_right, 174, 0.2) <= 0.1
    assert by_alpha[0.2]["threshold"] == 1.0 and by_alpha[0.2]["kept"] == 174
    assert by_alpha[0.2]["agreement_on_kept"] == pytest.approx(149 / 174)
    upper = binomtest(174 - kept_right, 174, alternative="less").proportion_ci(0.9).high
    assert by_alpha[0.2]["guaranteed_agreement"] == pytest.approx(1 - upper, abs=1e-9)
    # At α = 0.15 even the sure verdicts do not pass: no threshold, nothing promised.
    assert binom.cdf(174 - kept_right, 174, 0.15) > 0.1
    assert by_alpha[0.15]["threshold"] is None and by_alpha[0.15]["coverage"] == 0.0


def test_gpt4_is_right_where_its_two_orders_agree_and_guesses_where_they_do_not() -> None:
    """The pooled figures docs/explanation/selective.md quotes: every LLMBar group GPT-4
    judged, both orders read."""
    with shared_data_path("llmbar", "verdicts.jsonl").open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh]
    sure, unsure = [0, 0], [0, 0]  # [verdicts, right]
    for row in rows:
        first, swapped = row["winner_swap_false"], row["winner_swap_true"]
        if row["evaluator"] != "GPT-4" or first is None or swapped is None:
            continue
        tally = sure if first == swapped else unsure
        tally[0] += 1
        tally[1] += str(first) == str(row["label"])
    assert sure[0] == 7773 and round(sure[1] / sure[0], 3) == 0.845
    assert unsure[0] == 1001 and round(unsure[1] / unsure[0], 3) == 0.493
