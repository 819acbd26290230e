"""Options several commands share, defined once so they read and behave the same."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from judgekit._util.input_paths import exists, is_dir

if TYPE_CHECKING:
    from judgekit.formats.rubric import Rubric

F = TypeVar("F", bound=Callable[..., Any])

tasks_option = click.option(
    "--tasks",
    "tasks_path",
    required=True,
    type=click.Path(path_type=Path),
    help="A task suite YAML file, or a folder of them.",
)
rubric_option = click.option(
    "--rubric", "rubric_ref", required=True, help="A rubric file, or the id of one in rubrics/."
)
labels_dir_option = click.option(
    "--labels-dir",
    default="labels",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of <rubric_id>.jsonl label files.",
)


reasons_option = click.option(
    "--reasons", is_flag=True, help="Print the first failing reason of each failing run."
)


def json_instead_of(what: str) -> Callable[[F], F]:
    """``--json``, printing one JSON object instead of ``what``."""
    return click.option(
        "--json", "as_json", is_flag=True, help=f"Print one JSON object instead of {what}."
    )


json_option = json_instead_of("the tables")


def suites_option(help: str) -> Callable[[F], F]:
    """An optional ``--tasks``, for commands that read suites only for what they say."""
    return click.option("--tasks", "tasks_path", type=click.Path(path_type=Path), help=help)


def out_dir_option(default: str, help: str) -> Callable[[F], F]:
    """``--out``, the folder a command writes its files to (created if needed)."""
    return click.option(
        "--out",
        "out_dir",
        default=default,
        show_default=True,
        type=click.Path(file_okay=False, path_type=Path),
        help=f"{help} --out names a folder in every command; -o/--output, a single file.",
    )


def output_file_option(default: str | None, help: str) -> Callable[[F], F]:
    """``-o/--output``, the one file a command writes. The rule across commands: ``--out``
    names a folder, ``-o/--output`` a single file."""
    return click.option(
        "-o",
        "--output",
        "out_path",
        default=default,
        show_default=default is not None,
        type=click.Path(dir_okay=False, path_type=Path),
        help=f"{help}. -o/--output names a file; --out, in every command, a folder.",
    )


def _warn_deprecated_out(
    ctx: click.Context, param: click.Parameter, value: Path | None
) -> Path | None:
    if value is not None:
        click.echo(
            f"warning: {ctx.info_name} --out FILE is deprecated and goes in the next version: "
            "use -o/--output FILE (--out names a folder in every other command)",
            err=True,
        )
    return value


# ``--out FILE`` of a command whose single file is now ``-o/--output``: still read, with a
# warning on stderr, for one more version.
deprecated_out_option = click.option(
    "--out",
    "old_out_path",
    hidden=True,
    type=click.Path(dir_okay=False, path_type=Path),
    callback=_warn_deprecated_out,
    help="Deprecated: -o/--output.",
)


def concurrency_option(default: int, help: str) -> Callable[[F], F]:
    """``--concurrency``, how many things at once (at least one)."""
    return click.option(
        "--concurrency", default=default, show_default=True, type=click.IntRange(min=1), help=help
    )


def k_option(default_text: str) -> Callable[[F], F]:
    """``--k``, with what the command uses when it is not given."""
    return click.option(
        "--k",
        "k",
        type=click.IntRange(min=1),
        help=f"k of pass@k and pass^k (default: {default_text}).",
    )


# The monitor's view of the store: which rubrics, whose labels, since when, per what.
rubric_refs_option = click.option(
    "--rubric",
    "rubric_refs",
    multiple=True,
    help="A rubric file, folder or id in rubrics/ (repeatable; default: every rubric in rubrics/).",
)


def rubrics_from(refs: tuple[str, ...]) -> list[Rubric]:
    """The rubrics a repeatable ``--rubric`` names (files, folders or ids in rubrics/), else
    every one in rubrics/."""
    # pydantic's models: loaded when rubrics are read, not for a command's --help.
    from judgekit.formats.rubric_file import load_rubric, load_rubrics

    if not refs:
        return load_rubrics("rubrics") if is_dir("rubrics") else []
    found: list[Rubric] = []
    for ref in refs:
        found += load_rubrics(ref) if is_dir(ref) else [load_rubric(ref)]
    return found


def _existing_folder(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """A folder named to be read must be there: a misspelt one is an error, not "no labels"."""
    if value is not None and not exists(value):
        from judgekit.errors import DataError

        raise DataError("no such folder", path=value)
    return value


labels_beside_rubrics_option = click.option(
    "--labels-dir",
    type=click.Path(file_okay=False, path_type=Path),
    callback=_existing_folder,
    help="Folder of hand labels (default: labels/ beside the rubrics).",
)
since_option = click.option(
    "--since",
    default="90d",
    show_default=True,
    help="The first day shown: YYYY-MM-DD, or a number of days back such as 30d.",
)
by_option = click.option(
    "--by",
    type=click.Choice(["day", "batch"]),
    default="day",
    show_default=True,
    help="One point per UTC day or per batch (one evaluation).",
)
