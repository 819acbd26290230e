"""The batch APIs of the built-in providers: many chat requests sent at once, answered later.

OpenAI's Batch API takes a JSONL file of ``/v1/chat/completions`` requests (uploaded with
``files.create``), answers within 24 hours into an output file and an error file; Anthropic's
Message Batches take the requests in one call and stream the results as JSONL. Both cost half
the price of the same requests asked one by one. Each request carries a ``custom_id``; the
answers come back keyed by it, in no particular order.

A batch submitted by a process that was killed before the answer arrived is found again:
an OpenAI batch carries its tag in its ``metadata``; an Anthropic batch has no metadata, so
it is the one batch listed since the intent with as many requests, other than those the
other parts of a split set hold — once ended, the one whose results hold exactly the request
set's custom ids.

:func:`batch_api` gives a provider's :class:`BatchApi`; a provider without one (``local/…``,
plugins) is a :class:`~judgekit.errors.ConfigError`.
"""

from __future__ import annotations

import io
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from judgekit.errors import ConfigError, ProviderError
from judgekit.providers.answers import AnthropicMessage, OpenAICompletion, read_answer
from judgekit.providers.anthropic_errors import anthropic_failures
from judgekit.providers.anthropic_provider import AnthropicProvider, _anthropic_message
from judgekit.providers.batch_parts import split_batches
from judgekit.providers.chat import ChatProvider, ChatRequest, ChatResponse
from judgekit.providers.failures import provider_errors
from judgekit.providers.openai_errors import openai_failures
from judgekit.providers.openai_provider import OpenAICompatibleProvider, OpenAIProvider, _tokens

__all__ = ["BatchApi", "BatchNotFound", "BatchState", "batch_api"]

BatchAnswers = dict[str, ChatResponse | ProviderError]
"""custom_id → the answer, or why that request got none."""

TAG_KEY = "judgekit_tag"  # the metadata key of an OpenAI batch's tag
_COMPLETIONS: Final = "/v1/chat/completions"
CLOCK_SKEW_S = 300.0  # how far the provider's clock may run behind this machine's


class BatchNotFound(ProviderError):
    """The provider does not know the batch (deleted, expired long ago, another account)."""


@dataclass(frozen=True)
class BatchState:
    """Where a batch is: ``ended`` once its results can be read; ``status`` as the API says."""

    status: str
    ended: bool


class BatchApi(ABC):
    """Submit, poll and read one provider's batches."""

    max_requests: ClassVar[int]
    """The most requests one batch may hold."""
    max_bytes: ClassVar[int]
    """The most bytes one batch's requests may take, as sent."""

    def __init__(self, provider: ChatProvider) -> None:
        self.provider = provider

    @abstractmethod
    def item(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        """The request as one item of a batch: an input file's line, a batch's request."""

    def parts(self, requests: Mapping[str, ChatRequest]) -> list[list[str]]:
        """The custom ids of ``requests`` split into batches within the API's limits."""
        sizes = (
            (custom_id, len(json.dumps(self.item(custom_id, request)).encode()) + 1)
            for custom_id, request in requests.items()
        )
        return split_batches(sizes, max_requests=self.max_requests, max_bytes=self.max_bytes)

    @abstractmethod
    async def submit(self, requests: Sequence[tuple[str, ChatRequest]], *, tag: str) -> str:
        """Send ``(custom_id, request)`` pairs as one batch tagged ``tag``; its id."""

    @abstractmethod
    async def find(
        self, tag: str, *, since: float, custom_ids: set[str], taken: frozenset[str] = frozenset()
    ) -> str | None:
        """The id of the batch of ``custom_ids`` tagged ``tag``, submitted after ``since``
        (seconds since the epoch) by a process that never heard its id; None if none was.
        ``taken`` are batches known to hold other requests: never the one."""

    @abstractmethod
    async def state(self, batch_id: str) -> BatchState:
        """The batch's status now."""

    @abstractmethod
    async def answers(self, batch_id: str, requests: dict[str, ChatRequest]) -> BatchAnswers:
        """The answer (or failure) of every request of an ended batch that has one."""


def batch_api(provider: ChatProvider) -> BatchApi:
    """The batch API of ``provider``; ConfigError when it has none."""
    if isinstance(provider, OpenAIProvider) and not isinstance(provider, OpenAICompatibleProvider):
        return _OpenAIBatches(provider)
    if isinstance(provider, AnthropicProvider):
        return _AnthropicBatches(provider)
    raise ConfigError(
        f"--batch needs a provider with a batch API (openai or anthropic), not {provider.name!r}: "
        "judge without --batch"
    )


class _OpenAIBatches(BatchApi):
    provider: OpenAIProvider
    max_requests = 50_000
    max_bytes = 200 * 1024 * 1024  # the input file's

    def item(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        body = self.provider._body(request)
        return {"custom_id": custom_id, "method": "POST", "url": _COMPLETIONS, "body": body}

    async def submit(self, requests: Sequence[tuple[str, ChatRequest]], *, tag: str) -> str:
        lines = "".join(json.dumps(self.item(*pair)) + "\n" for pair in requests)
        client = self.provider._client
        with provider_errors(self.provider, openai_failures()):
            uploaded = await client.files.create(
                file=("judgekit-batch.jsonl", io.BytesIO(lines.encode())), purpose="batch"
            )
            batch = await client.batches.create(
                input_file_id=uploaded.id,
                endpoint=_COMPLETIONS,
                completion_window="24h",
                metadata={TAG_KEY: tag},
            )
        return batch.id

    async def find(
        self, tag: str, *, since: float, custom_ids: set[str], taken: frozenset[str] = frozenset()
    ) -> str | None:
        with provider_errors(self.provider, openai_failures()):
            async for batch in self.provider._client.batches.list(limit=100):  # newest first
                if (batch.metadata or {}).get(TAG_KEY) == tag:
                    return batch.id
                if batch.created_at < since - CLOCK_SKEW_S:
                    break
        return None

    async def state(self, batch_id: str) -> BatchState:
        import openai

        try:
            with provider_errors(self.provider, openai_failures()):
                batch = await self.provider._client.batches.retrieve(batch_id)
        except ProviderError as error:
            if isinstance(error.__cause__, openai.NotFoundError):
                raise BatchNotFound(f"OpenAI knows no batch {batch_id}") from error
            raise
        return BatchState(batch.status, batch.status in _OPENAI_ENDED)

    async def answers(self, batch_id: str, requests: dict[str, ChatRequest]) -> BatchAnswers:
        client = self.provider._client
        answers: BatchAnswers = {}
        with provider_errors(self.provider, openai_failures()):
            batch = await client.batches.retrieve(batch_id)
            for file_id in (batch.output_file_id, batch.error_file_id):
                if file_id:
                    content = await client.files.content(file_id)
                    for line in content.text.splitlines():
                        if line.strip():
                            self._read_line(json.loads(line), requests, answers)
        return answers

    def _read_line(
        self, line: dict[str, Any], requests: dict[str, ChatRequest], answers: BatchAnswers
    ) -> None:
        custom_id = str(line.get("custom_id"))
        request = requests.get(custom_id)
        if request is None:
            return  # not one of ours (or a stale id): nothing to answer
        response, error = line.get("response"), line.get("error")
        if error or not isinstance(response, dict) or response.get("status_code") != 200:
            answers[custom_id] = _failure("OpenAI", error, response)
            return
        url = f"{self.provider.endpoint.rstrip('/')}/batches/{custom_id}"
        raw = json.dumps(response.get("body")).encode()
        try:
            completion = read_answer(raw, OpenAICompletion, provider="openai", url=url)
        except ProviderError as exc:
            answers[custom_id] = exc
            return
        if not completion.choices:
            answers[custom_id] = ProviderError(f"OpenAI answered {custom_id} with no choices")
            return
        usage, choice = completion.usage, completion.choices[0]
        answers[custom_id] = ChatResponse(
            text=choice.message.content or "",
            model=completion.model or request.model,
            input_tokens=(usage.prompt_tokens or 0) if usage else 0,
            output_tokens=(usage.completion_tokens or 0) if usage else 0,
            tokens=_tokens(choice.logprobs) if request.logprobs else None,
        )


_OPENAI_ENDED = frozenset({"completed", "expired", "failed", "cancelled"})


class _AnthropicBatches(BatchApi):
    provider: AnthropicProvider
    max_requests = 100_000
    max_bytes = 256 * 1024 * 1024 - 1024  # the request's, less its envelope

    def item(self, custom_id: str, request: ChatRequest) -> dict[str, Any]:
        params: dict[str, Any] = {
            "model": request.model,
            "max_tokens": request.max_tokens,
            "messages": [_anthropic_message(m) for m in request.messages if m.role != "system"],
        }
        system = "\n\n".join(m.content for m in request.messages if m.role == "system")
        if system:
            params["system"] = system
        return {"custom_id": custom_id, "params": params}

    async def submit(self, requests: Sequence[tuple[str, ChatRequest]], *, tag: str) -> str:
        items: list[Any] = [self.item(*pair) for pair in requests]  # no metadata: see find()
        with provider_errors(self.provider, anthropic_failures()):
            batch = await self.provider._client.messages.batches.create(requests=items)
        return batch.id

    async def find(
        self, tag: str, *, since: float, custom_ids: set[str], taken: frozenset[str] = frozenset()
    ) -> str | None:
        unverified: list[str] = []
        with provider_errors(self.provider, anthropic_failures()):
            batches = self.provider._client.messages.batches
            async for batch in batches.list(limit=100):  # newest first
                if batch.created_at.timestamp() < since - CLOCK_SKEW_S:
                    break
                if batch.id in taken:
                    continue
                if sum(batch.request_counts.model_dump().values()) != len(custom_ids):
                    continue
                if batch.processing_status != "ended":
                    unverified.append(batch.id)
                    continue
                if {item.custom_id async for item in await batches.results(batch.id)} == custom_ids:
                    return batch.id
        # Not ended, its custom ids cannot be read yet: the one candidate, or none for sure.
        return unverified[0] if len(unverified) == 1 else None

    async def state(self, batch_id: str) -> BatchState:
        import anthropic

        try:
            with provider_errors(self.provider, anthropic_failures()):
                batch = await self.provider._client.messages.batches.retrieve(batch_id)
        except ProviderError as error:
            if isinstance(error.__cause__, anthropic.NotFoundError):
                raise BatchNotFound(f"Anthropic knows no batch {batch_id}") from error
            raise
        return BatchState(batch.processing_status, batch.processing_status == "ended")

    async def answers(self, batch_id: str, requests: dict[str, ChatRequest]) -> BatchAnswers:
        answers: BatchAnswers = {}
        url = f"{self.provider.endpoint.rstrip('/')}/v1/messages/batches/{batch_id}/results"
        with provider_errors(self.provider, anthropic_failures()):
            results = await self.provider._client.messages.batches.results(batch_id)
            async for item in results:
                request = requests.get(item.custom_id)
                if request is None:
                    continue
                result = item.result
                if result.type != "succeeded":
                    detail = result.model_dump(mode="json")
                    answers[item.custom_id] = _failure("Anthropic", detail, None)
                    continue
                raw = result.message.model_dump_json().encode()
                try:
                    message = read_answer(raw, AnthropicMessage, provider="anthropic", url=url)
                except ProviderError as exc:
                    answers[item.custom_id] = exc
                    continue
                answers[item.custom_id] = ChatResponse(
                    text=message.text,
                    model=message.model or request.model,
                    input_tokens=message.usage.input_tokens,
                    output_tokens=message.usage.output_tokens,
                )
        return answers


_ENDED_UNANSWERED = {
    "batch_expired": "the batch expired before this request was answered",
    "expired": "the batch expired before this request was answered",
    "batch_cancelled": "the batch was cancelled before this request was answered",
    "canceled": "the batch was cancelled before this request was answered",
}


def _failure(label: str, error: object, response: object) -> ProviderError:
    """A failed request of a batch, in words that are the same for every request failing
    alike (so they count together); retryable, since a rerun sends it again."""
    return ProviderError(f"{label} batch: {_reason(error, response)}", retryable=True)


def _reason(error: object, response: object) -> str:
    if isinstance(error, dict):
        kind = error.get("code") or error.get("type")
        if kind in _ENDED_UNANSWERED:
            return _ENDED_UNANSWERED[str(kind)]
        inner = error.get("error")
        if isinstance(inner, dict):  # Anthropic: {"type": "errored", "error": {"error": ...}}
            return _reason(inner.get("error", inner), None)
        return str(error.get("message") or kind or "the request failed")[:300]
    if isinstance(response, dict):
        body = response.get("body")
        inner = body.get("error") if isinstance(body, dict) else None
        message = inner.get("message") if isinstance(inner, dict) else None
        return f"HTTP {response.get('status_code')}: {message or 'no answer'}"[:300]
    return "the request got no answer"
