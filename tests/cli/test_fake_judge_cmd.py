"""`judgekit fake-judge` as a project uses it: a process of its own serving a `judgekit run`
folder, the real openai SDK and `judgekit judge` pointed at it, stopped by SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import anthropic
import openai
import pytest

from judgekit.formats.grade import load_results
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import load_runs
from judgekit.formats.task_files import load_task_files
from judgekit.judging.prompts import render_judge_prompt


def env(home: Path, **extra: str) -> dict[str, str]:
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.endswith(("_API_KEY", "_BASE_URL")) and k != "JUDGEKIT_DB"
    }
    return {**base, "JUDGEKIT_HOME": str(home), **extra}


def judgekit(
    args: list[str], cwd: Path, home: Path, **extra: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judgekit", *args],
        cwd=cwd,
        env=env(home, **extra),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A `judgekit init` project with 40 trials of each task run into results/."""
    root = tmp_path_factory.mktemp("fake-judge")
    assert judgekit(["init", "p"], root, root / "home").returncode == 0
    ran = judgekit(
        [
            "run",
            *("--tasks", "tasks/support.yaml", "--agent", "agent:agent", "--trials", "40"),
            *("--out", "results", "--no-store"),
        ],
        root / "p",
        root / "home",
    )
    assert "suite: 78/120 runs passed" in ran.stdout, ran.stdout + ran.stderr
    return root / "p"


class Served:
    def __init__(self, process: subprocess.Popen[str], url_file: Path) -> None:
        self.process, self.url_file = process, url_file
        self.base_url = url_file.read_text().strip()

    def stop(self) -> tuple[int, str]:
        self.process.send_signal(signal.SIGTERM)
        out, err = self.process.communicate(timeout=30)
        return self.process.returncode, out + err


def serve(cwd: Path, home: Path, *options: str) -> Served:
    url_file = cwd / "fake-judge.url"
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "judgekit",
            "fake-judge",
            "--results",
            "results",
            "--url-file",
            str(url_file),
            *options,
        ],
        cwd=cwd,
        env=env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not url_file.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise AssertionError(f"fake-judge did not start: {process.communicate()}")
        time.sleep(0.05)
    return Served(process, url_file)


@pytest.fixture
def served(project: Path, tmp_path: Path) -> Iterator[Served]:
    server = serve(project, tmp_path / "home", "--error-rate", "0")
    yield server
    if server.process.poll() is None:
        server.stop()


def test_the_real_sdk_gets_the_run_s_grade_as_the_verdict(project: Path, served: Served) -> None:
    assert served.base_url.startswith("http://127.0.0.1:") and served.base_url.endswith("/v1")
    grades = {grade.run_id: grade.passed for grade in load_results(project / "results")}
    rubric = load_rubric(project / "rubrics/goal_completion.yaml")
    tasks = load_task_files(project / "tasks", resolve_code=False)
    runs = {run.run_id: run for run in load_runs(project / "results/runs.jsonl")}
    with openai.OpenAI(base_url=served.base_url, api_key="anything") as client:
        for run_id in ("support/upgrade_plan/1", "support/upgrade_plan/2"):
            system, user = render_judge_prompt(rubric, runs[run_id], tasks.get("upgrade_plan"))
            answer = client.chat.completions.create(
                model="any-model",
                messages=[
                    {"role": "system", "content": system.content},
                    {"role": "user", "content": user.content},
                ],
            )
            graded = "passed" if grades[run_id] else "failed"
            assert json.loads(answer.choices[0].message.content or "") == {
                "reason": f"simulated judge, not a model: run {run_id} {graded} its grade",
                "score": "pass" if grades[run_id] else "fail",
            }
    code, output = served.stop()
    assert code == 0
    assert not served.url_file.exists()  # a script waiting for it never reads a dead address
    lines = output.splitlines()
    assert lines[0] == (
        "fake judge: SIMULATED, not a model: verdicts follow the grades of 120 runs in "
        "results, the opposite at error rate 0.00 (seed 0)"
    )
    port = served.base_url.split(":")[2].split("/")[0]
    assert lines[1:6] == [
        f"serving the OpenAI and Anthropic APIs on 127.0.0.1:{port}; use",
        f"  OPENAI_BASE_URL=http://127.0.0.1:{port}/v1 OPENAI_API_KEY=fake",
        f"  (or ANTHROPIC_BASE_URL=http://127.0.0.1:{port} ANTHROPIC_API_KEY=fake)",
        f"wrote {served.url_file}",
        "Ctrl-C or SIGTERM stops it",
    ]
    assert lines[-1] == (
        "fake judge stopped: answered pass 1, fail 1 (0 set errors), 0 prompts about no run "
        "it knows"
    )


def verdict_scores(project: Path, out: Path) -> dict[str, str]:
    return {
        line["run_id"]: line["score"]
        for line in map(json.loads, (out / "verdicts.jsonl").read_text().splitlines())
    }


def judge_against(server: Served, project: Path, tmp_path: Path) -> dict[str, str]:
    judged = judgekit(
        [
            "judge",
            "results/runs.jsonl",
            *("--rubric", "goal_completion", "--tasks", "tasks"),
            *("--out", str(tmp_path / "judged"), "--no-store"),
        ],
        project,
        tmp_path / "home",
        OPENAI_BASE_URL=server.base_url,
        OPENAI_API_KEY="fake",
    )
    assert judged.returncode == 0, judged.stdout + judged.stderr
    return verdict_scores(project, tmp_path / "judged")


def test_judge_at_error_rate_zero_agrees_with_every_grade(
    project: Path, served: Served, tmp_path: Path
) -> None:
    grades = {g.run_id: "pass" if g.passed else "fail" for g in load_results(project / "results")}
    assert judge_against(served, project, tmp_path) == grades


def test_the_error_rate_flips_that_share_of_verdicts_the_same_way_each_time(
    project: Path, tmp_path: Path
) -> None:
    grades = {g.run_id: "pass" if g.passed else "fail" for g in load_results(project / "results")}
    wrong = []
    for attempt in ("one", "two"):
        server = serve(project, tmp_path / attempt, "--error-rate", "0.2", "--seed", "3")
        try:
            scores = judge_against(server, project, tmp_path / attempt)
        finally:
            code, output = server.stop()
        assert code == 0
        wrong.append(sorted(r for r in grades if scores[r] != grades[r]))
        # Two runs read the same (one answer, one case number): one prompt, one set error.
        assert output.splitlines()[-1] == (
            "fake judge stopped: answered pass 77, fail 42 (20 set errors), 0 prompts about "
            "no run it knows"
        )
    assert wrong[0] == wrong[1] and len(wrong[0]) == 21  # of 120: about a fifth


def test_bad_input_exits_2_naming_the_file(project: Path, tmp_path: Path) -> None:
    missing = judgekit(["fake-judge", "--results", "nowhere"], project, tmp_path)
    assert missing.returncode == 2
    assert missing.stderr == (
        "judgekit: error: nowhere: no such folder: give the folder `judgekit run --out` wrote\n"
    )
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "runs.jsonl").write_text((project / "results/runs.jsonl").read_text())
    (broken / "results.jsonl").write_text('{"run_id": "x", "passed": "maybe"}\n')
    refused = judgekit(["fake-judge", "--results", str(broken)], project, tmp_path)
    assert refused.returncode == 2
    assert refused.stderr.startswith(f"judgekit: error: {broken / 'results.jsonl'}:1: ")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        busy = judgekit(
            ["fake-judge", "--results", "results", "--port", str(port)], project, tmp_path
        )
    assert busy.returncode == 2
    assert busy.stderr == (
        f"judgekit: error: cannot serve on 127.0.0.1:{port}: Address already in use\n"
    )


def test_its_help_says_it_is_no_model(project: Path, tmp_path: Path) -> None:
    shown = judgekit(["fake-judge", "--help"], project, tmp_path).stdout
    assert "Serve a simulated judge (not a model)" in shown
    assert "It is NOT a model and judges nothing" in " ".join(shown.split())


def test_the_anthropic_sdk_is_answered_too_and_ctrl_c_stops_it(
    project: Path, served: Served
) -> None:
    run = next(load_runs(project / "results/runs.jsonl"))
    rubric = load_rubric(project / "rubrics/goal_completion.yaml")
    task = load_task_files(project / "tasks", resolve_code=False).get(run.task_id)
    system, user = render_judge_prompt(rubric, run, task)
    passed = {g.run_id: g.passed for g in load_results(project / "results")}[run.run_id]
    base_url = served.base_url.removesuffix("/v1")
    with anthropic.Anthropic(base_url=base_url, api_key="anything") as client:
        answer = client.messages.create(
            model="any-model",
            max_tokens=100,
            system=system.content,
            messages=[{"role": "user", "content": user.content}],
        )
    block = answer.content[0]
    assert block.type == "text"
    assert json.loads(block.text)["score"] == ("pass" if passed else "fail")
    served.process.send_signal(signal.SIGINT)
    out, err = served.process.communicate(timeout=30)
    assert served.process.returncode == 0 and "Traceback" not in err
    assert out.splitlines()[-1].startswith(
        f"fake judge stopped: answered pass {int(passed)}, fail {int(not passed)} (0 set errors)"
    )
    assert not served.url_file.exists()


def test_a_url_file_that_is_not_one_is_never_overwritten(project: Path, tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# my project\n")
    refused = judgekit(
        ["fake-judge", "--results", "results", "--url-file", str(readme)], project, tmp_path
    )
    assert refused.returncode == 2
    assert refused.stderr == (
        f"judgekit: error: {readme}: already exists and is not a fake judge's URL file: give "
        "a new path for --url-file (it is written on start and removed on exit)\n"
    )
    assert readme.read_text() == "# my project\n"
    # One a killed fake judge left behind is replaced, then removed on exit.
    stale = project / "fake-judge.url"
    stale.write_text("http://127.0.0.1:1/v1\n")
    server = serve(project, tmp_path / "home", "--error-rate", "0")
    try:
        deadline = time.monotonic() + 60
        while stale.read_text() == "http://127.0.0.1:1/v1\n" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert stale.read_text().startswith("http://127.0.0.1:")
        assert stale.read_text() != "http://127.0.0.1:1/v1\n"
    finally:
        code, _ = server.stop()
    assert code == 0 and not stale.exists()


def test_a_model_rate_is_provider_model_equals_a_rate(project: Path, tmp_path: Path) -> None:
    for value, why in [
        ("b=0.5", "'b=0.5' is not provider/model=rate, e.g. openai/b=0.15"),
        ("openai/b=2", "2.0 is not in the range 0<=x<=1."),
    ]:
        refused = judgekit(
            ["fake-judge", "--results", "results", "--error-rate-for", value], project, tmp_path
        )
        assert refused.returncode == 2
        assert f"Invalid value for '--error-rate-for': {why}" in refused.stderr


def test_rpm_makes_it_a_rate_limited_provider(project: Path, tmp_path: Path) -> None:
    server = serve(project, tmp_path / "home", "--rpm", "2", "--rate-window", "60")
    try:
        with openai.OpenAI(base_url=server.base_url, api_key="anything", max_retries=0) as client:
            ask = {"model": "any-model", "messages": [{"role": "user", "content": "hi"}]}
            first = client.chat.completions.with_raw_response.create(**ask)  # type: ignore[call-overload]
            client.chat.completions.create(**ask)  # type: ignore[call-overload]
            with pytest.raises(openai.RateLimitError) as refused:
                client.chat.completions.create(**ask)  # type: ignore[call-overload]
        assert first.headers["x-ratelimit-limit-requests"] == "2"
        assert first.headers["x-ratelimit-remaining-requests"] == "1"
        assert refused.value.response.headers["x-ratelimit-remaining-requests"] == "0"
        assert 1 <= int(refused.value.response.headers["retry-after"]) <= 60
    finally:
        code, _ = server.stop()
    assert code == 0


def test_bad_rate_options_exit_2(project: Path, tmp_path: Path) -> None:
    ran = judgekit(["fake-judge", "--results", "results", "--rpm", "0"], project, tmp_path / "home")
    assert ran.returncode == 2
    assert "Invalid value for '--rpm': 0 is not in the range x>=1." in ran.stderr


def test_batch_turnaround_holds_a_batch_that_long(project: Path, tmp_path: Path) -> None:
    server = serve(project, tmp_path / "home", "--batch-turnaround", "3")
    anthropic_url = server.base_url.removesuffix("/v1")
    try:
        with anthropic.Anthropic(base_url=anthropic_url, api_key="anything") as client:
            params = {
                "model": "m",
                "max_tokens": 16,
                "messages": [{"role": "user", "content": "q"}],
            }
            started = time.monotonic()
            batch = client.messages.batches.create(requests=[{"custom_id": "a", "params": params}])  # type: ignore[list-item]
            statuses = [client.messages.batches.retrieve(batch.id).processing_status]
            while statuses[-1] != "ended" and time.monotonic() - started < 30:
                time.sleep(0.2)
                statuses.append(client.messages.batches.retrieve(batch.id).processing_status)
            waited = time.monotonic() - started
    finally:
        code, _ = server.stop()
    assert (statuses[0], statuses[-1]) == ("in_progress", "ended")
    assert 3 <= waited < 30
    assert code == 0
