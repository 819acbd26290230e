"""Every judgekit command explains itself: a one-line summary and examples that really parse.

Examples are parsed by click (options, arguments, subcommands) without running anything, so
a renamed option or a dropped argument breaks this test rather than a reader's first try.
"""

from __future__ import annotations

import inspect
import re
import shlex
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click
import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from tests.conftest import REPO

CommandPath = tuple[str, ...]

# `NAME=value` words before a command: environment for that command only.
_ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_SHELL_PUNCTUATION = frozenset("();<>|&")
_SUMMARY_MAX_CHARS = 100


def iter_commands(
    command: click.Command = main, path: CommandPath = ()
) -> Iterator[tuple[CommandPath, click.Command]]:
    """Every command of the tree, groups included, with its path below `judgekit`."""
    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None, f"{' '.join(('judgekit', *path, name))} is listed but missing"
            yield from iter_commands(sub, (*path, name))


COMMANDS = list(iter_commands())
SUBCOMMANDS = [(path, command) for path, command in COMMANDS if path]


def _name(path: CommandPath) -> str:
    return " ".join(("judgekit", *path))


def split_simple_commands(line: str) -> list[list[str]]:
    """The words of each simple command on a shell line, split at `|`, `&&`, `;`, `>`, ...

    Redirection targets are dropped with their operator (`> out.json`, `2> log`).

    >>> split_simple_commands("A=1 judgekit schema task > task.json && echo 'a b'")
    [['A=1', 'judgekit', 'schema', 'task'], ['echo', 'a b']]
    """
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    commands: list[list[str]] = [[]]
    redirect = False
    for token in lexer:
        if set(token) <= _SHELL_PUNCTUATION:
            redirect = token.endswith((">", "<")) and not token.startswith(("|", "&"))
            if not redirect:
                commands.append([])
            # `2>`: the lexer splits off the descriptor as a word of its own.
            if redirect and commands[-1] and commands[-1][-1].isdigit():
                commands[-1].pop()
            continue
        if redirect:
            redirect = False  # the redirection's target, not an argument
            continue
        commands[-1].append(token)
    return [words for words in commands if words]


def judgekit_args(words: list[str]) -> list[str] | None:
    """The arguments after `judgekit` when `words` run judgekit (env assignments first), else None."""
    rest = list(words)
    while rest and _ENV_ASSIGNMENT.match(rest[0]):
        rest.pop(0)
    if not rest or rest[0] != "judgekit":
        return None
    return rest[1:]


@contextmanager
def _paths_need_not_exist() -> Iterator[None]:
    """Turn off click's existence checks: an example's input file is not in the checkout."""
    types = {
        id(param.type): param.type
        for _, command in COMMANDS
        for param in command.params
        if isinstance(param.type, click.Path) and param.type.exists
    }
    for path_type in types.values():
        path_type.exists = False
    try:
        yield
    finally:
        for path_type in types.values():
            path_type.exists = True


def parse_command_line(args: list[str]) -> click.Command:
    """Parse `judgekit ARGS` as click would, down to the subcommand, without invoking it.

    Raises click's UsageError (an unknown option or command, a missing required option or
    argument, a bad value) like the real command line would.
    """
    command: click.Command = main
    with _paths_need_not_exist():
        ctx = main.make_context("judgekit", list(args))
        while isinstance(command, click.Group):
            # A group leaves its subcommand and the subcommand's arguments unparsed.
            rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
            if not rest and command.invoke_without_command:
                break  # `judgekit rubrics`: the group runs on its own
            if not rest:
                raise click.UsageError("Missing command.", ctx)
            name, sub, sub_args = command.resolve_command(ctx, rest)
            assert name is not None and sub is not None
            ctx = sub.make_context(name, sub_args, parent=ctx)
            command = sub
    return command


def assert_parses(line: str) -> None:
    """Fail the test, naming the line, unless every judgekit command on it parses."""
    found = False
    for words in split_simple_commands(line):
        args = judgekit_args(words)
        if args is None:
            continue
        found = True
        try:
            parse_command_line(args)
        except click.ClickException as exc:
            pytest.fail(f"{line!r} does not parse: {exc.format_message()}")
        except click.exceptions.Exit:
            pytest.fail(f"{line!r} exits while parsing (--help or --version?)")
    assert found, f"no judgekit command in {line!r}"


def example_lines(help_text: str) -> list[str]:
    """The command lines of a help text's `Example:` block (`\\` continuations joined)."""
    lines = help_text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.strip() in ("Example:", "Examples:")]
    if not starts:
        return []
    commands: list[str] = []
    pending = ""
    for line in lines[starts[0] + 1 :]:
        if not line.strip():
            break
        pending += line.strip()
        if pending.endswith("\\"):
            pending = pending[:-1] + " "
        else:
            commands.append(pending)
            pending = ""
    return [c for c in commands if any(judgekit_args(w) is not None for w in _words(c))]


def _words(line: str) -> list[list[str]]:
    try:
        return split_simple_commands(line)
    except ValueError:  # unbalanced quotes: not a command line
        return []


def _help(path: CommandPath) -> str:
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=100)
    assert result.exit_code == 0, f"{_name(path)} --help exited {result.exit_code}: {result.output}"
    return result.output


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[_name(p) for p, _ in COMMANDS])
def test_help_exits_0_with_a_one_line_summary(path: CommandPath, command: click.Command) -> None:
    output = _help(path)
    assert command.help, f"{_name(path)} has no help text"
    summary = inspect.cleandoc(command.help).split("\n\n")[0]
    assert "\n" not in summary, f"{_name(path)}: the summary spans lines: {summary!r}"
    assert 0 < len(summary) <= _SUMMARY_MAX_CHARS, f"{_name(path)}: summary length {summary!r}"
    assert summary.endswith("."), f"{_name(path)}: the summary is not a sentence: {summary!r}"
    # click rewraps the summary; compare it word by word.
    assert " ".join(summary.split()) in " ".join(output.split())


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=[_name(p) for p, _ in COMMANDS])
def test_help_has_examples_that_parse(path: CommandPath, command: click.Command) -> None:
    output = _help(path)
    assert "Example" in output, f"{_name(path)} --help shows no example"
    examples = example_lines(output)
    assert examples, f"{_name(path)} --help: no `judgekit ...` line under Example:\n{output}"
    for line in examples:
        assert_parses(line)
    # At least one example runs this very command (a group: one of its subcommands).
    parsed = [parse_command_line(args) for line in examples for args in _judgekit_args(line)]
    assert any(_is_within(found, command) for found in parsed), (
        f"{_name(path)} --help: no example uses {_name(path)}"
    )


def _judgekit_args(line: str) -> Iterator[list[str]]:
    for words in split_simple_commands(line):
        args = judgekit_args(words)
        if args is not None:
            yield args


def _is_within(found: click.Command, command: click.Command) -> bool:
    if found is command:
        return True
    if isinstance(command, click.Group):
        return any(_is_within(found, sub) for sub in command.commands.values())
    return False


def test_the_docs_mention_every_command() -> None:
    """Beside the generated reference, a page a person wrote says what each command is for."""
    pages = [REPO / "README.md", *(REPO / "docs").rglob("*.md")]
    docs = "\n".join(page.read_text(encoding="utf-8") for page in pages)
    missing = [
        _name(path)
        for path, _ in SUBCOMMANDS
        if not re.search(rf"(?<![\w-]){re.escape(_name(path))}(?![\w-])", docs)
    ]
    assert not missing, f"neither README.md nor docs/ mentions: {', '.join(missing)}"


def test_the_walk_reaches_nested_commands() -> None:
    names = {_name(path) for path, _ in COMMANDS}
    assert {"judgekit", "judgekit import openai", "judgekit store import"} <= names


@pytest.mark.parametrize(
    "line",
    [
        "judgekit grade runs.jsonl --tasks tasks --no-such-option",
        "judgekit grade runs.jsonl",  # --tasks is required
        "judgekit import",  # a group without its subcommand
        "judgekit import csv file.csv",
        "judgekit run --tasks tasks/shop.yaml --trials many",
    ],
)
def test_a_broken_example_fails_to_parse(line: str) -> None:
    (args,) = list(_judgekit_args(line))
    with pytest.raises(click.UsageError):
        parse_command_line(args)


def test_env_prefixes_and_redirections_are_not_arguments() -> None:
    line = "OPENAI_API_KEY=sk-... judgekit schema task > task.schema.json 2> errors.log"
    assert list(_judgekit_args(line)) == [["schema", "task"]]


def test_help_loads_no_heavy_library() -> None:
    """`judgekit --help` starts without the provider SDKs, SQLAlchemy, numpy, matplotlib,
    pydantic, rich or YAML: each is imported where a command first needs it, so the start-up
    stays short (tests/cli/test_lazy_commands.py lists every module it does import)."""
    heavy = [
        *["openai", "anthropic", "sqlalchemy", "numpy", "matplotlib", "scipy", "sklearn"],
        *["krippendorff", "genai_prices", "pydantic", "pydantic_core", "rich", "yaml"],
        *["judgekit.formats", "judgekit.judging", "judgekit.cli.judge_cmd"],
    ]
    probe = (
        "import sys\n"
        "from click.testing import CliRunner\n"
        "from judgekit.cli import main\n"
        "assert CliRunner().invoke(main, ['--help']).exit_code == 0\n"
        f"print(sorted(m for m in {heavy!r} if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    assert done.stdout == "[]\n"
