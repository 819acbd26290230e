"""``judgekit probe``: re-ask the judge on perturbed runs and measure how often it flips."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import get_args

import click

from judgekit.cli.options import json_instead_of, rubric_option, suites_option
from judgekit.formats.probe_file import Bias

EXIT_BAR_EXCEEDED = 1


@click.command("probe")
@click.argument("runs", type=click.Path(dir_okay=False, path_type=Path))
@rubric_option
@click.option(
    "--bias",
    required=True,
    type=click.Choice(get_args(Bias)),
    help="verbosity: answers padded with neutral filler; position: answers A and B swapped "
    "(pointwise: the task paragraph moved after the answer's); self: the judge on its own "
    "model's runs against other models' (binary rubrics, needs labels).",
)
@suites_option("Task suites, for {reference} in prompts.")
@click.option("--model", help="provider/model, e.g. openai/gpt-4o-mini (default: the rubric's).")
@click.option(
    "--base-url",
    help="An OpenAI-compatible server (vLLM, Ollama, llama.cpp), e.g. http://localhost:11434/v1.",
)
@click.option(
    "--limit", type=click.IntRange(min=1), help="Probe only the first N runs of the file."
)
@click.option(
    "--labels",
    "labels_file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Hand labels for --bias self (default: labels/<rubric_id>.jsonl beside rubrics/).",
)
@json_instead_of("the text")
def probe_command(
    runs: Path,
    rubric_ref: str,
    bias: Bias,
    tasks_path: Path | None,
    model: str | None,
    base_url: str | None,
    limit: int | None,
    labels_file: Path | None,
    as_json: bool,
) -> None:
    """Probe a judge for a bias: ask it about the runs and about perturbed copies of them.

    The flip rate is the share of runs whose verdict changed, over the runs scored both
    times, with a Wilson interval, split by direction (fail→pass, A→B; on a Likert scale
    also the mean shift). For --bias self, nothing is perturbed: the judge's false-pass rate
    on runs whose metadata.model is its own model is compared with its rate on other
    models' runs (the difference with Newcombe's interval). Requests go through the judge
    cache. The result is appended to <rubric_id>.probes.json beside the rubric, where the
    policy's promotion.max_flip_rate reads the latest probe of the rubric version.

    Exit code 0; 1 when the policy sets a bar for this bias and the upper bound of the
    interval is above it; 2 on bad input.

    \b
    Example:
      judgekit probe runs.jsonl --rubric goal_completion --bias verbosity
    """
    from judgekit.probes.probe import ProbeRequest, run_probe
    from judgekit.probes.render import outcome_json, render_outcome

    outcome = run_probe(
        ProbeRequest(
            runs=runs,
            rubric_ref=rubric_ref,
            bias=bias,
            tasks_path=tasks_path,
            base_url=base_url,
            model=model,
            limit=limit,
            labels_file=labels_file,
        )
    )
    if as_json:
        click.echo(json.dumps(outcome_json(outcome), ensure_ascii=False))
    else:
        click.echo(render_outcome(outcome))
    if outcome.exceeded:
        sys.exit(EXIT_BAR_EXCEEDED)
