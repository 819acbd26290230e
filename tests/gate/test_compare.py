"""`judgekit gate`: per-task verdicts, their messages, exit codes, and the rule's error rates."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.errors import DataError
from judgekit.formats.grade import Grade
from judgekit.gate.compare import GateReport, compare_results


def grades(
    prefix: str,
    task_id: str,
    n: int,
    passes: int,
    *,
    cost: float | None = None,
    turns: int | None = None,
) -> list[Grade]:
    """``n`` runs of one task, the first ``passes`` of them passing."""
    return [
        Grade(
            run_id=f"{prefix}/{task_id}/{i}",
            task_id=task_id,
            trial=i,
            passed=i < passes,
            cost_usd=cost,
            turns=turns,
        )
        for i in range(n)
    ]


def write(path: Path, rows: list[Grade]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(g.model_dump_json() + "\n" for g in rows), encoding="utf-8")
    return path


def gate(
    tmp_path: Path, baseline: list[Grade], candidate: list[Grade], *options: str
) -> tuple[int, str, str]:
    b = write(tmp_path / "baseline" / "results.jsonl", baseline)
    c = write(tmp_path / "candidate" / "results.jsonl", candidate)
    return invoke("gate", "--baseline", str(b), "--candidate", str(c), *options)


def invoke(*args: str, columns: int = 100) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": str(columns)})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def table_row(out: str, task_id: str) -> list[str]:
    line = next(line for line in out.splitlines() if line.startswith(task_id + " "))
    return line.split()


# --- verdicts and messages -------------------------------------------------------------------


def test_a_clear_drop_fails(tmp_path: Path) -> None:
    code, out, _ = gate(tmp_path, grades("b", "refund", 30, 24), grades("c", "refund", 30, 12))
    assert code == 1
    assert "FAIL refund: pass-rate drop 0.80 → 0.40 (p = 0.001)" in out
    assert table_row(out, "refund") == [
        "refund",
        *("0.80", "24/30", "0.40", "12/30", "0.001", "—", "—", "FAIL"),
    ]
    assert out.splitlines()[-1] == "gate: FAIL: 1 of 1 tasks failed: refund"


def test_the_test_is_one_sided(tmp_path: Path) -> None:
    # Two-sided p would be 0.091 and pass; the gate asks only "did it get worse?".
    code, out, _ = gate(tmp_path, grades("b", "refund", 20, 16), grades("c", "refund", 20, 11))
    assert code == 1
    assert "FAIL refund: pass-rate drop 0.80 → 0.55 (p = 0.046)" in out


def test_a_drop_within_noise_passes(tmp_path: Path) -> None:
    code, out, _ = gate(tmp_path, grades("b", "refund", 20, 16), grades("c", "refund", 20, 14))
    assert code == 0
    assert table_row(out, "refund")[5:] == ["0.233", "—", "—", "ok"]
    assert "FAIL" not in out
    assert out.splitlines()[-1] == ("gate: pass: 1 tasks compared, none worse than the baseline")


def test_the_hidden_regression_same_pass_rate_double_the_bill(tmp_path: Path) -> None:
    code, out, _ = gate(
        tmp_path,
        grades("b", "refund", 20, 14, cost=0.0041, turns=3),
        grades("c", "refund", 20, 14, cost=0.0087, turns=3),
    )
    assert code == 1
    assert "FAIL refund: mean cost +112% (0.0041 → 0.0087) with the pass rate flat" in out
    assert table_row(out, "refund")[5:] == ["0.500", "+112%", "+0%", "FAIL"]


def test_a_cost_rise_that_bought_a_real_improvement_passes(tmp_path: Path) -> None:
    code, out, _ = gate(
        tmp_path,
        grades("b", "refund", 20, 6, cost=0.004),
        grades("c", "refund", 20, 18, cost=0.008),
    )
    assert code == 0
    assert "note refund: pass-rate rise 0.30 → 0.90 (p = 0.0001)" in out
    assert (
        "note refund: mean cost +100% (0.004 → 0.008), not a regression: the pass rate rose" in out
    )


def test_a_turns_regression_fails(tmp_path: Path) -> None:
    code, out, _ = gate(
        tmp_path, grades("b", "search", 20, 10, turns=4), grades("c", "search", 20, 10, turns=6)
    )
    assert code == 1
    assert "FAIL search: mean turns +50% (4.0 → 6.0) with the pass rate flat" in out


def test_the_tolerances_are_options(tmp_path: Path) -> None:
    baseline, candidate = grades("b", "t", 20, 10, turns=5), grades("c", "t", 20, 10, turns=6)
    assert gate(tmp_path, baseline, candidate)[0] == 0  # +20% is within the default 0.2
    code, out, _ = gate(tmp_path, baseline, candidate, "--turns-tolerance", "0.1")
    assert code == 1
    assert "FAIL t: mean turns +20% (5.0 → 6.0) with the pass rate flat" in out


def test_a_removed_task_fails(tmp_path: Path) -> None:
    baseline = grades("b", "refund", 20, 16) + grades("b", "cancel", 10, 3)
    code, out, _ = gate(tmp_path, baseline, grades("c", "refund", 20, 16))
    assert code == 1
    assert "FAIL cancel: missing from the candidate (baseline pass rate 0.30 over 10 runs)" in out
    assert table_row(out, "cancel")[-1] == "removed"
    assert out.splitlines()[-1] == "gate: FAIL: 1 of 2 tasks failed: cancel"


def test_an_added_task_is_listed_and_passes(tmp_path: Path) -> None:
    candidate = grades("c", "refund", 20, 16) + grades("c", "exchange", 10, 7)
    code, out, _ = gate(tmp_path, grades("b", "refund", 20, 16), candidate)
    assert code == 0
    assert table_row(out, "exchange") == [
        "exchange",
        *("—", "0.70", "7/10", "—", "—", "—", "added"),
    ]
    assert "note exchange: new in the candidate: pass rate 0.70 over 10 runs" in out
    assert out.splitlines()[-1] == (
        "gate: pass: 1 tasks compared, none worse than the baseline; 1 added"
    )


def test_cost_reported_by_one_side_only_is_a_note() -> None:
    report = compare_results(grades("b", "t", 10, 5, cost=0.01), grades("c", "t", 10, 5))
    assert report.passed
    assert report.tasks[0].cost_change is None
    assert report.tasks[0].notes == ["mean cost not compared: only the baseline reports it"]


def test_cost_up_from_zero_fails_with_no_ratio() -> None:
    report = compare_results(grades("b", "t", 10, 5, cost=0.0), grades("c", "t", 10, 5, cost=0.01))
    assert report.tasks[0].reasons == ["mean cost from 0 (0 → 0.01) with the pass rate flat"]
    assert json.loads(report.model_dump_json())["tasks"][0]["cost_change"] is None


def test_the_suite_row_pools_every_run_but_does_not_decide() -> None:
    # One task improves, one breaks: pooled, nothing moved; per task, the gate fails.
    baseline = grades("b", "a", 30, 24) + grades("b", "z", 30, 6)
    candidate = grades("c", "a", 30, 6) + grades("c", "z", 30, 24)
    report = compare_results(baseline, candidate)
    assert report.suite.baseline is not None and report.suite.candidate is not None
    assert (report.suite.baseline.passes, report.suite.baseline.n) == (30, 60)
    assert report.suite.difference == 0
    assert report.failing_tasks == ["a"]


def test_a_folder_is_read_for_its_results_jsonl(tmp_path: Path) -> None:
    write(tmp_path / "main" / "results.jsonl", grades("b", "t", 10, 5))
    write(tmp_path / "pr" / "results.jsonl", grades("c", "t", 10, 5))
    code, _, _ = invoke(
        "gate", "--baseline", str(tmp_path / "main"), "--candidate", str(tmp_path / "pr")
    )
    assert code == 0


def test_the_table_fits_100_columns(tmp_path: Path) -> None:
    task_id = "a_task_id_thirty_characters_xx"
    code, out, _ = gate(
        tmp_path,
        grades("b", task_id, 200, 160, cost=0.0041, turns=12),
        grades("c", task_id, 200, 110, cost=0.0087, turns=30),
    )
    assert code == 1
    table = out.split("p: one-sided")[0]
    assert max(len(line) for line in table.splitlines()) <= 100
    assert table_row(out, task_id)[1:] == [
        *("0.80", "160/200", "0.55", "110/200", "<0.0001", "+112%", "+150%", "FAIL"),
    ]
    assert table_row(out, "all runs")[-1] == "—"


# --- --json ----------------------------------------------------------------------------------


def test_json_prints_one_object(tmp_path: Path) -> None:
    code, out, _ = gate(
        tmp_path,
        grades("b", "refund", 20, 16, cost=0.004, turns=3) + grades("b", "cancel", 5, 5),
        grades("c", "refund", 20, 16, cost=0.004, turns=3) + grades("c", "new", 5, 5),
        "--json",
    )
    assert code == 1
    report = json.loads(out)
    assert report["rubrics"] == []  # no --rubric given
    assert set(report) == {
        "rubrics",
        "passed",
        "failing_tasks",
        "alpha",
        "correction",
        "cost_tolerance",
        "turns_tolerance",
        "tasks",
        "suite",
    }
    assert report["passed"] is False
    assert report["failing_tasks"] == ["cancel"]
    assert [(t["task_id"], t["status"], t["verdict"]) for t in report["tasks"]] == [
        ("cancel", "removed", "fail"),
        ("new", "added", "pass"),
        ("refund", "compared", "pass"),
    ]
    refund = report["tasks"][2]
    assert refund["baseline"] == {
        "n": 20,
        "passes": 16,
        "rate": 0.8,
        "mean_cost_usd": pytest.approx(0.004),
        "mean_turns": 3.0,
    }
    assert refund["p_value"] == 0.5
    assert refund["p_value_two_sided"] == 1.0
    assert refund["difference"] == 0.0
    assert refund["cost_change"] == pytest.approx(0.0)
    assert refund["turns_change"] == 0.0
    assert refund["reasons"] == [] and refund["notes"] == []
    assert report["suite"]["baseline"]["n"] == 25
    assert report["suite"]["candidate"]["n"] == 25


# --- bad input -------------------------------------------------------------------------------


def test_a_malformed_line_is_bad_input_naming_file_and_line(tmp_path: Path) -> None:
    baseline = write(tmp_path / "b.jsonl", grades("b", "t", 3, 2))
    candidate = tmp_path / "c.jsonl"
    candidate.write_text(
        grades("c", "t", 1, 1)[0].model_dump_json() + "\n{not json\n", encoding="utf-8"
    )
    code, out, err = invoke("gate", "--baseline", str(baseline), "--candidate", str(candidate))
    assert code == 2
    assert out == ""
    assert err.startswith(f"judgekit: error: {candidate}:2: malformed JSON")
    assert len(err.strip().splitlines()) == 1


def test_a_wrong_field_is_bad_input_naming_the_field(tmp_path: Path) -> None:
    baseline = tmp_path / "b.jsonl"
    baseline.write_text('{"run_id": "r1", "task_id": "t", "passed": "maybe"}\n', encoding="utf-8")
    candidate = write(tmp_path / "c.jsonl", grades("c", "t", 3, 2))
    code, _, err = invoke("gate", "--baseline", str(baseline), "--candidate", str(candidate))
    assert code == 2
    assert err.startswith(f"judgekit: error: {baseline}:1: passed: ")


def test_a_missing_file_is_bad_input(tmp_path: Path) -> None:
    candidate = write(tmp_path / "c.jsonl", grades("c", "t", 3, 2))
    missing = tmp_path / "nope.jsonl"
    code, _, err = invoke("gate", "--baseline", str(missing), "--candidate", str(candidate))
    assert code == 2
    assert err == f"judgekit: error: {missing}: no such file\n"


def test_a_folder_without_results_is_bad_input(tmp_path: Path) -> None:
    candidate = write(tmp_path / "c.jsonl", grades("c", "t", 3, 2))
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = invoke("gate", "--baseline", str(empty), "--candidate", str(candidate))
    assert code == 2
    assert err == f"judgekit: error: {empty}: no results.jsonl in this folder\n"


def test_an_empty_file_is_bad_input(tmp_path: Path) -> None:
    baseline = write(tmp_path / "b.jsonl", grades("b", "t", 3, 2))
    empty = tmp_path / "c.jsonl"
    empty.write_text("\n", encoding="utf-8")
    code, _, err = invoke("gate", "--baseline", str(baseline), "--candidate", str(empty))
    assert code == 2
    assert err == f"judgekit: error: {empty}: no graded runs in this file\n"


def test_a_duplicate_run_id_is_bad_input(tmp_path: Path) -> None:
    rows = grades("b", "t", 3, 2)
    baseline = write(tmp_path / "b.jsonl", [*rows, rows[0]])
    candidate = write(tmp_path / "c.jsonl", grades("c", "t", 3, 2))
    code, _, err = invoke("gate", "--baseline", str(baseline), "--candidate", str(candidate))
    assert code == 2
    assert err == (
        f"judgekit: error: {baseline}:4: run_id: duplicate run id 'b/t/0' (first at line 1); "
        "each run id must appear once\n"
    )


def test_an_impossible_alpha_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = gate(tmp_path, grades("b", "t", 3, 2), grades("c", "t", 3, 2), "--alpha", "1.5")
    assert code == 2
    assert "--alpha" in err
    with pytest.raises(ValueError, match="alpha must be between 0 and 1"):
        compare_results([], [], alpha=0)
    with pytest.raises(DataError, match="the candidate has no graded runs"):
        compare_results(grades("b", "t", 3, 2), [])


def test_help_has_an_example() -> None:
    code, out, _ = invoke("gate", "--help")
    assert code == 0
    assert "Example:" in out
    assert "judgekit gate --baseline" in out


# --- error rates of the pass-rate rule -------------------------------------------------------


def simulate(
    seed: int,
    tasks: int,
    n: int,
    p_baseline: float,
    p_candidate: float,
    correction: Literal["holm", "none"] = "none",
) -> GateReport:
    """``tasks`` independent tasks, each with ``n`` runs per side, through the real gate."""
    rng = random.Random(seed)

    def side(prefix: str, p: float) -> Iterator[Grade]:
        # The gate reads only task_id, passed, cost and turns, so one passing and one failing
        # grade per task stand for all its runs (building 400,000 models would take minutes).
        for task in range(tasks):
            passing, failing = (
                Grade(run_id=f"{prefix}/{task}/{outcome}", task_id=f"t{task:04d}", passed=outcome)
                for outcome in (True, False)
            )
            for _ in range(n):
                yield passing if rng.random() < p else failing

    return compare_results(
        side("b", p_baseline), side("c", p_candidate), alpha=0.05, correction=correction
    )


@pytest.mark.parametrize(("n", "measured"), [(20, 0.0615), (100, 0.0545)])
def test_false_alarm_rate_on_stable_tasks_is_about_alpha(n: int, measured: float) -> None:
    # Same true rate on both sides: every failing task is a false alarm. The exact rate
    # (binomial sums) is 0.0523 at n = 20 and 0.0514 at n = 100; 2,000 simulations have a
    # standard error of 0.005, so alpha + 0.015 allows for chance, not for a biased rule.
    report = simulate(seed=2024 + n, tasks=2000, n=n, p_baseline=0.7, p_candidate=0.7)
    rate = len(report.failing_tasks) / 2000
    assert rate <= 0.05 + 0.015
    assert rate == pytest.approx(measured)  # the figure the gate module's docstring states


def test_holm_keeps_suite_wide_false_alarms_at_alpha() -> None:
    # 400 stable suites of 10 tasks: judged task by task, about 1 - 0.95^10 ≈ 40% of suites
    # would raise some alarm; with Holm's correction at most alpha of them may.
    def alarm_rate(correction: Literal["holm", "none"]) -> float:
        alarms = 0
        for suite in range(400):
            report = simulate(suite, 10, 30, 0.7, 0.7, correction=correction)
            alarms += not report.passed
        return alarms / 400

    assert alarm_rate("holm") <= 0.05 + 0.02
    assert alarm_rate("none") >= 0.3


def test_holm_is_the_plain_test_for_one_task() -> None:
    base = grades("b", "t", 30, 24)
    cand = grades("c", "t", 30, 15)
    holm = compare_results(base, cand, correction="holm")
    plain = compare_results(base, cand, correction="none")
    assert holm.passed is plain.passed is False
    assert holm.tasks[0].reasons == plain.tasks[0].reasons


def test_power_to_catch_a_drop_from_0_8_to_0_5_at_30_runs() -> None:
    report = simulate(seed=30, tasks=2000, n=30, p_baseline=0.8, p_candidate=0.5)
    power = len(report.failing_tasks) / 2000
    assert 0.75 <= power <= 0.84  # exact: 0.792
    assert power == pytest.approx(0.7955)  # the figure the gate module's docstring states
