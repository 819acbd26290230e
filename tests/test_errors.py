"""One error tree: every exception judgekit defines is a JudgekitError, bar a listed few."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import judgekit
from judgekit.errors import (
    ConfigError,
    DataError,
    ErrorTable,
    JudgekitError,
    SpecError,
    map_exceptions,
    table_row,
)

# Exceptions that are not errors reported to a user, so stay outside the tree on purpose.
OUTSIDE_THE_TREE = {
    # judging/budget.py: control flow inside a judge; a request not sent is counted, not raised.
    "OverBudget",
    # alignment/optimizer.py: control flow inside align; a refused rewrite is a candidate
    # dropped and said in the report, never an error reaching the user.
    "RewriteRefused",
    # graders/parallel.py: control flow inside grade --jobs; a file the workers hand back is
    # graded by one process, which words any error.
    "_GiveUp",
    # pytest_plugin: test outcomes, AssertionErrors so pytest reports them as failures.
    "RegressionFailed",
    "TaskFailed",
    # trials/world.py: raised by the user's tools to refuse a call; the agent may recover.
    "ToolError",
    # trials/world.py: ends a trial; a BaseException so an agent's `except Exception` misses it.
    "TrialStopped",
    # _util/input_paths.py: an OSError, so every reader's `except OSError` turns a FIFO or a
    # device where a file should be into its one DataError line, as for any refused read.
    "NotRegularFileError",
    # importers/zip_members.py: control flow inside the Inspect importer, which turns either
    # into its one DataError line naming the log and the member.
    "MemberTooLarge",
    "UnreadableMember",
    # importers/bfcl_calls.py: control flow inside the BFCL importer; text that does not decode
    # as calls is a run with no calls and the reason in its metadata, not an error.
    "CallTextError",
    # stats/proportions.py: a warning (NaN for an undefined statistic), not an error.
    "UndefinedStatisticWarning",
}


def exception_classes() -> dict[str, type[BaseException]]:
    """Every exception class defined at the top of a judgekit module, by qualified name."""
    found: dict[str, type[BaseException]] = {}
    modules = pkgutil.walk_packages(judgekit.__path__, prefix="judgekit.")
    for name in ["judgekit", *sorted(info.name for info in modules)]:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if (
                isinstance(value, type)
                and issubclass(value, BaseException)
                and value.__module__ == name
            ):
                found[f"{name}.{value.__qualname__}"] = value
    return found


CLASSES = exception_classes()


def test_every_exception_is_a_judgekit_error_or_listed() -> None:
    outside = {
        qualified.rsplit(".", 1)[1]
        for qualified, cls in CLASSES.items()
        if not issubclass(cls, JudgekitError)
    }
    assert outside == OUTSIDE_THE_TREE


def test_the_walk_finds_the_errors_of_every_layer() -> None:
    names = {qualified.rsplit(".", 1)[1] for qualified in CLASSES}
    assert {"JudgekitError", "MatcherSpecError", "RubricSpecError", "UnresolvedReference"} <= names


@pytest.mark.parametrize(
    "qualified",
    [
        "judgekit.formats.matchers.base.MatcherSpecError",
        "judgekit.formats.scale.RubricSpecError",
        "judgekit._util.references.UnresolvedReference",
    ],
)
def test_spec_errors_are_config_errors_and_still_value_errors(qualified: str) -> None:
    cls = CLASSES[qualified]
    assert issubclass(cls, SpecError)
    assert issubclass(cls, ConfigError)
    assert issubclass(cls, ValueError)


def test_spec_errors_keep_their_messages() -> None:
    from judgekit import MatcherSpecError
    from judgekit.formats.rubric import RubricSpecError

    matcher = MatcherSpecError("$any takes true ($any: true)", ("expect_tools", 0, "args"))
    assert str(matcher) == "expect_tools[0].args: $any takes true ($any: true)"
    assert str(RubricSpecError("bad", ("prompt",), token="{x}")) == "bad"


# -- map_exceptions: how a boundary's table is read ---------------------------------------


def test_the_row_of_the_nearest_class_wins_whatever_the_order() -> None:
    table: ErrorTable[str] = {
        OSError: lambda exc, where: DataError("cannot read", path=where),
        FileNotFoundError: lambda exc, where: DataError("no such file", path=where),
    }
    with pytest.raises(DataError) as caught, map_exceptions(table, "tasks.yaml"):
        raise FileNotFoundError(2, "No such file or directory")
    assert str(caught.value) == "tasks.yaml: no such file"
    with pytest.raises(DataError) as caught, map_exceptions(table, "tasks.yaml"):
        raise PermissionError(13, "Permission denied")
    assert str(caught.value) == "tasks.yaml: cannot read"


def test_the_original_is_dropped_unless_chained() -> None:
    table: ErrorTable[None] = {KeyError: lambda exc, _: ConfigError(f"no {exc}")}
    with pytest.raises(ConfigError) as caught, map_exceptions(table, None):
        raise KeyError("colour")
    assert (caught.value.__cause__, caught.value.__suppress_context__) == (None, True)
    with pytest.raises(ConfigError) as caught, map_exceptions(table, None, chain=True):
        raise KeyError("colour")
    assert str(caught.value) == "no 'colour'"
    assert isinstance(caught.value.__cause__, KeyError)


def test_what_no_row_maps_passes_through_unchanged() -> None:
    table: ErrorTable[None] = {
        OSError: lambda exc, _: DataError("x", path=exc.filename) if exc.filename else None,
        BaseException: lambda exc, _: ConfigError("never"),
    }
    with pytest.raises(BrokenPipeError), map_exceptions(table, None):
        raise BrokenPipeError(32, "Broken pipe")  # its row answers None
    with pytest.raises(KeyboardInterrupt), map_exceptions(table, None):
        raise KeyboardInterrupt  # not an Exception: never mapped
    with map_exceptions(table, None):
        pass
    assert table_row(table, ValueError()) is table[BaseException]
    assert table_row({OSError: 1}, ValueError()) is None
