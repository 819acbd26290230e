"""A judging cut short by its budget or a full disk loses no verdict and says so.

A rerun stopped by --max-cost before any new verdict leaves verdicts.jsonl byte for byte and
exits 1 saying how many runs are left; a disk that fills mid-run (a file size limit in a real
subprocess, as a full disk fails a write) ends in one line naming the file, every verdict
written before still in it and the store holding only what the file holds; a budget or a
threshold that is no number (nan, inf) or no amount (0) is refused before anything runs.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.store import open_store
from judgekit.store.record_files import table_counts
from judgekit.testing import FakeLLMServer, FakeRequest
from tests.judging.conftest import judge_args, refund_runs, ticket_answers
from tests.processes import judgekit

RUNS = 600
OVER_BUDGET = (
    "stopped at the --max-cost budget: {n} of {n} runs not judged, since their next request "
    "could have passed it; rerun with a higher --max-cost to finish (it asks only for those)\n"
)


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-budget-0000000000")
    monkeypatch.delenv("JUDGEKIT_DB", raising=False)


def write_runs(folder: Path, n: int) -> Path:
    return refund_runs(folder / "runs.jsonl", ticket_answers(n))


def judge(runs: Path, server: FakeLLMServer, out: Path, *extra: str) -> Result:
    return CliRunner().invoke(main, judge_args(runs, server.openai_base_url, out, *extra))


def stored_reasons() -> dict[str, str]:
    with open_store() as store:
        return {v.run_id: v.reason for v in store.verdicts("goal_completion")}


def test_a_budget_stop_before_any_new_verdict_leaves_the_verdicts_byte_for_byte(
    tmp_path: Path,
) -> None:
    """It used to empty verdicts.jsonl (40 lines to 0), say the finished verdicts were kept,
    and exit 0."""
    runs, out = write_runs(tmp_path, 40), tmp_path / "out"
    with FakeLLMServer() as server:
        assert judge(runs, server, out).exit_code == 0
        before = (out / "verdicts.jsonl").read_bytes()
        stored = stored_reasons()
        stopped = judge(runs, server, out, "--no-cache", "--max-cost", "0.0001")
        assert server.calls == 40  # the first judging's only
    assert stopped.exit_code == 1, stopped.output
    assert stopped.stderr == OVER_BUDGET.format(n=40)
    assert json.loads(stopped.stdout)["over_budget"] == 40
    assert (out / "verdicts.jsonl").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == [".judgekit.lock", "verdicts.jsonl"]
    assert len(stored) == 40 and stored_reasons() == stored


def test_a_budget_stop_with_no_verdict_records_no_batch(tmp_path: Path) -> None:
    """It used to record the runs in a batch of the store that no verdict joined."""
    runs, out = write_runs(tmp_path, 3), tmp_path / "out"
    with FakeLLMServer() as server:
        stopped = judge(runs, server, out, "--max-cost", "0.0001")
        assert server.calls == 0
    assert stopped.exit_code == 1, stopped.output
    assert stopped.stderr == OVER_BUDGET.format(n=3)
    assert json.loads(stopped.stdout)["store"] is None
    assert not (out / "verdicts.jsonl").exists()
    with open_store() as store:
        assert set(table_counts(store).values()) == {0}


@pytest.mark.parametrize(
    ("args", "option", "value", "why"),
    [
        (["judge", "runs.jsonl"], "--max-cost", "nan", "'nan' is not a finite number."),
        (["judge", "runs.jsonl"], "--max-cost", "inf", "'inf' is not a finite number."),
        (["judge", "runs.jsonl"], "--max-cost", "0", "0.0 is not in the range x>0."),
        (
            ["judge", "runs.jsonl"],
            "--poll-interval",
            "nan",
            "'nan' is not a number of seconds from 0 to a year",
        ),
        (["align", "r.yaml"], "--max-cost", "nan", "'nan' is not a finite number."),
        (["align", "r.yaml"], "--max-cost", "0", "0.0 is not in the range x>0."),
        (
            ["run"],
            "--timeout",
            "nan",
            "'nan' is not a number of seconds above 0 and at most a year",
        ),
        (["gate", "a", "b"], "--alpha", "nan", "'nan' is not a finite number."),
        (["gate", "a", "b"], "--cost-tolerance", "nan", "'nan' is not a finite number."),
        (["gate", "a", "b"], "--turns-tolerance", "inf", "'inf' is not a finite number."),
        (["monitor"], "--alpha", "nan", "'nan' is not a finite number."),
        (["monitor"], "--cost-tolerance", "nan", "'nan' is not a finite number."),
        (
            ["monitor", "--recheck", "r.yaml"],
            "--drift-alpha",
            "nan",
            "'nan' is not a finite number.",
        ),
        (["recheck", "r.yaml"], "--drift-alpha", "nan", "'nan' is not a finite number."),
    ],
)
def test_a_budget_or_threshold_that_is_no_finite_amount_is_refused(
    args: list[str], option: str, value: str, why: str
) -> None:
    """nan passed every one of these (it compares false with any bound): --max-cost nan
    meant no budget at all."""
    result = CliRunner().invoke(main, [*args, option, value])
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: Invalid value for '{option}': {why} (see judgekit {args[0]} --help)\n"
    )


def test_a_full_disk_mid_run_loses_no_verdict_written_before(tmp_path: Path) -> None:
    """A --no-cache rerun that filled the disk used to replace 600 earlier verdicts with the
    new ones up to a torn line, print a traceback, and record that partial set."""
    runs, out, home = write_runs(tmp_path, RUNS), tmp_path / "out", tmp_path / ".judgekit"
    # Long reasons, so that verdicts.jsonl outgrows the store's files and fills first.
    first, again = " ".join(["first"] * 300), " ".join(["again"] * 300)
    reason = [first]

    def answer(request: FakeRequest) -> str:
        return json.dumps({"reason": reason[0], "score": "pass"})

    with FakeLLMServer(reply=answer) as server:
        args = judge_args(runs, server.openai_base_url, out)
        assert judgekit(args, home).returncode == 0
        before = (out / "verdicts.jsonl").read_bytes()
        reason[0] = again
        room = 10 * len(before.splitlines()[0])  # the file may grow by about ten verdicts
        full = judgekit([*args, "--no-cache"], home, max_file_bytes=len(before) + room)
    assert full.returncode == 2
    assert full.stderr == (
        f"judgekit: error: cannot write {out / 'verdicts.jsonl'}: File too large; the verdicts "
        "written before are kept in it: make room and rerun to finish\n"
    )
    after = (out / "verdicts.jsonl").read_bytes()
    assert after.startswith(before) and after.endswith(b"\n")  # each new line whole
    new = [json.loads(line) for line in after[len(before) :].splitlines()]
    assert 0 < len(new) < 12
    assert {v["reason"] for v in new} == {again}
    assert sorted(p.name for p in out.iterdir()) == [".judgekit.lock", "verdicts.jsonl"]
    # The store: the earlier verdicts, and the new ones where the file has them.
    asked_again = {v["run_id"] for v in new}
    assert stored_reasons() == {
        f"r{i}": again if f"r{i}" in asked_again else first for i in range(RUNS)
    }


@pytest.mark.parametrize("max_usd", [float("nan"), float("inf"), 0.0, -1.0])
def test_the_python_api_refuses_a_budget_that_is_no_finite_amount(max_usd: float) -> None:
    from judgekit.errors import ConfigError
    from judgekit.judging.budget import Budget
    from judgekit.judging.pricing import PriceTable

    with pytest.raises(ConfigError) as raised:
        Budget(max_usd, prices=PriceTable(), model="openai/gpt-4o-mini")
    assert str(raised.value) == (f"--max-cost must be a positive number of dollars, not {max_usd}")
