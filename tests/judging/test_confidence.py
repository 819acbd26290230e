"""A verdict's confidence and abstention: log-probabilities through the real openai SDK,
none from the anthropic SDK, the samples' agreement, and a judge abstaining under a
selective promotion — all against the fake server."""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from threading import Lock
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.judging.confidence import (
    ScoreTokens,
    logprob_confidence,
    samples_confidence,
    score_tokens,
)
from judgekit.providers.chat import ChatResponse, TokenLogprob
from judgekit.testing import FakeLLMServer, Reply
from judgekit.testing.fake_llm_server import FakeRequest
from tests.judging.conftest import RUBRIC, SHOP_RUNS, TASKS, verdict_json
from tests.promoted import promote_for_real

# goal_completion on the shop runs: 14 passes (answers that say they refunded), 4 fails.
PASS_PROBS = {"pass": 0.7, "Pass": 0.1, "fail": 0.2}  # "pass" spelled twice: 0.8 in all
FAIL_PROBS = {"fail": 0.55, "pass": 0.45}


def sure_of_passes(request: FakeRequest) -> Reply:
    if "Refund" in request.text:
        return Reply(verdict_json("pass"), PASS_PROBS)
    return Reply(verdict_json("fail"), FAIL_PROBS)


def rubric_copy(folder: Path, judge: str) -> Path:
    """goal_completion in ``folder/rubrics`` with its `judge:` line replaced by ``judge``."""
    rubrics = folder / "rubrics"
    rubrics.mkdir(parents=True)
    text = RUBRIC.read_text()
    old = "judge: {model: openai/gpt-4o-mini, temperature: 0, samples: 1}"
    assert old in text
    path = rubrics / "goal_completion.yaml"
    path.write_text(text.replace(old, f"judge: {judge}"))
    return path


def run_judge(rubric: Path, base_url: str, out: Path, *extra: str) -> tuple[dict[str, Any], str]:
    args = ["judge", str(SHOP_RUNS), "--rubric", str(rubric), "--tasks", str(TASKS)]
    args += ["--base-url", base_url, "--out", str(out), "--no-store", *extra]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, (result.output, result.exception)
    return (json.loads(result.stdout) if "--json" in extra else {}), result.output


def verdicts(out: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (out / "verdicts.jsonl").read_text().splitlines()]


def test_logprobs_give_the_probability_of_the_scores_token(tmp_path: Path) -> None:
    rubric = rubric_copy(tmp_path, "{model: openai/gpt-4o-mini, confidence: logprobs}")
    with FakeLLMServer(reply=sure_of_passes) as server:
        summary, _ = run_judge(rubric, server.openai_base_url, tmp_path / "out", "--json")
        again, _ = run_judge(rubric, server.openai_base_url, tmp_path / "again", "--json")
        bodies = [request.body for request in server.requests]
    assert {(b["logprobs"], b["top_logprobs"]) for b in bodies} == {(True, 5)}
    assert (summary["confidence_note"], summary["api_calls"], again["api_calls"]) == (None, 7, 0)
    for out in ("out", "again"):  # the cache keeps the log-probabilities with the answer
        by_score: dict[str, set[float]] = {}
        for verdict in verdicts(tmp_path / out):
            by_score.setdefault(verdict["score"], set()).add(round(verdict["confidence"], 12))
        assert by_score == {"pass": {0.8}, "fail": {0.55}}


def test_the_rubric_version_changes_with_the_confidence_measure(tmp_path: Path) -> None:
    plain = load_rubric(rubric_copy(tmp_path / "a", "{model: openai/gpt-4o-mini}"))
    named = load_rubric(
        rubric_copy(tmp_path / "b", "{model: openai/gpt-4o-mini, confidence: samples}")
    )
    logprobs = load_rubric(
        rubric_copy(tmp_path / "c", "{model: openai/gpt-4o-mini, confidence: logprobs}")
    )
    assert rubric_version(plain) == rubric_version(named) == rubric_version(load_rubric(RUBRIC))
    assert rubric_version(logprobs) != rubric_version(plain)


def test_anthropic_gives_no_logprobs_so_the_samples_agreement_stands_in(tmp_path: Path) -> None:
    asked: Counter[str] = Counter()
    lock = Lock()

    def two_of_three(request: FakeRequest) -> str:
        # Each prompt's third answer disagrees: every verdict has agreement 2/3.
        with lock:
            asked[request.text] += 1
            nth = asked[request.text]
        return verdict_json("fail" if nth == 3 else "pass")

    judge = "{model: anthropic/claude-haiku-4-5, samples: 3, confidence: logprobs}"
    rubric = rubric_copy(tmp_path, judge)
    with FakeLLMServer(reply=two_of_three) as server:
        _, output = run_judge(rubric, server.anthropic_base_url, tmp_path / "out")
    note = (
        "judge.confidence is logprobs but anthropic/claude-haiku-4-5 returned no token "
        "log-probabilities: confidence comes from the samples' agreement where there are "
        "several, else is unknown"
    )
    assert output.count(note) == 1
    found = {(v["score"], v["confidence"], v["agreement"]) for v in verdicts(tmp_path / "out")}
    assert found == {("pass", 2 / 3, 2 / 3)}


def test_one_answer_without_logprobs_has_no_confidence(tmp_path: Path) -> None:
    rubric = rubric_copy(tmp_path, "{model: openai/gpt-4o-mini}")
    with FakeLLMServer(reply=sure_of_passes) as server:
        run_judge(rubric, server.openai_base_url, tmp_path / "out")
        assert all("logprobs" not in request.body for request in server.requests)
    assert {v["confidence"] for v in verdicts(tmp_path / "out")} == {None}


def promote_selectively(rubric_path: Path, threshold: float, **changes: Any) -> None:
    """Promote the rubric selectively at α = 0.1 for real, at ``threshold``: on 90 test
    labels its judge was right at 0.9 on 50, right at ``threshold`` on 20 and wrong at half
    of it on 20. ``changes``: fields then edited into the record by hand."""
    text = rubric_path.read_text()
    rubric_path.write_text(
        text.replace("promotion: {", "promotion: {selective: {alpha: 0.1, delta: 0.1}, ")
    )
    human = {f"l{i}": "pass" if i % 2 else "fail" for i in range(90)}
    flipped = {"pass": "fail", "fail": "pass"}
    judged = {r: flipped[h] if i >= 70 else h for i, (r, h) in enumerate(human.items())}
    sure = {
        r: 0.9 if i < 50 else threshold if i < 70 else threshold / 2 for i, r in enumerate(human)
    }
    record = promote_for_real(rubric_path, human, judged, confidences=sure)
    assert record["selective"]["threshold"] == threshold
    if changes:
        path = rubric_path.parent / "goal_completion.promotion.json"
        path.write_text(json.dumps({**record, **changes}))


def test_a_selectively_promoted_judge_abstains_below_the_threshold(tmp_path: Path) -> None:
    rubric = rubric_copy(tmp_path, "{model: openai/gpt-4o-mini, confidence: logprobs}")
    promote_selectively(rubric, 0.75)
    with FakeLLMServer(reply=sure_of_passes) as server:
        summary, _ = run_judge(rubric, server.openai_base_url, tmp_path / "a", "--json")
        _, text = run_judge(rubric, server.openai_base_url, tmp_path / "b")
    assert (summary["verdicts"], summary["abstained"], summary["unscored"]) == (18, 4, 0)
    assert (summary["scores"], summary["abstain_below"]) == ({"pass": 14}, 0.75)
    written = Counter((v["status"], v["score"]) for v in verdicts(tmp_path / "a"))
    assert written == {("scored", "pass"): 14, ("abstained", "fail"): 4}
    assert text.splitlines()[0] == (
        "goal_completion (version "
        f"{rubric_version(load_rubric(rubric))}, openai/gpt-4o-mini): 18 verdicts, 14 scored "
        "(pass 14), 0 unscored (0.0%), 4 abstained (confidence below the promoted 0.75; "
        "coverage 77.8%)"
    )


@pytest.mark.parametrize(
    "changes",
    [{"stale": {"reason": "drifted"}}, {"promotable": False}, {"rubric_version": "0" * 12}],
)
def test_no_abstention_unless_the_record_promotes_this_version(
    tmp_path: Path, changes: dict[str, Any]
) -> None:
    rubric = rubric_copy(tmp_path, "{model: openai/gpt-4o-mini, confidence: logprobs}")
    promote_selectively(rubric, 0.75, **changes)
    with FakeLLMServer(reply=sure_of_passes) as server:
        summary, _ = run_judge(rubric, server.openai_base_url, tmp_path / "out", "--json")
    assert (summary["abstained"], summary["abstain_below"], summary["scores"]) == (
        0,
        None,
        {"pass": 14, "fail": 4},
    )


def test_a_verdict_without_confidence_abstains_under_a_threshold(tmp_path: Path) -> None:
    rubric = rubric_copy(tmp_path, "{model: openai/gpt-4o-mini}")
    promote_selectively(rubric, 0.5)
    with FakeLLMServer(reply=sure_of_passes) as server:
        summary, _ = run_judge(rubric, server.openai_base_url, tmp_path / "out", "--json")
    assert (summary["abstained"], summary["scores"]) == (18, {})


def tokens(*parts: tuple[str, float, dict[str, float]]) -> ChatResponse:
    return ChatResponse(
        text="".join(token for token, _, _ in parts),
        model="m",
        tokens=tuple(
            TokenLogprob(
                token=token,
                logprob=math.log(p),
                top=tuple((alt, math.log(q)) for alt, q in top.items()),
            )
            for token, p, top in parts
        ),
    )


def test_the_score_token_is_found_inside_a_longer_token() -> None:
    response = tokens(
        ('{"reason": "the \\"score\\": fail", "score": ', 1.0, {}),
        ('"pa', 0.6, {'"pa': 0.6, ' "pa': 0.1, '"fa': 0.25}),
        ('ss"}', 1.0, {}),
    )
    found = score_tokens(response)
    assert found is not None
    assert found.chosen == "pa"
    assert found.probs == pytest.approx({"pa": 0.7, "fa": 0.25}, abs=1e-12)


def test_tokens_that_do_not_spell_the_text_give_no_confidence() -> None:
    response = tokens(('{"score": ', 1.0, {}), ("4", 0.9, {"4": 0.9}), ("}", 1.0, {}))
    assert score_tokens(response.model_copy(update={"text": '{"score": 5}'})) is None
    assert score_tokens(response) == ScoreTokens(chosen="4", probs={"4": pytest.approx(0.9)})


def test_confidence_across_samples_and_swapped_orders() -> None:
    sure = ScoreTokens(chosen="a", probs={"a": 0.9, "b": 0.1})
    unsure = ScoreTokens(chosen="b", probs={"b": 0.6, "a": 0.4})
    # Two samples chose A, one B (which gave A 0.4): the mean probability of A.
    answers = [("A", sure), ("A", sure), ("B", unsure)]
    assert logprob_confidence(answers, "A", label="A") == pytest.approx((0.9 + 0.9 + 0.4) / 3)
    # No answer chose the score: its token is the alternative that begins its label.
    assert logprob_confidence([("B", unsure)], "A", label="A") == pytest.approx(0.4)
    assert logprob_confidence([("A", sure), ("B", None)], "A", label="A") is None
    assert samples_confidence(["A", "B", "A", "A"], "A") == 0.75


def pairwise_rubric(folder: Path, judge: str) -> Path:
    text = (RUBRIC.parent / "preference.yaml").read_text()
    old = "judge: {model: openai/gpt-4o-mini, temperature: 0, samples: 1}"
    assert old in text
    folder.mkdir(parents=True)
    path = folder / "preference.yaml"
    path.write_text(text.replace(old, f"judge: {judge}"))
    return path


def pairwise_runs(path: Path) -> Path:
    base = {"task_id": "t", "input": "Which answer is better?", "tool_calls": []}
    rows = [
        {**base, "run_id": "r1", "metadata": {"answers": ["good answer", "weak answer"]}},
        {**base, "run_id": "r2", "metadata": {"answers": ["weak answer", "good answer"]}},
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path


def test_a_pairwise_confidence_reads_both_orders(tmp_path: Path) -> None:
    def prefers_good(request: FakeRequest) -> Reply:
        text = request.messages[-1]["content"]
        if text.index("good answer") < text.index("weak answer"):
            return Reply(verdict_json("A"), {"A": 0.9, "B": 0.1})
        return Reply(verdict_json("B"), {"B": 0.7, "A": 0.3})

    def first_shown(request: FakeRequest) -> str:
        return verdict_json("A")

    runs = pairwise_runs(tmp_path / "runs.jsonl")
    logprobs = pairwise_rubric(tmp_path / "a", "{model: openai/gpt-4o-mini, confidence: logprobs}")
    samples = pairwise_rubric(tmp_path / "b", "{model: openai/gpt-4o-mini}")
    for rubric, reply, out in ((logprobs, prefers_good, "a"), (samples, first_shown, "b")):
        with FakeLLMServer(reply=reply) as server:
            args = ["judge", str(runs), "--rubric", str(rubric), "--base-url"]
            args += [server.openai_base_url, "--out", str(tmp_path / out), "--no-store"]
            result = CliRunner().invoke(main, args)
            assert result.exit_code == 0, result.output
    # The good answer, chosen with 0.9 shown first and 0.7 shown second: 0.8 either way round.
    found = [
        (v["run_id"], v["score"], round(v["confidence"], 12), v["position_bias"])
        for v in sorted(verdicts(tmp_path / "a"), key=lambda v: v["run_id"])
    ]
    assert found == [("r1", "A", 0.8, False), ("r2", "B", 0.8, False)]
    # A judge that always picks what it is shown first is half sure: its verdicts flip.
    assert {(v["confidence"], v["position_bias"]) for v in verdicts(tmp_path / "b")} == {
        (0.5, True)
    }


def test_a_rerun_decides_abstention_again_without_asking(tmp_path: Path) -> None:
    rubric = rubric_copy(tmp_path, "{model: openai/gpt-4o-mini, confidence: logprobs}")
    out = tmp_path / "out"
    record = rubric.parent / "goal_completion.promotion.json"
    with FakeLLMServer(reply=sure_of_passes) as server:
        first, _ = run_judge(rubric, server.openai_base_url, out, "--json")
        promote_selectively(rubric, 0.75)
        promoted, _ = run_judge(rubric, server.openai_base_url, out, "--json")
        statuses = Counter(v["status"] for v in verdicts(out))
        record.unlink()
        unpromoted, _ = run_judge(rubric, server.openai_base_url, out, "--json")
        assert server.calls == 7  # the first session's: the reruns kept every verdict
    assert (first["abstained"], promoted["abstained"], unpromoted["abstained"]) == (0, 4, 0)
    assert (promoted["kept"], promoted["scores"]) == (18, {"pass": 14})
    assert statuses == {"scored": 14, "abstained": 4}
    assert Counter(v["status"] for v in verdicts(out)) == {"scored": 18}
