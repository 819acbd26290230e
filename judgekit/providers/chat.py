"""The provider-agnostic chat interface: messages in; text, tokens, model and latency out
(and, where the provider gives them, the answer's token log-probabilities)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from judgekit._util.redaction import redact

# A chat format's own tokens around each message (role markers, separators): a generous
# bound for the OpenAI and Anthropic formats.
TOKENS_PER_MESSAGE = 8


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    role: Literal["system", "user", "assistant"]
    content: str


class ChatRequest(BaseModel):
    """One chat completion to ask for. ``model`` is the provider's own model name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    model: str
    messages: tuple[ChatMessage, ...]
    temperature: float = 0.0
    max_tokens: int = Field(default=1024, ge=1)
    json_output: bool = Field(default=True, description="Ask for a JSON object where supported.")
    logprobs: bool = Field(
        default=False,
        description="Ask for each token's log-probability and its 5 likeliest alternatives "
        "where supported (OpenAI-compatible APIs); others answer without them.",
    )

    @property
    def input_token_bound(self) -> int:
        """At most how many input tokens this request is: one per byte of its messages (a
        byte-level tokenizer's token covers at least one byte) plus a few per message."""
        return sum(
            len(message.content.encode("utf-8")) + TOKENS_PER_MESSAGE for message in self.messages
        )


class TokenLogprob(BaseModel):
    """One token of an answer, its log-probability, and the likeliest tokens in its place
    (``top``: token and log-probability, the chosen one usually among them)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    token: str
    logprob: float
    top: tuple[tuple[str, float], ...] = ()


class ChatResponse(BaseModel):
    """What a provider answered, with what it cost in tokens and time.

    Every answer enters judgekit as one of these, from a provider, a batch or the cache, so
    the keys are cut out here (:func:`~judgekit._util.redaction.redact`): a server that
    echoes the key it was sent puts it in no verdict, cache entry, store row or line printed.
    An answer whose tokens spell a key keeps no tokens, as a key split across tokens has no
    one token to redact.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    text: str
    model: str
    input_tokens: int = 0
    output_tokens: int = 0
    latency_s: float = 0.0
    tokens: tuple[TokenLogprob, ...] | None = Field(
        default=None,
        description="The answer's tokens with log-probabilities, when asked and given.",
    )

    @field_validator("text", "model")
    @classmethod
    def _without_keys(cls, value: str) -> str:
        return redact(value)

    @field_validator("tokens")
    @classmethod
    def _tokens_without_keys(
        cls, tokens: tuple[TokenLogprob, ...] | None
    ) -> tuple[TokenLogprob, ...] | None:
        if tokens is None:
            return None
        spelled = "".join(token.token for token in tokens)
        alternatives = "\n".join(alt for token in tokens for alt, _ in token.top)
        if redact(spelled) != spelled or redact(alternatives) != alternatives:
            return None
        return tokens


@dataclass(frozen=True)
class Answered:
    """An answer with the rate-limit headers it came with (lower-case names; none from a
    provider that sends none), which pace the requests after it."""

    response: ChatResponse
    rate_headers: Mapping[str, str] = field(default_factory=dict)


class ChatProvider(ABC):
    """A model provider. ``name`` is the part before the slash in ``provider/model``.

    ``key_variable`` is the environment variable the provider reads its API key from, if
    any: its value is redacted from every message, and key errors tell the user to set it.
    """

    name: str
    key_variable: str | None = None

    @abstractmethod
    async def complete(self, request: ChatRequest) -> ChatResponse:
        """Ask once; raise :class:`judgekit.errors.ProviderError` (retryable or not) on failure."""

    async def answer(self, request: ChatRequest) -> Answered:
        """:meth:`complete`, with the answer's rate-limit headers; providers that read them
        override it."""
        return Answered(await self.complete(request))

    @property
    def endpoint(self) -> str:
        """Where requests go (a base URL), or "" for a provider with one fixed endpoint.

        The judge cache keys answers by it: the same model name behind another server, a
        proxy or a local stand-in may answer differently, so its answers must not collide.
        """
        return ""

    async def aclose(self) -> None:
        """Release connections; providers holding none need not override it."""
        return None
