"""``judgekit judge``: grade runs with an LLM judge under a rubric; cached, bounded, costed."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from judgekit._util.folder_lock import output_folder_lock
from judgekit._util.terminal_text import visible
from judgekit.cli.api_key import api_key_from_env
from judgekit.cli.options import StoreChoice, rubric_option, store_options
from judgekit.cli.store_output import recorded_line, store_json, written_before_store
from judgekit.formats.rubric_file import effective_rubric, load_rubric, rubric_version
from judgekit.formats.run import runs_file_ids
from judgekit.formats.task import TaskSet
from judgekit.formats.task_files import load_task_files
from judgekit.formats.verdict import Verdict
from judgekit.judging.budget import Budget
from judgekit.judging.cache import JudgeCache
from judgekit.judging.judge_file import JudgeSettings, judge_runs_file
from judgekit.judging.judge_summary import not_judged_lines, summary_json, summary_lines
from judgekit.judging.pricing import PriceTable
from judgekit.judging.verdicts_file import VERDICTS_FILE
from judgekit.providers.registry import make_provider, parse_model_name

if TYPE_CHECKING:
    from judgekit.store.verdict_sink import VerdictSink

EXIT_NOT_JUDGED = 1  # some runs got no answer from the provider: rerun to finish


@click.command("judge")
# Not exists=True: reading the file says what is wrong with it in one line (a loop, no access).
@click.argument("runs", type=click.Path(dir_okay=False, path_type=Path))
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
    help="Spend at most this many US dollars: a request that could pass it is not sent.",
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

    Rerunning an unchanged judge makes no API call: verdicts already in --out are kept and
    the rest come from the cache in JUDGEKIT_HOME (--no-cache: everything is asked again).
    An answer that is not a valid verdict is retried once with the error, then unscored.
    A run that gets no answer at all is not judged and nothing is written for it: a wrong
    key, model or address stops at once (exit 2); failures left after retries end with
    exit 1, and rerunning the command asks only for those runs. The runs and verdicts are
    recorded in the store, in the batch of the runs file (--no-store: not).

    \b
    Example:
      OPENAI_API_KEY=... judgekit judge runs.jsonl --rubric goal_completion --model openai/gpt-4o-mini
    """
    rubric = effective_rubric(load_rubric(rubric_ref), model)
    provider_name, _ = parse_model_name(rubric.judge.model)
    # Every input is read and checked before anything is written or asked.
    tasks: TaskSet | None = load_task_files(tasks_path, resolve_code=False) if tasks_path else None
    price_table = PriceTable.from_file(prices) if prices else PriceTable.from_home()
    run_ids = runs_file_ids(runs)
    provider = make_provider(
        provider_name, base_url=base_url, api_key=api_key_from_env(api_key_env)
    )
    budget = None
    if max_cost is not None:
        budget = Budget(max_cost, prices=price_table, model=rubric.judge.model)
    settings = JudgeSettings(
        concurrency=concurrency, max_attempts=max_attempts, samples=samples, budget=budget
    )
    out = out_dir / VERDICTS_FILE
    with ExitStack() as stack:
        stack.enter_context(output_folder_lock(out_dir))
        sink = _open_sink(runs, store, stack)
        bar = stack.enter_context(_progress(len(run_ids), show=not as_json))
        try:
            with written_before_store(f"the verdicts that finished are in {out}"):
                try:
                    tally = judge_runs_file(
                        runs,
                        rubric,
                        provider=provider,
                        folder=out_dir,
                        run_ids=run_ids,
                        settings=settings,
                        cache=None if no_cache else JudgeCache(),
                        prices=price_table,
                        tasks=tasks,
                        on_verdict=lambda verdict: _keep(verdict, sink, bar),
                    )
                finally:
                    if sink is not None:
                        sink.flush()
        except KeyboardInterrupt:
            click.echo(
                f"interrupted: the verdicts that finished are in {out}; rerun the same "
                "command to finish (it asks only for the runs not judged yet)",
                err=True,
            )
            raise SystemExit(130) from None
    recorded = sink.recorded() if sink is not None else None
    version = rubric_version(rubric)
    if as_json:
        report = summary_json(
            tally,
            rubric,
            version,
            endpoint=provider.endpoint,
            verdicts_file=out,
            store=store_json(recorded),
        )
        click.echo(json.dumps(report))
    else:
        console = Console()
        for line in summary_lines(tally, rubric, version):
            console.print(line, highlight=False, soft_wrap=True)
        click.echo(f"wrote {out}")
        if recorded is not None:
            click.echo(recorded_line(recorded.verdicts, "verdicts", recorded))
    if tally.not_judged:
        # A reason may quote what the server said: shown, never interpreted by the terminal.
        for line in not_judged_lines(tally, rubric.judge.model, provider.endpoint):
            click.echo(visible(line, one_line=True), err=True)
        raise SystemExit(EXIT_NOT_JUDGED)


def _keep(verdict: Verdict, sink: VerdictSink | None, bar: _Bar) -> None:
    bar.advance()
    if sink is not None:
        sink.add(verdict)


class _Bar:
    """The progress bar on stderr (nothing when --json)."""

    def __init__(self, progress: Progress, total: int) -> None:
        self._progress = progress
        self._task = progress.add_task("judging", total=total)

    def advance(self) -> None:
        self._progress.advance(self._task)


@contextmanager
def _progress(total: int, *, show: bool) -> Iterator[_Bar]:
    columns = (TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    console = Console(stderr=True)
    # Off when stderr is not a terminal: a log gets no bar and no blank line.
    shown = show and console.is_terminal
    with Progress(*columns, console=console, transient=True, disable=not shown) as progress:
        yield _Bar(progress, total)


def _open_sink(runs: Path, choice: StoreChoice, stack: ExitStack) -> VerdictSink | None:
    """Open the store and record the runs once, first: the verdicts join their batch, and
    `judgekit monitor --recheck` can later ask a judge about the same runs."""
    if not choice.enabled:
        return None
    # SQLAlchemy loads only when judging records.
    from judgekit.store import open_store
    from judgekit.store.recording import record_runs_file
    from judgekit.store.verdict_sink import VerdictSink

    store = stack.enter_context(open_store())
    recorded = record_runs_file(store, runs, source="judge", provenance=choice.provenance())
    return VerdictSink(store, recorded)
