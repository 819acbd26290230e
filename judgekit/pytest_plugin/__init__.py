"""A task suite as pytest tests: one test per task, and a regression test against a baseline.

The plugin is registered through the ``pytest11`` entry point, so installing judgekit is
enough (``-p no:judgekit`` turns it off). It does nothing until ``--judgekit-tasks`` is
given; then it adds one test per task, named ``judgekit[<suite>/<task_id>]``::

    pytest --judgekit-tasks tasks/shop.yaml --judgekit-agent examples.shop:agent \\
        --judgekit-trials 20 --judgekit-min-pass-rate 0.7 \\
        --judgekit-baseline main/results.jsonl --judgekit-out pr/

Options:

``--judgekit-tasks PATH``
    a suite file, or a folder of them.
``--judgekit-agent module:function``
    the in-process agent ``agent(task, world) -> str`` (the working directory is importable).
``--judgekit-trials N``
    trials per task, numbered 1..N and seeded exactly as ``judgekit run`` seeds them
    (default 1).
``--judgekit-min-pass-rate R``
    a task's test passes when passes / N ≥ R (default 1.0: every trial must pass).
``--judgekit-baseline FILE``
    a ``results.jsonl`` (or a folder holding one); adds the test ``judgekit[regression]``,
    which fails when :func:`judgekit.gate.compare.compare_results` fails the candidate against it:
    a task's pass rate significantly lower (one-sided two-proportion test, alpha 0.05), its
    mean cost or turns up by more than 20% at a flat pass rate, or a baseline task missing.
    It is the verdict ``judgekit gate`` gives, so the two never disagree.
``--judgekit-out DIR``
    also write ``runs.jsonl``, ``results.jsonl`` and ``results.csv`` there, exactly as
    ``judgekit run --out DIR`` does (the next baseline). The whole suite then runs once, on
    the first judgekit test, so the files are complete even under ``-k``.

A failing task's test prints no traceback, only why, one line per failing grader::

    shop/refund_full: pass rate 13/20 = 0.65, required ≥ 0.7
    trial 2: path: issue_refund called 2 times, max_calls is 1

The tests are added after collection, beside whatever pytest collected, so they appear
even when no test path is given. In a project whose ``testpaths`` hold other tests, keep
only these with ``-m judgekit`` (every generated test carries that marker) or ``-k``.
Each task's trials run once per session: the regression test reuses them.

Teams who prefer their own test file use two helpers instead of the options::

    import pytest

    from judgekit.pytest_plugin import assert_task_passes, task_cases
    from my_agent import agent


    @pytest.mark.parametrize("task", task_cases("tasks/shop.yaml"))
    def test_task(task):
        assert_task_passes(task, agent, trials=20, min_pass_rate=0.7)

:func:`task_cases` gives one ``pytest.param`` per task with the id ``<suite>/<task_id>``;
:func:`assert_task_passes` runs the trials and raises ``AssertionError`` with the message
above.
"""

from __future__ import annotations

import pytest

from judgekit._util.number_format import setting
from judgekit.errors import JudgekitError
from judgekit.pytest_plugin.failures import RegressionFailed, TaskFailed
from judgekit.pytest_plugin.hand_written import assert_task_passes, task_cases
from judgekit.pytest_plugin.items import MARKER, suite_items
from judgekit.pytest_plugin.settings import add_options, check_paths, read_settings
from judgekit.pytest_plugin.suite_run import SuiteRun

__all__ = [
    "RegressionFailed",
    "TaskFailed",
    "assert_task_passes",
    "task_cases",
]

_SUITE_RUN = pytest.StashKey[SuiteRun]()


def pytest_addoption(parser: pytest.Parser) -> None:
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{MARKER}: a test generated from a judgekit task suite")
    settings = read_settings(config)
    if settings is None:
        return
    try:
        check_paths(settings)
        config.stash[_SUITE_RUN] = SuiteRun(settings)
    except JudgekitError as exc:  # a bad suite, agent or tools reference: say which, briefly
        raise pytest.UsageError(str(exc)) from None


def pytest_report_header(config: pytest.Config) -> str | None:
    suite_run = config.stash.get(_SUITE_RUN, None)
    if suite_run is None:
        return None
    s = suite_run.settings
    return (
        f"judgekit: {len(suite_run.tasks)} tasks from {s.tasks_path}, agent {s.agent}, "
        f"{s.trials} trials each, min pass rate {setting(s.min_pass_rate)}"
        + (f", baseline {s.baseline}" if s.baseline else "")
    )


# tryfirst: the items must exist before -k, -m and deselection look at the list.
@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    suite_run = config.stash.get(_SUITE_RUN, None)
    if suite_run is not None:
        items.extend(suite_items(session, suite_run))
