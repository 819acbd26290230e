"""Judging runs with a rubric: ask the model, read its JSON, repair once, else unscored.

For each run the rubric's prompt is filled (agent text neutralised), the model is asked
``samples`` times (each sample is its own cache entry, so repeated samples are real
samples), every answer is parsed against the scale with one repair retry on a bad answer,
and the samples' majority becomes the verdict with their agreement. A pairwise rubric is
asked in both orders; a verdict that flips with the order is flagged as position bias.
Nothing is scored from an answer that does not fit the scale: that verdict is *unscored*,
with the reason. A scored verdict carries the judge's confidence (:mod:`.confidence`); under
a selective promotion one less confident than the promoted threshold is *abstained*.

A provider failure is not a verdict: a run with no answer (server unreachable, key rejected,
model unknown, retries exhausted) is counted *not judged*, with the reason, and a rerun asks
again. A failure no retry can fix (not retryable, or an endpoint not reached at the first
request) stops the session with :class:`JudgingStopped`: every later run would fail too.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from judgekit._util.endpoint_url import normalise_endpoint
from judgekit._util.redaction import redact
from judgekit.errors import JudgeOutputError, ProviderError
from judgekit.formats.rubric import Rubric
from judgekit.formats.rubric_file import rubric_version
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict, VerdictSample
from judgekit.judging.abstention import decide_abstention
from judgekit.judging.budget import Budget
from judgekit.judging.cache import JudgeCache
from judgekit.judging.confidence import logprob_confidence, samples_confidence, score_tokens
from judgekit.judging.judge_loop import JudgingLoop, JudgingStopped
from judgekit.judging.judged_input import input_digest, pairwise_answers
from judgekit.judging.pricing import PriceTable
from judgekit.judging.prompts import render_judge_prompt, system_message
from judgekit.judging.tally import Answer, JudgeTally
from judgekit.judging.verdict_parsing import after_repair, parse_verdict, repair_messages
from judgekit.providers.chat import ChatMessage, ChatRequest, ChatResponse
from judgekit.providers.client import ChatClient

if TYPE_CHECKING:
    from judgekit.formats.task import TaskSet

__all__ = ["Judge", "JudgeTally", "JudgingStopped"]

_SWAPPED = {"A": "B", "B": "A", "tie": "tie"}
_NO_LOGPROBS = (
    "judge.confidence is logprobs but {model} returned no token log-probabilities: "
    "confidence comes from the samples' agreement where there are several, else is unknown"
)


class Judge(JudgingLoop):
    """Judges runs with one rubric and one model through a :class:`ChatClient`."""

    def __init__(
        self,
        rubric: Rubric,
        client: ChatClient,
        *,
        model: str,
        cache: JudgeCache | None,
        prices: PriceTable,
        tasks: TaskSet | None = None,
        samples: int | None = None,
        budget: Budget | None = None,
        abstain_below: float | None = None,
    ) -> None:
        self.endpoint = client.provider.endpoint
        self._verdict_endpoint = normalise_endpoint(self.endpoint) or None  # no key, no query
        self.budget = budget
        self.rubric = rubric
        self.client = client
        self.provider_name, _, self.model_name = model.partition("/")
        self.model = model
        self.cache = cache
        self.prices = prices
        self.tasks = tasks
        self.samples = samples or rubric.judge.samples
        self.version = rubric_version(rubric)
        self._system = system_message(rubric)  # the same for every run: made once
        self.tally = JudgeTally(abstain_below=abstain_below)
        self._in_flight: dict[str, asyncio.Future[ChatResponse]] = {}
        self._reached = False  # a request has been answered in this session

    def _stop_for(self, error: ProviderError) -> JudgingStopped | None:
        """Say how to stop when no run can get an answer from this judge's endpoint."""
        where = f" at {self.endpoint}" if self.endpoint else ""
        if not error.retryable:
            return JudgingStopped(f"{error} ({self.model}{where})")
        if error.unreachable and not self._reached:
            return JudgingStopped(
                f"{error} ({self.model}{where}); no request has reached it: check --base-url "
                "and that the server is running"
            )
        return None

    async def judge(self, run: Run) -> Verdict:
        """The verdict on one run: a bad answer is unscored; a provider failure (no answer
        at all, after retries) raises :class:`ProviderError` and makes no verdict."""
        task = self.tasks.get(run.task_id) if self.tasks is not None else None
        digest = input_digest(self.rubric, run, task)
        if self.rubric.scale == "pairwise":
            answers = pairwise_answers(run)
            first = await self._samples(
                render_judge_prompt(self.rubric, run, task, answers=answers, system=self._system)
            )
            swapped = (answers[1], answers[0])
            second = await self._samples(
                render_judge_prompt(self.rubric, run, task, answers=swapped, system=self._system),
                offset=self.samples,
            )
            for answer in second:
                if answer.error is None:
                    answer.score = _SWAPPED.get(str(answer.score), answer.score)
            verdict = self._verdict(run, first, digest)
            back = self._verdict(run, second, digest)
            if verdict.status == "scored" and back.status == "scored":
                verdict.position_bias = verdict.score != back.score
            _add_costs(verdict, second)
            verdict.cached = all(a.cached for a in first + second)
            return self._record(verdict, [(first, False), (second, True)])
        answers_ = await self._samples(
            render_judge_prompt(self.rubric, run, task, system=self._system)
        )
        return self._record(self._verdict(run, answers_, digest), [(answers_, False)])

    async def _samples(self, messages: tuple[ChatMessage, ...], offset: int = 0) -> list[Answer]:
        return list(
            await asyncio.gather(
                *(self._ask(messages, offset + index) for index in range(self.samples))
            )
        )

    async def _ask(self, messages: tuple[ChatMessage, ...], sample_index: int) -> Answer:
        """One sample: ask, parse, and on a bad answer ask once more with the error.

        A provider failure propagates: a sample with no answer is not an unscored sample.
        """
        answer = Answer()
        response = await self._complete(messages, sample_index, answer)
        try:
            parsed = parse_verdict(response.text, self.rubric.scale)
        except JudgeOutputError as first_error:
            repair = repair_messages(
                messages, response.text, str(first_error), scale=self.rubric.scale
            )
            response = await self._complete(repair, sample_index, answer)
            try:
                parsed = parse_verdict(response.text, self.rubric.scale)
            except JudgeOutputError as second_error:
                answer.error = after_repair(str(first_error), str(second_error))
                return answer
        # The answer's text is redacted as it arrived; a key written with JSON escapes
        # ("\u0073k-…") shows only once parsed.
        answer.score, answer.reason = parsed.score, redact(parsed.reason)
        answer.tokens = score_tokens(response) if response.tokens else None
        return answer

    async def _complete(
        self, messages: tuple[ChatMessage, ...], sample_index: int, answer: Answer
    ) -> ChatResponse:
        request = ChatRequest(
            model=self.model_name,
            messages=messages,
            temperature=self.rubric.judge.temperature,
            logprobs=self.rubric.judge.confidence == "logprobs",
        )
        if self.cache is None:
            return await self._call(request, answer)
        key = self.cache.key_for(
            self.provider_name,
            request,
            rubric_version=self.version,
            sample_index=sample_index,
            endpoint=self.endpoint,
        )
        hit = self.cache.get(key)
        if hit is not None:
            self.tally.cache_hits += 1
            return hit
        in_flight = self._in_flight.get(key)
        if in_flight is not None:
            # The same prompt is already being asked (two runs with the same answer):
            # wait for that call instead of paying for it twice.
            self.tally.cache_hits += 1
            return await asyncio.shield(in_flight)
        future: asyncio.Future[ChatResponse] = asyncio.get_running_loop().create_future()
        self._in_flight[key] = future
        try:
            response = await self._call(request, answer)
        except asyncio.CancelledError:
            future.cancel()
            raise
        except Exception as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: waiters re-raise it; no "never retrieved" warning
            raise
        finally:
            del self._in_flight[key]
        self.cache.put(key, response)
        future.set_result(response)
        return response

    async def _call(self, request: ChatRequest, answer: Answer) -> ChatResponse:
        if self.budget is None:
            response = await self.client.complete(request)
        else:
            response = await self.budget.call(request, self.client.complete, model=self.model)
        self._reached = True
        self.tally.api_calls += 1
        answer.cached = False
        answer.input_tokens += response.input_tokens
        answer.output_tokens += response.output_tokens
        answer.latency_s += response.latency_s
        return response

    def _verdict(self, run: Run, answers: list[Answer], digest: str) -> Verdict:
        scored = [a for a in answers if a.error is None]
        counts = Counter(str(a.score) for a in scored)
        verdict = Verdict(
            run_id=run.run_id,
            rubric_id=self.rubric.id,
            rubric_version=self.version,
            model=self.model,
            status="scored" if scored else "unscored",
            at=datetime.now(UTC),
            endpoint=self._verdict_endpoint,
            input_digest=digest,
        )
        if self.samples > 1:
            verdict.samples = [
                VerdictSample(
                    score=a.score,
                    reason=a.reason if a.error is None else a.error,
                    status="scored" if a.error is None else "unscored",
                )
                for a in answers
            ]
        if scored:
            top, top_count = counts.most_common(1)[0]
            winner = next(a for a in scored if str(a.score) == top)
            verdict.score, verdict.reason = winner.score, winner.reason
            if len(counts) > 1 and list(counts.values()).count(top_count) > 1:
                verdict.reason = f"samples split evenly; first majority kept: {winner.reason}"
            verdict.agreement = top_count / len(scored) if self.samples > 1 else None
        else:
            verdict.unscored_reason = redact(answers[0].error or "no answer")
        _add_costs(verdict, answers)
        verdict.cached = all(a.cached for a in answers)  # no API call behind this verdict
        return verdict

    def _confidence(self, orders: list[tuple[list[Answer], bool]], score: Any) -> float | None:
        """The verdict's confidence (see :mod:`judgekit.judging.confidence`) from its answers
        in each order asked (``True``: A and B swapped)."""
        scored = [([a for a in answers if a.error is None], swapped) for answers, swapped in orders]
        scored = [(answers, swapped) for answers, swapped in scored if answers]
        if self.rubric.judge.confidence == "logprobs":
            parts = [
                logprob_confidence(
                    [(a.score, a.tokens) for a in answers],
                    score,
                    label=_SWAPPED.get(str(score), score) if swapped else score,
                )
                for answers, swapped in scored
            ]
            known = [p for p in parts if p is not None]
            if scored and len(known) == len(parts):
                weights = [len(answers) for answers, _ in scored]
                return sum(p * w for p, w in zip(known, weights, strict=True)) / sum(weights)
            self.tally.confidence_note = _NO_LOGPROBS.format(model=self.model)
        scores = [a.score for answers, _ in scored for a in answers]
        several = self.samples > 1 or self.rubric.scale == "pairwise"
        return samples_confidence(scores, score) if several else None

    def _record(self, verdict: Verdict, orders: list[tuple[list[Answer], bool]]) -> Verdict:
        if verdict.status == "scored":
            verdict.confidence = self._confidence(orders, verdict.score)
            # Below the promoted threshold: abstained, score and reason kept for reading.
            verdict = decide_abstention(verdict, self.tally.abstain_below)
        if verdict.cached and not (verdict.input_tokens or verdict.output_tokens):
            verdict.cost_usd = 0.0  # answered from the cache: no tokens spent, no price looked up
        else:
            self._price(verdict)
        self._count(verdict)
        return verdict

    def _price(self, verdict: Verdict) -> None:
        tally = self.tally
        tally.input_tokens += verdict.input_tokens
        tally.output_tokens += verdict.output_tokens
        quote = self.prices.quote(self.model, verdict.input_tokens, verdict.output_tokens)
        verdict.cost_usd = None if quote is None else quote.usd
        if quote is not None:
            tally.cost_usd += quote.usd
            tally.price_source = quote.source
        elif not verdict.cached:
            tally.unpriced_model = self.model
        tally.unknown_cost = tally.unknown_cost or (quote is None and not verdict.cached)


def _add_costs(verdict: Verdict, answers: list[Answer]) -> None:
    verdict.input_tokens += sum(a.input_tokens for a in answers)
    verdict.output_tokens += sum(a.output_tokens for a in answers)
    latency = sum(a.latency_s for a in answers)
    verdict.latency_s = (verdict.latency_s or 0.0) + latency if latency else verdict.latency_s
