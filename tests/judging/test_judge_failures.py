"""`judgekit judge` when things go wrong: the endpoint, the provider, the output folder.

Every number a failed judge could print is checked against what happened: a run that got no
answer has no verdict (not in the file, not in the store), says so, and is asked for again.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from judgekit.cli import main
from judgekit.store import open_store
from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_llm_server import FakeRequest
from tests.conftest import REPO
from tests.judging.conftest import (
    RUBRIC,
    SECRET,
    SHOP_RUNS,
    judge_args,
    judge_command,
    verdict_json,
)


def judge(base_url: str, out: Path, *extra: str, runs: Path = SHOP_RUNS) -> Result:
    return CliRunner().invoke(main, judge_args(runs, base_url, out, "--max-attempts", "2", *extra))


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def closed_port_url() -> str:
    """The address of a port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def stored_scores() -> list[tuple[str, str, Any]]:
    with open_store() as store:
        return sorted((v.run_id, v.status, v.score) for v in store.verdicts("goal_completion"))


def test_a_cache_hit_from_another_endpoint_is_a_miss(tmp_path: Path) -> None:
    with (
        FakeLLMServer(reply=lambda r: verdict_json("pass")) as passes,
        FakeLLMServer(reply=lambda r: verdict_json("fail")) as fails,
    ):
        first = judge(passes.openai_base_url, tmp_path / "a", "--model", "local/m")
        second = judge(fails.openai_base_url, tmp_path / "b", "--model", "local/m")
        again = judge(passes.openai_base_url + "/", tmp_path / "c", "--model", "local/m")
        fails_url = fails.openai_base_url
    assert first.exit_code == second.exit_code == again.exit_code == 0, second.output
    a, b, c = (json.loads(r.stdout) for r in (first, second, again))
    assert (a["scores"], a["api_calls"]) == ({"pass": 18}, 7)
    assert (b["scores"], b["api_calls"], b["cache_hits"]) == ({"fail": 18}, 7, 11)
    # The same endpoint spelled with a trailing slash is the same endpoint: all hits.
    assert (c["scores"], c["api_calls"], c["cache_hits"]) == ({"pass": 18}, 0, 18)
    assert b["endpoint"] == fails_url + "/"


@pytest.mark.parametrize("scenario", ["server down", "key rejected", "unknown route"])
def test_a_judge_that_reaches_no_model_stops_and_records_nothing(
    tmp_path: Path, scenario: str
) -> None:
    out = tmp_path / "out"
    with FakeLLMServer(expect_api_key="the-right-key") as server:
        url = {
            "server down": closed_port_url(),
            "key rejected": server.openai_base_url,
            "unknown route": server.openai_base_url.removesuffix("/v1") + "/nowhere",
        }[scenario]
        result = judge(url, out)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    error = result.stderr
    assert error.startswith("judgekit: error: ")
    assert error.count("\n") == 1
    assert "judging stopped with 18 of 18 runs not judged (nothing recorded for them" in error
    assert url.rstrip("/") in error  # the endpoint is named
    expected = {
        "server down": "could not reach OpenAI: Connection error.",
        "key rejected": "rejected the API key (HTTP 401: Incorrect API key provided: [REDACTED].)",
        "unknown route": "does not know this model or endpoint (HTTP 404",
    }[scenario]
    assert expected in error
    assert SECRET not in error
    assert not (out / "verdicts.jsonl").exists()
    assert stored_scores() == []


def test_the_ci_rerun_with_a_dead_provider_keeps_every_scored_verdict(tmp_path: Path) -> None:
    """A shared store, a fresh cache per runner: a rerun that reaches no model changes nothing."""
    with FakeLLMServer(reply=lambda r: verdict_json("pass")) as server:
        assert judge(server.openai_base_url, tmp_path / "first").exit_code == 0
    before = stored_scores()
    assert len(before) == 18 and {status for _, status, _ in before} == {"scored"}
    shutil.rmtree(Path(os.environ["JUDGEKIT_HOME"]) / "cache.sqlite", ignore_errors=True)
    (Path(os.environ["JUDGEKIT_HOME"]) / "cache.sqlite").unlink(missing_ok=True)
    with FakeLLMServer(expect_api_key="another-key") as refusing:
        rerun = judge(refusing.openai_base_url, tmp_path / "second")
    assert rerun.exit_code == 2
    assert judge(closed_port_url(), tmp_path / "third").exit_code == 2
    assert stored_scores() == before


def test_failures_left_after_retries_are_not_judged_and_a_rerun_asks_only_for_them(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    failing_answer = "A101 is cancelled."  # the answer of 4 runs of the shop file
    overloaded = [True]  # until the rerun: the same server, recovered

    def flaky(request: FakeRequest) -> str:
        if overloaded[0] and failing_answer in request.text:
            raise RuntimeError("overloaded")  # the fake answers HTTP 500
        return verdict_json("pass" if overloaded[0] else "fail")

    with FakeLLMServer(reply=flaky) as server:
        result = judge(server.openai_base_url, out)
        url = server.openai_base_url
        assert result.exit_code == 1, result.output
        report = json.loads(result.stdout)
        not_judged = report["not_judged"]
        assert not_judged == 4
        assert report["verdicts"] == 18 - not_judged
        assert report["not_judged_reasons"] == {
            "OpenAI failed to answer (HTTP 500: reply function raised "
            "RuntimeError('overloaded'))": not_judged
        }
        assert result.stderr.splitlines()[0] == (
            f"{not_judged} runs not judged: openai/gpt-4o-mini at {url}/ gave "
            "no answer after retries; rerun to finish (it asks only for those)"
        )
        written = lines(out / "verdicts.jsonl")
        assert len(written) == 18 - not_judged
        assert all(v["status"] == "scored" for v in written)
        assert failing_answer not in json.dumps(written)
        assert len(stored_scores()) == 18 - not_judged

        overloaded[0] = False
        asked_before = len(server.requests)
        rerun = judge(url, out)
        asked = [r.text for r in server.requests[asked_before:]]
    assert rerun.exit_code == 0, rerun.output
    again = json.loads(rerun.stdout)
    assert (again["verdicts"], again["kept"], again["not_judged"]) == (18, 18 - not_judged, 0)
    assert asked and all(failing_answer in text for text in asked)
    assert sorted(v["run_id"] for v in lines(out / "verdicts.jsonl")) == sorted(
        json.loads(line)["run_id"] for line in SHOP_RUNS.read_text().splitlines()
    )


def test_an_echoed_key_never_reaches_the_console_a_file_or_the_store(tmp_path: Path) -> None:
    with FakeLLMServer(expect_api_key="the-right-key") as server:
        result = judge(server.openai_base_url, tmp_path / "out", "--model", "openai/gpt-4o")
    assert result.exit_code == 2
    assert "Incorrect API key provided: [REDACTED]." in result.stderr
    assert SECRET not in result.output
    for path in [*Path(os.environ["JUDGEKIT_HOME"]).rglob("*"), *tmp_path.rglob("*")]:
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path


def test_a_rerun_with_bad_input_leaves_the_previous_verdicts_whole(tmp_path: Path) -> None:
    out = tmp_path / "out"
    with FakeLLMServer(reply=lambda r: verdict_json("pass")) as server:
        assert judge(server.openai_base_url, out).exit_code == 0
        before = (out / "verdicts.jsonl").read_bytes()
        broken = tmp_path / "broken.jsonl"
        broken.write_text("".join(SHOP_RUNS.read_text().splitlines(keepends=True)[:4]) + "{\n")
        result = judge(server.openai_base_url, out, runs=broken)
        empty = tmp_path / "empty.jsonl"
        empty.write_text("")
        nothing = judge(server.openai_base_url, out, runs=empty)
    assert result.exit_code == 2
    assert result.stderr.startswith(f"judgekit: error: {broken}:5: malformed JSON")
    assert nothing.exit_code == 2
    assert nothing.stderr == f"judgekit: error: no runs in {empty}\n"
    assert (out / "verdicts.jsonl").read_bytes() == before


def test_a_rerun_for_another_rubric_version_replaces_the_file_only_when_it_has_verdicts(
    tmp_path: Path,
) -> None:
    out = tmp_path / "out"
    with FakeLLMServer(reply=lambda r: verdict_json("pass")) as server:
        assert judge(server.openai_base_url, out).exit_code == 0
        before = (out / "verdicts.jsonl").read_bytes()
        stopped = judge(closed_port_url(), out, "--model", "openai/gpt-4o")
        assert stopped.exit_code == 2
        assert (out / "verdicts.jsonl").read_bytes() == before
        other = judge(server.openai_base_url, out, "--model", "openai/gpt-4o")
    assert other.exit_code == 0
    assert {v["model"] for v in lines(out / "verdicts.jsonl")} == {"openai/gpt-4o"}
    assert len(lines(out / "verdicts.jsonl")) == 18


def test_a_second_judge_on_the_same_folder_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with FakeLLMServer(reply=lambda r: verdict_json("pass")) as server:
        server.hold_after(0)  # the first judge waits on its first answers
        command = judge_command(SHOP_RUNS, server.openai_base_url, out, "--no-store")
        first = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 60
        while server.held == 0:
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.02)
        second = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
        server.release()
        out_first, err_first = first.communicate(timeout=60)
    assert second.returncode == 2
    assert second.stderr == (
        f"judgekit: error: {out} is in use by another judgekit process (pid {first.pid})\n"
    )
    assert first.returncode == 0, err_first
    assert json.loads(out_first)["verdicts"] == 18
    assert len(lines(out / "verdicts.jsonl")) == 18


def test_a_duplicate_run_id_is_refused_before_anything_is_asked(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    first, second = SHOP_RUNS.read_text().splitlines()[:2]
    runs.write_text(f"{first}\n{second}\n{first}\n")
    run_id = json.loads(first)["run_id"]
    with FakeLLMServer() as server:
        result = judge(server.openai_base_url, tmp_path / "out", runs=runs)
        assert server.calls == 0
    assert result.exit_code == 2
    assert result.stderr == (
        f"judgekit: error: {runs}:3: run_id: duplicate run id {run_id!r} (first at line 1); "
        "each run id must appear once\n"
    )
    assert not (tmp_path / "out" / "verdicts.jsonl").exists()


def test_a_runs_file_that_loops_or_a_suite_that_loops_is_one_line(tmp_path: Path) -> None:
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    suite = tmp_path / "loop.yaml"
    suite.symlink_to(suite)
    with FakeLLMServer() as server:
        runs_loop = judge(server.openai_base_url, tmp_path / "a", runs=loop)
        result = CliRunner().invoke(
            main,
            [
                *("judge", str(SHOP_RUNS), "--rubric", str(RUBRIC), "--tasks", str(suite)),
                *("--base-url", server.openai_base_url, "--out", str(tmp_path / "b")),
            ],
        )
        assert server.calls == 0
    assert runs_loop.exit_code == result.exit_code == 2
    assert runs_loop.stderr == (
        f"judgekit: error: {loop}: cannot read: Too many levels of symbolic links\n"
    )
    assert result.stderr == (
        f"judgekit: error: {suite}: cannot read: Too many levels of symbolic links\n"
    )
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_a_missing_reference_stops_with_one_line_and_no_stray_traceback(tmp_path: Path) -> None:
    rubric = tmp_path / "goal_completion.yaml"
    rubric.write_text(RUBRIC.read_text().replace("{final_answer}", "{final_answer} {reference}"))
    with FakeLLMServer() as server:
        result = CliRunner().invoke(
            main,
            [
                *("judge", str(SHOP_RUNS), "--rubric", str(rubric)),
                *("--base-url", server.openai_base_url, "--out", str(tmp_path / "out")),
            ],
        )
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert line.startswith("judgekit: error: run ")
    assert line.endswith(
        ": rubric goal_completion uses {reference}, but the run has no `reference` field and "
        "no task is loaded for it; add a `reference` field to the run, or pass --tasks with "
        "the suite of its task_id, or remove {reference} from the rubric's prompt"
    )
    assert not (tmp_path / "out" / "verdicts.jsonl").exists()
