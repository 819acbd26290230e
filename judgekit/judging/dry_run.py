"""``judgekit judge --dry-run``: what judging would send and cost, with nothing sent.

Every prompt is rendered as the judge would render it (one per run, two for a pairwise
rubric, which is asked in both orders) and its tokens counted: with tiktoken when it is
installed and its encoding is at hand, else as characters / 4 — the estimate says which.
The projected cost prices those input tokens, times the samples, and at most ``max_tokens``
of output per request, from the same price table judging uses. No provider is built: a dry
run needs no API key and sends no request.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from judgekit._util.close_names import suggesting
from judgekit._util.number_format import dollars
from judgekit._util.terminal_text import visible
from judgekit.errors import ConfigError
from judgekit.formats.run import Run

# The judge's own reading of a pairwise run's two answers, so both agree on what is asked.
from judgekit.judging.judged_input import pairwise_answers
from judgekit.judging.pipeline import JudgingInputs
from judgekit.judging.prompts import render_judge_prompt
from judgekit.providers.chat import ChatMessage, ChatRequest

__all__ = [
    "DryRun",
    "TokenCounter",
    "dry_run",
    "dry_run_json",
    "dry_run_lines",
    "prompt_lines",
    "token_counter",
]

# A chat format's own tokens around each message (role markers, separators), and those
# priming the reply: OpenAI's published rule of thumb for its chat models.
TOKENS_PER_MESSAGE = 3
TOKENS_PER_REPLY = 3
CHARS_PER_TOKEN = 4  # the usual rule for English text when no tokenizer is at hand
ENCODING_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class TokenCounter:
    """How tokens are counted: ``name`` says which way, for the user."""

    name: str
    count: Callable[[str], int]

    def prompt_tokens(self, messages: tuple[ChatMessage, ...]) -> int:
        """The input tokens of one request of ``messages``."""
        content = sum(self.count(message.content) for message in messages)
        return content + TOKENS_PER_MESSAGE * len(messages) + TOKENS_PER_REPLY


def _by_characters(text: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def token_counter(model: str, loaded: dict[str, Any] | None = None) -> TokenCounter:
    """tiktoken's encoding for ``model`` (``o200k_base`` for a model it does not know, an
    approximation for other providers' tokenizers) when it is installed and loads, else
    characters / 4. ``loaded`` keeps the encodings tried (a jury's jurors share one), so
    none is waited for twice."""
    try:
        import tiktoken
    except ImportError:
        return TokenCounter("characters / 4 (tiktoken is not installed)", _by_characters)
    _, _, name = model.partition("/")
    try:
        encoding_name = tiktoken.encoding_name_for_model(name)
    except KeyError:
        encoding_name = "o200k_base"  # the encoding of OpenAI's current models
    if loaded is None:
        loaded = {}
    if encoding_name not in loaded:
        loaded[encoding_name] = _load_encoding(tiktoken, encoding_name)
    encoding = loaded[encoding_name]
    if encoding is None:
        return TokenCounter(
            "characters / 4 (tiktoken could not load its encoding: offline?)", _by_characters
        )
    approximate = "" if model.startswith("openai/") else f", an approximation for {model}"
    return TokenCounter(
        f"tiktoken {encoding.name}{approximate}",
        lambda text: len(encoding.encode(text, disallowed_special=())),
    )


def _load_encoding(tiktoken: Any, name: str) -> Any:
    """tiktoken's encoding ``name``, or None when it cannot be had within
    ``ENCODING_TIMEOUT_S``: tiktoken fetches an encoding once and keeps it, and its fetch
    has no timeout of its own, so a dry run on a network that drops packets would hang."""
    loaded: list[Any] = []

    def load() -> None:
        try:
            loaded.append(tiktoken.get_encoding(name))
        except Exception:  # any failure to fetch or read it: count characters instead
            loaded.append(None)

    # A daemon thread: one still waiting on the network does not keep judgekit from exiting.
    thread = threading.Thread(target=load, name="tiktoken-encoding", daemon=True)
    thread.start()
    thread.join(ENCODING_TIMEOUT_S)
    return loaded[0] if loaded else None


@dataclass(frozen=True)
class DryRun:
    """What judging the runs would send: the first prompt, the requests, tokens and cost."""

    model: str
    first_run_id: str
    first_prompt: tuple[ChatMessage, ...]
    runs: int
    samples: int
    orders: int  # 2 for a pairwise rubric (both orders asked), else 1
    input_tokens: int  # of every request, samples included
    max_output_tokens: int  # max_tokens of every request
    max_tokens: int  # per request
    counted_by: str
    input_cost: float | None  # None: the price table does not know the model
    max_output_cost: float | None
    close_models: tuple[str, ...] = ()  # priced models named like an unpriced one

    @property
    def requests(self) -> int:
        return self.runs * self.samples * self.orders


def dry_run(
    inputs: JudgingInputs, *, samples: int | None = None, counter: TokenCounter | None = None
) -> DryRun:
    """Render every prompt of ``inputs`` (its first ``len(run_ids)`` runs) and project what
    judging them would cost; nothing is sent."""
    rubric, model = inputs.rubric, inputs.rubric.judge.model
    if not inputs.run_ids and inputs.sample is not None:
        raise ConfigError(
            f"--sample {inputs.sample.describe()} picks none of the {inputs.window} runs: "
            "nothing would be sent"
        )
    counter = counter or token_counter(model)
    samples = samples or rubric.judge.samples
    first: tuple[str, tuple[ChatMessage, ...]] | None = None
    prompt_tokens = runs = 0
    for run in inputs.judged_runs:
        for messages in _prompts(inputs, run):
            first = first or (run.run_id, messages)
            prompt_tokens += counter.prompt_tokens(messages)
        runs += 1
    assert first is not None  # a runs file holds at least one run (checked when read)
    orders = 2 if rubric.scale == "pairwise" else 1
    # The request as the judge builds it, for its max_tokens.
    max_tokens = ChatRequest(model=model, messages=first[1]).max_tokens
    max_output = runs * samples * orders * max_tokens
    input_tokens = prompt_tokens * samples
    input_cost = inputs.prices.cost(model, input_tokens, 0)
    max_output_cost = inputs.prices.cost(model, 0, max_output)
    return DryRun(
        model=model,
        first_run_id=first[0],
        first_prompt=first[1],
        runs=runs,
        samples=samples,
        orders=orders,
        input_tokens=input_tokens,
        max_output_tokens=max_output,
        max_tokens=max_tokens,
        counted_by=counter.name,
        input_cost=input_cost,
        max_output_cost=max_output_cost,
        close_models=()
        if input_cost is not None and max_output_cost is not None
        else tuple(inputs.prices.close_models(model)),
    )


def _prompts(inputs: JudgingInputs, run: Run) -> list[tuple[ChatMessage, ...]]:
    """The prompts the judge would send for ``run``: both orders for a pairwise rubric."""
    task = inputs.tasks.get(run.task_id) if inputs.tasks is not None else None
    if inputs.rubric.scale != "pairwise":
        return [render_judge_prompt(inputs.rubric, run, task)]
    first, second = pairwise_answers(run)
    return [
        render_judge_prompt(inputs.rubric, run, task, answers=(first, second)),
        render_judge_prompt(inputs.rubric, run, task, answers=(second, first)),
    ]


def prompt_lines(plan: DryRun) -> list[str]:
    """The first prompt, its text shown, never obeyed by the terminal."""
    run_id = visible(plan.first_run_id, one_line=True)
    lines = [f"dry run: nothing is sent. The first prompt (run {run_id}):"]
    for message in plan.first_prompt:
        lines += [f"── {message.role} ──", visible(message.content)]
    lines.append("──")
    return lines


def dry_run_lines(plan: DryRun) -> list[str]:
    """The first prompt (its text shown, never obeyed by the terminal), then the requests,
    tokens and projected cost."""
    lines = prompt_lines(plan)
    orders = " × 2 orders (pairwise)" if plan.orders == 2 else ""
    lines.append(
        f"{plan.runs:,} runs × {plan.samples} {'sample' if plan.samples == 1 else 'samples'}"
        f"{orders} = {plan.requests:,} requests "
        f"to {plan.model}"
    )
    lines.append(
        f"input: {plan.input_tokens:,} tokens, counted by {plan.counted_by}; output: at most "
        f"{plan.max_output_tokens:,} tokens ({plan.max_tokens:,} per request)"
    )
    if plan.input_cost is None or plan.max_output_cost is None:
        meant = suggesting(plan.close_models)
        lines.append(
            f"projected cost: unknown, the price table lacks {plan.model}"
            + (f" ({meant})" if meant else "")
            + "; if the name is right, add its price with --prices FILE or "
            "JUDGEKIT_HOME/prices.yaml"
        )
    else:
        most = plan.input_cost + plan.max_output_cost
        lines.append(
            f"projected cost: {dollars(plan.input_cost)} input + at most "
            f"{dollars(plan.max_output_cost)} output = at most {dollars(most)} "
            "(before the cache and the verdicts already in --out; a repair retry costs a "
            "request more)"
        )
    return lines


def dry_run_json(plan: DryRun) -> dict[str, Any]:
    """The ``--dry-run --json`` object: the first prompt exact, the counts and costs."""
    return {
        "dry_run": True,
        "model": plan.model,
        "first_run_id": plan.first_run_id,
        "first_prompt": [
            {"role": message.role, "content": message.content} for message in plan.first_prompt
        ],
        "runs": plan.runs,
        "samples": plan.samples,
        "orders": plan.orders,
        "requests": plan.requests,
        "input_tokens": plan.input_tokens,
        "max_output_tokens": plan.max_output_tokens,
        "tokens_counted_by": plan.counted_by,
        "input_cost_usd": plan.input_cost,
        "max_output_cost_usd": plan.max_output_cost,
    }
