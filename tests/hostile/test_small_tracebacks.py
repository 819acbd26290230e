"""Inputs that used to end in a traceback are one line and exit 2, before any work.

`judgekit monitor --since 99999999d` raised OverflowError; `judgekit run --timeout 1e300`
(or `inf`) raised OverflowError from the clock, and `--timeout nan` timed every trial out
at once, silently; `judgekit align` on a rubric whose prompt shared a value through a YAML
anchor asked every judge request and then raised ComposerError writing the rubric.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.testing import FakeLLMServer
from tests.alignment.world import PROMPT, desk_server_reply, write_world
from tests.conftest import REPO

SHOP_RUNS = REPO / "examples" / "runs" / "shop.jsonl"
SINCE_HINT = "expected YYYY-MM-DD or a number of days such as 90d"


def invoke(*args: str | Path) -> Result:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


@pytest.mark.parametrize("days", ["99999999d", "9999999999999999999999d", "9" * 5000 + "d"])
@pytest.mark.parametrize("command", [["monitor"], ["report", "-o", "report.html"]])
def test_a_since_before_year_one_is_one_usage_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, days: str, command: list[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    result = invoke(*command, "--since", days)
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: Invalid value for '--since': {days!r} goes back before 0001-01-01; "
        f"{SINCE_HINT} (see judgekit {command[0]} --help)\n"
    )
    assert list(tmp_path.iterdir()) == []  # no store opened, no report written


@pytest.mark.parametrize("seconds", ["1e300", "inf", "nan", "1e400", "0", "-1"])
def test_a_trial_timeout_that_no_clock_can_wait_is_one_usage_line(
    tmp_path: Path, seconds: str
) -> None:
    out = tmp_path / "out"
    result = invoke(
        "run",
        "--tasks",
        REPO / "tasks" / "shop.yaml",
        "--agent",
        "examples.shop:agent",
        "--trials",
        "1",
        "--out",
        out,
        "--no-store",
        "--timeout",
        seconds,
    )
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: Invalid value for '--timeout': {seconds!r} is not a number of "
        "seconds above 0 and at most a year (see judgekit run --help)\n"
    )
    assert not out.exists()


@pytest.mark.parametrize("seconds", ["1e300", "inf", "nan", "-0.5"])
def test_a_poll_interval_that_no_clock_can_wait_is_one_usage_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, seconds: str
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-small-tracebacks")
    with FakeLLMServer() as server:
        result = invoke(
            "judge",
            SHOP_RUNS,
            "--rubric",
            REPO / "rubrics" / "goal_completion.yaml",
            "--out",
            tmp_path / "out",
            "--batch",
            "--poll-interval",
            seconds,
            "--base-url",
            server.openai_base_url,
        )
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: Invalid value for '--poll-interval': {seconds!r} is not a number "
        "of seconds from 0 to a year (see judgekit judge --help)\n"
    )
    assert server.calls == 0 and not (tmp_path / "out").exists()


def _indented(text: str) -> str:
    return "".join(f"  {line}\n" if line else "\n" for line in text.splitlines())


ANCHORED = {
    # The prompt anchored and its text reused after it: the rewrite drops the anchor.
    "an anchor on the prompt": (
        f"prompt: &prompt |\n{_indented(PROMPT)}description: *prompt\n",
        "rubrics/support.yaml:4: prompt: align rewrites the prompt and examples and cannot "
        "keep the YAML anchor &prompt in them: write the prompt out in full, without anchors "
        "(&) or aliases (*)",
    ),
    # The prompt an alias of another value: the rewrite would silently stop sharing it.
    "an alias as the prompt": (
        f"description: &text |\n{_indented(PROMPT)}prompt: *text\n",
        "rubrics/support.yaml:14: prompt: align rewrites the prompt and examples and cannot "
        "keep the YAML alias *text in them: write the prompt out in full, without anchors "
        "(&) or aliases (*)",
    ),
    "an anchor in the examples": (
        f"prompt: |\n{_indented(PROMPT)}examples:\n"
        "  - {input: &asked Where is my refund?, output: 'Done: refunded.', label: pass}\n"
        "  - {input: *asked, output: 'Sorry: no.', label: fail}\n",
        "rubrics/support.yaml:15: examples: align rewrites the prompt and examples and cannot "
        "keep the YAML anchor &asked in them: write the examples out in full, without anchors "
        "(&) or aliases (*)",
    ),
}


@pytest.mark.parametrize("case", list(ANCHORED))
def test_align_refuses_a_shared_prompt_before_any_judge_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-desk")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    rubric, runs, labels = write_world(tmp_path)
    body, message = ANCHORED[case]
    text = (
        "# The support desk's rubric.\nid: support\nscale: binary\n"
        f"{body}judge: {{model: openai/desk-judge, temperature: 0, samples: 1}}\n"
        "promotion: {min_labels: 20, min_per_class: 5, min_kappa: 0.6}\n"
    )
    rubric.write_text(text, encoding="utf-8")
    before = {path: path.read_bytes() for path in (rubric, runs, labels)}
    with FakeLLMServer(reply=desk_server_reply(weak=True)) as server:
        result = invoke("align", runs, "--rubric", rubric, "--base-url", server.openai_base_url)
    assert result.exit_code == 2
    assert result.stderr == f"judgekit: error: {message}\n".replace(
        "rubrics/support.yaml", str(rubric)
    )
    assert result.stdout == ""
    assert server.calls == 0
    assert {path: path.read_bytes() for path in before} == before
    assert sorted(p.name for p in (tmp_path / "labels").iterdir()) == ["support.jsonl"]
    assert json.loads(labels.read_text().splitlines()[0])["rubric_id"] == "support"
