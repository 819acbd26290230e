"""--sample: which runs are judged is a seeded hash of the rubric and run ids, stable across
overlapping windows and blind to what the judge says."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.errors import ConfigError
from judgekit.judging.run_sample import parse_sample, parse_share, sample_number
from judgekit.testing import FakeLLMServer
from tests.judging.conftest import judge_args, refund_runs, ticket_answers, verdict_json

TWENTY = [(f"r{i}", None) for i in range(20)]


def test_a_share_picks_exactly_these_runs_for_a_seed() -> None:
    assert parse_sample("25%").select("goal_completion", TWENTY) == ["r6", "r16"]
    assert parse_sample("0.25", "7").select("goal_completion", TWENTY) == [
        "r0",
        "r10",
        "r15",
        "r18",
    ]
    # Every run under the share, and no other.
    chosen = parse_sample("40%").select("goal_completion", TWENTY)
    assert chosen == [r for r, _ in TWENTY if sample_number("goal_completion", r) < 0.4]
    assert parse_sample("100%").select("goal_completion", TWENTY) == [r for r, _ in TWENTY]


def test_n_per_task_takes_the_lowest_hashes_of_each_task_and_of_the_taskless() -> None:
    runs = [(f"r{i}", "a" if i % 2 else "b") for i in range(10)]
    runs += [("x1", None), ("x2", None), ("x3", None)]
    assert parse_sample("2/task").select("goal_completion", runs) == [
        "r3",
        "r4",
        "r6",
        "r7",
        "x2",
        "x3",
    ]
    assert parse_sample("50/task").select("goal_completion", runs) == [r for r, _ in runs]


def test_overlapping_windows_agree_on_every_run_they_share() -> None:
    sample = parse_sample("25%")
    first = set(sample.select("goal_completion", [(f"r{i}", None) for i in range(0, 300)]))
    second = set(sample.select("goal_completion", [(f"r{i}", None) for i in range(150, 450)]))
    shared = {f"r{i}" for i in range(150, 300)}
    assert first & shared == second & shared
    assert len(first & shared) == 28  # of the 150 shared runs: a share, not a fixed count


def test_the_rubric_and_the_seed_change_the_pick() -> None:
    share = parse_sample("25%")
    assert share.select("other_rubric", TWENTY) != share.select("goal_completion", TWENTY)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "0",
            "--sample 0: a share above 0 judges at least some runs; expected a share such as "
            "10% or 0.1 (above 0, at most 100%), or N/task such as 20/task",
        ),
        (
            "150%",
            "--sample 150%: a share is at most 100%; expected a share such as 10% or 0.1 "
            "(above 0, at most 100%), or N/task such as 20/task",
        ),
        (
            "x/task",
            "--sample x/task: 'x' is not a whole number of runs above 0; expected a share "
            "such as 10% or 0.1 (above 0, at most 100%), or N/task such as 20/task",
        ),
        (
            "1.5",
            "--sample 1.5: a share is at most 1; expected a share such as 10% or 0.1 (above 0, "
            "at most 100%), or N/task such as 20/task",
        ),
        (
            "nan",
            "--sample nan: not a finite number; expected a share such as 10% or 0.1 (above "
            "0, at most 100%), or N/task such as 20/task",
        ),
    ],
)
def test_bad_samples_are_refused_with_exit_2(text: str, message: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_sample(text)
    assert str(caught.value) == message
    runs = refund_runs(tmp_path / "runs.jsonl", ticket_answers(3))
    args = judge_args(runs, "http://127.0.0.1:9/v1", tmp_path / "out", "--sample", text)
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert result.stderr == f"judgekit: error: {message}\n"
    assert not (tmp_path / "out").exists()


def test_review_shares_may_be_zero_but_not_below() -> None:
    assert parse_share("0%", "--review") == 0.0
    with pytest.raises(ConfigError, match=r"^--review -1%: a share is at least 0; expected a "):
        parse_share("-1%", "--review")


def _judge(runs: Path, out: Path, score: str, *extra: str) -> tuple[dict[str, object], str]:
    with FakeLLMServer(reply=lambda request: verdict_json(score)) as server:
        args = judge_args(runs, server.openai_base_url, out, *extra)
        result = CliRunner().invoke(main, args)
        text = CliRunner().invoke(main, [a for a in args if a != "--json"])
    assert result.exit_code == 0, result.output
    report: dict[str, object] = json.loads(result.stdout)
    return report, text.stdout


def test_what_is_judged_does_not_depend_on_what_the_judge_says(tmp_path: Path) -> None:
    runs = refund_runs(tmp_path / "runs.jsonl", ticket_answers(20))
    passing, text = _judge(runs, tmp_path / "a", "pass", "--sample", "25%", "--no-cache")
    failing, _ = _judge(runs, tmp_path / "b", "fail", "--sample", "25%", "--no-cache")
    assert (
        passing["sample"]
        == failing["sample"]
        == {
            "sample": "25%",
            "seed": "",
            "runs": 20,
            "picked": 2,
            "judged": 2,
        }
    )
    # Verdicts are written as their answers come, in whatever order that is.
    judged = [json.loads(line)["run_id"] for line in (tmp_path / "a/verdicts.jsonl").open()]
    assert sorted(judged) == sorted(
        parse_sample("25%").select("goal_completion", [(f"r{i}", "refund_full") for i in range(20)])
    )
    assert (passing["scores"], failing["scores"]) == ({"pass": 2}, {"fail": 2})
    assert text.splitlines()[0] == "judged 2 of 20 runs (sample 25%)"


def test_a_dry_run_of_a_sample_that_picks_nothing_says_so(tmp_path: Path) -> None:
    runs = refund_runs(tmp_path / "runs.jsonl", ticket_answers(1))
    args = judge_args(runs, "http://127.0.0.1:9/v1", tmp_path / "out", "--sample", "1%")
    result = CliRunner().invoke(main, [*args, "--dry-run"])
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: --sample 1% picks none of the 1 runs: nothing would be sent\n"
    )
    judged = CliRunner().invoke(main, args)  # judging nothing is no failure
    assert judged.exit_code == 0, judged.output
    report = json.loads(judged.stdout)
    assert (report["verdicts"], report["api_calls"], report["sample"]["picked"]) == (0, 0, 0)
