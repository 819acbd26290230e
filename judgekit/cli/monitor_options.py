"""What the commands over the store share: ``--since`` read alike by ``monitor`` and
``report``, and the recheck's options and run, defined once for ``judgekit recheck`` and
``judgekit monitor --recheck``."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click
from rich.console import Console

from judgekit.cli.number_types import FiniteFloatRange
from judgekit.cli.options import concurrency_option, suites_option
from judgekit.cli.rate_options import rate_limit_options
from judgekit.errors import ConfigError
from judgekit.monitoring.since import parse_since

if TYPE_CHECKING:
    from judgekit.providers.rate_limits import RateLimits

F = TypeVar("F", bound=Callable[..., Any])

EXIT_ALERT = 1  # a drift alert, or a rechecked judge whose kappa dropped


def since_from_option(text: str) -> datetime:
    """``--since``: a day or a number of days back; anything else is a bad option value."""
    try:
        return parse_since(text)
    except ConfigError as exc:
        raise click.BadParameter(str(exc), param_hint="'--since'") from None


@dataclass(frozen=True)
class RecheckOptions:
    """How to judge the labelled runs again: which runs, which suite, which server."""

    runs_files: tuple[Path, ...]
    tasks_path: Path | None
    base_url: str | None
    api_key_env: str | None
    concurrency: int
    drift_alpha: float
    rate_limits: RateLimits | None = None  # --rpm, --tpm


def recheck_options(*, after_recheck_flag: bool) -> Callable[[F], F]:
    """``--runs``, ``--tasks``, ``--base-url``, ``--api-key-env``, ``--concurrency``,
    ``--drift-alpha`` and the rate limits (``--rpm``, ``--tpm``), handed to the command as one ``recheck: RecheckOptions`` argument.

    ``after_recheck_flag``: the options belong to ``monitor --recheck`` and their help says
    so ("With --recheck: ...")."""

    def text(help_text: str) -> str:
        if after_recheck_flag:
            return f"With --recheck: {help_text}"
        return help_text[0].upper() + help_text[1:]

    options = [
        click.option(
            "--runs",
            "runs_files",
            multiple=True,
            type=click.Path(dir_okay=False, path_type=Path),
            help=text("the labelled runs (default: the runs recorded in the store)."),
        ),
        suites_option(text("the task suite, for rubrics that show the reference answer.")),
        click.option("--base-url", help=text("an OpenAI- or Anthropic-compatible server.")),
        click.option("--api-key-env", help=text("the environment variable holding the API key.")),
        concurrency_option(8, text("requests in flight at once.")),
        click.option(
            "--drift-alpha",
            default=0.05,
            show_default=True,
            type=FiniteFloatRange(0, 1, min_open=True, max_open=True),
            help=text("the level of the one-sided test of a kappa drop."),
        ),
    ]

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def command(
            *args: Any,
            runs_files: tuple[Path, ...],
            tasks_path: Path | None,
            base_url: str | None,
            api_key_env: str | None,
            concurrency: int,
            drift_alpha: float,
            rate_limits: RateLimits | None,
            **kwargs: Any,
        ) -> Any:
            recheck = RecheckOptions(
                runs_files, tasks_path, base_url, api_key_env, concurrency, drift_alpha, rate_limits
            )
            return func(*args, recheck=recheck, **kwargs)

        wrapped: Any = rate_limit_options(command)
        for option in reversed(options):
            wrapped = option(wrapped)
        return cast(F, wrapped)

    return decorate


def recheck_and_print(
    rubric_ref: str, options: RecheckOptions, *, labels_dir: Path | None, as_json: bool
) -> None:
    """Recheck the rubric, print the outcome (or its JSON), exit 1 when its kappa dropped."""
    from judgekit.judging.api_key import api_key_from_env
    from judgekit.monitoring.recheck_run import run_recheck
    from judgekit.monitoring.render import print_recheck
    from judgekit.store import open_store  # SQLAlchemy loads only when the store is read

    with open_store() as store:
        run = run_recheck(
            store,
            rubric_ref,
            labels_dir=labels_dir,
            runs_files=options.runs_files,
            tasks_path=options.tasks_path,
            base_url=options.base_url,
            api_key=api_key_from_env(options.api_key_env),
            concurrency=options.concurrency,
            rate_limits=options.rate_limits,
            alpha=options.drift_alpha,
        )
    if as_json:
        click.echo(json.dumps(run.as_dict()))
    else:
        print_recheck(run, Console(highlight=False, emoji=False))
    if run.result.drifted:
        sys.exit(EXIT_ALERT)
