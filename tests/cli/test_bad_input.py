"""Bad input that used to pass is refused with one line and exit 2: a run id seen twice, a
runs file without runs, numbers that are not finite or are negative, a scored verdict off
its rubric's scale, and a file or folder named on the command line that is not there. And
what judgekit writes, judgekit reads back."""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from tests.conftest import REPO

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
SHOP_TASKS = REPO / "tasks" / "shop.yaml"
MODEL = "openai/gpt-4o-mini"
T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def invoke(*args: str | Path, stdin: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], input=stdin)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def shop_lines() -> list[str]:
    return SHOP_RUNS.read_text(encoding="utf-8").splitlines()


def runs_with_a_repeat(tmp_path: Path) -> Path:
    """Five shop runs, then the second one again: 6 lines, 5 run ids."""
    lines = shop_lines()[:5]
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join([*lines, lines[1]]) + "\n", encoding="utf-8")
    return runs


def repeat_error(runs: Path) -> str:
    return (
        f"judgekit: error: {runs}:6: run_id: duplicate run id 'shop/refund_full/2' (first at "
        "line 2); each run id must appear once\n"
    )


def empty_file(tmp_path: Path) -> Path:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n", encoding="utf-8")
    return empty


def rubric_copy(root: Path) -> Path:
    rubric = root / "rubrics" / "goal_completion.yaml"
    rubric.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "rubrics" / "goal_completion.yaml", rubric)
    return rubric


def verdict(run_id: str, score: Any, version: str, **fields: Any) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "rubric_id": "goal_completion",
        "rubric_version": version,
        "model": MODEL,
        "status": "scored",
        "score": score,
        "at": T0.isoformat(),
        **fields,
    }


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


# --- a run id seen twice ---------------------------------------------------------------


def test_grade_refuses_a_repeated_run_id_and_writes_nothing(tmp_path: Path) -> None:
    runs = runs_with_a_repeat(tmp_path)
    out = tmp_path / "out"
    code, stdout, err = invoke("grade", runs, "--tasks", SHOP_TASKS, "--out", out)
    assert (code, stdout, err) == (2, "", repeat_error(runs))
    assert not out.exists()
    assert not (tmp_path / ".judgekit" / "judgekit.sqlite").exists()


def test_label_refuses_a_repeated_run_id(tmp_path: Path) -> None:
    runs = runs_with_a_repeat(tmp_path)
    labels = tmp_path / "labels"
    code, _, err = invoke(
        "label",
        runs,
        "--rubric",
        rubric_copy(tmp_path),
        "--labeler",
        "ana",
        "--labels-dir",
        labels,
        stdin="p\nq\n",
    )
    assert (code, err) == (2, repeat_error(runs))
    assert not labels.exists()


def test_calibrate_refuses_a_repeated_run_id_in_runs(tmp_path: Path) -> None:
    rubric = rubric_copy(tmp_path)
    version = rubric_version(load_rubric(rubric))
    verdicts = write_jsonl(
        tmp_path / "verdicts.jsonl", [verdict("shop/refund_full/1", "pass", version)]
    )
    runs = runs_with_a_repeat(tmp_path)
    code, _, err = invoke(
        "calibrate",
        "--rubric",
        rubric,
        "--verdicts",
        verdicts,
        "--labels",
        REPO / "labels" / "goal_completion.jsonl",
        "--runs",
        runs,
        "--no-store",
    )
    assert (code, err) == (2, repeat_error(runs))


def test_store_import_refuses_repeats_in_runs_results_and_verdicts(tmp_path: Path) -> None:
    runs = runs_with_a_repeat(tmp_path)
    code, _, err = invoke("store", "import", runs)
    assert (code, err) == (2, repeat_error(runs))

    code, _, _ = invoke(
        "grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path / "g", "--no-store"
    )
    assert code == 0
    grades = (tmp_path / "g" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join([*grades, grades[0]]) + "\n", encoding="utf-8")
    code, _, err = invoke("store", "import", results)
    assert (code, err) == (
        2,
        f"judgekit: error: {results}:19: run_id: duplicate run id 'shop/refund_full/1' (first "
        "at line 1); each run id must appear once\n",
    )

    verdicts = write_jsonl(
        tmp_path / "verdicts.jsonl",
        [
            verdict("r1", "pass", "0123456789ab"),
            verdict("r1", "pass", "0123456789ab", model="anthropic/claude-x"),  # another judge
            verdict("r2", "fail", "0123456789ab"),
            verdict("r1", "fail", "0123456789ab", at=(T0 + timedelta(hours=1)).isoformat()),
        ],
    )
    code, _, err = invoke("store", "import", verdicts)
    assert (code, err) == (
        2,
        f"judgekit: error: {verdicts}:4: run_id: duplicate verdict on run 'r1' by {MODEL} under "
        "goal_completion version 0123456789ab (first at line 1); each run has one verdict per "
        "rubric version and judge model\n",
    )
    assert not (tmp_path / ".judgekit" / "judgekit.sqlite").exists()


# --- no runs at all --------------------------------------------------------------------


def test_grade_and_label_refuse_a_runs_file_without_runs(tmp_path: Path) -> None:
    empty = empty_file(tmp_path)
    code, _, err = invoke("grade", empty, "--tasks", SHOP_TASKS, "--out", tmp_path / "out")
    assert (code, err) == (2, f"judgekit: error: no runs in {empty}\n")
    assert not (tmp_path / "out").exists()
    code, _, err = invoke(
        "label",
        empty,
        "--rubric",
        rubric_copy(tmp_path),
        "--labeler",
        "ana",
        "--labels-dir",
        tmp_path / "labels",
        stdin="q\n",
    )
    assert (code, err) == (2, f"judgekit: error: no runs in {empty}\n")


def test_import_of_a_file_without_conversations_writes_nothing(tmp_path: Path) -> None:
    transcript = tmp_path / "none.json"
    transcript.write_text("[]", encoding="utf-8")
    out = tmp_path / "runs.jsonl"
    for flavour in ("openai", "anthropic"):
        code, _, err = invoke("import", flavour, transcript, "-o", out)
        assert (code, err) == (
            2,
            f"judgekit: error: {transcript}: no conversations in this file: no runs to import\n",
        )
        assert not out.exists()


# --- numbers ---------------------------------------------------------------------------


def test_gate_refuses_a_cost_that_is_not_a_number(tmp_path: Path) -> None:
    code, _, _ = invoke(
        "grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", tmp_path / "g", "--no-store"
    )
    assert code == 0
    lines = (tmp_path / "g" / "results.jsonl").read_text(encoding="utf-8").splitlines()
    third = json.loads(lines[2])
    third["cost_usd"] = float("nan")
    lines[2] = json.dumps(third)  # NaN, as Python writes it
    results = tmp_path / "results.jsonl"
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, out, err = invoke("gate", "--baseline", tmp_path / "g", "--candidate", results)
    assert (code, out) == (2, "")
    assert err == f"judgekit: error: {results}:3: cost_usd: must be a finite number (got nan)\n"


def test_grade_refuses_negative_tokens(tmp_path: Path) -> None:
    lines = shop_lines()[:3]
    run = json.loads(lines[1])
    run["usage"] = {"input_tokens": 1200, "output_tokens": -310}
    lines[1] = json.dumps(run)
    runs = tmp_path / "runs.jsonl"
    runs.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = invoke("grade", runs, "--tasks", SHOP_TASKS, "--out", tmp_path / "out")
    assert (code, err) == (
        2,
        f"judgekit: error: {runs}:2: usage.output_tokens: must not be negative (got -310)\n",
    )


# --- scores off the scale --------------------------------------------------------------


def calibrate_args(tmp_path: Path, verdicts: Path) -> list[str | Path]:
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {
                "run_id": f"r{i}",
                "rubric_id": "goal_completion",
                "label": label,
                "labeler": "ana",
                "at": T0.isoformat(),
            }
            for i, label in enumerate(["pass", "fail", "pass", "fail"])
        ],
    )
    return [
        "calibrate",
        "--rubric",
        tmp_path / "rubrics" / "goal_completion.yaml",
        "--verdicts",
        verdicts,
        "--labels",
        labels,
        "--no-store",
        "--json",
        "--split",
        "all",  # every label: these tests are about the verdicts' scales
    ]


@pytest.mark.parametrize(
    ("score", "shown"),
    [(123, "123"), ("PASS!!", '"PASS!!"'), (None, "null"), (0.5, "0.5")],
)
def test_calibrate_refuses_a_scored_verdict_off_the_scale(
    tmp_path: Path, score: Any, shown: str
) -> None:
    version = rubric_version(load_rubric(rubric_copy(tmp_path)))
    scores: list[Any] = ["pass", "fail", score, "fail"]
    verdicts = write_jsonl(
        tmp_path / "verdicts.jsonl",
        [verdict(f"r{i}", s, version) for i, s in enumerate(scores)],
    )
    code, out, err = invoke(*calibrate_args(tmp_path, verdicts))
    assert (code, out) == (2, "")
    assert err == (
        f"judgekit: error: {verdicts}:3: score: {shown} is not on the binary scale of "
        'goal_completion; a scored verdict\'s score is one of: "pass", "fail"\n'
    )


def test_calibrate_checks_samples_and_other_judge_models(tmp_path: Path) -> None:
    rubric = load_rubric(rubric_copy(tmp_path))
    version = rubric_version(rubric)
    other = rubric_version(
        rubric.model_copy(
            update={"judge": rubric.judge.model_copy(update={"model": "anthropic/x"})}
        )
    )
    sampled = verdict("r1", "fail", version, samples=[{"score": "fail"}, {"score": 7}])
    verdicts = write_jsonl(tmp_path / "verdicts.jsonl", [verdict("r0", "pass", version), sampled])
    code, _, err = invoke(*calibrate_args(tmp_path, verdicts))
    assert (code, err) == (
        2,
        f"judgekit: error: {verdicts}:2: samples.1.score: 7 is not on the binary scale of "
        'goal_completion; a scored verdict\'s score is one of: "pass", "fail"\n',
    )
    # a verdict of the same rubric by another judge model is on the same scale
    by_other = verdict("r1", "maybe", other, model="anthropic/x")
    verdicts = write_jsonl(tmp_path / "verdicts.jsonl", [verdict("r0", "pass", version), by_other])
    code, _, err = invoke(*calibrate_args(tmp_path, verdicts))
    assert (code, err) == (
        2,
        f'judgekit: error: {verdicts}:2: score: "maybe" is not on the binary scale of '
        'goal_completion; a scored verdict\'s score is one of: "pass", "fail"\n',
    )
    # the spellings the scale accepts, and unscored verdicts, pass
    fine = [
        verdict("r0", True, version),
        verdict("r1", "FAIL", version),
        verdict("r2", 1, version),
        verdict("r3", None, version, status="unscored", unscored_reason="not JSON"),
    ]
    code, out, err = invoke(*calibrate_args(tmp_path, write_jsonl(tmp_path / "v.jsonl", fine)))
    assert (code, err) == (0, "")
    report = json.loads(out)
    assert (report["n"], report["n_unscored"], report["agreement"]) == (3, 1, 1.0)


def test_label_refuses_verdicts_off_the_scale(tmp_path: Path) -> None:
    rubric = rubric_copy(tmp_path)
    version = rubric_version(load_rubric(rubric))
    verdicts = write_jsonl(
        tmp_path / "verdicts.jsonl",
        [verdict("shop/refund_full/1", "pass", version), verdict("shop/refund_full/2", 4, version)],
    )
    code, _, err = invoke(
        "label",
        SHOP_RUNS,
        "--rubric",
        rubric,
        "--labeler",
        "ana",
        "--labels-dir",
        tmp_path / "labels",
        "--verdicts",
        verdicts,
        "--reveal",
        stdin="q\n",
    )
    assert (code, err) == (
        2,
        f"judgekit: error: {verdicts}:2: score: 4 is not on the binary scale of "
        'goal_completion; a scored verdict\'s score is one of: "pass", "fail"\n',
    )


def test_store_import_checks_scores_against_the_rubrics_at_hand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    version = rubric_version(load_rubric(rubric_copy(tmp_path / "elsewhere")))
    verdicts = write_jsonl(
        tmp_path / "verdicts.jsonl",
        [verdict("r0", "pass", version), verdict("r1", "PASS!!", version)],
    )
    off_scale = (
        f'judgekit: error: {verdicts}:2: score: "PASS!!" is not on the binary scale of '
        'goal_completion; a scored verdict\'s score is one of: "pass", "fail"\n'
    )
    code, _, err = invoke("store", "import", verdicts, "--rubric", "elsewhere/rubrics")
    assert (code, err) == (2, off_scale)
    # by default, every rubric in rubrics/
    rubric_copy(tmp_path)
    code, _, err = invoke("store", "import", verdicts)
    assert (code, err) == (2, off_scale)
    # what no scale takes is refused even when the rubric is not at hand
    null = write_jsonl(tmp_path / "null.jsonl", [verdict("r0", None, "0123456789ab")])
    code, _, err = invoke("store", "import", null)
    assert (code, err) == (
        2,
        f"judgekit: error: {null}:1: score: null is not a score on any scale; a scored "
        "verdict's score is a string or a whole number\n",
    )
    assert not (tmp_path / ".judgekit" / "judgekit.sqlite").exists()


def test_calibrate_refuses_an_off_scale_verdict_from_the_store(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without its rubric at hand, store import cannot tell 123 is off a binary scale (a
    likert scale may go to 200); calibrate, which knows the rubric, refuses it."""
    monkeypatch.chdir(tmp_path)
    rubric = rubric_copy(tmp_path / "elsewhere")
    version = rubric_version(load_rubric(rubric))
    verdicts = write_jsonl(
        tmp_path / "verdicts.jsonl",
        [verdict("r0", "pass", version), verdict("r1", 123, version)],
    )
    code, out, _ = invoke("store", "import", verdicts)
    assert (code, out) == (0, f"{verdicts}: 2 verdicts recorded (batch 1)\n")
    labels = write_jsonl(
        tmp_path / "labels.jsonl",
        [
            {
                "run_id": "r0",
                "rubric_id": "goal_completion",
                "label": "pass",
                "labeler": "ana",
                "at": T0.isoformat(),
            }
        ],
    )
    code, _, err = invoke("calibrate", "--rubric", rubric, "--labels", labels, "--no-store")
    store = tmp_path / ".judgekit" / "judgekit.sqlite"
    assert (code, err) == (
        2,
        f"judgekit: error: store sqlite:///{store}, verdict of run 'r1' by {MODEL}: score: 123 "
        "is not on the binary scale of goal_completion; a scored verdict's score is one of: "
        '"pass", "fail"\n',
    )


# --- files named on the command line ---------------------------------------------------


def test_a_missing_price_file_is_an_error(tmp_path: Path) -> None:
    missing = tmp_path / "missing.yaml"
    code, out, err = invoke(
        "judge",
        SHOP_RUNS,
        "--rubric",
        REPO / "rubrics" / "goal_completion.yaml",
        "--prices",
        missing,
        "--base-url",
        "http://127.0.0.1:9",
        "--out",
        tmp_path / "out",
        "--no-store",
    )
    assert (code, out, err) == (2, "", f"judgekit: error: {missing}: no such file\n")
    assert not (tmp_path / "out" / "verdicts.jsonl").exists()


@pytest.mark.parametrize("command", ["monitor", "report"])
def test_a_missing_labels_folder_is_an_error(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "labelz"
    code, out, err = invoke(command, "--labels-dir", missing)
    assert (code, out, err) == (2, "", f"judgekit: error: {missing}: no such folder\n")


def test_monitor_refuses_runs_it_would_not_read(tmp_path: Path) -> None:
    code, _, err = invoke("monitor", "--runs", SHOP_RUNS)
    assert (code, err) == (
        2,
        "judgekit: error: --runs and --tasks go with --recheck RUBRIC (the labelled runs to "
        "judge again); the monitor itself reads the store\n",
    )


# --- what judgekit writes, it reads back -----------------------------------------------


def test_grade_results_read_back_by_gate_report_and_store_import(tmp_path: Path) -> None:
    out = tmp_path / "graded"
    code, _, _ = invoke("grade", SHOP_RUNS, "--tasks", SHOP_TASKS, "--out", out, "--no-store")
    assert code == 0
    results = out / "results.jsonl"
    code, _, err = invoke("gate", "--baseline", out, "--candidate", results)
    assert (code, err) == (0, "")
    code, stdout, err = invoke("report", "--results", results, "-o", tmp_path / "r.html")
    assert (code, err) == (0, "")
    assert stdout.startswith(f"wrote {tmp_path / 'r.html'}: 18 runs")
    code, stdout, err = invoke("store", "import", results)
    assert (code, stdout, err) == (0, f"{results}: 18 grades recorded (batch 1)\n", "")
