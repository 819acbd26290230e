"""judge --review: a seeded share of the judged runs and every abstained one enter the
rubric's labelling queue once each, and `judgekit label --queue` hands out exactly those."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.queue_file import read_queue_log
from judgekit.formats.rubric_file import load_rubric
from judgekit.labelling.queue import enqueue_runs, open_queue
from judgekit.labelling.review import runs_for_review
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO
from tests.judging.conftest import refund_runs
from tests.promoted import hesitant_judge, selective_rubric

NOW = datetime(2026, 12, 3, 2, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def answers(n: int) -> list[str]:
    return [
        f"Refund of $40 issued for A100 (ticket {i}{', unsure' if i % 5 == 0 else ''})."
        for i in range(n)
    ]


def judge(tmp_path: Path, server: FakeLLMServer, *extra: str) -> dict[str, Any]:
    args = [
        "judge",
        str(tmp_path / "runs.jsonl"),
        "--rubric",
        str(tmp_path / "rubrics" / "goal_completion.yaml"),
        "--base-url",
        server.openai_base_url,
        "--out",
        str(tmp_path / "out"),
        "--tasks",
        str(REPO / "tasks"),
        "--labels-dir",
        str(tmp_path / "labels"),
        "--json",
        *extra,
    ]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, (result.output, result.exception)
    report: dict[str, Any] = json.loads(result.stdout)
    return report


QUEUED = ["r0", "r4", "r5", "r6", "r10", "r12", "r15", "r19"]


def test_review_queues_the_sampled_and_the_abstained_once_and_label_hands_them_out(
    tmp_path: Path,
) -> None:
    selective_rubric(tmp_path)
    refund_runs(tmp_path / "runs.jsonl", answers(20))
    with FakeLLMServer(reply=hesitant_judge()) as server:
        first = judge(tmp_path, server, "--review", "40%", "--sample-seed", "nightly")
        again = judge(tmp_path, server, "--review", "40%", "--sample-seed", "nightly")
    assert first["abstained"] == 4  # r0, r5, r10, r15: their samples split
    queue_file = tmp_path / "labels" / "goal_completion.queue.jsonl"
    assert first["review"] == {
        "queue_file": str(queue_file),
        "share": 0.4,
        "picked": 8,
        "abstained": 4,
        "queued": 8,
        "already_queued": 0,
        "runs": QUEUED,
    }
    assert (again["review"]["queued"], again["review"]["already_queued"]) == (0, 8)
    log = read_queue_log(tmp_path / "labels" / "goal_completion.jsonl")
    assert {run: entry.queued for run, entry in log.entered.items()} == {
        "r0": "abstained",
        "r4": "review",
        "r5": "abstained",
        "r6": "review",
        "r10": "abstained",
        "r12": "review",
        "r15": "abstained",
        "r19": "review",
    }
    # The sampled ones are the hash's, whatever the judge said: every run passed.
    sampled = [r for r, why in log.entered.items() if why.queued == "review"]
    from judgekit.judging.run_sample import sample_number

    assert sampled == [
        f"r{i}"
        for i in range(20)
        if i % 5 and sample_number("goal_completion", f"r{i}", "nightly\0review") < 0.4
    ]
    labelled = CliRunner().invoke(
        main,
        [
            "label",
            str(tmp_path / "runs.jsonl"),
            "--rubric",
            str(tmp_path / "rubrics" / "goal_completion.yaml"),
            "--labeler",
            "ben",
            "--labels-dir",
            str(tmp_path / "labels"),
            "--queue",
        ],
        input="p\n" * 20,
    )
    assert labelled.exit_code == 0, labelled.output
    labels = (tmp_path / "labels" / "goal_completion.jsonl").read_text().splitlines()
    bens = [json.loads(line)["run_id"] for line in labels if '"ben"' in line]
    assert sorted(bens) == sorted(QUEUED)


def test_the_text_summary_says_how_many_were_queued_and_where(tmp_path: Path) -> None:
    selective_rubric(tmp_path)
    refund_runs(tmp_path / "runs.jsonl", answers(20))
    with FakeLLMServer(reply=hesitant_judge()) as server:
        args = [
            "judge",
            str(tmp_path / "runs.jsonl"),
            "--rubric",
            str(tmp_path / "rubrics" / "goal_completion.yaml"),
            "--base-url",
            server.openai_base_url,
            "--out",
            str(tmp_path / "out"),
            "--tasks",
            str(REPO / "tasks"),
            "--labels-dir",
            str(tmp_path / "labels"),
            "--review",
            "0",
        ]
        result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    queue_file = tmp_path / "labels" / "goal_completion.queue.jsonl"
    assert result.stdout.splitlines()[-1] == (
        f"queued 4 runs for review in {queue_file} (0 sampled at 0%, 4 abstained; 0 already queued)"
    )


def test_entering_is_idempotent_and_a_queue_with_entries_hands_out_only_them(
    tmp_path: Path,
) -> None:
    labels = tmp_path / "labels" / "goal_completion.jsonl"
    assert enqueue_runs(labels, {"a": "review", "b": "abstained"}, clock=lambda: NOW) == ["a", "b"]
    assert enqueue_runs(labels, {"b": "review", "c": "review"}, clock=lambda: NOW) == ["c"]
    assert enqueue_runs(labels, {"a": "review"}, clock=lambda: NOW) == []
    lines = [json.loads(line) for line in labels.with_name("goal_completion.queue.jsonl").open()]
    assert lines[0]["queue"] == 1
    assert [(line["run_id"], line["queued"]) for line in lines[1:]] == [
        ("a", "review"),
        ("b", "abstained"),
        ("c", "review"),
    ]
    rubric = load_rubric(REPO / "rubrics" / "goal_completion.yaml")
    queue = open_queue(
        rubric, labels, strategy="random", seed=0, double_code=0.0, clock=lambda: NOW
    )
    order = ["x", "c", "y", "a", "b"]
    handed = [queue.claim_next("ana", order, skipped=set(), now=NOW) for _ in range(1)]
    # ana holds c until she labels it: she is handed c again; another gets a, then b.
    assert handed == ["c"]
    assert queue.claim_next("ben", order, skipped=set(), now=NOW) == "a"
    assert queue.claim_next("cy", order, skipped=set(), now=NOW) == "b"
    assert queue.claim_next("dan", order, skipped=set(), now=NOW) is None
    assert queue.left(order) == 3


def test_review_picks_never_look_at_the_score() -> None:
    from judgekit.formats.verdict import Verdict

    def verdicts(score: str) -> list[Verdict]:
        return [
            Verdict(
                run_id=f"r{i}",
                rubric_id="goal_completion",
                rubric_version="v",
                model="openai/m",
                status="scored",
                score=score,
                at=NOW,
            )
            for i in range(50)
        ]

    passing = runs_for_review("goal_completion", verdicts("pass"), share=0.2, seed="s")
    failing = runs_for_review("goal_completion", verdicts("fail"), share=0.2, seed="s")
    assert passing == failing
    assert len(passing) == 11


def test_a_malformed_entry_names_the_file_the_line_and_the_field(tmp_path: Path) -> None:
    from judgekit.errors import DataError

    labels = tmp_path / "goal_completion.jsonl"
    queue = labels.with_name("goal_completion.queue.jsonl")
    queue.write_text(
        '{"queue": 1, "at": "2026-12-03T02:00:00Z"}\n'
        '{"run_id": "r1", "queued": "maybe", "at": "2026-12-03T02:00:00Z"}\n'
    )
    with pytest.raises(DataError) as caught:
        enqueue_runs(labels, {"r2": "review"}, clock=lambda: NOW)
    assert str(caught.value) == (
        f"{queue}:2: queued: Input should be 'review' or 'abstained' (got 'maybe')"
    )
    assert queue.read_text().count("\n") == 2  # nothing appended
