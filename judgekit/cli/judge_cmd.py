"""``judgekit judge``: grade runs with an LLM judge under a rubric; cached, bounded, costed."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from judgekit.cli.options import rubric_option
from judgekit.errors import ConfigError
from judgekit.formats.rubric import Rubric
from judgekit.formats.run import load_runs
from judgekit.formats.task import TaskSet, load_tasks
from judgekit.formats.verdict import Verdict
from judgekit.home import judgekit_home
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge import Judge, JudgeTally
from judgekit.judging.pricing import PriceTable
from judgekit.judging.rubrics import load_rubric, rubric_version
from judgekit.providers.client import ChatClient
from judgekit.providers.registry import make_provider, parse_model_name

if TYPE_CHECKING:
    from judgekit.store import Store

STORE_BATCH = 50  # verdicts per store transaction: durable without a commit per verdict


def effective_rubric(rubric: Rubric, model: str | None) -> Rubric:
    """The rubric as it will be judged: ``--model`` replaces the rubric's judge model, and so
    changes the rubric version (the model is part of what a verdict depends on)."""
    if model is None or model == rubric.judge.model:
        return rubric
    return rubric.model_copy(update={"judge": rubric.judge.model_copy(update={"model": model})})


def count_runs(path: Path) -> int:
    with path.open(encoding="utf-8") as fh:
        return sum(1 for line in fh if line.strip())


def print_summary(tally: JudgeTally, console: Console, *, rubric: Rubric, version: str) -> None:
    scored = tally.verdicts - tally.unscored
    scores = ", ".join(f"{score} {n}" for score, n in sorted(tally.scores.items())) or "none"
    unscored_rate = tally.unscored / tally.verdicts if tally.verdicts else 0.0
    cost = "unknown (no price for this model)" if tally.unknown_cost else f"${tally.cost_usd:.4f}"
    console.print(
        f"{rubric.id} (version {version}, {rubric.judge.model}): {tally.verdicts} verdicts, "
        f"{scored} scored ({scores}), {tally.unscored} unscored ({unscored_rate:.1%})",
        highlight=False,
        soft_wrap=True,
    )
    console.print(
        f"{tally.api_calls} API calls, {tally.cache_hits} cache hits, "
        f"{tally.input_tokens:,} input + {tally.output_tokens:,} output tokens, cost {cost}",
        highlight=False,
        soft_wrap=True,
    )
    if tally.stopped_by_budget:
        console.print("stopped at the --max-cost budget: the verdicts that finished are kept")


@click.command("judge")
@click.argument("runs", type=click.Path(dir_okay=False, exists=True, path_type=Path))
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
@click.option(
    "--tasks",
    "tasks_path",
    type=click.Path(path_type=Path),
    help="Task suites, for {reference} in prompts.",
)
@click.option(
    "--out",
    "out_dir",
    default=".",
    show_default=True,
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder for verdicts.jsonl.",
)
@click.option(
    "--concurrency",
    default=8,
    show_default=True,
    type=click.IntRange(min=1),
    help="Requests in flight at once.",
)
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
    type=click.FloatRange(min=0),
    help="Stop starting new runs once this many US dollars are spent.",
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Ask the model even when an identical request was answered before.",
)
@click.option("--no-store", is_flag=True, help="Do not record the verdicts in the store.")
@click.option(
    "--prices",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A YAML price table overriding the built-in one.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object instead of the summary."
)
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
    no_store: bool,
    prices: Path | None,
    as_json: bool,
) -> None:
    """Judge RUNS with the rubric's LLM judge; write verdicts.jsonl as verdicts finish.

    Rerunning an unchanged judge makes no API call (the cache lives in JUDGEKIT_HOME);
    an answer that is not a valid verdict is retried once with the error, then unscored.

    \b
    Example:
      OPENAI_API_KEY=... judgekit judge runs.jsonl --rubric goal_completion --model openai/gpt-4o-mini
    """
    rubric = effective_rubric(load_rubric(rubric_ref), model)
    provider_name, _ = parse_model_name(rubric.judge.model)
    tasks: TaskSet | None = load_tasks(tasks_path) if tasks_path is not None else None
    price_table = PriceTable.from_file(prices or judgekit_home() / "prices.yaml")
    out_dir.mkdir(parents=True, exist_ok=True)
    store = None
    if not no_store:
        from judgekit.store import open_store  # SQLAlchemy loads only when judging records

        store = open_store()
    try:
        tally = asyncio.run(
            _judge_file(
                runs,
                rubric,
                provider_name=provider_name,
                base_url=base_url,
                api_key=_api_key(api_key_env),
                tasks=tasks,
                out=out_dir / "verdicts.jsonl",
                concurrency=concurrency,
                max_attempts=max_attempts,
                samples=samples,
                max_cost=max_cost,
                cache=None if no_cache else JudgeCache(),
                prices=price_table,
                store=store,
                show_progress=not as_json,
            )
        )
    except KeyboardInterrupt:
        click.echo(
            f"interrupted: the verdicts that finished are in {out_dir / 'verdicts.jsonl'} and the "
            "cache; rerun the same command to finish (finished ones cost no call)",
            err=True,
        )
        raise SystemExit(130) from None
    version = rubric_version(rubric)
    if as_json:
        click.echo(
            json.dumps(
                {
                    "rubric_id": rubric.id,
                    "rubric_version": version,
                    "model": rubric.judge.model,
                    "verdicts": tally.verdicts,
                    "unscored": tally.unscored,
                    "scores": dict(tally.scores),
                    "api_calls": tally.api_calls,
                    "cache_hits": tally.cache_hits,
                    "input_tokens": tally.input_tokens,
                    "output_tokens": tally.output_tokens,
                    "cost_usd": None if tally.unknown_cost else tally.cost_usd,
                    "stopped_by_budget": tally.stopped_by_budget,
                    "verdicts_file": str(out_dir / "verdicts.jsonl"),
                }
            )
        )
        return
    print_summary(tally, Console(), rubric=rubric, version=version)
    click.echo(f"wrote {out_dir / 'verdicts.jsonl'}")


async def _judge_file(
    runs: Path,
    rubric: Rubric,
    *,
    provider_name: str,
    base_url: str | None,
    api_key: str | None,
    tasks: TaskSet | None,
    out: Path,
    concurrency: int,
    max_attempts: int,
    samples: int | None,
    max_cost: float | None,
    cache: JudgeCache | None,
    prices: PriceTable,
    store: Store | None,
    show_progress: bool,
) -> JudgeTally:
    provider = make_provider(provider_name, base_url=base_url, api_key=api_key)
    client = ChatClient(provider, concurrency=concurrency, max_attempts=max_attempts)
    judge = Judge(
        rubric,
        client,
        model=rubric.judge.model,
        cache=cache,
        prices=prices,
        tasks=tasks,
        samples=samples,
    )
    pending: list[Verdict] = []
    console = Console(stderr=True)
    columns = (TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with (
        out.open("w", encoding="utf-8") as fh,
        Progress(*columns, console=console, transient=True, disable=not show_progress) as bar,
    ):
        progress = bar.add_task("judging", total=count_runs(runs))

        def keep(verdict: Verdict) -> None:
            _append(fh, verdict)
            bar.advance(progress)
            pending.append(verdict)
            if store is not None and len(pending) >= STORE_BATCH:
                _flush_store(store, pending)

        try:
            return await judge.judge_many(
                load_runs(runs), concurrency=concurrency, max_cost_usd=max_cost, on_verdict=keep
            )
        finally:
            if store is not None:
                _flush_store(store, pending)
            await provider.aclose()


def _api_key(variable: str | None) -> str | None:
    """The key held by ``variable`` (``--api-key-env``); the key itself never goes on the
    command line, where shell history and process listings would keep it."""
    if variable is None:
        return None
    key = os.environ.get(variable)
    if not key:
        raise ConfigError(f"--api-key-env {variable}: that environment variable is not set")
    return key


def _append(fh: IO[str], verdict: Verdict) -> None:
    # Each verdict cost a model call: make it durable before the next one is counted.
    fh.write(verdict.model_dump_json() + "\n")
    fh.flush()
    os.fsync(fh.fileno())


def _flush_store(store: Store, pending: list[Verdict]) -> None:
    store.record_verdicts(pending)
    pending.clear()
