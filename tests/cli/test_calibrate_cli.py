"""`judgekit calibrate` and `judgekit promote` on hand-made verdicts and labels."""

from __future__ import annotations

import json
import math
import shutil
import statistics
import warnings
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner, Result
from sklearn.exceptions import UndefinedMetricWarning  # type: ignore[import-untyped]
from sklearn.metrics import cohen_kappa_score  # type: ignore[import-untyped]

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.run import load_runs
from judgekit.formats.verdict import Verdict
from judgekit.labelling.plan import items_for
from judgekit.stats import kappa_sample_size, kappa_standard_error
from tests.conftest import REPO

MODEL = "openai/gpt-4o-mini"
T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
# A split putting every run on one side is one assigned under a test share of 0 or 1.
SHARE_OF = {"dev": 0.0, "test": 1.0}

REPORT_KEYS = {
    "rubric_id",
    "rubric_version",
    "model",
    "judge",
    "scale",
    "n",
    "n_unscored",
    "n_tied",
    "n_tied_against_judge",
    "n_labelled_runs",
    "n_verdicts",
    "n_labelled_without_verdict",
    "n_other_versions",
    "n_other_models",
    "unscored_rate",
    "class_balance",
    "agreement",
    "kappa",
    "kappa_ci",
    "kappa_se",
    "confidence",
    "interval_method",
    "ac1",
    "weighted_kappa",
    "confusion",
    "false_pass_rate",
    "false_pass_ci",
    "false_fail_rate",
    "false_fail_ci",
    "self_agreement",
    "labelers",
    "stale_labels",
    "disagreements",
    "policy",
    "promotable",
    "criteria",
    "labels_needed",
    "sources",
    "warnings",
    "raw_pass_rate",
    "n_scored_verdicts",
    "sensitivity",
    "specificity",
    "corrected_pass_rate",
    "corrected_pass_rate_clipped",
    "ppi_pass_rate",
    "n_unlabelled",
    "comparison",
    "position_bias",
    "measured_on",
    "split",
    "scale_errors",
    "selective",
    "confidence_calibration",
    "jury",  # each juror's figures, for a jury rubric; null for one judge
}
RECORD_KEYS = {
    "rubric_id",
    "rubric_version",
    "promotable",
    "model",
    "judge",
    "n",
    "n_unscored",
    "n_tied",
    "class_balance",
    "agreement",
    "kappa",
    "kappa_ci",
    "interval_method",
    "ac1",
    "confusion",
    "false_pass_rate",
    "false_fail_rate",
    "unscored_rate",
    "policy",
    "criteria",
    "labelers",
    "split",
    "confidence_calibration",
    "promoted_at",
    "evidence",
    "sources",
    "stored_in",
    "digest",
}


class Workspace:
    """A rubrics/ and labels/ folder in tmp_path, with a verdicts file beside them."""

    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "rubrics").mkdir()
        shutil.copy(REPO / "rubrics" / "goal_completion.yaml", root / "rubrics")
        self.rubric = root / "rubrics" / "goal_completion.yaml"
        self.labels = root / "labels" / "goal_completion.jsonl"
        self.split = root / "labels" / "goal_completion.split.jsonl"
        self.labels.parent.mkdir()
        self.verdicts = root / "verdicts.jsonl"
        self.version = rubric_version(load_rubric(self.rubric))
        self.record = root / "rubrics" / "goal_completion.promotion.json"

    def verdict(
        self,
        run_id: str,
        score: str | None,
        *,
        version: str | None = None,
        model: str = MODEL,
        reason: str | None = None,
        minute: int = 0,
        samples: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        row: dict[str, Any] = {
            "run_id": run_id,
            "rubric_id": "goal_completion",
            "rubric_version": version or self.version,
            "model": model,
            "status": "unscored" if score is None else "scored",
            "score": score,
            "reason": reason or f"judged {score}",
            "at": (T0 + timedelta(minutes=minute)).isoformat(),
        }
        if score is None:
            row["unscored_reason"] = "not JSON"
        if samples is not None:
            row["samples"] = [{"score": s} for s in samples]
            row["agreement"] = samples.count(score) / len(samples)  # type: ignore[arg-type]
        return row

    def label(
        self,
        run_id: str,
        label: str,
        labeler: str = "ana",
        *,
        note: str | None = None,
        minute: int = 0,
        item_hash: str | None = None,
    ) -> dict[str, Any]:
        row: dict[str, Any] = {
            "run_id": run_id,
            "rubric_id": "goal_completion",
            "label": label,
            "labeler": labeler,
            "at": (T0 + timedelta(minutes=minute)).isoformat(),
        }
        if note is not None:
            row["note"] = note
        if item_hash is not None:
            row["item_hash"] = item_hash
        return row

    def write(
        self, verdicts: list[dict[str, Any]], labels: list[dict[str, Any]], side: str = "dev"
    ) -> None:
        """Write the verdicts and labels, and a split putting every labelled run on ``side``
        (these tests are about the figures: calibrate measures dev, promote fresh test)."""
        self.verdicts.write_text("".join(json.dumps(v) + "\n" for v in verdicts))
        self.labels.write_text("".join(json.dumps(x) + "\n" for x in labels))
        runs = dict.fromkeys(x["run_id"] for x in labels)
        at = T0.isoformat()
        self.split.write_text(
            "".join(
                json.dumps({"run_id": r, "side": side, "test_share": SHARE_OF[side], "at": at})
                + "\n"
                for r in runs
            )
        )

    def invoke(self, command: str, *args: str) -> Result:
        return CliRunner().invoke(
            main,
            [
                command,
                "--rubric",
                str(self.rubric),
                "--verdicts",
                str(self.verdicts),
                "--labels",
                str(self.labels),
                *args,
            ],
        )

    def report(self, *args: str) -> dict[str, Any]:
        result = self.invoke("calibrate", "--json", *args)
        assert result.exit_code == 0, result.output
        data: dict[str, Any] = json.loads(result.stdout)
        return data

    def status(self) -> dict[str, str]:
        result = CliRunner().invoke(
            main, ["rubrics", "--dir", str(self.root / "rubrics"), "--json"]
        )
        assert result.exit_code == 0, result.output
        rows: list[dict[str, str]] = json.loads(result.stdout)["rubrics"]
        return next(row for row in rows if row["id"] == "goal_completion")


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return Workspace(tmp_path)


# Ten compared runs: humans pass r0-r5 and fail r6-r9; the judge fails r5 and passes r9.
HUMAN = ["pass"] * 6 + ["fail"] * 4
JUDGE = ["pass"] * 5 + ["fail"] + ["fail"] * 3 + ["pass"]


def small_case(ws: Workspace) -> None:
    verdicts = [ws.verdict(f"r{i}", JUDGE[i]) for i in range(10)]
    verdicts[5]["reason"] = "the refund is not confirmed"
    verdicts += [
        ws.verdict("r0", "fail", version="0123456789ab"),  # another rubric version: left out
        ws.verdict("r1", "fail", version="0123456789ab"),
        ws.verdict("r2", "fail", model="anthropic/claude-x"),  # another model: left out
        ws.verdict("r10", "pass"),  # tied labels
        ws.verdict("r11", None),  # unscored
        ws.verdict("r13", "pass"),  # no label
    ]
    labels = [ws.label("r0", "fail", minute=0), ws.label("r0", "pass", minute=5)]  # relabelled
    labels += [ws.label(f"r{i}", HUMAN[i]) for i in range(1, 10)]
    labels[6]["note"] = "refund issued, says so"  # r5
    labels += [
        ws.label("r1", "pass", "ben"),  # agrees with ana
        ws.label("r6", "fail", "ben"),
        ws.label("r6", "pass", "cy"),  # r6: fail 2 to 1, majority fail
        ws.label("r10", "pass", "ana"),
        ws.label("r10", "fail", "ben"),  # r10: a tie, left out
        ws.label("r11", "pass", "ana"),
        ws.label("r12", "fail", "ana"),  # no verdict
    ]
    ws.write(verdicts, labels)


def test_report_figures_match_sklearn(ws: Workspace) -> None:
    small_case(ws)
    data = ws.report()
    assert set(data) == REPORT_KEYS
    assert data["rubric_id"] == "goal_completion"
    assert data["rubric_version"] == ws.version
    assert data["model"] == MODEL
    assert data["n"] == 10
    assert data["n_unscored"] == 1
    assert data["n_tied"] == 1
    assert data["n_labelled_runs"] == 13
    assert data["n_labelled_without_verdict"] == 1
    assert data["n_other_versions"] == 2
    assert data["n_other_models"] == 1
    assert data["unscored_rate"] == pytest.approx(1 / 12)
    assert data["agreement"] == pytest.approx(0.8)
    # p_o = 0.8, p_e = 0.6·0.6 + 0.4·0.4 = 0.52, kappa = 0.28 / 0.48
    assert data["kappa"] == pytest.approx(7 / 12)
    assert data["kappa"] == pytest.approx(cohen_kappa_score(HUMAN, JUDGE))
    low, high = data["kappa_ci"]
    assert low < data["kappa"] < high
    assert data["confusion"] == {"pass": {"pass": 5, "fail": 1}, "fail": {"pass": 1, "fail": 3}}
    assert data["false_pass_rate"] == pytest.approx(1 / 4)
    assert data["false_fail_rate"] == pytest.approx(1 / 6)
    assert data["class_balance"] == {
        "human": {"pass": 6, "fail": 4},
        "judge": {"pass": 6, "fail": 4},
    }
    assert data["labelers"]["ana"] == {"labels": 13, "compared": 10, "agreement_with_judge": 0.8}
    assert data["labelers"]["ben"]["compared"] == 2
    assert data["labelers"]["cy"] == {"labels": 1, "compared": 1, "agreement_with_judge": 0.0}
    assert data["self_agreement"] is None
    assert data["stale_labels"] is None
    assert data["promotable"] is False
    assert data["criteria"]["min_labels"] == {
        "value": 10,
        "bar": 50,
        "met": False,
        "short_by": 40,
        "what": "runs compared",
    }
    assert data["criteria"]["min_per_class"]["value"] == 4
    assert data["criteria"]["min_kappa"]["value"] == pytest.approx(low)
    assert data["criteria"]["min_kappa"]["bar"] == 0.6
    assert [d["run_id"] for d in data["disagreements"]] == ["r5", "r9"]
    assert data["disagreements"][0] == {
        "run_id": "r5",
        "human": "pass",
        "judge": "fail",
        "reason": "the refund is not confirmed",
        "notes": {"ana": "refund issued, says so"},
    }


def test_human_readable_report(ws: Workspace) -> None:
    small_case(ws)
    result = ws.invoke("calibrate")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == f"goal_completion (version {ws.version}, judge {MODEL}): 10 runs compared"
    assert "agreement 0.800" in lines
    assert any(line.startswith("kappa 0.583 [") and "(95%, analytic)" in line for line in lines)
    assert "false pass rate 0.250" in result.stdout
    assert "1 unscored left out (unscored rate 8.3%)" in result.stdout
    assert "2 of other versions and 1 of other models left out" in result.stdout
    assert "1 runs with tied labels left out" in result.stdout
    assert "judge self-agreement: not measured (sampled once per run)" in lines
    assert "disagreements: 2" in lines
    assert "  r5: human pass, judge fail" in lines
    assert "    judge: the refund is not confirmed" in lines
    assert "    labeller: ana: refund issued, says so" in lines
    assert "promotion: not yet" in lines
    assert "  [not met] min_labels: runs compared 10, bar 50 (40 short)" in lines
    assert any(line.startswith("about ") or "will not clear" in line for line in lines)


def test_markdown_shape(ws: Workspace) -> None:
    small_case(ws)
    result = ws.invoke("calibrate", "--md")
    assert result.exit_code == 0, result.output
    text = result.stdout
    assert text.startswith("### Judge calibration: `goal_completion` — ⏳ not yet promotable")
    assert "| agreement | 0.800 |" in text
    assert "| human \\ judge | pass | fail |" in text
    assert "| pass | 5 | 1 |" in text
    assert "- ❌ min_labels: runs compared 10, bar 50 (40 short)" in text
    assert "<details><summary>2 disagreements</summary>" in text
    assert (
        "| `r5` | pass | fail | the refund is not confirmed | ana: refund issued, says so |" in text
    )


def balanced_case(
    ws: Workspace, n_per_class: int, wrong_per_class: int, side: str = "test"
) -> None:
    verdicts, labels = [], []
    for cls, other in (("pass", "fail"), ("fail", "pass")):
        for i in range(n_per_class):
            run = f"{cls}-{i}"
            verdicts.append(
                ws.verdict(run, other if i < wrong_per_class else cls, samples=[cls, cls, other])
            )
            labels.append(ws.label(run, cls))
    ws.write(verdicts, labels, side)


def test_promotion_refused_then_granted_then_stale(ws: Workspace) -> None:
    assert ws.status()["status"] == "draft"
    balanced_case(ws, n_per_class=8, wrong_per_class=1)
    assert ws.status()["status"] == "calibrating"
    refused = ws.invoke("promote")
    assert refused.exit_code == 1, refused.output
    assert "not promoted" in refused.stdout
    assert "min_labels: runs compared 16, bar 50 (34 short)" in refused.stdout
    assert "min_per_class: fewest human labels in a class (pass) 8, bar 10 (2 short)" in (
        refused.stdout
    )
    assert (
        "measured on 16 fresh test labels (0 spent, 0 dev held for calibrate): `judgekit "
        "label` must add about 68 more labels (a share 0.5 of new labels goes to test)"
    ) in refused.stdout.splitlines()
    assert not ws.record.exists()
    # kappa 0.75 on 16 labels: the sample-size helper says how many more clear the bar.
    human, judge = _pairs(8, 1)
    more = kappa_sample_size(0.75, 16, bar=0.6, standard_error=kappa_standard_error(human, judge))
    assert more is not None and more > 0
    assert f"about {more} more labels would bring the kappa interval's lower bound to 0.6" in (
        refused.stdout
    )
    assert ws.report("--split", "test")["labels_needed"] == {
        "for_min_labels": 34,
        "for_kappa": more,
        "kappa_reachable": True,
    }

    balanced_case(ws, n_per_class=30, wrong_per_class=2)
    granted = ws.invoke("promote")
    assert granted.exit_code == 0, granted.output
    assert "promoted on 60 fresh test labels" in granted.stdout
    record = json.loads(ws.record.read_text())
    assert set(record) == RECORD_KEYS
    assert record["rubric_version"] == ws.version
    assert record["promotable"] is True
    assert record["n"] == 60
    assert record["model"] == MODEL
    assert record["judge"] == {
        "model": MODEL,
        "temperature": 0.0,
        "samples": 1,
        "confidence": "samples",
    }
    assert record["kappa"] == pytest.approx(cohen_kappa_score(*_pairs(30, 2)))
    assert record["kappa_ci"][0] >= 0.6
    assert record["policy"] == {
        "min_labels": 50,
        "min_per_class": 10,
        "min_kappa": 0.6,
        "confidence": 0.95,
        "test_share": 0.5,
        "selective": None,
        "max_flip_rate": None,
        "max_ece": None,
    }
    assert record["labelers"] == {"ana": 60}
    assert record["split"] == {
        "file": str(ws.split),
        "test_share": 0.5,
        "n_dev": 0,
        "n_test": 60,
        "n_test_fresh": 60,
        "n_test_spent": 0,
        "test_relabelled": [],
        "test_tied": [],
        "test_runs": [f"fail-{i}" for i in range(30)] + [f"pass-{i}" for i in range(30)],
    }
    assert all(c["met"] for c in record["criteria"].values())
    assert ws.status()["status"] == "promoted"

    data = ws.report("--split", "test")
    assert data["promotable"] is True
    # 56 verdicts agree with 2 of their 3 samples, the 4 wrong ones with 1 of 3.
    mean = (56 * 2 + 4 * 1) / (3 * 60)
    assert data["self_agreement"] == {"mean": pytest.approx(mean), "runs": 60, "samples": 3}

    ws.rubric.write_text(ws.rubric.read_text().replace("temperature: 0", "temperature: 0.2"))
    row = ws.status()
    assert row["status"] == "stale"
    assert row["why"] == f"promoted at version {ws.version}, now {row['version']}"


def _pairs(n_per_class: int, wrong: int) -> tuple[list[str], list[str]]:
    human = ["pass"] * n_per_class + ["fail"] * n_per_class
    judge = (
        ["fail"] * wrong
        + ["pass"] * (n_per_class - wrong)
        + ["pass"] * wrong
        + ["fail"] * (n_per_class - wrong)
    )
    return human, judge


def test_promote_json_when_refused(ws: Workspace) -> None:
    balanced_case(ws, n_per_class=8, wrong_per_class=1)
    result = ws.invoke("promote", "--json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert data["promoted"] is False
    assert data["criteria"]["min_labels"]["short_by"] == 34
    assert not ws.record.exists()


def test_stale_labels_reported(ws: Workspace) -> None:
    runs = ws.root / "runs.jsonl"
    rows = [
        {"run_id": f"r{i}", "task_id": "t", "tool_calls": [], "final_answer": f"done {i}"}
        for i in range(2)
    ]
    runs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    hashes = {item.run.run_id: item.hash for item in items_for(load_runs(runs))}
    ws.write(
        [ws.verdict("r0", "pass"), ws.verdict("r1", "fail")],
        [
            ws.label("r0", "pass", item_hash=hashes["r0"]),
            ws.label("r1", "fail", item_hash="0" * 64),  # labelled on another text
        ],
    )
    data = ws.report("--runs", str(runs))
    assert data["stale_labels"] == [{"run_id": "r1", "labeler": "ana"}]
    assert data["n"] == 2  # stale labels are reported, not dropped
    text = ws.invoke("calibrate", "--runs", str(runs)).stdout
    assert "stale labels: 1 (the run changed since it was labelled; relabel them): r1 (ana)" in text


def test_unscored_verdicts_are_excluded_and_counted(ws: Workspace) -> None:
    ws.write(
        [ws.verdict("a", "pass"), ws.verdict("b", "fail"), ws.verdict("c", None)],
        [ws.label("a", "pass"), ws.label("b", "pass"), ws.label("c", "fail")],
    )
    data = ws.report()
    assert (data["n"], data["n_unscored"]) == (2, 1)
    assert data["unscored_rate"] == pytest.approx(1 / 3)
    assert data["confusion"] == {"pass": {"pass": 1, "fail": 1}, "fail": {"pass": 0, "fail": 0}}


def test_latest_verdict_of_a_run_wins(ws: Workspace) -> None:
    ws.write(
        [ws.verdict("a", "fail", minute=0), ws.verdict("a", "pass", minute=1)],
        [ws.label("a", "pass")],
    )
    assert ws.report()["agreement"] == 1.0


def test_no_overlap_is_one_line_exit_2(ws: Workspace) -> None:
    ws.write(
        [
            ws.verdict("a", "pass"),
            ws.verdict("b", "pass"),
            ws.verdict("z", "fail", version="x" * 12),
        ],
        [ws.label("c", "pass")],
    )
    result = ws.invoke("calibrate")
    assert result.exit_code == 2
    assert result.stderr.strip() == (
        f"judgekit: error: no run of goal_completion (version {ws.version}, judge {MODEL}) has "
        "both a label and a verdict: 1 labelled runs, 2 verdicts of this version "
        "(1 of other versions left out)"
    )
    assert "Traceback" not in result.output


def test_missing_labels_file_is_exit_2(ws: Workspace) -> None:
    ws.write([ws.verdict("a", "pass")], [])
    ws.labels.unlink()
    result = ws.invoke("calibrate")
    assert result.exit_code == 2
    assert "no labels for goal_completion" in result.stderr


def test_model_option_selects_that_judge(ws: Workspace) -> None:
    other = "anthropic/claude-x"
    rubric = load_rubric(ws.rubric)
    other_version = rubric_version(
        rubric.model_copy(update={"judge": rubric.judge.model_copy(update={"model": other})})
    )
    ws.write(
        [ws.verdict("a", "fail"), ws.verdict("a", "pass", model=other, version=other_version)],
        [ws.label("a", "pass")],
    )
    data = ws.report("--model", other)
    assert (data["model"], data["rubric_version"], data["agreement"]) == (
        other,
        other_version,
        1.0,
    )
    assert ws.report()["agreement"] == 0.0


def test_verdicts_from_the_store(ws: Workspace) -> None:
    from judgekit.store import open_store

    with open_store() as store:
        store.record_verdicts(
            [
                Verdict.model_validate(ws.verdict("a", "pass")),
                Verdict.model_validate(ws.verdict("b", "pass")),
            ]
        )
    ws.labels.write_text(
        json.dumps(ws.label("a", "pass")) + "\n" + json.dumps(ws.label("b", "fail")) + "\n"
    )
    args = ["calibrate", "--rubric", str(ws.rubric), "--labels", str(ws.labels)]
    result = CliRunner().invoke(main, [*args, "--json", "--split", "all"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert (data["n"], data["agreement"]) == (2, 0.5)
    assert data["sources"]["verdicts"].startswith("store ")


def _mean(xs: Sequence[float]) -> float:
    return sum(xs) / len(xs)


def test_corrected_pass_rates_over_all_scored_verdicts(ws: Workspace) -> None:
    # The ten labelled runs of small_case's HUMAN/JUDGE, and five runs nobody labelled.
    unlabelled = ["pass", "pass", "fail", "pass", "fail"]
    verdicts = [ws.verdict(f"r{i}", JUDGE[i]) for i in range(10)]
    verdicts += [ws.verdict(f"u{i}", s) for i, s in enumerate(unlabelled)]
    verdicts += [
        ws.verdict("u5", None),  # unscored: not in any rate
        ws.verdict("u6", "pass", version="0123456789ab"),  # another version: left out
        ws.verdict("u7", "pass", model="anthropic/claude-x"),  # another model: left out
    ]
    ws.write(verdicts, [ws.label(f"r{i}", HUMAN[i]) for i in range(10)])
    data = ws.report()

    raw = (6 + 3) / 15  # judge passes 6 of the labelled and 3 of the unlabelled runs
    sensitivity, specificity = 5 / 6, 3 / 4  # humans pass 6 (judge passes 5), fail 4 (3)
    assert data["n_scored_verdicts"] == 15
    assert data["n_unlabelled"] == 5
    assert data["raw_pass_rate"] == pytest.approx(raw)
    assert data["sensitivity"] == pytest.approx(sensitivity)
    assert data["specificity"] == pytest.approx(specificity)
    assert data["corrected_pass_rate"] == pytest.approx(
        (raw + specificity - 1) / (sensitivity + specificity - 1)
    )
    # Plain PPI: mean of the judge on the unlabelled runs plus the mean rectifier Y - f.
    y = [float(h == "pass") for h in HUMAN]
    f = [float(j == "pass") for j in JUDGE]
    fu = [float(s == "pass") for s in unlabelled]
    rectifier = [a - b for a, b in zip(y, f, strict=True)]
    estimate = _mean(fu) + _mean(rectifier)
    se = math.sqrt(statistics.variance(fu) / 5 + statistics.variance(rectifier) / 10)
    z = statistics.NormalDist().inv_cdf(0.975)
    ppi = data["ppi_pass_rate"]
    assert ppi["estimate"] == pytest.approx(estimate)  # 0.6: the rectifier's mean is 0
    assert ppi["low"] == pytest.approx(estimate - z * se)
    assert estimate + z * se == pytest.approx(1.162, abs=5e-4)  # past 1: clipped
    assert (ppi["high"], ppi["clipped"]) == (1.0, True)
    assert data["corrected_pass_rate_clipped"] is False

    text = ws.invoke("calibrate").stdout
    assert f"judge pass rate (raw) {raw:.3f} (of 15 scored verdicts)" in text
    assert "pass rate corrected (Rogan-Gladen) 0.600 (sensitivity 0.833, specificity 0.750)" in (
        text
    )
    assert (
        f"pass rate, prediction-powered 0.600 [{estimate - z * se:.3f}, "
        "1.000] (95%, 5 unlabelled; clipped to [0, 1])" in text
    )
    md = ws.invoke("calibrate", "--md").stdout
    assert "| pass rate corrected (Rogan-Gladen) | 0.600 (sensitivity 0.833" in md


def test_pass_rates_when_nothing_is_unlabelled(ws: Workspace) -> None:
    small_case(ws)
    data = ws.report()
    # r10 (tied labels) and r13 (no label) are the runs with no usable label: both passed.
    assert (data["n_scored_verdicts"], data["n_unlabelled"]) == (12, 2)
    ws.write([ws.verdict("a", "pass"), ws.verdict("b", "fail")], [ws.label("a", "pass")])
    data = ws.report()
    assert (data["n_scored_verdicts"], data["n_unlabelled"], data["ppi_pass_rate"]) == (2, 1, None)
    assert data["corrected_pass_rate"] is None  # no human fail: specificity undefined
    assert data["raw_pass_rate"] == 0.5


def _other_version(ws: Workspace, model: str) -> str:
    rubric = load_rubric(ws.rubric)
    return rubric_version(
        rubric.model_copy(update={"judge": rubric.judge.model_copy(update={"model": model})})
    )


# Twelve labelled runs judged by two models. A (the rubric's model) is HUMAN/JUDGE above plus
# two more runs; B gets r5 and r9 right (where A is wrong) but r0, r1, r6, r10 wrong.
HUMAN_12 = [*HUMAN, "pass", "fail"]
JUDGE_A = [*JUDGE, "pass", "fail"]
JUDGE_B = [
    "fail",
    "fail",
    "pass",
    "pass",
    "pass",
    "pass",
    "pass",
    "fail",
    "fail",
    "fail",
    "fail",
    "fail",
]


def _binomial_p(k: int, n: int) -> float:
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n)


def test_compare_two_judge_models_on_the_same_runs(ws: Workspace) -> None:
    other = "anthropic/claude-x"
    version_b = _other_version(ws, other)
    verdicts = [ws.verdict(f"r{i:02d}", s) for i, s in enumerate(JUDGE_A)]
    verdicts += [
        ws.verdict(f"r{i:02d}", s, model=other, version=version_b) for i, s in enumerate(JUDGE_B)
    ]
    verdicts += [
        ws.verdict("x1", "pass", model=other, version=version_b),  # no label: not compared
        ws.verdict("r99", "pass"),  # labelled, but B never judged it: not compared
    ]
    labels = [ws.label(f"r{i:02d}", h) for i, h in enumerate(HUMAN_12)] + [ws.label("r99", "pass")]
    ws.write(verdicts, labels)
    data = ws.report("--against-model", other)
    c = data["comparison"]
    assert c["against"] == {
        "rubric_id": "goal_completion",
        "rubric_version": version_b,
        "model": other,
    }
    assert c["n"] == 12
    kappa_a = cohen_kappa_score(HUMAN_12, JUDGE_A)
    kappa_b = cohen_kappa_score(HUMAN_12, JUDGE_B)
    assert c["kappa_a"] == pytest.approx(kappa_a)
    assert c["kappa_b"] == pytest.approx(kappa_b)
    assert c["kappa_difference"] == pytest.approx(kappa_b - kappa_a)
    a_right = [h == a for h, a in zip(HUMAN_12, JUDGE_A, strict=True)]
    b_right = [h == b for h, b in zip(HUMAN_12, JUDGE_B, strict=True)]
    only_a = sum(a and not b for a, b in zip(a_right, b_right, strict=True))
    only_b = sum(b and not a for a, b in zip(a_right, b_right, strict=True))
    assert (c["only_a_correct"], c["only_b_correct"]) == (only_a, only_b) == (4, 2)
    assert c["mcnemar_p"] == pytest.approx(_binomial_p(min(only_a, only_b), only_a + only_b))
    assert c["mcnemar_p"] == pytest.approx(0.6875)

    # The paired bootstrap, one resample at a time: the same seeded indices for both judges.
    index = np.random.default_rng(0).integers(0, 12, size=(2000, 12))
    diffs = []
    for row in index:
        h = [HUMAN_12[i] for i in row]
        with warnings.catch_warnings():
            # One class throughout: kappa is nan, which scikit-learn warns about whatever
            # its replace_undefined_by says.
            warnings.simplefilter("ignore", UndefinedMetricWarning)
            ka = cohen_kappa_score(h, [JUDGE_A[i] for i in row], labels=["pass", "fail"])
            kb = cohen_kappa_score(h, [JUDGE_B[i] for i in row], labels=["pass", "fail"])
        diffs.append(kb - ka)
    finite = np.array([d for d in diffs if not math.isnan(d)])
    assert c["n_resamples_defined"] == finite.size
    assert c["kappa_difference_ci"] == pytest.approx(
        [np.percentile(finite, 2.5), np.percentile(finite, 97.5)]
    )
    # The report itself is still judge A's, on all of A's labelled runs.
    assert (data["model"], data["n"]) == (MODEL, 13)

    text = ws.invoke("calibrate", "--against-model", other).stdout
    assert f"comparison with {other} (goal_completion version {version_b}): 12 labelled" in text
    # Printed as every p-value is, with three decimals.
    assert "only this judge right 4, only the other right 2; McNemar exact p = 0.688\n" in text


def test_compare_with_another_rubric_version(ws: Workspace) -> None:
    (ws.root / "v2").mkdir()
    new = ws.root / "v2" / "goal_completion.yaml"  # the reworded rubric, same id
    text = ws.rubric.read_text()
    assert "prompt: |\n" in text
    new.write_text(text.replace("prompt: |\n", "prompt: |\n  Read carefully.\n", 1))
    version_b = rubric_version(load_rubric(new))
    assert version_b != ws.version
    verdicts = [ws.verdict(f"r{i:02d}", s) for i, s in enumerate(JUDGE_A)]
    verdicts += [ws.verdict(f"r{i:02d}", h, version=version_b) for i, h in enumerate(HUMAN_12)]
    ws.write(verdicts, [ws.label(f"r{i:02d}", h) for i, h in enumerate(HUMAN_12)])
    c = ws.report("--against", str(new))["comparison"]
    assert (c["n"], c["kappa_b"], c["only_a_correct"], c["only_b_correct"]) == (12, 1.0, 0, 2)
    assert c["mcnemar_p"] == pytest.approx(0.5)


def test_compare_with_no_shared_runs_is_exit_2(ws: Workspace) -> None:
    ws.write([ws.verdict("a", "pass")], [ws.label("a", "pass")])
    result = ws.invoke("calibrate", "--against-model", "anthropic/claude-x")
    assert result.exit_code == 2
    assert "no labelled run was scored by both" in result.output


def test_plot_draws_the_confusion_matrix(ws: Workspace) -> None:
    small_case(ws)
    png = ws.root / "confusion.png"
    data = ws.report("--plot", str(png))
    assert data["confusion"] == {"pass": {"pass": 5, "fail": 1}, "fail": {"pass": 1, "fail": 3}}
    raw = png.read_bytes()
    assert raw[:8] == b"\x89PNG\r\n\x1a\n"
    size = (int.from_bytes(raw[16:20], "big"), int.from_bytes(raw[20:24], "big"))
    assert size == (500, 450)


def test_disagreements_option(ws: Workspace) -> None:
    small_case(ws)
    one = ws.invoke("calibrate", "--disagreements", "1")
    assert one.exit_code == 0, one.output
    lines = one.stdout.splitlines()
    start = lines.index("disagreements: 2 (1 shown, natural order of run id)")
    assert lines[start + 1].startswith("  r5: human pass, judge fail")
    assert lines[start + 4] == (
        "  ... 1 more: --disagreements all lists every one; --json always has all"
    )
    every = ws.invoke("calibrate", "--disagreements", "all")
    assert every.stdout == ws.invoke("calibrate").stdout
    bad = ws.invoke("calibrate", "--disagreements", "some")
    assert bad.exit_code == 2
    assert (
        "Invalid value for '--disagreements': expected a whole number (0 or more) or 'all', got 'some'"
        in bad.output
    )
