"""--max-cost-per-day through `judgekit judge`: two judges at once against one SQLite store
never pass the day's cap together; the stop says the cap, the day's spend and the reset;
cached answers cost nothing; without the store it is refused."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.store import open_store
from judgekit.store.day_spend import DaySpendLedger
from judgekit.testing import FakeLLMServer
from tests.judging.conftest import judge_args, refund_runs, ticket_answers, verdict_json
from tests.processes import start_judgekit

# One output token costs $0.001, input nothing: a 1,000-word answer costs exactly $1, and a
# request is projected at its 1,024 tokens of output, $1.024.
PRICES = "openai/gpt-4o-mini: {input: 0, output: 1000}\n"
LONG_VERDICT = verdict_json("pass", " ".join(["checked"] * 997))  # 1,000 words in all


def _long(request: object) -> str:
    return LONG_VERDICT


def _today(home: Path) -> tuple[float, float]:
    from judgekit.judging.day_budget import utc_now

    with open_store(f"sqlite:///{home / 'judgekit.sqlite'}") as store:
        spend = DaySpendLedger(store.engine).spend(utc_now().date().isoformat())
    return spend.spent_usd, spend.reserved_usd


def test_two_judges_at_once_never_pass_the_cap_together(tmp_path: Path) -> None:
    home = tmp_path / ".judgekit"
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    answers = ticket_answers(20)  # no two alike: no answer comes from the other's cache
    runs = [
        refund_runs(tmp_path / f"runs{i}.jsonl", answers[10 * i : 10 * i + 10], first=10 * i)
        for i in (0, 1)
    ]
    with FakeLLMServer(reply=_long, latency_s=0.3) as server:
        judges = [
            start_judgekit(
                judge_args(
                    runs[i],
                    server.openai_base_url,
                    tmp_path / f"out{i}",
                    "--prices",
                    str(prices),
                    "--max-cost-per-day",
                    "5",
                    "--concurrency",
                    "4",
                ),
                home,
            )
            for i in (0, 1)
        ]
        outputs = [judge.communicate(timeout=120) for judge in judges]
    reports = [json.loads(stdout) for stdout, _ in outputs]
    assert [judge.returncode for judge in judges] == [1, 1]  # runs left unjudged
    # $1.024 reserved per request against $5: four fit at once, and once they cost $4 the
    # fifth could pass the cap — whichever judge asked for them.
    assert sum(report["verdicts"] for report in reports) == 4, reports
    assert sum(report["cost_usd"] for report in reports) == 4.0
    assert sum(report["over_budget"] for report in reports) == 16
    assert _today(home) == (4.0, 0.0)
    assert all(report["stopped_by_budget"] for report in reports)


def test_the_stop_names_the_cap_todays_spend_and_the_reset(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(PRICES)
    runs = refund_runs(tmp_path / "runs.jsonl", ticket_answers(6))
    extra = ("--prices", str(prices), "--max-cost-per-day", "2.5", "--concurrency", "1")
    with FakeLLMServer(reply=_long) as server:
        args = [a for a in judge_args(runs, server.openai_base_url, tmp_path / "a", *extra)]
        first = CliRunner().invoke(main, [a for a in args if a != "--json"])
        # The same runs again: two answers come from the cache and cost nothing; the rest
        # find today's cap reached at once.
        again = CliRunner().invoke(
            main, judge_args(runs, server.openai_base_url, tmp_path / "b", *extra)
        )
        asked = len(server.requests)
    assert first.exit_code == 1
    assert re.fullmatch(
        r"stopped: the --max-cost-per-day cap of \$2\.5000 is reached: \$2\.0000 spent today "
        r"\(UTC \d{4}-\d{2}-\d{2}\); it resets at \d{4}-\d{2}-\d{2} 00:00 UTC \(in \d+ h \d+ "
        r"min\); 4 of 6 runs not judged, since their next request could have passed it; "
        r"rerun after it resets to finish \(it asks only for those\)\n",
        first.stderr,
    ), first.stderr
    report = json.loads(again.stdout)
    assert again.exit_code == 1
    assert (report["verdicts"], report["cache_hits"], report["api_calls"]) == (2, 2, 0)
    assert report["cost_usd"] == 0.0
    assert asked == 2
    assert report["day_cap_stop"].startswith(
        "the --max-cost-per-day cap of $2.5000 is reached: $2.0000 spent today"
    )


def test_without_the_store_a_day_cap_is_refused(tmp_path: Path) -> None:
    runs = refund_runs(tmp_path / "runs.jsonl", ticket_answers(2))
    args = judge_args(runs, "http://127.0.0.1:9/v1", tmp_path / "out")
    result = CliRunner().invoke(main, [*args, "--max-cost-per-day", "1", "--no-store"])
    assert result.exit_code == 2
    assert result.stderr == (
        "judgekit: error: --max-cost-per-day needs the store: the day's spend is kept there, "
        "shared by every judge recording into it; drop --no-store (see judgekit judge --help)\n"
    )


def test_a_model_without_a_price_cannot_have_a_day_cap(tmp_path: Path) -> None:
    runs = refund_runs(tmp_path / "runs.jsonl", ticket_answers(2))
    args = judge_args(
        runs, "http://127.0.0.1:9/v1", tmp_path / "out", "--model", "openai/nobody-knows"
    )
    result = CliRunner().invoke(main, [*args, "--max-cost-per-day", "1"])
    assert result.exit_code == 2
    assert result.stderr.startswith(
        "judgekit: error: --max-cost-per-day needs the price of openai/nobody-knows: "
    )
    assert not (tmp_path / "out").exists()


def _unused(process: subprocess.Popen[str]) -> None:  # pragma: no cover
    process.kill()


def test_a_request_goes_only_when_the_run_s_and_the_day_s_budgets_both_have_room() -> None:
    from datetime import UTC, datetime

    from judgekit.judging.budget import Budget
    from judgekit.judging.day_budget import DayBudget
    from judgekit.judging.pricing import Price, PriceTable
    from judgekit.providers.chat import ChatMessage, ChatRequest

    prices = PriceTable({"openai/m": Price(input=0.0, output=1000.0)})
    request = ChatRequest(
        model="m", max_tokens=100, messages=(ChatMessage(role="user", content="x"),)
    )  # at most $0.10
    with open_store("sqlite://") as store:
        day = DayBudget(
            0.24, DaySpendLedger(store.engine), clock=lambda: datetime(2026, 12, 3, tzinfo=UTC)
        )
        budget = Budget(0.15, prices=prices, model="openai/m", shared=day)
        first = budget.reserve(request)
        assert first is not None and first.shared == ("2026-12-03", 0.1)
        assert budget.reserve(request) is None and budget.refused_by == "--max-cost"
        budget.settle(first, 0, 50)  # cost $0.05: the day has $0.05 spent
        other = Budget(None, prices=prices, model="openai/m", shared=day)  # another judge
        held = [other.reserve(request), other.reserve(request)]
        assert held[0] is not None and held[1] is None
        assert other.refused_by == "--max-cost-per-day"
        assert other.stop_message() == day.stop_message()
        assert budget.stop_message() is None  # its own refusal was --max-cost's
        assert DaySpendLedger(store.engine).spend("2026-12-03").spent_usd == 0.05
