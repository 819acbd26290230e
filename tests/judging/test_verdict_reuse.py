"""A verdict belongs to what was judged: a rerun into the same `--out` reuses a verdict only
for the same rubric version, model, endpoint and content of the run, never by run id alone,
and keeps every earlier line it does not reuse apart in verdicts.earlier.jsonl."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.formats.verdict import load_verdicts
from judgekit.store import open_store
from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_llm_server import FakeRequest
from tests.judging.conftest import RUBRIC, SHOP_RUNS, judge_args, verdict_json

SORRY = "I could not do anything, sorry."
VERSION = rubric_version(load_rubric(RUBRIC))


def fails_the_sorry_answer(request: FakeRequest) -> str:
    return verdict_json("fail" if SORRY in request.text else "pass")


def judge(base_url: str, out: Path, runs: Path = SHOP_RUNS, *, text: bool = False) -> Result:
    args = judge_args(runs, base_url, out)
    if text:
        args.remove("--json")
    return CliRunner().invoke(main, args)


def report(result: Result) -> dict[str, Any]:
    assert result.exit_code == 0, (result.output, result.exception)
    parsed: dict[str, Any] = json.loads(result.stdout)
    return parsed


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def sorry_runs(tmp_path: Path) -> Path:
    """The shop runs again under the same run ids, every final answer replaced: the same
    tasks after the agent changed."""
    runs = [json.loads(line) for line in SHOP_RUNS.read_text().splitlines()]
    changed = tmp_path / "changed" / "runs.jsonl"
    changed.parent.mkdir()
    changed.write_text("".join(json.dumps({**run, "final_answer": SORRY}) + "\n" for run in runs))
    return changed


def test_the_same_run_ids_with_changed_answers_are_judged_again_and_nothing_is_lost(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    changed = sorry_runs(tmp_path)
    with FakeLLMServer(reply=fails_the_sorry_answer) as server:
        first = report(judge(server.openai_base_url, out))
        assert (first["verdicts"], first["scores"]) == (18, {"pass": 18})
        judged_first = (out / "verdicts.jsonl").read_bytes()
        calls = server.calls
        second = judge(server.openai_base_url, out, changed, text=True)
        # 18 runs of 4 tasks: the sorry answer to each task's input is asked once.
        assert server.calls - calls == 4
        third = report(judge(server.openai_base_url, out, changed))
        assert server.calls - calls == 4  # unchanged content: reused, nothing asked
    assert second.exit_code == 0, second.output
    assert second.stdout.splitlines()[0] == (
        f"goal_completion (version {VERSION}, openai/gpt-4o-mini): 18 verdicts, 18 scored "
        "(fail 18), 0 unscored (0.0%)"
    )
    assert second.stdout.splitlines()[2:4] == [
        f"18 earlier verdicts kept apart in {out / 'verdicts.earlier.jsonl'}, not reused: "
        "18 judged other content under the same run id",
        f"wrote {out / 'verdicts.jsonl'}",
    ]
    assert "already in the output folder" not in second.stdout
    assert {v["score"] for v in lines(out / "verdicts.jsonl")} == {"fail"}
    # Nothing earlier is lost: the first judging's lines are kept apart byte for byte.
    assert (out / "verdicts.earlier.jsonl").read_bytes() == judged_first
    assert (third["kept"], third["api_calls"], third["set_apart"]) == (18, 0, {})
    assert third["scores"] == {"fail": 18}
    with open_store() as store:
        history = store.verdicts("goal_completion", history=True)
        latest = store.verdicts("goal_completion")
    assert sorted(v.score for v in history) == ["fail"] * 18 + ["pass"] * 18
    assert {v.score for v in latest} == {"fail"}


def test_judging_back_and_forth_keeps_every_earlier_line_once(tmp_path: Path) -> None:
    out = tmp_path / "out"
    changed = sorry_runs(tmp_path)
    with FakeLLMServer(reply=fails_the_sorry_answer) as server:
        report(judge(server.openai_base_url, out))
        first = (out / "verdicts.jsonl").read_bytes()
        report(judge(server.openai_base_url, out, changed))
        second = (out / "verdicts.jsonl").read_bytes()
        back = report(judge(server.openai_base_url, out))
    # The first answers come back from the cache, not from the verdicts kept apart.
    assert (back["kept"], back["api_calls"], back["cache_hits"]) == (0, 0, 18)
    assert back["scores"] == {"pass": 18}
    assert back["set_apart"] == {"judged other content under the same run id": 18}
    assert back["earlier_verdicts_file"] == str(out / "verdicts.earlier.jsonl")
    assert (out / "verdicts.earlier.jsonl").read_bytes() == first + second


def test_verdicts_from_another_endpoint_are_not_reused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with (
        FakeLLMServer(reply=lambda r: verdict_json("pass")) as passes,
        FakeLLMServer(reply=lambda r: verdict_json("fail")) as fails,
    ):
        report(judge(passes.openai_base_url, out))
        here = passes.openai_base_url.replace("http://", "http://someone:a-password@")
        again = report(judge(here, out))  # the same endpoint, credentials aside
        there = report(judge(fails.openai_base_url, out))
        urls = passes.openai_base_url, fails.openai_base_url
    assert (again["kept"], again["api_calls"]) == (18, 0)
    assert (there["kept"], there["scores"]) == (0, {"fail": 18})
    assert there["set_apart"] == {"from another endpoint": 18}
    assert {v["endpoint"] for v in lines(out / "verdicts.jsonl")} == {urls[1]}
    assert {v["endpoint"] for v in lines(out / "verdicts.earlier.jsonl")} == {urls[0]}
    assert "a-password" not in (out / "verdicts.earlier.jsonl").read_text()


def test_an_older_verdicts_file_loads_and_its_verdicts_are_asked_again(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeLLMServer(reply=lambda r: verdict_json("pass")) as server:
        report(judge(server.openai_base_url, out))
        # As judgekit wrote it before verdicts recorded their endpoint and content.
        older = "".join(
            json.dumps({k: v for k, v in verdict.items() if k not in ("endpoint", "input_digest")})
            + "\n"
            for verdict in lines(out / "verdicts.jsonl")
        )
        (out / "verdicts.jsonl").write_text(older)
        loaded = load_verdicts(out / "verdicts.jsonl")
        calls = server.calls
        rerun = report(judge(server.openai_base_url, out))
        assert server.calls == calls  # asked again, and answered by the cache
    assert len(loaded) == 18
    assert {(v.endpoint, v.input_digest) for v in loaded} == {(None, None)}
    assert (rerun["kept"], rerun["api_calls"], rerun["cache_hits"]) == (0, 0, 18)
    assert rerun["set_apart"] == {
        "without a record of the content judged (an older verdicts file)": 18
    }
    assert (out / "verdicts.earlier.jsonl").read_text() == older
    assert all(v["input_digest"] for v in lines(out / "verdicts.jsonl"))
