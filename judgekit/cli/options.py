"""Options several commands share, defined once so they read and behave the same."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

import click

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.input_paths import exists, is_dir
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import load_rubric, load_rubrics

if TYPE_CHECKING:
    from judgekit.store.provenance import Provenance

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
save_baseline_option = click.option(
    "--save-baseline",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Also copy results.jsonl here, as a baseline for `judgekit gate`.",
)


@contextmanager
def baseline_writer(path: Path | None) -> Iterator[IO[str] | None]:
    """The ``--save-baseline`` file (None without the option), opened before the command
    writes anything else, so a target that cannot be written stops it first; the file
    appears when the block ends without error, never half-written."""
    if path is None:
        yield None
        return
    with atomic_writer(path) as fh:
        yield fh


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
        help=help,
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


no_store_option = click.option("--no-store", is_flag=True, help="Do not record in the store.")


@dataclass(frozen=True)
class StoreChoice:
    """Whether a command records in the store, and what it says about the batch."""

    enabled: bool = True
    tags: dict[str, str] = field(default_factory=dict)
    agent_version: str | None = None
    branch: str | None = None

    def provenance(self) -> Provenance:
        """The batch's provenance: these options, then CI variables and git."""
        # Imported here: the store package loads SQLAlchemy, which --no-store never needs.
        from judgekit.store.provenance import detect_provenance

        return detect_provenance(
            agent_version=self.agent_version, tags=self.tags, branch=self.branch
        )


def _parse_tags(
    ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
) -> dict[str, str]:
    tags: dict[str, str] = {}
    for value in values:
        key, equals, text = value.partition("=")
        if not equals or not key.strip():
            raise click.BadParameter(f"expected KEY=VALUE, got {value!r}", ctx=ctx, param=param)
        tags[key.strip()] = text
    return tags


_provenance_options = [
    click.option(
        "--tag",
        "tags",
        multiple=True,
        metavar="KEY=VALUE",
        callback=_parse_tags,
        help="A tag recorded with the batch, e.g. --tag model=gpt-4o (repeatable).",
    ),
    click.option(
        "--agent-version",
        help="The agent's version, recorded with the batch (default: $JUDGEKIT_AGENT_VERSION).",
    ),
    click.option(
        "--branch",
        help="The branch recorded with the batch (default: from CI variables or git).",
    ),
]


def store_options(func: F) -> F:
    """``--no-store``, ``--tag``, ``--agent-version`` and ``--branch``, handed to the command
    as one ``store: StoreChoice`` argument."""
    return _with_store_choice(func, [no_store_option, *_provenance_options])


def provenance_options(func: F) -> F:
    """``--tag``, ``--agent-version`` and ``--branch`` for a command that always records,
    handed to it as ``store: StoreChoice``."""
    return _with_store_choice(func, _provenance_options)


def _with_store_choice(func: F, options: Sequence[Callable[[Any], Any]]) -> F:
    @functools.wraps(func)
    def command(
        *args: Any,
        tags: dict[str, str],
        agent_version: str | None,
        branch: str | None,
        no_store: bool = False,
        **kwargs: Any,
    ) -> Any:
        choice = StoreChoice(
            enabled=not no_store, tags=tags, agent_version=agent_version, branch=branch
        )
        return func(*args, store=choice, **kwargs)

    wrapped: Any = command
    for option in reversed(options):
        wrapped = option(wrapped)
    return cast(F, wrapped)


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
