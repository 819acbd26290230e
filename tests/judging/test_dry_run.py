"""``judge --dry-run`` and ``--limit``: the first prompt, the token estimate and the projected
cost with no request sent; only the first N runs judged."""

from __future__ import annotations

import json
import math
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import load_runs
from judgekit.formats.task_files import load_task_files
from judgekit.judging import dry_run as dry_run_module
from judgekit.judging.dry_run import TokenCounter, dry_run, token_counter
from judgekit.judging.pipeline import JudgeRequest, read_judging_inputs
from judgekit.judging.prompts import render_judge_prompt
from judgekit.providers.chat import ChatMessage
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO
from tests.judging.conftest import RUBRIC, SHOP_RUNS, TASKS, verdict_json

PREFERENCE = REPO / "rubrics" / "preference.yaml"
MINI_INPUT, MINI_OUTPUT = 0.15, 0.60  # openai/gpt-4o-mini, USD per million tokens
CHARS = "characters / 4 (tiktoken is not installed)"


@pytest.fixture
def no_tiktoken(monkeypatch: pytest.MonkeyPatch) -> None:
    """Counting by characters, whatever is installed: exact figures on every machine."""
    monkeypatch.setitem(sys.modules, "tiktoken", None)


def by_characters(messages: tuple[ChatMessage, ...]) -> int:
    """The estimate's rule, written out: ceil(characters / 4) per message, 3 tokens around
    each message and 3 priming the reply."""
    return sum(math.ceil(len(m.content) / 4) + 3 for m in messages) + 3


def shop_prompts(limit: int | None = None) -> list[tuple[ChatMessage, ...]]:
    rubric, tasks = load_rubric(RUBRIC), load_task_files(TASKS, resolve_code=False)
    runs = list(load_runs(SHOP_RUNS))[:limit]
    return [render_judge_prompt(rubric, run, tasks.get(run.task_id)) for run in runs]


def test_the_plan_counts_every_prompt_and_prices_it(no_tiktoken: None) -> None:
    inputs = read_judging_inputs(
        JudgeRequest(runs=SHOP_RUNS, rubric_ref=str(RUBRIC), tasks_path=TASKS)
    )
    plan = dry_run(inputs, samples=3)
    prompts = shop_prompts()
    assert len(prompts) == 18
    tokens = 3 * sum(by_characters(p) for p in prompts)
    assert (plan.runs, plan.samples, plan.orders, plan.requests) == (18, 3, 1, 54)
    assert plan.input_tokens == tokens
    assert plan.max_tokens == 1024
    assert plan.max_output_tokens == 54 * 1024
    assert plan.counted_by == CHARS
    assert plan.input_cost == pytest.approx(tokens * MINI_INPUT / 1e6, rel=1e-12)
    assert plan.max_output_cost == pytest.approx(54 * 1024 * MINI_OUTPUT / 1e6, rel=1e-12)
    assert plan.first_run_id == "shop/refund_full/1"
    assert plan.first_prompt == prompts[0]


def test_limit_keeps_the_first_runs_of_the_file(no_tiktoken: None) -> None:
    request = JudgeRequest(runs=SHOP_RUNS, rubric_ref=str(RUBRIC), tasks_path=TASKS, limit=5)
    inputs = read_judging_inputs(request)
    assert list(inputs.run_ids) == [run.run_id for run in load_runs(SHOP_RUNS)][:5]
    plan = dry_run(inputs)
    assert (plan.runs, plan.requests) == (5, 5)
    assert plan.input_tokens == sum(by_characters(p) for p in shop_prompts(5))


def test_a_pairwise_rubric_is_two_prompts_a_run(tmp_path: Path, no_tiktoken: None) -> None:
    runs = tmp_path / "runs.jsonl"
    answers = [["first answer", "a second, longer answer"], ["third", "fourth"]]
    runs.write_text(
        "".join(
            json.dumps(
                {
                    "run_id": f"r{i}",
                    "task_id": "t",
                    "input": "Which answer is better?",
                    "tool_calls": [],
                    "metadata": {"answers": pair},
                }
            )
            + "\n"
            for i, pair in enumerate(answers)
        )
    )
    plan = dry_run(read_judging_inputs(JudgeRequest(runs=runs, rubric_ref=str(PREFERENCE))))
    rubric = load_rubric(PREFERENCE)
    expected = 0
    for run in load_runs(runs):
        a, b = run.metadata["answers"]
        for order in ((a, b), (b, a)):
            expected += by_characters(render_judge_prompt(rubric, run, answers=order))
    assert (plan.runs, plan.orders, plan.requests) == (2, 2, 4)
    assert plan.input_tokens == expected
    assert plan.max_output_tokens == 4 * 1024


def test_tiktoken_counts_when_its_encoding_loads() -> None:
    tiktoken = pytest.importorskip("tiktoken", reason="tiktoken is not installed")
    try:
        encoding = tiktoken.get_encoding("o200k_base")
    except Exception as exc:  # offline: tiktoken cannot fetch its encoding
        pytest.skip(f"tiktoken cannot load o200k_base here ({type(exc).__name__})")
    counter = token_counter("openai/gpt-4o-mini")
    assert counter.name == "tiktoken o200k_base"
    (prompt,) = shop_prompts(1)
    expected = sum(len(encoding.encode(m.content)) + 3 for m in prompt) + 3
    assert counter.prompt_tokens(prompt) == expected
    assert token_counter("anthropic/claude-3-5-haiku-latest").name == (
        "tiktoken o200k_base, an approximation for anthropic/claude-3-5-haiku-latest"
    )


def test_without_tiktoken_the_estimate_says_it_counts_characters(no_tiktoken: None) -> None:
    counter = token_counter("openai/gpt-4o-mini")
    assert counter.name == CHARS
    assert counter.count("abcde") == 2 and counter.count("") == 0


def test_a_given_counter_is_used(no_tiktoken: None) -> None:
    request = JudgeRequest(runs=SHOP_RUNS, rubric_ref=str(RUBRIC), tasks_path=TASKS, limit=2)
    plan = dry_run(read_judging_inputs(request), counter=TokenCounter("one a character", len))
    assert plan.counted_by == "one a character"
    assert plan.input_tokens == sum(sum(len(m.content) + 3 for m in p) + 3 for p in shop_prompts(2))


def dry_run_cli(tmp_path: Path, base_url: str, *extra: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(
        main,
        [
            "judge",
            str(SHOP_RUNS),
            "--rubric",
            str(RUBRIC),
            "--tasks",
            str(TASKS),
            "--base-url",
            base_url,
            "--out",
            str(tmp_path / "out"),
            "--dry-run",
            *extra,
        ],
    )
    return result.exit_code, result.stdout, result.stderr


def test_a_dry_run_sends_nothing_and_writes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_tiktoken: None
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("OPENAI_API_KEY")  # no key needed to see the cost
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        code, out, err = dry_run_cli(tmp_path, server.openai_base_url, "--limit", "4")
        assert server.calls == 0
    assert code == 0, err
    assert err == ""
    # No out/ and no store: the state folder the price table is looked up in stays empty.
    assert [p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")] == [".judgekit"]
    lines = out.splitlines()
    assert lines[0] == "dry run: nothing is sent. The first prompt (run shop/refund_full/1):"
    assert lines[1] == "── system ──"
    prompts = shop_prompts(4)
    tokens = sum(by_characters(p) for p in prompts)
    assert lines[-3:] == [
        "4 runs × 1 sample = 4 requests to openai/gpt-4o-mini",
        f"input: {tokens:,} tokens, counted by {CHARS}; output: at most 4,096 tokens "
        "(1,024 per request)",
        f"projected cost: ${tokens * MINI_INPUT / 1e6:.4f} input + at most $0.0025 output = "
        f"at most ${tokens * MINI_INPUT / 1e6 + 0.0024576:.4f} (before the cache and the "
        "verdicts already in --out; a repair retry costs a request more)",
    ]
    assert "\n".join(lines[1:-3]) == "\n".join(
        [f"── system ──\n{prompts[0][0].content}", f"── user ──\n{prompts[0][1].content}", "──"]
    )


def test_the_dry_run_json_is_the_plan(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_tiktoken: None
) -> None:
    monkeypatch.chdir(tmp_path)
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        code, out, err = dry_run_cli(tmp_path, server.openai_base_url, "--json", "--samples", "2")
        assert server.calls == 0
    assert code == 0, err
    data = json.loads(out)
    prompts = shop_prompts()
    assert data["first_prompt"] == [{"role": m.role, "content": m.content} for m in prompts[0]]
    assert {k: data[k] for k in ("runs", "samples", "orders", "requests")} == {
        "runs": 18,
        "samples": 2,
        "orders": 1,
        "requests": 36,
    }
    assert data["input_tokens"] == 2 * sum(by_characters(p) for p in prompts)
    assert data["max_output_tokens"] == 36 * 1024
    assert data["tokens_counted_by"] == CHARS


def test_agent_text_in_the_prompt_cannot_drive_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_tiktoken: None
) -> None:
    monkeypatch.chdir(tmp_path)
    runs = tmp_path / "runs.jsonl"
    hostile = "Done.\x1b[2J\x1b]0;owned\x07 \u202e"
    runs.write_text(
        json.dumps(
            {
                "run_id": "r1\x1b[2J",
                "task_id": "refund_full",
                "input": "Help",
                "tool_calls": [],
                "final_answer": hostile,
            }
        )
        + "\n"
    )
    result = CliRunner().invoke(
        main, ["judge", str(runs), "--rubric", str(RUBRIC), "--tasks", str(TASKS), "--dry-run"]
    )
    assert result.exit_code == 0, result.output
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "\u202e" not in result.stdout
    # The prompt quotes it as character references (what the model reads); the run id,
    # outside the prompt, is shown by the terminal's stand-ins.
    assert "Done.&#x1B;[2J&#x1B;]0;owned&#x7; &#x202E;" in result.stdout
    assert result.stdout.startswith("dry run: nothing is sent. The first prompt (run r1␛[2J):")


def test_an_unknown_price_is_said(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_tiktoken: None
) -> None:
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(
        main,
        [
            "judge",
            str(SHOP_RUNS),
            "--rubric",
            str(RUBRIC),
            "--model",
            "openai/gpt-x",
            "--tasks",
            str(TASKS),
            "--dry-run",
        ],
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == (
        "projected cost: unknown, the price table lacks openai/gpt-x (did you mean one of "
        "'openai/gpt-5', 'openai/gpt-4', 'openai/gpt-4o'?); if the name is right, add its "
        "price with --prices FILE or JUDGEKIT_HOME/prices.yaml"
    )


def test_limit_judges_the_first_runs_only(tmp_path: Path) -> None:
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as server:
        result = CliRunner().invoke(
            main,
            [
                "judge",
                str(SHOP_RUNS),
                "--rubric",
                str(RUBRIC),
                "--tasks",
                str(TASKS),
                "--base-url",
                server.openai_base_url,
                "--out",
                str(tmp_path / "out"),
                "--no-store",
                "--no-cache",  # each run asked: none answered by another's identical prompt
                "--json",
                "--limit",
                "3",
            ],
        )
        assert server.calls == 3
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verdicts"] == 3
    written = [json.loads(line)["run_id"] for line in (tmp_path / "out" / "verdicts.jsonl").open()]
    assert sorted(written) == sorted([run.run_id for run in load_runs(SHOP_RUNS)][:3])


def test_a_limit_past_the_end_judges_every_run(no_tiktoken: None) -> None:
    request = JudgeRequest(runs=SHOP_RUNS, rubric_ref=str(RUBRIC), limit=1000)
    assert len(read_judging_inputs(request).run_ids) == 18


class _StandInTiktoken:
    """A module in tiktoken's place whose encodings never arrive, or fail to: what an
    offline machine or a network that drops packets gives the real one."""

    def __init__(self, behaviour: str) -> None:
        self.behaviour = behaviour
        self.release = threading.Event()

    def encoding_name_for_model(self, name: str) -> str:
        raise KeyError(name)

    def get_encoding(self, name: str) -> object:
        if self.behaviour == "hangs":
            self.release.wait(30)
        raise ConnectionError(f"cannot fetch {name}")


@pytest.mark.parametrize("behaviour", ["fails", "hangs"])
def test_an_encoding_that_cannot_be_had_falls_back_to_characters(
    monkeypatch: pytest.MonkeyPatch, behaviour: str
) -> None:
    stand_in = _StandInTiktoken(behaviour)
    monkeypatch.setitem(sys.modules, "tiktoken", stand_in)
    monkeypatch.setattr(dry_run_module, "ENCODING_TIMEOUT_S", 0.2)
    started = time.monotonic()
    counter = token_counter("openai/gpt-4o-mini")
    stand_in.release.set()
    assert time.monotonic() - started < 5
    assert counter.name == "characters / 4 (tiktoken could not load its encoding: offline?)"
    assert counter.count("abcdefghi") == 3
