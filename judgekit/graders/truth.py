"""Truth: did the agent call the right tools, with the right arguments, and nothing forbidden?

Order modes (DESIGN.md): ``strict`` the same calls in the same order and nothing else;
``unordered`` the same calls in any order and nothing else; ``superset`` every expected call
appears, others may too; ``subset`` every call made is among the expected ones (each expected
call covers one actual call), some may be missing; ``in_order`` the expected calls appear in
this order, others may sit between them.

Unordered modes pair expected and actual calls by a maximum bipartite matching, so the
verdict never depends on the order in which expectations are written. When a run fails, the
calls left over are paired by an optimal assignment (fewest failing arguments) to explain
what is wrong with each: a missing call, a wrong argument, a missing or unexpected argument.

Before any matching, a call to one of ``idempotent_tools`` that repeats exactly (same name,
canonical arguments) that tool's last successful call is set aside: it left the world as it
was, so it is neither an unexpected call nor a second match for one expectation.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import overload

from judgekit._util.assignment import min_cost_assignment
from judgekit._util.matching import maximum_matching
from judgekit.formats.grade import GraderResult
from judgekit.formats.matchers import DictOf, Mismatch
from judgekit.formats.task import ExpectedCall, Task
from judgekit.graders.canonical import call_key
from judgekit.graders.rendering import call_label, render_call
from judgekit.graders.run_view import CallView, RunView

_MAX_REASONS = 3


def grade_truth(run: RunView, task: Task) -> GraderResult | None:
    """Grade the tool calls of ``run`` against ``task``; ``None`` when the task sets no Truth.

    >>> from judgekit.formats.run import Run, ToolCall
    >>> task = Task(id="t", expect_tools=[{"name": "book", "args": {"flight_id": "AA123"}}])
    >>> run = Run(run_id="r", task_id="t", tool_calls=[ToolCall(name="book", args={"flight_id": "AA999"})])
    >>> grade_truth(run, task).reason
    "book.flight_id: expected 'AA123', got 'AA999'"
    """
    if not task.has_truth:
        return None
    calls = run.tool_calls
    if not calls and not expects_calls(task):
        return GraderResult(passed=None, reason=NOTHING_TO_CHECK)
    problem = _forbidden_or_disallowed(calls, task)
    if problem is not None:
        return GraderResult(passed=False, reason=problem)
    if task.expect_tools is None:
        return GraderResult(passed=True, reason="no forbidden or disallowed tool called")
    expected = task.expect_tools
    matchers = task.call_matchers
    ignored = set(task.ignore_tools)
    repeats = _idempotent_repeats(calls, task.idempotent_tools)
    if ignored or task.ignore_failed_calls or repeats:
        positions: Sequence[int] = [
            i
            for i, call in enumerate(calls)
            if call.name not in ignored
            and not (task.ignore_failed_calls and call.error is not None)
            and i not in repeats
        ]
        kept: Sequence[CallView] = [calls[i] for i in positions]
    else:  # the usual case: every call counts
        positions, kept = range(len(calls)), calls
    labels = _CallLabels(positions)  # reasons number calls as in the whole run
    if task.order == "strict":
        failures = _strict(expected, matchers, kept, labels)
    elif task.order == "in_order":
        failures = _in_order(expected, matchers, kept, labels)
    else:
        failures = _by_assignment(expected, matchers, kept, labels, task.order)
    if failures:
        shown = failures[:_MAX_REASONS]
        if len(failures) > _MAX_REASONS:
            shown.append(f"and {len(failures) - _MAX_REASONS} more")
        return GraderResult(passed=False, reason="; ".join(shown))
    if not expected:
        return GraderResult(passed=True, reason="no tool call, as expected")
    return GraderResult(
        passed=True,
        reason=f"all {len(expected)} expected calls matched ({task.order})"
        + _set_aside(calls, repeats),
    )


# What Truth and Path say of a run with no tool call when the task expects none: a distinct
# outcome (passed None), never a silent pass.
NOTHING_TO_CHECK = "nothing to check: the run made no tool call and the task expects none"


def expects_calls(task: Task) -> bool:
    """Whether the task expects something of a run's tool calls: calls to find, or (an empty
    ``expect_tools`` in ``strict``, ``unordered`` or ``subset`` order) no call at all.

    >>> expects_calls(Task(id="t", forbid_tools=["refund"]))
    False
    >>> expects_calls(Task(id="t", expect_tools=[], order="strict"))
    True
    """
    if task.expect_tools is None:
        return False
    return bool(task.expect_tools) or task.order in ("strict", "unordered", "subset")


class _CallLabels(Sequence[str]):
    """``call #n`` for each kept call, made only when a reason needs one."""

    def __init__(self, positions: Sequence[int]) -> None:
        self.positions = positions

    @overload
    def __getitem__(self, index: int) -> str: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[str]: ...
    def __getitem__(self, index: int | slice) -> str | Sequence[str]:
        if isinstance(index, slice):
            return [call_label(i) for i in self.positions[index]]
        return call_label(self.positions[index])

    def __len__(self) -> int:
        return len(self.positions)


def _idempotent_repeats(calls: Sequence[CallView], tools: Sequence[str]) -> dict[int, int]:
    """Each exact repeat of an idempotent tool's last successful call -> that call's index.

    Only the *last* success counts: after ``f(a), f(b)``, ``f(a)`` changes the world back.
    A refused call changed nothing, so it neither is nor breaks the last success."""
    if not tools:
        return {}
    idempotent = set(tools)
    last_success: dict[str, tuple[Hashable, int]] = {}
    repeats: dict[int, int] = {}
    for index, call in enumerate(calls):
        if call.name not in idempotent or call.arguments_error is not None:
            continue
        key = call_key(call)
        last = last_success.get(call.name)
        if last is not None and last[0] == key:
            repeats[index] = last[1]
        elif call.error is None:
            last_success[call.name] = (key, index)
    return repeats


def _set_aside(calls: Sequence[CallView], repeats: dict[int, int]) -> str:
    """What a passing reason adds about idempotent repeats, so a pass never hides them."""
    if not repeats:
        return ""
    told = [
        f"{call_label(i)} {calls[i].name} (repeats {call_label(first)})"
        for i, first in list(repeats.items())[:_MAX_REASONS]
    ]
    if len(repeats) > _MAX_REASONS:
        told.append(f"and {len(repeats) - _MAX_REASONS} more")
    return f"; set aside as idempotent repeats: {', '.join(told)}"


def _forbidden_or_disallowed(calls: Sequence[CallView], task: Task) -> str | None:
    forbidden = set(task.forbid_tools)
    allowed: set[str] | None = None
    if task.allow_tools is not None:
        allowed = set(task.allow_tools) | {e.name for e in task.expect_tools or []}
    if not forbidden and allowed is None:
        return None
    for index, call in enumerate(calls):
        if call.name in forbidden:
            refused = f", refused: {call.error}" if call.error else ""
            return f"called forbidden tool {call.name} ({call_label(index)}{refused})"
        if allowed is not None and call.name not in allowed:
            refused = f", refused: {call.error}" if call.error else ""
            return (
                f"called {call.name} ({call_label(index)}{refused}), which is not in "
                f"allow_tools [{', '.join(sorted(allowed))}]"
            )
    return None


def _call_matches(call: CallView, expected: ExpectedCall, matcher: DictOf) -> bool:
    return (
        call.name == expected.name
        and call.arguments_error is None
        and matcher.check(call.args) is None
    )


def _argument_problems(call: CallView, expected: ExpectedCall, matcher: DictOf) -> list[Mismatch]:
    if call.arguments_error is not None:
        return [Mismatch((), f"invalid arguments ({call.arguments_error})")]
    return matcher.mismatches(call.args)


def _explain_arguments(
    call: CallView, label: str, expected: ExpectedCall, matcher: DictOf, *, name_call: bool
) -> str:
    problems = _argument_problems(call, expected, matcher)
    where = f" ({label})" if name_call else ""
    return "; ".join(f"{p.dotted(expected.name)}: {p.message}{where}" for p in problems)


def _describe_expected(expected: ExpectedCall, matcher: DictOf) -> str:
    inner = ", ".join(f"{k}={m.describe()}" for k, m in matcher.children.items())
    return f"{expected.name}({inner})"


def _strict(
    expected: Sequence[ExpectedCall],
    matchers: Sequence[DictOf],
    calls: Sequence[CallView],
    labels: Sequence[str],
) -> list[str]:
    failures: list[str] = []
    for index, (exp, matcher, call) in enumerate(zip(expected, matchers, calls, strict=False)):
        if call.name != exp.name:
            failures.append(f"{labels[index]}: expected {exp.name}, got {render_call(call)}")
        elif not _call_matches(call, exp, matcher):
            failures.append(_explain_arguments(call, labels[index], exp, matcher, name_call=True))
    for index in range(len(calls), len(expected)):
        failures.append(
            f"missing call {_describe_expected(expected[index], matchers[index])} "
            f"(expected as {call_label(index)}; the run made {len(calls)})"
        )
    for index in range(len(expected), len(calls)):
        failures.append(f"unexpected {labels[index]} {render_call(calls[index])}")
    return failures


def _in_order(
    expected: Sequence[ExpectedCall],
    matchers: Sequence[DictOf],
    calls: Sequence[CallView],
    labels: Sequence[str],
) -> list[str]:
    # Taking the earliest matching call for each expectation is optimal for a subsequence.
    position = 0
    for exp_index, (exp, matcher) in enumerate(zip(expected, matchers, strict=True)):
        found = next(
            (i for i in range(position, len(calls)) if _call_matches(calls[i], exp, matcher)), None
        )
        if found is not None:
            position = found + 1
            continue
        earlier = next((i for i in range(position) if _call_matches(calls[i], exp, matcher)), None)
        if earlier is not None:
            after = expected[exp_index - 1].name if exp_index else "the start"
            return [f"{exp.name} matched only at {labels[earlier]}, before {after} (out of order)"]
        same_name = [i for i in range(position, len(calls)) if calls[i].name == exp.name]
        if same_name:
            best = min(same_name, key=lambda i: len(_argument_problems(calls[i], exp, matcher)))
            return [
                _explain_arguments(
                    calls[best], labels[best], exp, matcher, name_call=len(same_name) > 1
                )
            ]
        return [f"missing call {_describe_expected(exp, matcher)}"]
    return []


def _by_assignment(
    expected: Sequence[ExpectedCall],
    matchers: Sequence[DictOf],
    calls: Sequence[CallView],
    labels: Sequence[str],
    order: str,
) -> list[str]:
    need_all_expected = order in ("superset", "unordered")
    need_all_calls = order in ("subset", "unordered")
    if _greedy_pairing_suffices(expected, matchers, calls, need_all_expected, need_all_calls):
        return []
    adjacency = [
        [call.name == exp.name and _call_matches(call, exp, matcher) for call in calls]
        for exp, matcher in zip(expected, matchers, strict=True)
    ]
    owner = maximum_matching(adjacency, len(calls))
    matched_calls = {j for j, i in enumerate(owner) if i != -1}
    matched_expected = {i for i in owner if i != -1}
    if (not need_all_expected or len(matched_expected) == len(expected)) and (
        not need_all_calls or len(matched_calls) == len(calls)
    ):
        return []
    spare_expected = [i for i in range(len(expected)) if i not in matched_expected]
    spare_calls = [j for j in range(len(calls)) if j not in matched_calls]
    pairs = _closest_pairs(spare_expected, spare_calls, expected, matchers, calls)
    failures: list[str] = []
    paired_calls: set[int] = set()
    if need_all_expected:
        for i in spare_expected:
            j = pairs.get(i)
            if j is None:
                failures.append(f"missing call {_describe_expected(expected[i], matchers[i])}")
            else:
                paired_calls.add(j)
                same_name = sum(1 for c in calls if c.name == expected[i].name)
                failures.append(
                    _explain_arguments(
                        calls[j], labels[j], expected[i], matchers[i], name_call=same_name > 1
                    )
                )
    if need_all_calls:
        for j in spare_calls:
            if j in paired_calls:
                continue
            failures.append(
                f"unexpected {labels[j]} {render_call(calls[j])} "
                f"(not among the expected calls, order: {order})"
            )
    return failures


def _greedy_pairing_suffices(
    expected: Sequence[ExpectedCall],
    matchers: Sequence[DictOf],
    calls: Sequence[CallView],
    need_all_expected: bool,
    need_all_calls: bool,
) -> bool:
    """A quick pass for the common passing run: pair each expectation with the first free
    call that matches. Any pairing that covers what the order mode needs proves the run
    passes; only when this one falls short does the maximum matching decide."""
    if need_all_calls and len(calls) > len(expected):
        return False
    if need_all_expected and len(expected) > len(calls):
        return False
    free = list(range(len(calls)))
    paired = 0
    for exp, matcher in zip(expected, matchers, strict=True):
        name = exp.name
        for position, j in enumerate(free):
            call = calls[j]  # _call_matches inlined: this loop runs for every run
            if (
                call.name == name
                and call.arguments_error is None
                and matcher.check(call.args) is None
            ):
                del free[position]
                paired += 1
                break
    covers_expected = paired == len(expected)
    covers_calls = not free
    return (covers_expected or not need_all_expected) and (covers_calls or not need_all_calls)


def _closest_pairs(
    spare_expected: list[int],
    spare_calls: list[int],
    expected: Sequence[ExpectedCall],
    matchers: Sequence[DictOf],
    calls: Sequence[CallView],
) -> dict[int, int]:
    """Pair leftover expectations with leftover calls of the same tool, fewest problems first."""
    if not spare_expected or not spare_calls:
        return {}
    big = 10_000  # cost of pairing calls of different tools: never chosen over a real pair
    costs = [
        [
            len(_argument_problems(calls[j], expected[i], matchers[i]))
            if calls[j].name == expected[i].name
            else big
            for j in spare_calls
        ]
        for i in spare_expected
    ]
    return {
        spare_expected[row]: spare_calls[col]
        for row, col in min_cost_assignment(costs)
        if costs[row][col] < big
    }
