"""YAML that used to hang, crash or change meaning silently is refused in one line, exit 2.

An alias bomb of a few hundred bytes (grade grew past 2.6 GB in 25 s), nesting 20,000 deep
(a RecursionError traceback), a key said twice (the second silently won), an integer of
5,000 digits (a ValueError traceback), and numbers that are not finite where a finite one
is meant: each names the file and line, in bounded time and memory, for every YAML file
judgekit reads (task suites, rubrics, prices).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit import DataError, load_tasks
from judgekit._util import yamlcompose
from judgekit._util.yamlfile import load_yaml
from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric
from judgekit.judging.pricing import PriceTable
from tests.conftest import REPO

LAUGHS = "".join(
    f"{name}: &{name} [{', '.join([f'*{previous}'] * 9 if previous else ['lol'] * 9)}]\n"
    for previous, name in zip(["", *"abcdefgh"], "abcdefghi", strict=True)
)
"""a: &a [lol × 9], b: &b [*a × 9], … i: &i [*h × 9]: 9**9 strings once expanded."""

ALIAS_BOMB = LAUGHS + "suite: bomb\ntasks:\n  - id: t\n    metadata: {laughs: *i}\n"

# Runs the CLI in a fresh interpreter and reports how long the command took and the most
# memory it held (traced by Python, and resident on Linux); the address space is capped so
# a regression fails instead of swapping.
MEASURE = r"""
import json, resource, sys, time, tracemalloc
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
import click
from judgekit.cli import main
main.get_command(click.Context(main), sys.argv[1])  # the command's imports: not measured,
import judgekit.formats.task_files, judgekit.graders.grade_file  # nor those it makes as it runs
tracemalloc.start()
start = time.perf_counter()
try:
    main(sys.argv[1:], prog_name="judgekit")
    code = 0
except SystemExit as exc:
    code = exc.code
except MemoryError:
    code = "MemoryError"
elapsed = time.perf_counter() - start
peak = tracemalloc.get_traced_memory()[1]
# VmHWM, the peak resident size of this process's own memory (ru_maxrss would count the
# parent's too: a forked child inherits its high-water mark).
status = open("/proc/self/status").read().split("VmHWM:")
rss_kb = int(status[1].split()[0]) if len(status) > 1 else 0
print(json.dumps({"code": code, "seconds": elapsed, "peak_bytes": peak, "rss_kb": rss_kb}))
"""


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def write(tmp_path: Path, text: str, name: str = "tasks.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def runs_file(tmp_path: Path) -> Path:
    runs = tmp_path / "runs.jsonl"
    runs.write_text(json.dumps({"run_id": "r1", "task_id": "t", "tool_calls": []}) + "\n")
    return runs


def grade(tmp_path: Path, tasks: Path) -> tuple[int, str, str]:
    return invoke(
        "grade", runs_file(tmp_path), "--tasks", tasks, "--out", tmp_path / "out", "--no-store"
    )


def error_of(path: Path) -> str:
    with pytest.raises(DataError) as caught:
        load_yaml(path)
    return str(caught.value)


def test_an_alias_bomb_is_refused_in_under_a_second_and_100_mb(tmp_path: Path) -> None:
    tasks = write(tmp_path, ALIAS_BOMB)
    assert len(ALIAS_BOMB) < 1024
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            MEASURE,
            "grade",
            str(runs_file(tmp_path)),
            "--tasks",
            str(tasks),
            "--out",
            str(tmp_path / "out"),
            "--no-store",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"JUDGEKIT_HOME": str(tmp_path / ".judgekit"), "PATH": "/usr/bin:/bin"},
    )
    measured = json.loads(done.stdout.strip().splitlines()[-1])
    assert measured["code"] == 2
    assert done.stderr == (
        f"judgekit: error: {tasks}:6: f[0]: aliases repeat more than 100000 values (here *e, "
        "66430 of them); judgekit reads at most 100000 in a file\n"
    )
    assert measured["seconds"] < 1.0
    assert measured["peak_bytes"] < 100 * 2**20
    assert measured["rss_kb"] < 100 * 2**10  # the whole process, interpreter included


def test_aliases_within_bounds_load_and_keep_their_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "base: &base {city: Denver, seats: 2}\n"
        "first:\n"
        "  <<: *base\n"
        "  seats: 3\n"
        "both: [*base, *base]\n",
    )
    data, lines = load_yaml(path)
    assert data["first"] == {"city": "Denver", "seats": 3}
    assert data["both"] == [{"city": "Denver", "seats": 2}] * 2
    assert lines.line_of(("first", "seats")) == 4  # its own key
    assert lines.line_of(("first", "city")) == 1  # merged from the anchor
    assert lines.line_of(("both", 1)) == 5
    assert lines.line_of(("both", 1, "nowhere")) == 5  # the nearest line there is


def test_more_aliases_than_the_bound_are_refused(tmp_path: Path) -> None:
    text = "x: &x 1\nall:\n" + "  - *x\n" * (yamlcompose.MAX_ALIASES + 1)
    path = write(tmp_path, text, "many.yaml")
    assert error_of(path) == (
        f"{path}:1003: all[1000]: more than 1000 aliases; judgekit reads at most 1000 in a file"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "a: &a [1, *a]\n",
            "{path}:1: a[1]: alias *a is inside the list or mapping it names; judgekit reads "
            "no recursive YAML",
        ),
        (
            "a: *nowhere\n",
            "{path}:1: a: alias *nowhere names no anchor (&nowhere) defined before it",
        ),
        ("a: &x 1\nb: &x 2\n", "{path}:2: b: anchor &x is defined twice (first at line 1)"),
        (
            "a: 1\n---\nb: 2\n",
            "{path}:2: a second YAML document starts here; judgekit reads one document per file",
        ),
        ("a:\n  b: !!bool maybe\n", "{path}:2: a.b: 'maybe' is not a valid !!bool"),
        ("a:\n  - !!float many\n", "{path}:2: a[0]: 'many' is not a valid !!float"),
        (
            "a: !shell ls\n",
            "{path}:1: a: could not determine a constructor for the tag '!shell'",
        ),
        (
            "a: !!python/object/apply:os.system [ls]\n",
            "{path}:1: could not determine a constructor for the tag "
            "'tag:yaml.org,2002:python/object/apply:os.system'",
        ),
    ],
)
def test_yaml_a_loader_would_misread_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text, "odd.yaml")
    assert error_of(path) == message.format(path=path)


def test_nesting_20000_deep_is_one_line_exit_2(tmp_path: Path) -> None:
    tasks = write(
        tmp_path, "suite: s\ntasks:\n  - id: t\n    metadata: " + "[" * 20_000 + "]" * 20_000
    )
    code, out, err = grade(tmp_path, tasks)
    assert (code, out) == (2, "")
    assert err == (
        f"judgekit: error: {tasks}:4: nested more than 100 levels deep; judgekit reads lists "
        "and mappings nested at most 100 levels\n"
    )


def test_nesting_in_block_style_stops_at_the_bound(tmp_path: Path) -> None:
    path = write(tmp_path, "".join("  " * depth + "-\n" for depth in range(101)), "deep.yaml")
    assert error_of(path) == (
        f"{path}:101: nested more than 100 levels deep; judgekit reads lists and mappings "
        "nested at most 100 levels"
    )
    path.write_text("".join("  " * depth + "-\n" for depth in range(100)), encoding="utf-8")
    data, _ = load_yaml(path)
    for _ in range(99):
        data = data[0]
    assert data == [None]


def test_the_depth_bound_is_a_setting(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(yamlcompose, "MAX_DEPTH", 3)
    path = write(tmp_path, "a: {b: {c: [1]}}\n", "three.yaml")
    assert error_of(path) == (
        f"{path}:1: nested more than 3 levels deep; judgekit reads lists and mappings nested "
        "at most 3 levels"
    )


def test_a_duplicate_key_names_both_lines(tmp_path: Path) -> None:
    tasks = write(
        tmp_path,
        "suite: s\n"
        "description: |\n"
        "  A suite whose first task says its order twice.\n"
        "tasks:\n"
        "  - id: t\n"
        "    input: Refund A100.\n"
        "    expect_tools:\n"
        "      - name: issue_refund\n"
        "    order: in_order\n"
        "    expect_state:\n"
        "      orders.A100.refunded: 40\n"
        "    order: strict\n",
    )
    code, out, err = grade(tmp_path, tasks)
    assert (code, out) == (2, "")
    assert err == (
        f"judgekit: error: {tasks}:12: tasks[0].order: duplicate key 'order' (first at line 9)\n"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: {1: one, 0x1: also one}\n", "{path}:1: a.0x1: duplicate key '0x1' (first at line 1)"),
        ("a:\n  - {x: 1,\n     x: 2}\n", "{path}:3: a[0].x: duplicate key 'x' (first at line 2)"),
        ("a: &a {x: 1, x: 2}\nb: *a\n", "{path}:1: a.x: duplicate key 'x' (first at line 1)"),
    ],
)
def test_duplicate_keys_anywhere(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, text, "dup.yaml")
    assert error_of(path) == message.format(path=path)


def test_a_merged_key_may_be_overridden(tmp_path: Path) -> None:
    path = write(tmp_path, "base: &b {x: 1}\nm: {<<: *b, x: 2}\n", "merge.yaml")
    assert load_yaml(path)[0]["m"] == {"x": 2}


def test_duplicate_keys_in_a_rubric_and_a_price_file(tmp_path: Path) -> None:
    rubric = tmp_path / "goal_completion.yaml"
    text = (REPO / "rubrics" / "goal_completion.yaml").read_text(encoding="utf-8")
    rubric.write_text(text + "scale: likert\n", encoding="utf-8")
    first = 1 + text.splitlines().index("scale: binary")
    last = len(text.splitlines()) + 1
    with pytest.raises(DataError) as caught:
        load_rubric(str(rubric))
    assert (
        str(caught.value)
        == f"{rubric}:{last}: scale: duplicate key 'scale' (first at line {first})"
    )
    prices = write(
        tmp_path,
        "openai/m: {input: 1, output: 2}\nopenai/m: {input: 0, output: 0}\n",
        "prices.yaml",
    )
    with pytest.raises(DataError) as caught:
        PriceTable.from_file(prices)
    assert str(caught.value) == f"{prices}:2: openai/m: duplicate key 'openai/m' (first at line 1)"


def test_an_integer_of_5000_digits_is_one_line_exit_2(tmp_path: Path) -> None:
    tasks = write(tmp_path, "suite: s\ntasks:\n  - id: t\n    max_turns: 1" + "0" * 4999 + "\n")
    code, out, err = grade(tmp_path, tasks)
    assert (code, out) == (2, "")
    assert err == (
        f"judgekit: error: {tasks}:4: tasks[0].max_turns: an integer of more than 4300 digits; "
        "judgekit reads integers of at most 4300\n"
    )


def test_a_long_hexadecimal_integer_is_refused_too(tmp_path: Path) -> None:
    # int("0x…", 16) takes any length, but no reason or results file could print it.
    path = write(tmp_path, "a: [0x" + "f" * 4000 + "]\n", "hex.yaml")
    assert error_of(path) == (
        f"{path}:1: a[0]: an integer of more than 4300 digits; judgekit reads integers of at most 4300"
    )


TASK = "suite: s\ntasks:\n  - id: t\n"
CALL = "    expect_tools:\n      - name: f\n        args: {x: %s}\n"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            CALL % "{$approx: .nan}",
            "6: tasks[0].expect_tools[0].args.x: $approx takes a finite number, got nan",
        ),
        (
            CALL % "{$approx: 1, $abs: .inf}",
            "6: tasks[0].expect_tools[0].args.x: $abs must be a number ≥ 0, got inf",
        ),
        (
            CALL % "{$approx: 1, $rel: .inf}",
            "6: tasks[0].expect_tools[0].args.x: $rel must be a number ≥ 0, got inf",
        ),
        (
            CALL % "{$approx: 1, $rel: .nan}",
            "6: tasks[0].expect_tools[0].args.x: $rel must be a number ≥ 0, got nan",
        ),
        (
            CALL % "{$gt: .nan}",
            "6: tasks[0].expect_tools[0].args.x: $gt takes a finite number, got nan",
        ),
        (
            CALL % "{$lte: -.inf}",
            "6: tasks[0].expect_tools[0].args.x: $lte takes a finite number, got -inf",
        ),
        (
            CALL % ".nan",
            "6: tasks[0].expect_tools[0].args.x: NaN never equals anything; use $type: float",
        ),
        (
            "    step_budget: {multiplier: .inf}\n",
            "4: tasks[0].step_budget.multiplier: Input should be a finite number (got inf)",
        ),
        (
            "    timeout_s: .nan\n",
            "4: tasks[0].timeout_s: Input should be a finite number (got nan)",
        ),
        (
            "    max_tool_error_rate: .nan\n",
            "4: tasks[0].max_tool_error_rate: Input should be a finite number (got nan)",
        ),
        (
            "    max_turns: .inf\n",
            "4: tasks[0].max_turns: Input should be a finite number (got inf)",
        ),
    ],
)
def test_numbers_that_are_not_finite_are_refused_where_a_finite_one_is_meant(
    tmp_path: Path, extra: str, message: str
) -> None:
    tasks = write(tmp_path, TASK + extra)
    with pytest.raises(DataError) as caught:
        load_tasks(tasks)
    assert str(caught.value) == f"{tasks}:{message}"


def test_a_price_that_is_not_finite_is_refused(tmp_path: Path) -> None:
    prices = write(tmp_path, "openai/m: {input: .inf, output: 1}\n", "prices.yaml")
    with pytest.raises(DataError) as caught:
        PriceTable.from_file(prices)
    assert str(caught.value) == (
        f"{prices}:1: openai/m.input: must be a finite number (USD per million tokens, e.g. "
        "{input: 0.15, output: 0.6})"
    )
