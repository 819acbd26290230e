"""``judgekit judge``: grade runs with an LLM judge under a rubric; cached, bounded, costed."""

from __future__ import annotations

import asyncio
import json
import os
from contextlib import ExitStack
from dataclasses import replace
from pathlib import Path
from typing import IO, TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from judgekit.cli.api_key import api_key_from_env
from judgekit.cli.options import StoreChoice, rubric_option, store_options
from judgekit.cli.store_output import recorded_line, store_json, written_before_store
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
    from judgekit.store.recording import Recorded

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
@click.option(
    "--prices",
    type=click.Path(dir_okay=False, path_type=Path),
    help="A YAML price table overriding the built-in one.",
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print one JSON object instead of the summary."
)
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
    as_json: bool,
    store: StoreChoice,
) -> None:
    """Judge RUNS with the rubric's LLM judge; write verdicts.jsonl as verdicts finish.

    Rerunning an unchanged judge makes no API call (the cache lives in JUDGEKIT_HOME);
    an answer that is not a valid verdict is retried once with the error, then unscored.
    The runs and verdicts are recorded in the store, in the batch of the runs file
    (--no-store: not).

    \b
    Example:
      OPENAI_API_KEY=... judgekit judge runs.jsonl --rubric goal_completion --model openai/gpt-4o-mini
    """
    rubric = effective_rubric(load_rubric(rubric_ref), model)
    provider_name, _ = parse_model_name(rubric.judge.model)
    tasks: TaskSet | None = load_tasks(tasks_path) if tasks_path is not None else None
    price_table = PriceTable.from_file(prices or judgekit_home() / "prices.yaml")
    api_key = api_key_from_env(api_key_env)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = out_dir / "verdicts.jsonl"
    with ExitStack() as stack:
        sink = _open_sink(runs, store, stack)
        try:
            with written_before_store(f"the verdicts that finished are in {out}"):
                tally = asyncio.run(
                    _judge_file(
                        runs,
                        rubric,
                        provider_name=provider_name,
                        base_url=base_url,
                        api_key=api_key,
                        tasks=tasks,
                        out=out,
                        concurrency=concurrency,
                        max_attempts=max_attempts,
                        samples=samples,
                        max_cost=max_cost,
                        cache=None if no_cache else JudgeCache(),
                        prices=price_table,
                        sink=sink,
                        show_progress=not as_json,
                    )
                )
        except KeyboardInterrupt:
            click.echo(
                f"interrupted: the verdicts that finished are in {out} and the "
                "cache; rerun the same command to finish (finished ones cost no call)",
                err=True,
            )
            raise SystemExit(130) from None
    recorded = sink.recorded() if sink is not None else None
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
                    "verdicts_file": str(out),
                    "store": store_json(recorded),
                }
            )
        )
        return
    print_summary(tally, Console(), rubric=rubric, version=version)
    click.echo(f"wrote {out}")
    if recorded is not None:
        click.echo(recorded_line(recorded.verdicts, "verdicts", recorded))


class _StoreSink:
    """Verdicts on their way to the store's batch of the runs file, STORE_BATCH per
    transaction: a crash loses at most one transaction's worth, never the file's."""

    def __init__(self, store: Store, runs: Recorded) -> None:
        self._store = store
        self._runs = runs
        self._pending: list[Verdict] = []
        self._written = 0

    def add(self, verdict: Verdict) -> None:
        self._pending.append(verdict)
        if len(self._pending) >= STORE_BATCH:
            self.flush()

    def flush(self) -> None:
        if self._pending:
            self._written += self._store.record_verdicts(self._pending, self._runs.batch_id)
            self._pending.clear()

    def recorded(self) -> Recorded:
        return replace(self._runs, verdicts=self._written)


def _open_sink(runs: Path, choice: StoreChoice, stack: ExitStack) -> _StoreSink | None:
    """Open the store and record the runs once, first: the verdicts join their batch, and
    `judgekit monitor --recheck` can later ask a judge about the same runs."""
    if not choice.enabled:
        return None
    # SQLAlchemy loads only when judging records.
    from judgekit.store import open_store
    from judgekit.store.recording import record_runs_file

    store = stack.enter_context(open_store())
    recorded = record_runs_file(store, runs, source="judge", provenance=choice.provenance())
    return _StoreSink(store, recorded)


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
    sink: _StoreSink | None,
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
            if sink is not None:
                sink.add(verdict)

        try:
            return await judge.judge_many(
                load_runs(runs), concurrency=concurrency, max_cost_usd=max_cost, on_verdict=keep
            )
        finally:
            try:
                if sink is not None:
                    sink.flush()
            finally:
                await provider.aclose()


def _append(fh: IO[str], verdict: Verdict) -> None:
    # Each verdict cost a model call: make it durable before the next one is counted.
    fh.write(verdict.model_dump_json() + "\n")
    fh.flush()
    os.fsync(fh.fileno())
