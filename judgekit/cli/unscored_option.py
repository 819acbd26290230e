"""``--max-unscored SHARE`` of ``judgekit judge``: the share of unscored verdicts past which
the judging fails (exit 1), validated as a number in [0, 1]."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

__all__ = ["DEFAULT_MAX_UNSCORED", "max_unscored_option"]

DEFAULT_MAX_UNSCORED = 0.5

F = TypeVar("F", bound=Callable[..., Any])


class _Share(click.ParamType[float]):
    """A share in [0, 1]; ``nan`` is no share (click's FloatRange lets it through)."""

    name = "share"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        try:
            share = float(value)
        except (TypeError, ValueError):
            share = float("nan")
        if not 0 <= share <= 1:  # false for nan too
            self.fail(
                f"expected a share from 0 to 1 (0.5: at most half the verdicts), got {value!r}",
                param,
                ctx,
            )
        return share


def max_unscored_option(command: F) -> F:
    return click.option(
        "--max-unscored",
        "max_unscored",
        type=_Share(),
        default=DEFAULT_MAX_UNSCORED,
        show_default=True,
        metavar="SHARE",
        help=(
            "Fail (exit 1) when more than this share of the verdicts is unscored; a judge "
            "whose every verdict is unscored always fails. The verdicts are written anyway."
        ),
    )(command)
