"""``judgekit align``: a new rubric version from the judge's disagreements on dev labels."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgekit.cli.number_types import DOLLARS
from judgekit.cli.options import concurrency_option, json_option, rubric_option, suites_option
from judgekit.cli.rate_options import rate_limit_options

if TYPE_CHECKING:
    from judgekit.providers.rate_limits import RateLimits


@click.command("align")
@click.argument("runs", type=click.Path(dir_okay=False, path_type=Path))
@rubric_option
@click.option(
    "--verdicts",
    "verdicts_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The current rubric's verdicts (a verdicts.jsonl); dev runs without one are judged.",
)
@click.option(
    "--labels",
    "labels_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="The labels file (default: labels/<rubric_id>.jsonl).",
)
@suites_option("Task suites, for {reference} in prompts and inputs the runs lack.")
@click.option(
    "--optimizer-model",
    metavar="PROVIDER/MODEL",
    help="Also let this model rewrite the instructions from the disagreements.",
)
@click.option("--base-url", help="An OpenAI-compatible server for the judge and the optimizer.")
@click.option(
    "--api-key-env",
    metavar="NAME",
    help="Read the API key from this environment variable instead of the provider's usual one.",
)
@click.option(
    "--folds",
    default=5,
    show_default=True,
    type=click.IntRange(min=2),
    help="Cross-validation folds of the dev runs.",
)
@click.option(
    "--seed", default=0, show_default=True, type=int, help="Folds, examples and bootstrap."
)
@click.option(
    "--out",
    "out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the new version here (default: over the rubric's own file).",
)
@click.option(
    "--max-cost",
    type=DOLLARS,
    help="Spend at most this many US dollars on the judge: a request that could pass it is "
    "not sent, and nothing is written.",
)
@click.option(
    "--prices",
    "prices_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A YAML price table overriding the built-in one (for --max-cost).",
)
@click.option(
    "--no-cache", is_flag=True, help="Ask the judge even when an identical request was answered."
)
@concurrency_option(8, "Requests in flight at once.")
@rate_limit_options
@json_option
def align_command(
    runs: Path,
    rubric_ref: str,
    verdicts_file: Path | None,
    labels_file: Path | None,
    tasks_path: Path | None,
    optimizer_model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    folds: int,
    seed: int,
    out: Path | None,
    max_cost: float | None,
    prices_path: Path | None,
    no_cache: bool,
    concurrency: int,
    rate_limits: RateLimits | None,
    as_json: bool,
) -> None:
    """Propose a new rubric version from the judge's disagreements with the DEV labels.

    Candidates: few-shot examples (2, 4 and 8) chosen from the dev disagreements — the
    run's input and answer, the humans' majority label, the labeller's note as the why,
    spread over both directions of error — and, with --optimizer-model, the instructions
    rewritten by that model (a rewrite that fails the rubric's validation or drops a
    placeholder is dropped, saying why). Each is judged on dev out of fold (--folds:
    examples for a fold's runs come from the other folds only) and compared with the
    current rubric on the same runs: kappa, and the gain with a paired bootstrap interval.

    The best candidate is written (atomically; over the rubric file unless --out) as a new
    version, a draft until `judgekit promote` measures it on the test labels, only when
    the lower bound of its gain is above 0; otherwise nothing is written and the exit
    code is 1. Test labels are never read. How many judge requests it may make is printed
    before any is made.

    \b
    Example:
      judgekit align runs.jsonl --rubric goal_completion --verdicts verdicts.jsonl
      judgekit align runs.jsonl --rubric goal_completion --optimizer-model openai/gpt-4o
    """
    # The providers' SDKs and numpy load only now.
    from judgekit.alignment.align import AlignRequest, prepare_alignment, run_alignment
    from judgekit.alignment.render import render_text

    prepared = prepare_alignment(
        AlignRequest(
            rubric_ref=rubric_ref,
            runs=runs,
            verdicts_file=verdicts_file,
            labels_file=labels_file,
            tasks_path=tasks_path,
            optimizer_model=optimizer_model,
            base_url=base_url,
            api_key_env=api_key_env,
            folds=folds,
            seed=seed,
            out=out,
            max_cost=max_cost,
            prices_path=prices_path,
            use_cache=not no_cache,
            concurrency=concurrency,
            rate_limits=rate_limits,
        )
    )
    report = run_alignment(prepared, announce=lambda line: click.echo(f"align: {line}", err=True))
    if as_json:
        click.echo(json.dumps(report.as_dict(), ensure_ascii=False))
    else:
        click.echo(render_text(report))
    if report.written is None:
        sys.exit(1)
