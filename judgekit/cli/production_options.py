"""The options of ``judgekit judge`` for judging production traces on a schedule: which runs
are judged (``--sample``), what a day may cost (``--max-cost-per-day``) and which runs go to
people (``--review``), handed to the command as one ``production: ProductionOptions``."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from judgekit.cli.number_types import DOLLARS

if TYPE_CHECKING:
    from judgekit.formats.verdict import Verdict
    from judgekit.judging.run_sample import RunSample
    from judgekit.labelling.review import ReviewQueued

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class ProductionOptions:
    """``--sample`` (with its seed), ``--max-cost-per-day``, ``--review`` and where the
    review queue lives."""

    sample: RunSample | None
    max_cost_per_day: float | None
    review: float | None
    labels_dir: Path
    seed: str = ""

    def check(self, *, store_enabled: bool) -> None:
        """Refuse what cannot work together: a day's spend is kept in the store."""
        if self.max_cost_per_day is not None and not store_enabled:
            raise click.UsageError(
                "--max-cost-per-day needs the store: the day's spend is kept there, shared "
                "by every judge recording into it; drop --no-store"
            )


def queue_review(
    production: ProductionOptions,
    rubric_id: str,
    verdicts: list[Verdict],
    order: Collection[str],
) -> ReviewQueued | None:
    """With --review, the runs it picks of ``verdicts`` (as they finished) entered in the
    rubric's queue in ``order`` (the file's), the same on every rerun."""
    if production.review is None:
        return None
    position = {run_id: i for i, run_id in enumerate(order)}
    verdicts = sorted(verdicts, key=lambda verdict: position.get(verdict.run_id, len(position)))
    from judgekit.judging.day_budget import utc_now
    from judgekit.labelling.review import queue_for_review

    return queue_for_review(
        rubric_id,
        production.labels_dir,
        verdicts,
        share=production.review,
        seed=production.seed,
        clock=utc_now,
    )


_options = [
    click.option(
        "--sample",
        "sample_text",
        metavar="SHARE|N/task",
        help="Judge a share of the runs (10% or 0.1) or N per task (20/task), picked by a "
        "seeded hash of the rubric and run ids: the same runs on every rerun.",
    ),
    click.option(
        "--sample-seed",
        default="",
        help="Seed of --sample and --review: another seed picks other runs.",
    ),
    click.option(
        "--max-cost-per-day",
        type=DOLLARS,
        metavar="USD",
        help="Spend at most this many US dollars per UTC day across every judge recording "
        "into the same store; reaching it stops like --max-cost (exit 1).",
    ),
    click.option(
        "--review",
        "review_text",
        metavar="SHARE",
        help="Queue this share of the judged runs (a seeded hash, never the score) and "
        "every abstained one in the rubric's labelling queue (judgekit label --queue).",
    ),
    click.option(
        "--labels-dir",
        default="labels",
        show_default=True,
        type=click.Path(file_okay=False, path_type=Path),
        help="With --review: the folder of label files, where the queue is "
        "<rubric_id>.queue.jsonl.",
    ),
]


def production_options(func: F) -> F:
    """The options above, handed to the command as ``production: ProductionOptions``."""

    @functools.wraps(func)
    def command(
        *args: Any,
        sample_text: str | None,
        sample_seed: str,
        max_cost_per_day: float | None,
        review_text: str | None,
        labels_dir: Path,
        **kwargs: Any,
    ) -> Any:
        from judgekit.judging.run_sample import parse_sample, parse_share

        production = ProductionOptions(
            sample=None if sample_text is None else parse_sample(sample_text, sample_seed),
            max_cost_per_day=max_cost_per_day,
            review=None if review_text is None else parse_share(review_text, "--review"),
            labels_dir=labels_dir,
            seed=sample_seed,
        )
        return func(*args, production=production, **kwargs)

    wrapped: Any = command
    for option in reversed(_options):
        wrapped = option(wrapped)
    return cast(F, wrapped)
