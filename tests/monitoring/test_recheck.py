"""`judgekit monitor --recheck`: the promoted judge asked again through the real openai SDK
against the fake server; a model that drifted from the labels marks the rubric stale."""

from __future__ import annotations

import json
import random
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.calibration.split import load_split
from judgekit.cli import main
from judgekit.formats.label import Label, read_labels
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import Run
from judgekit.formats.split_file import read_split_file
from judgekit.labelling.labels_file import LabelWriter
from judgekit.store import open_store
from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_llm_server import FakeRequest
from tests.promoted import promote_for_real

RUBRIC = """\
id: answer_ok
description: Does the answer settle the request?
scale: binary
applies_to: final_answer
prompt: |
  Does this answer settle the user's request? <answer>{final_answer}</answer>
judge: {model: openai/gpt-4o-mini, temperature: 0, samples: 1}
"""
TRUTH = {f"shop/t/{i}": i % 2 == 0 for i in range(100)}
_RUN = re.compile(r"\(run (shop/t/\d+)\)")


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-recheck")


def judge_with_error_rate(rate: float):  # type: ignore[no-untyped-def]
    """A judge that answers the truth about the run, flipped at ``rate`` (seeded per run)."""

    def reply(request: FakeRequest) -> str:
        run_id = _RUN.findall(request.text)[-1]
        right = random.Random(f"{rate}:{run_id}").random() >= rate
        passed = TRUTH[run_id] == right
        return json.dumps({"reason": "checked", "score": "pass" if passed else "fail"})

    return reply


def promote_answer_ok(root: Path, *, labelled_at: datetime) -> Path:
    """rubrics/answer_ok.yaml under ``root``, its 100 labels (given at ``labelled_at``), and
    its promotion for real at kappa 0.900: the judge was wrong on 5 of the 100 (2 passes
    failed, 3 fails passed). Returns the rubric's path."""
    (root / "rubrics").mkdir()
    path = root / "rubrics" / "answer_ok.yaml"
    path.write_text(RUBRIC)
    with LabelWriter(root / "labels" / "answer_ok.jsonl") as writer:
        writer.append_many(
            Label(
                run_id=r,
                rubric_id="answer_ok",
                label="pass" if ok else "fail",
                labeler="ana",
                at=labelled_at,
            )
            for r, ok in TRUTH.items()
        )
    human = {r: "pass" if ok else "fail" for r, ok in TRUTH.items()}
    wrong = {"shop/t/0": "fail", "shop/t/2": "fail", "shop/t/1": "pass", "shop/t/3": "pass"}
    promote_for_real(path, human, {**human, **wrong, "shop/t/5": "pass"})
    return path


@pytest.fixture
def promoted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A promoted rubric (kappa 0.900 [0.815, 0.985] on 100 test labels), its labels, and
    its runs recorded in the store."""
    monkeypatch.chdir(tmp_path)
    promote_answer_ok(tmp_path, labelled_at=datetime(2026, 11, 1, tzinfo=UTC))
    runs = [
        Run(run_id=r, task_id="t", tool_calls=[], final_answer=f"Done as asked (run {r}).")
        for r in TRUTH
    ]
    with open_store() as store:
        store.record_runs(runs, store.batch(key="runs:labelled"))
    return tmp_path


def recheck(server: FakeLLMServer, *extra: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        main,
        [
            "monitor",
            "--recheck",
            "answer_ok",
            "--base-url",
            server.openai_base_url,
            "--json",
            *extra,
        ],
    )
    assert result.exit_code in (0, 1), (result.output, result.exception)
    return result.exit_code, json.loads(result.stdout)["recheck"]


def rubric_status() -> str:
    result = CliRunner().invoke(main, ["rubrics", "--json"])
    [row] = json.loads(result.stdout)["rubrics"]
    return str(row["status"])


def test_the_same_judge_holds_its_kappa(promoted: Path) -> None:
    with FakeLLMServer(reply=judge_with_error_rate(0.03)) as server:
        code, found = recheck(server)
        assert server.calls == 100
    assert code == 0
    assert found["drifted"] is False
    assert found["now"]["n"] == 100
    assert found["now"]["kappa"] == pytest.approx(0.94, abs=0.05)
    assert found["p_value"] > 0.05
    assert rubric_status() == "promoted"


def test_a_drifted_model_is_caught_and_marks_the_rubric_stale(promoted: Path) -> None:
    with FakeLLMServer(reply=judge_with_error_rate(0.30)) as server:
        code, found = recheck(server)
    assert code == 1
    assert found["drifted"] is True
    assert found["now"]["kappa"] == pytest.approx(0.4, abs=0.15)
    assert found["p_value"] < 0.001
    assert found["message"].startswith(
        "answer_ok (openai/gpt-4o-mini): kappa dropped: 0.900 [0.815, 0.985] on 100 labels at "
        "promotion, "
    )
    record = json.loads((promoted / "rubrics" / "answer_ok.promotion.json").read_text())
    assert record["kappa"] == 0.90  # the promotion's figures stay
    assert record["stale"]["reason"] == f"judge drift: {found['message']}"
    assert rubric_status() == "stale"
    with open_store() as store:
        assert store.count("promotions") == 1
        assert store.count("calibrations") == 1
        assert len(store.verdicts("answer_ok")) == 100
    # A stale rubric has no promotion left to recheck against.
    result = CliRunner().invoke(main, ["monitor", "--recheck", "answer_ok"])
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: rubrics/answer_ok.promotion.json: stale: marked stale on "
        f"{record['stale']['at']}: label, calibrate and promote it again before rechecking\n"
    )


def test_runs_missing_from_the_store_are_an_error_naming_the_fix(
    promoted: Path, tmp_path: Path
) -> None:
    with open_store() as store, store.engine.begin() as connection:
        connection.exec_driver_sql("DELETE FROM runs")
    result = CliRunner().invoke(main, ["monitor", "--recheck", "answer_ok"])
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: labels/answer_ok.jsonl: none of the 100 labelled runs of answer_ok "
        f"is in the store sqlite:///{tmp_path}/.judgekit/judgekit.sqlite; pass the runs with "
        "--runs FILE\n"
    )


def test_a_rubric_that_was_never_promoted_cannot_be_rechecked(promoted: Path) -> None:
    (promoted / "rubrics" / "answer_ok.promotion.json").unlink()
    result = CliRunner().invoke(main, ["monitor", "--recheck", "answer_ok"])
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: rubrics/answer_ok.promotion.json: no promotion record: only a "
        "promoted rubric can be rechecked\n"
    )


def test_the_labelled_runs_can_come_from_a_file(promoted: Path, tmp_path: Path) -> None:
    with open_store() as store:
        runs = list(store.runs().values())
        with store.engine.begin() as connection:
            connection.exec_driver_sql("DELETE FROM runs")
    runs_file = tmp_path / "labelled.jsonl"
    runs_file.write_text("".join(run.model_dump_json() + "\n" for run in runs[:60]))
    with FakeLLMServer(reply=judge_with_error_rate(0.03)) as server:
        code, found = recheck(server, "--runs", str(runs_file))
        assert server.calls == 60
    assert code == 0
    assert found["now"]["n"] == 60
    assert len(found["missing_runs"]) == 40


def test_labelled_runs_without_an_answer_stop_the_recheck(promoted: Path) -> None:
    """A recheck on fewer runs than were labelled would test another sample: it refuses."""

    def overloaded_on_some(request: FakeRequest) -> str:
        if "(run shop/t/1)" in request.text or "(run shop/t/2)" in request.text:
            raise RuntimeError("overloaded")  # answered with HTTP 500, every time
        return json.dumps({"reason": "fine", "score": "pass"})

    with FakeLLMServer(reply=overloaded_on_some) as server:
        result = CliRunner().invoke(
            main,
            ["monitor", "--recheck", "answer_ok", "--base-url", server.openai_base_url],
        )
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        "judgekit: error: 2 of 100 labelled runs got no answer from openai/gpt-4o-mini "
        "(OpenAI failed to answer (HTTP 500: reply function raised "
        "RuntimeError('overloaded'))): nothing concluded; rerun the recheck\n"
    )
    assert rubric_status() == "promoted"


def test_recheck_is_a_command_of_its_own_printing_what_monitor_recheck_prints(
    promoted: Path,
) -> None:
    with FakeLLMServer(reply=judge_with_error_rate(0.03)) as server:
        url = server.openai_base_url
        own = CliRunner().invoke(main, ["recheck", "answer_ok", "--base-url", url])
        via_monitor = CliRunner().invoke(
            main, ["monitor", "--recheck", "answer_ok", "--base-url", url]
        )
    assert own.exit_code == via_monitor.exit_code == 0, own.output
    assert own.stdout == via_monitor.stdout
    assert own.stdout.startswith(
        "recheck ok: answer_ok (openai/gpt-4o-mini): kappa held: 0.900 [0.815, 0.985] on 100 "
        "labels at promotion, "
    )


def test_recheck_exits_1_on_a_drop(promoted: Path) -> None:
    with FakeLLMServer(reply=judge_with_error_rate(0.30)) as server:
        result = CliRunner().invoke(
            main, ["recheck", "answer_ok", "--base-url", server.openai_base_url, "--json"]
        )
    assert result.exit_code == 1
    assert json.loads(result.stdout)["recheck"]["drifted"] is True
    assert rubric_status() == "stale"


def test_recheck_takes_the_options_monitor_recheck_takes() -> None:
    from judgekit.cli.monitor_cmd import monitor_command
    from judgekit.cli.recheck_cmd import recheck_command

    own = {param.name for param in recheck_command.params}
    assert own == {
        "rubric_ref",
        "labels_dir",
        "runs_files",
        "tasks_path",
        "base_url",
        "api_key_env",
        "concurrency",
        "rpm",
        "tpm",
        "share_rate_limits",
        "drift_alpha",
        "as_json",
    }
    assert own - {"rubric_ref"} < {param.name for param in monitor_command.params}


def test_a_recheck_spends_the_test_labels_it_measured(promoted: Path) -> None:
    labels_file = promoted / "labels" / "answer_ok.jsonl"
    rubric = load_rubric(promoted / "rubrics" / "answer_ok.yaml")
    split = load_split(rubric, labels_file, read_labels(labels_file, rubric).current)
    assert len(split.test) == 100 and not split.spent
    with FakeLLMServer(reply=judge_with_error_rate(0.03)) as server:
        code, _ = recheck(server)
    assert code == 0
    spent = read_split_file(split.path).spent
    assert spent == dict.fromkeys(
        split.test, "measured beside the judge's verdicts by monitor --recheck"
    )


def test_a_recheck_stays_within_rpm_and_judges_every_labelled_run(promoted: Path) -> None:
    import time

    with FakeLLMServer(reply=judge_with_error_rate(0.03)) as server:
        started = time.monotonic()
        code, found = recheck(server, "--rpm", "3000")
        elapsed = time.monotonic() - started
        assert server.calls == 100
    assert code == 0 and found["now"]["n"] == 100
    # 50 a second, 50 at once: the last of 100 requests starts 1 s after the first.
    assert elapsed >= 0.95
