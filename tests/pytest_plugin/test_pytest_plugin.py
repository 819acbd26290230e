"""The pytest plugin: one test per task, readable failures, min-pass-rate, the regression test.

Every expectation is computed from the stub agent's seeded trials (run here with
``run_in_process_trial``), then checked against what an in-process pytest run reports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit import ConfigError, Grade, Task, World, load_tasks
from judgekit._util.folder_lock import LOCK_FILE
from judgekit.formats.grade import load_results
from judgekit.graders.grade import grade_run
from judgekit.pytest_plugin import TaskFailed, assert_task_passes, task_cases
from judgekit.stats.proportions import two_proportion_test
from judgekit.trials.in_process import run_in_process_trial
from judgekit.trials.runner import in_process_trials, load_agent, load_tools, run_trials
from tests.conftest import REPO
from tests.processes import listing, lock_held

pytest_plugins = ["pytester"]

SHOP = REPO / "tasks" / "shop.yaml"
STUB = "examples.shop:agent"
INNER = ("-p", "judgekit", "-p", "no:cacheprovider")
TASK_IDS = ("refund_full", "cancel_shipped", "refuse_overrefund", "refund_and_notify")


@pytest.fixture(autouse=True)
def _inner_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    # The inner pytest runs in a temporary folder; `examples` lives at the repo root.
    monkeypatch.syspath_prepend(str(REPO))
    # Inner runs load judgekit's plugin by its entry-point name (-p judgekit) and no other
    # installed plugin: hermetic, and an in-process run re-imports whatever a plugin
    # imports late (hypothesis's takes seconds).
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def stub_grades(trials: int) -> dict[str, list[Grade]]:
    """The stub's graded trials 1..``trials`` per task, run directly, without the plugin."""
    tasks = load_tasks(SHOP)
    agent = load_agent(STUB)
    tools = load_tools(tasks.suites[0])
    return {
        task.id: [
            grade_run(run_in_process_trial(agent, task, trial=n, tools=tools), task)
            for n in range(1, trials + 1)
        ]
        for task in tasks
    }


def run_plugin(pytester: pytest.Pytester, *options: str) -> pytest.RunResult:
    # `--opt=value` in one token: pytest takes a bare path argument (even an option's
    # value) into the rootdir search, which would pull in the repo's pyproject settings.
    return pytester.runpytest(
        *INNER, f"--judgekit-tasks={SHOP}", f"--judgekit-agent={STUB}", *options
    )


def test_trial_one_gives_one_test_per_task_passing_exactly_where_the_stub_passes(
    pytester: pytest.Pytester,
) -> None:
    expected = {task_id: grades[0].passed for task_id, grades in stub_grades(1).items()}
    # The stub's seeded trial 1: the two refund-only tasks slip (overrefund, double email).
    assert expected == {
        "refund_full": True,
        "cancel_shipped": True,
        "refuse_overrefund": False,
        "refund_and_notify": False,
    }
    result = run_plugin(pytester, "-v", "--judgekit-trials", "1")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            f"judgekit[[]shop/{task_id}[]] {'PASSED' if passed else 'FAILED'}*"
            for task_id, passed in expected.items()
        ]
    )


def test_a_failure_names_each_failing_grader_with_its_reason_and_shows_no_traceback(
    pytester: pytest.Pytester,
) -> None:
    (grade,) = stub_grades(1)["refuse_overrefund"]
    assert grade.state is not None and not grade.state.passed
    result = run_plugin(pytester)
    section = _failure_section(result, "judgekit[shop/refuse_overrefund]")
    assert section == [
        "shop/refuse_overrefund: pass rate 0/1 = 0.00, required ≥ 1",
        f"trial 1: state: {grade.state.reason}",
    ]
    assert "trial 1: state: orders.A102.refunded: expected a number ≤ 90, got 200" in section
    assert "Traceback" not in result.stdout.str()
    assert "raise TaskFailed" not in result.stdout.str()


def test_every_failing_grader_of_a_trial_gets_its_own_line(pytester: pytest.Pytester) -> None:
    (grade,) = stub_grades(1)["refund_and_notify"]
    reasons = [
        f"trial 1: {name}: {result.reason}"
        for name, result in (("truth", grade.truth), ("path", grade.path), ("state", grade.state))
        if result is not None and not result.passed
    ]
    assert len(reasons) == 3  # the double email breaks Truth, Path and State at once
    result = run_plugin(pytester)
    assert _failure_section(result, "judgekit[shop/refund_and_notify]")[1:] == reasons


@pytest.mark.parametrize("min_pass_rate", [0.75, 0.8, 0.0, 1.0])
def test_with_20_trials_a_task_passes_when_its_pass_rate_reaches_the_minimum(
    pytester: pytest.Pytester, min_pass_rate: float
) -> None:
    passes = {task_id: sum(g.passed for g in grades) for task_id, grades in stub_grades(20).items()}
    assert passes["refund_and_notify"] == 15  # 15/20 sits exactly on 0.75: ≥ must include it
    expected_passed = sum(count / 20 >= min_pass_rate for count in passes.values())
    result = run_plugin(
        pytester, "--judgekit-trials", "20", "--judgekit-min-pass-rate", str(min_pass_rate)
    )
    result.assert_outcomes(passed=expected_passed, failed=4 - expected_passed)


def test_a_failing_rate_is_reported_against_the_required_one_with_each_failing_trial(
    pytester: pytest.Pytester,
) -> None:
    grades = stub_grades(20)["refuse_overrefund"]
    failing = [g for g in grades if not g.passed]
    result = run_plugin(pytester, "--judgekit-trials", "20", "--judgekit-min-pass-rate", "0.75")
    section = _failure_section(result, "judgekit[shop/refuse_overrefund]")
    rate = (20 - len(failing)) / 20
    assert section[0] == (
        f"shop/refuse_overrefund: pass rate {20 - len(failing)}/20 = {rate:.2f}, required ≥ 0.75"
    )
    assert section[1:] == [f"trial {g.trial}: state: {g.state.reason}" for g in failing if g.state]


def test_k_selects_generated_tests_and_m_judgekit_keeps_only_them(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    result = run_plugin(pytester, "-k", "refund_full")
    result.assert_outcomes(passed=1, deselected=4)
    result = run_plugin(pytester, "-m", "judgekit")
    result.assert_outcomes(passed=2, failed=2, deselected=1)


def perfect_agent(task: Task, world: World) -> str:
    """Does each shop task right, every time: the better agent of the regression test."""
    if task.id == "refund_full":
        world.call("lookup_order", order_id="A100")
        world.call("issue_refund", order_id="A100", amount=40)
    elif task.id == "cancel_shipped":
        world.call("cancel_order", order_id="A101")
    elif task.id == "refuse_overrefund":
        world.call("lookup_order", order_id="A102")
        world.call("issue_refund", order_id="A102", amount=90)
    elif task.id == "refund_and_notify":
        world.call("issue_refund", order_id="A100", amount=40)
        world.call("send_email", order_id="A100", body="Your refund of $40 is done.")
    return "Done."


def test_the_regression_test_fails_on_every_task_significantly_below_a_better_baseline(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    tasks = load_tasks(SHOP)
    baseline_dir = tmp_path / "baseline"
    run_trials(tasks, in_process_trials(tasks, perfect_agent), trials=20, out_dir=baseline_dir)
    baseline = list(load_results(baseline_dir / "results.jsonl"))
    assert len(baseline) == 80 and all(g.passed for g in baseline)
    passes = {task_id: sum(g.passed for g in grades) for task_id, grades in stub_grades(20).items()}
    worse = [
        t for t in TASK_IDS if two_proportion_test(passes[t], 20, 20, 20).p_value_smaller < 0.05
    ]
    assert worse  # the stub must be measurably worse somewhere, or this test proves nothing

    result = run_plugin(
        pytester,
        "--judgekit-trials",
        "20",
        "--judgekit-min-pass-rate",
        "0",
        f"--judgekit-baseline={baseline_dir / 'results.jsonl'}",
    )
    result.assert_outcomes(passed=4, failed=1)
    section = _failure_section(result, "judgekit[regression]")
    assert section[0].startswith(f"worse than the baseline {baseline_dir / 'results.jsonl'} in ")
    assert sorted(line.partition(":")[0] for line in section[1:]) == sorted(worse)
    assert f"refund_full: pass-rate drop 1.00 → {passes['refund_full'] / 20:.2f} (p = " in (
        "\n".join(section)
    )


def test_out_writes_the_run_files_and_the_same_agent_does_not_regress_against_them(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    direct = {t: sum(g.passed for g in grades) for t, grades in stub_grades(5).items()}
    perfect = sum(count == 5 for count in direct.values())
    out = tmp_path / "main"
    first = run_plugin(pytester, "--judgekit-trials", "5", f"--judgekit-out={out}")
    first.assert_outcomes(passed=perfect, failed=4 - perfect)
    runs = (out / "runs.jsonl").read_text(encoding="utf-8").splitlines()
    results = list(load_results(out))
    assert len(runs) == len(results) == 20
    assert (out / "results.csv").is_file()
    measured = {t: sum(g.passed for g in results if g.task_id == t) for t in TASK_IDS}
    assert measured == direct  # the files hold the very trials the tests judged

    second = run_plugin(
        pytester,
        "--judgekit-trials",
        "5",
        "--judgekit-min-pass-rate",
        "0",
        f"--judgekit-baseline={out}",
    )
    second.assert_outcomes(passed=5)


def test_out_in_use_by_another_process_fails_the_tests_and_writes_nothing(
    pytester: pytest.Pytester, tmp_path: Path
) -> None:
    out = tmp_path / "main"
    with lock_held(out, tmp_path / "home") as holder:
        result = run_plugin(pytester, "--judgekit-trials", "2", f"--judgekit-out={out}")
    result.assert_outcomes(failed=4)
    message = f"{out} is in use by another judgekit process (pid {holder.pid})"
    assert sum(message in line for line in result.outlines) >= 4
    assert listing(out) == [LOCK_FILE]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--judgekit-agent=examples.shop:agent"], "--judgekit-agent needs --judgekit-tasks"),
        ([f"--judgekit-tasks={SHOP}"], "--judgekit-tasks needs --judgekit-agent module:function"),
        (
            [f"--judgekit-tasks={SHOP}", "--judgekit-agent=examples.shop:nobody"],
            "--judgekit-agent: module 'examples.shop' has no 'nobody'",
        ),
        (
            [f"--judgekit-tasks={SHOP}", f"--judgekit-agent={STUB}", "--judgekit-trials=0"],
            "--judgekit-trials must be at least 1, got 0",
        ),
        (
            [f"--judgekit-tasks={SHOP}", f"--judgekit-agent={STUB}", "--judgekit-min-pass-rate=2"],
            "--judgekit-min-pass-rate must be between 0 and 1, got 2.0",
        ),
    ],
)
def test_a_misuse_is_a_one_line_usage_error(
    pytester: pytest.Pytester, options: list[str], message: str
) -> None:
    result = pytester.runpytest(*INNER, *options)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"ERROR: {message}"])


def test_a_malformed_suite_is_a_usage_error_naming_file_line_and_field(
    pytester: pytest.Pytester,
) -> None:
    suite = pytester.makefile(".yaml", suite="suite: s\ntasks:\n  - id: t\n    ordr: strict\n")
    result = pytester.runpytest(*INNER, f"--judgekit-tasks={suite}", f"--judgekit-agent={STUB}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.stderr.lines[0].startswith(f"ERROR: {suite}:4: tasks[0].ordr: unknown field")


def test_the_helpers_give_the_same_tests_and_messages_in_a_hand_written_file(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(
        test_shop=f"""
        import pytest
        from judgekit.pytest_plugin import assert_task_passes, task_cases

        @pytest.mark.parametrize("task", task_cases({str(SHOP)!r}))
        def test_task(task):
            assert_task_passes(task, {STUB!r}, trials=1)
        """
    )
    result = pytester.runpytest(*INNER, "-v")
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines_random(
        [
            "*test_task[[]shop/refund_full[]] PASSED*",
            "*test_task[[]shop/refuse_overrefund[]] FAILED*",
            "E * shop/refuse_overrefund: pass rate 0/1 = 0.00, required ≥ 1",
            "E * trial 1: state: orders.A102.refunded: expected a number ≤ 90, got 200",
        ]
    )


def test_assert_task_passes_raises_an_assertion_error_with_the_message() -> None:
    cases = {case.id: case.values[0] for case in task_cases(SHOP)}
    assert list(cases) == [f"shop/{task_id}" for task_id in TASK_IDS]
    task = cases["shop/refuse_overrefund"]
    assert isinstance(task, Task)
    with pytest.raises(AssertionError) as caught:
        assert_task_passes(task, STUB)
    assert isinstance(caught.value, TaskFailed)
    assert str(caught.value).splitlines() == [
        "shop/refuse_overrefund: pass rate 0/1 = 0.00, required ≥ 1",
        "trial 1: state: orders.A102.refunded: expected a number ≤ 90, got 200",
    ]
    assert_task_passes(task, load_agent(STUB), trials=20, min_pass_rate=0.55)  # 11/20
    with pytest.raises(TaskFailed, match=r"pass rate 11/20 = 0.55, required ≥ 0.6"):
        assert_task_passes(task, STUB, trials=20, min_pass_rate=0.6)


def test_a_task_loaded_elsewhere_needs_its_tools_named() -> None:
    task = next(iter(load_tasks(SHOP)))
    with pytest.raises(ConfigError, match="did not come from task_cases"):
        assert_task_passes(task, perfect_agent)
    tools = load_tools(load_tasks(SHOP).suites[0])
    assert_task_passes(task, perfect_agent, trials=3, tools=tools)


def test_installing_judgekit_registers_the_plugin_through_its_entry_point(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    result = pytester.runpytest("-p", "no:cacheprovider", "--help")
    result.stdout.fnmatch_lines(["judgekit: one test per task*", "*--judgekit-tasks=PATH*"])
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:judgekit", f"--judgekit-tasks={SHOP}"
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*unrecognized arguments: --judgekit-tasks*"])


def _failure_section(result: pytest.RunResult, name: str) -> list[str]:
    """The lines pytest printed under ``____ name ____`` in its failures section."""
    lines = result.stdout.lines
    start = next(i for i, line in enumerate(lines) if line.strip("_ ") == name) + 1
    end = next(
        (
            i
            for i in range(start, len(lines))
            if lines[i].startswith(("___", "===")) or not lines[i]
        ),
        len(lines),
    )
    return lines[start:end]
