"""``judgekit fake-judge``: a simulated judge on 127.0.0.1, for trying the flow offline."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import click

from judgekit._util.number_format import rate
from judgekit._util.terminal_text import visible
from judgekit.cli.number_types import FiniteFloatRange, ModelRate
from judgekit.judging.fake_judge import FakeJudge, serve_fake_judge

if TYPE_CHECKING:
    from judgekit.testing import FakeLLMServer


@click.command("fake-judge")
@click.option(
    "--results",
    required=True,
    type=click.Path(path_type=Path),
    help="The runs and their grades: the folder `judgekit run --out` wrote, or its results.jsonl.",
)
@click.option(
    "--error-rate",
    type=FiniteFloatRange(0, 1),
    default=0.05,
    show_default=True,
    help="How often a verdict is the opposite of the run's grade.",
)
@click.option(
    "--error-rate-for",
    "model_rates",
    type=ModelRate(),
    multiple=True,
    metavar="PROVIDER/MODEL=RATE",
    help="This model's own error rate, drawn independently of every other model's "
    "(repeatable: one server for a jury of simulated judges).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seeds which runs it errs on.")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    show_default=True,
    help="The port on 127.0.0.1; 0 picks a free one.",
)
@click.option(
    "--url-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the OpenAI base URL here once serving (removed on exit), for scripts.",
)
@click.option(
    "--rpm",
    type=click.IntRange(min=1),
    metavar="N",
    help="Answer 429 past N requests a minute, with the provider's rate-limit headers.",
)
@click.option(
    "--tpm",
    type=click.IntRange(min=1),
    metavar="N",
    help="Answer 429 past N tokens a minute (input words plus max_tokens).",
)
@click.option(
    "--rate-window",
    type=FiniteFloatRange(0, 3600, min_open=True),
    default=60.0,
    show_default=True,
    metavar="SECONDS",
    help="Count --rpm and --tpm in fixed windows this long, each allowing its share.",
)
@click.option(
    "--batch-turnaround",
    type=FiniteFloatRange(0, 86400),
    default=0.0,
    show_default=True,
    metavar="SECONDS",
    help="End each batch (judge --batch) no sooner than this long after it was created.",
)
def fake_judge_command(
    results: Path,
    error_rate: float,
    model_rates: tuple[tuple[str, float], ...],
    seed: int,
    port: int,
    url_file: Path | None,
    rpm: int | None,
    tpm: int | None,
    rate_window: float,
    batch_turnaround: float,
) -> None:
    """Serve a simulated judge (not a model) that answers from the runs' grades.

    An OpenAI- and Anthropic-compatible server on 127.0.0.1 for trying judge, calibrate and
    promote offline, and for testing a project's CI. It is NOT a model and judges nothing:
    for each prompt it finds the run the prompt quotes in --results and answers that run's
    deterministic grade (passed in results.jsonl) as a pass/fail verdict, the opposite at
    --error-rate, seeded by --seed and the run id (the same run, the same verdict). A model
    given --error-rate-for errs at its own rate, independently of the others. Any model
    name and any key are accepted. --rpm and --tpm make it a rate-limited provider: 429s past
    them, and OpenAI's or Anthropic's rate-limit headers on every answer; its batch APIs
    take --batch-turnaround to end a batch. It runs until Ctrl-C or SIGTERM.

    \b
    Example:
      judgekit fake-judge --results results --url-file fake-judge.url &
      OPENAI_BASE_URL=$(cat fake-judge.url) OPENAI_API_KEY=fake \\
        judgekit judge results/runs.jsonl --rubric goal_completion --tasks tasks
    """
    judge = FakeJudge.from_results(
        results, error_rate=error_rate, seed=seed, model_error_rates=dict(model_rates)
    )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    where = visible(str(results), one_line=True)
    click.echo(
        f"fake judge: SIMULATED, not a model: verdicts follow the grades of {len(judge.finder)} "
        f"runs in {where}, the opposite at error rate {rate(error_rate)} (seed {seed})"
    )
    for model, model_rate in judge.model_error_rates.items():
        click.echo(f"  {visible(model, one_line=True)}: error rate {rate(model_rate)}, drawn apart")

    def ready(server: FakeLLMServer) -> None:
        click.echo(f"serving the OpenAI and Anthropic APIs on 127.0.0.1:{server.port}; use")
        click.echo(f"  OPENAI_BASE_URL={server.openai_base_url} OPENAI_API_KEY=fake")
        click.echo(f"  (or ANTHROPIC_BASE_URL={server.anthropic_base_url} ANTHROPIC_API_KEY=fake)")
        if url_file is not None:
            click.echo(f"wrote {visible(str(url_file), one_line=True)}")
        click.echo("Ctrl-C or SIGTERM stops it", nl=True)

    limit = None
    if rpm is not None or tpm is not None:
        from judgekit.testing import RateLimit

        limit = RateLimit(requests_per_minute=rpm, tokens_per_minute=tpm, window_s=rate_window)
    serve_fake_judge(
        judge,
        port=port,
        url_file=url_file,
        on_ready=ready,
        stop=stop,
        rate_limit=limit,
        batch_turnaround_s=batch_turnaround,
    )
    told = judge.answered
    click.echo(
        f"fake judge stopped: answered pass {told['pass']}, fail {told['fail']} "
        f"({told['wrong']} set errors), {told['unknown']} prompts about no run it knows"
    )
