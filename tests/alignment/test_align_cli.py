"""`judgekit align` on the support desk (tests/alignment/world.py), against simulated
judges on the fake server, through the real openai SDK."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sklearn.metrics import cohen_kappa_score  # type: ignore[import-untyped]

from judgekit.calibration.selection import select_verdicts
from judgekit.calibration.split import load_split
from judgekit.cli import main
from judgekit.formats.label import read_labels
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import load_verdicts
from judgekit.judging.pipeline import JudgeRequest, judging_session, prepare_judging
from judgekit.stats import cohen_kappa_score as judgekit_kappa
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.alignment.world import (
    NOTES,
    OPTIMIZER,
    PROMPT,
    REFUND_RULE,
    desk_server_reply,
    write_world,
)

RUBRIC_PATH = Path("rubrics/support.yaml")
RUNS = Path("runs.jsonl")
LABELS = Path("labels/support.jsonl")
ANNOUNCED = (
    "align: judging 30 dev runs with the current rubric: up to 30 judge requests "
    "(cached answers cost nothing)"
)
CURRENT_ROW = "current            0  30  0.000 [-0.357, 0.357]  —"


@pytest.fixture
def desk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-desk")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    write_world(tmp_path)
    return tmp_path


def align(server: FakeLLMServer, *extra: str) -> Result:
    args = ["align", str(RUNS), "--rubric", str(RUBRIC_PATH)]
    return CliRunner().invoke(main, [*args, "--base-url", server.openai_base_url, *extra])


def split_sides() -> tuple[frozenset[str], frozenset[str]]:
    rubric = load_rubric(RUBRIC_PATH)
    split = load_split(rubric, LABELS, read_labels(LABELS, rubric).current, record=False)
    return split.dev, split.test


def inputs_asked(requests: list[FakeRequest]) -> set[str]:
    """The task inputs the judge was asked to grade (not those of its examples)."""
    found = set()
    for request in requests:
        user = request.messages[-1]["content"]
        found |= set(re.findall(r"<untrusted_input>\n(.*?)\n</untrusted_input>", user, re.S))
    return found


def run_inputs(runs: frozenset[str]) -> set[str]:
    lines = [json.loads(line) for line in RUNS.read_text(encoding="utf-8").splitlines()]
    return {run["input"] for run in lines if run["run_id"] in runs}


def kappa_on_test(server: FakeLLMServer, folder: Path) -> tuple[float, int]:
    """The rubric's kappa against the TEST labels, its runs judged through the judging
    pipeline after align is done (cross-checked with scikit-learn)."""
    prepared = prepare_judging(
        JudgeRequest(runs=RUNS, rubric_ref=str(RUBRIC_PATH), base_url=server.openai_base_url)
    )
    with judging_session(prepared, folder, provenance=None) as session:
        session.judge()
    rubric = load_rubric(RUBRIC_PATH)
    verdicts = select_verdicts(
        load_verdicts(folder / "verdicts.jsonl"),
        rubric.id,
        version=rubric_version(rubric),
        model=rubric.judge.model,
    ).current
    labels = read_labels(LABELS, rubric).current
    runs = sorted(split_sides()[1])
    human = [labels[(run, "ana")].label for run in runs]
    judged = [verdicts[run].score for run in runs]
    kappa = judgekit_kappa(human, judged)
    assert kappa == pytest.approx(cohen_kappa_score(human, judged), abs=1e-12)
    return kappa, len(runs)


def test_align_finds_the_refund_example_writes_it_and_test_kappa_rises(desk: Path) -> None:
    original = RUBRIC_PATH.read_text(encoding="utf-8")
    with FakeLLMServer(reply=desk_server_reply(weak=True)) as server:
        result = align(server)
        asked_by_align = inputs_asked(server.requests)
        written = RUBRIC_PATH.read_text(encoding="utf-8")
        kappa_after, n_test = kappa_on_test(server, desk / "after")
        RUBRIC_PATH.write_text(original, encoding="utf-8")
        kappa_before, _ = kappa_on_test(server, desk / "before")
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() == [
        ANNOUNCED,
        "align: 3 candidates × 30 dev runs: up to 90 judge requests (cached answers cost nothing)",
    ]
    assert result.stdout.splitlines() == [
        "align support (version f43e8413407f, judge openai/desk-judge)",
        "dev: 30 labelled runs compared (of 30 labelled), 5 folds, seed 0; 15 disagreements "
        "with the current rubric",
        "test: 30 labelled runs held out — measured by judgekit promote",
        "",
        "candidate   examples   n  dev kappa [95% CI]     gain [95% CI]",
        CURRENT_ROW,
        "examples-2         2  30  0.733 [0.490, 0.977]   0.733 [0.389, 1.072]  better",
        "examples-4         4  30  0.733 [0.490, 0.977]   0.733 [0.389, 1.072]  better",
        "examples-8         8  30  0.733 [0.490, 0.977]   0.733 [0.389, 1.072]  better",
        "",
        "before: dev kappa 0.000; test kappa held out — measured by judgekit promote",
        "after:  dev kappa 0.733 (examples-2, out of fold); test kappa held out — measured by "
        "judgekit promote",
        "",
        "asked the judge 120 times (0 answers from the cache); judge cost unknown",
        "examples-2 is written as version 02e6f8d34506",
        "wrote rubrics/support.yaml: version f43e8413407f → 02e6f8d34506, a draft until "
        "`judgekit promote --rubric support` measures it on the test labels",
    ]
    # Align never asked the judge about a test run: the test labels stay fresh.
    dev, test = split_sides()
    assert asked_by_align == run_inputs(dev)
    assert not asked_by_align & run_inputs(test)
    # The new version: the file as it was (its comment kept) plus two dev disagreements,
    # one each way — a refund claim among them — with the labeller's note as the why.
    assert written == original + (
        "examples:\n"
        "- input: I cannot log in to account 108; please reset my password.\n"
        "  output: 'Done: I took care of it for order 108.'\n"
        "  label: pass\n"
        f"  why: {NOTES['password']}\n"
        "- input: I filed a refund claim for order 113; where is my money?\n"
        "  output: 'Sorry: I could not do anything about order 113.'\n"
        "  label: fail\n"
        f"  why: {NOTES['refund']}\n"
    )
    assert {"p-08", "r-13"} <= dev
    # On the held-out test runs, judged once align is done, kappa rises from 2/15 to 11/15.
    assert n_test == 30
    assert kappa_before == pytest.approx(2 / 15, abs=1e-12)
    assert kappa_after == pytest.approx(11 / 15, abs=1e-12)


def test_a_judge_without_the_weakness_gets_nothing_written_and_exit_1(desk: Path) -> None:
    original = RUBRIC_PATH.read_bytes()
    with FakeLLMServer(reply=desk_server_reply(weak=False)) as server:
        result = align(server)
    assert result.exit_code == 1, result.output
    lines = result.stdout.splitlines()
    assert lines[1].endswith("4 disagreements with the current rubric")
    assert lines[5:8] == [
        "current            0  30  0.733 [0.490, 0.977]  —",
        "examples-2         2  30  0.733 [0.490, 0.977]  0.000 [0.000, 0.000]  not shown better",
        "examples-4         4  30  0.733 [0.490, 0.977]  0.000 [0.000, 0.000]  not shown better",
    ]
    assert lines[-4:] == [
        "after:  unchanged (nothing written)",
        "",
        "asked the judge 90 times (0 answers from the cache); judge cost unknown",
        "nothing written: no candidate's kappa gain on dev has its interval above 0",
    ]
    assert RUBRIC_PATH.read_bytes() == original


def test_the_rewrite_wins_when_examples_do_not_teach_the_judge(desk: Path) -> None:
    reply = desk_server_reply(weak=True, learns_from_examples=False)
    with FakeLLMServer(reply=reply) as server:
        result = align(server, "--optimizer-model", OPTIMIZER, "--json")
        optimizer_requests = [r for r in server.requests if r.model == "desk-optimizer"]
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    rows = {row["name"]: row for row in report["candidates"]}
    assert [
        round(rows[name]["gain"], 3) for name in ("examples-2", "examples-4", "examples-8")
    ] == [0.0, 0.0, 0.0]
    assert round(rows["rewrite"]["kappa"], 3) == 0.733
    assert [round(x, 3) for x in rows["rewrite"]["gain_ci"]] == [0.389, 1.072]
    assert report["best"] == "rewrite"
    assert report["example_runs"] == []
    assert report["spending"]["optimizer_calls"] == 6  # one per fold, then one from all of dev
    assert len(optimizer_requests) == 6
    rubric = load_rubric(RUBRIC_PATH)
    assert rubric.prompt == PROMPT + REFUND_RULE + "\n"
    assert rubric.examples == []
    assert report["new_version"] == rubric_version(rubric)
    # Agent text reaches the optimizer quoted as data, never as instructions.
    user = optimizer_requests[-1].messages[1]["content"]
    assert "<untrusted_input>\nI filed a refund claim for order" in user
    assert "<untrusted_grader_note>\n" + NOTES["refund"] in user


def test_a_rewrite_that_drops_a_placeholder_is_dropped_with_the_reason(desk: Path) -> None:
    reply = desk_server_reply(weak=True, valid_rewrite=False)
    with FakeLLMServer(reply=reply) as server:
        result = align(server, "--optimizer-model", OPTIMIZER)
    assert result.exit_code == 0, result.output
    assert (
        "rewrite            —   —  —                      —                     dropped: fold 1: "
        "prompt: the rubric applies to the final_answer but the prompt never shows it; add "
        "{final_answer} or {transcript} or {conversation}"
    ) in result.stdout.splitlines()
    assert "examples-2 is written as version 02e6f8d34506" in result.stdout


def test_a_judge_that_agrees_with_every_dev_label_leaves_nothing_to_learn(desk: Path) -> None:
    def reply(request: FakeRequest) -> str:
        answer = re.search(r"<untrusted_final_answer>\n(.*?)\n", request.messages[1]["content"])
        assert answer is not None
        score = "pass" if answer.group(1).startswith("Done:") else "fail"
        return json.dumps({"reason": "read", "score": score})

    with FakeLLMServer(reply=reply) as server:
        result = align(server)
    assert result.exit_code == 1
    assert result.stdout.splitlines()[-1] == (
        "nothing written: the current rubric agrees with every dev label it scored"
    )
    assert "align: 0 candidates × 30 dev runs: up to 0 judge requests" in result.stderr


def test_the_docs_show_what_align_prints(desk: Path) -> None:
    page = Path(__file__).resolve().parents[2] / "docs" / "how-to" / "align.md"
    readme = page.read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ (judgekit align .*?)\n(.*?)```", readme, re.S)
    assert block is not None
    command, shown = block.group(1).split()[1:], block.group(2).splitlines()
    with FakeLLMServer(reply=desk_server_reply(weak=True)) as server:
        result = CliRunner().invoke(main, [*command, "--base-url", server.openai_base_url])
    assert result.exit_code == 0, result.output
    assert result.stderr.splitlines() + result.stdout.splitlines() == shown
    assert "kappa rises from 0.133 to 0.733" in readme.replace("\n", " ")


def test_out_writes_the_new_version_elsewhere_and_leaves_the_rubric_alone(desk: Path) -> None:
    original = RUBRIC_PATH.read_bytes()
    Path("proposed").mkdir()
    with FakeLLMServer(reply=desk_server_reply(weak=True)) as server:
        result = align(server, "--out", "proposed/support.yaml")
    assert result.exit_code == 0, result.output
    assert RUBRIC_PATH.read_bytes() == original
    assert rubric_version(load_rubric(Path("proposed/support.yaml"))) == "02e6f8d34506"
    assert result.stdout.splitlines()[-1].startswith(
        "wrote proposed/support.yaml: version f43e8413407f → 02e6f8d34506"
    )


def test_before_shows_the_test_kappa_the_current_version_was_promoted_on(desk: Path) -> None:
    rubric = load_rubric(RUBRIC_PATH)
    record = {
        "rubric_id": "support",
        "rubric_version": rubric_version(rubric),
        "promotable": True,
        "model": rubric.judge.model,
        "n": 30,
        "kappa": 0.2,
        "kappa_ci": [-0.1, 0.5],
        "promoted_at": "2026-11-30T09:00:00+00:00",
    }
    (RUBRIC_PATH.parent / "support.promotion.json").write_text(json.dumps(record))
    with FakeLLMServer(reply=desk_server_reply(weak=True)) as server:
        result = align(server, "--json", "--out", "aligned.yaml")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["test"]["kappa_before"] == {
        "kappa": 0.2,
        "kappa_ci": [-0.1, 0.5],
        "n": 30,
        "promoted_at": "2026-11-30T09:00:00+00:00",
    }
    with FakeLLMServer(reply=desk_server_reply(weak=True)) as server:
        again = align(server, "--out", "aligned.yaml")
    before = next(line for line in again.stdout.splitlines() if line.startswith("before:"))
    assert before == (
        "before: dev kappa 0.000; test kappa 0.200 [-0.100, 0.500] on 30 labels (measured at "
        "promotion, 2026-11-30T09:00:00+00:00)"
    )
