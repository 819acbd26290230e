"""``judgekit judge``: grade runs with an LLM judge under a rubric; cached, bounded, costed."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgekit._util.output_targets import refuse_output_over_input
from judgekit.cli.batch_options import batch_options, print_batch_event
from judgekit.cli.number_types import DOLLARS
from judgekit.cli.options import (
    concurrency_option,
    json_instead_of,
    out_dir_option,
    rubric_option,
    suites_option,
)
from judgekit.cli.production_options import ProductionOptions, production_options, queue_review
from judgekit.cli.rate_options import rate_limit_options
from judgekit.cli.runs_file_hint import import_first_hint
from judgekit.cli.store_options import StoreChoice, store_options
from judgekit.cli.store_output import written_before_store
from judgekit.cli.unscored_option import max_unscored_option

if TYPE_CHECKING:  # the judging pipeline loads when the command runs, not for its --help
    from judgekit.formats.verdict import Verdict
    from judgekit.judging.batch.options import BatchOptions
    from judgekit.providers.rate_limits import RateLimits


@click.command("judge")
# Not exists=True: reading the file says what is wrong with it in one line (a loop, no access).
@click.argument("runs", type=click.Path(path_type=Path))
@rubric_option
@click.option("--model", help="provider/model, e.g. openai/gpt-4o-mini (default: the rubric's).")
@click.option(
    "--base-url",
    help="An OpenAI-compatible server (vLLM, Ollama, llama.cpp), e.g. http://localhost:11434/v1.",
)
@click.option(
    "--api-key-env",
    metavar="NAME",
    help="Read the API key from this environment variable instead of the provider's usual one.",
)
@suites_option("Task suites, for {reference} in prompts.")
@out_dir_option(".", "Folder for verdicts.jsonl.")
@concurrency_option(8, "Requests in flight at once.")
@click.option(
    "--max-attempts",
    default=6,
    show_default=True,
    type=click.IntRange(min=1),
    help="Tries per request on rate limits, 5xx, timeouts and dropped connections.",
)
@click.option(
    "--samples",
    type=click.IntRange(min=1),
    help="Ask k times per run (default: the rubric's judge.samples).",
)
@click.option(
    "--max-cost",
    type=DOLLARS,
    help="Spend at most this many US dollars: a request that could pass it is not sent, "
    "and runs left unjudged end with exit 1.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Ask the model even when an identical request was answered before.",
)
@click.option(
    "--prices",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A YAML price table overriding the built-in one.",
)
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    help="Judge only the first N runs of the file (its verdicts.jsonl then holds those).",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Print the first prompt, the token estimate and the projected cost; send nothing.",
)
@max_unscored_option
@production_options
@batch_options
@rate_limit_options
@json_instead_of("the summary")
@store_options
def judge_command(
    runs: Path,
    rubric_ref: str,
    model: str | None,
    base_url: str | None,
    api_key_env: str | None,
    tasks_path: Path | None,
    out_dir: Path,
    concurrency: int,
    max_attempts: int,
    samples: int | None,
    max_cost: float | None,
    no_cache: bool,
    prices: Path | None,
    limit: int | None,
    dry_run: bool,
    max_unscored: float,
    as_json: bool,
    store: StoreChoice,
    batch: BatchOptions | None,
    production: ProductionOptions,
    rate_limits: RateLimits | None,
) -> None:
    """Judge RUNS with the rubric's LLM judge; write verdicts.jsonl as verdicts finish.

    RUNS is a runs file, a CSV of final answers (columns run_id, input, final_answer, and
    reference and task_id if you have them) or a folder holding runs.jsonl. A run's own
    reference fills {reference}; without one, its task's (--tasks).

    Rerunning an unchanged judge makes no API call: verdicts already in --out are kept and the
    rest come from the cache in JUDGEKIT_HOME (--no-cache: everything is asked again). An answer
    that is not a valid verdict is retried once with the error, then unscored. A run that gets
    no answer at all is not judged and nothing is written for it: a wrong key, model or address
    stops at once (exit 2); failures left after retries end with exit 1, and rerunning the
    command asks only for those runs. Verdicts are reused only for the same rubric version,
    model, endpoint and content of the run; other earlier verdicts are kept apart in
    verdicts.earlier.jsonl. All verdicts unscored, or more than --max-unscored of them: exit 1.
    The runs and verdicts are recorded in the store, in the batch of the runs file (--no-store:
    not). A rubric promoted selectively abstains on verdicts less confident than its promoted
    threshold. --dry-run first: the first prompt, the tokens and the projected cost, nothing
    sent. On a schedule: --sample judges a hash-picked share, --max-cost-per-day caps a UTC
    day's spend across every judge on the store, --review queues runs for people to label.
    --batch: one batch at half price, polled; a bad answer's repair goes in a follow-up batch.
    Concurrency adapts to the provider's rate limits (halved on a 429, grown back after
    successes); --rpm and --tpm cap requests and tokens a minute (--share-rate-limits: across
    the processes of this machine, or of every machine using a PostgreSQL store).

    \b
    Example:
      OPENAI_API_KEY=your-key judgekit judge runs.jsonl --rubric goal_completion --model openai/gpt-4o-mini
    """
    from judgekit.calibration.promotion import record_problem
    from judgekit.cli import judge_output
    from judgekit.judging.pipeline import JudgeRequest, judging_session, prepare_judging
    from judgekit.judging.verdicts_file import EARLIER_VERDICTS_FILE, VERDICTS_FILE

    production.check(store_enabled=store.enabled)
    outputs = [out_dir / VERDICTS_FILE, out_dir / EARLIER_VERDICTS_FILE]
    refuse_output_over_input(outputs, [runs, tasks_path, prices])
    request = JudgeRequest(
        runs=runs,
        rubric_ref=rubric_ref,
        model=model,
        base_url=base_url,
        api_key_env=api_key_env,
        tasks_path=tasks_path,
        prices_path=prices,
        max_cost=max_cost,
        max_cost_per_day=production.max_cost_per_day,
        use_cache=not no_cache,
        concurrency=concurrency,
        max_attempts=max_attempts,
        samples=samples,
        limit=limit,
        sample=production.sample,
        batch=batch,
        rate_limits=rate_limits,
        check_promotion=record_problem,
    )
    if dry_run:
        judge_output.print_dry_run(request, as_json=as_json)
        return
    with import_first_hint(runs):
        prepared = prepare_judging(request)
    provenance = store.provenance() if store.enabled else None
    seen: list[Verdict] = []  # for --review
    with (
        judging_session(prepared, out_dir, provenance=provenance) as session,
        judge_output.judging_progress(len(prepared.run_ids), show=not as_json) as bar,
    ):
        finished = f"the verdicts that finished are in {session.verdicts_file}"

        def keep(verdict: Verdict) -> None:
            bar.advance()
            seen.append(verdict)

        try:
            with written_before_store(finished):
                tally = session.judge(keep, print_batch_event)
        except KeyboardInterrupt:
            raise SystemExit(judge_output.interrupted(finished)) from None
    review = queue_review(production, prepared.rubric.id, seen, prepared.run_ids)
    judge_output.print_outcome(
        tally, prepared, session, as_json=as_json, max_unscored=max_unscored, review=review
    )
