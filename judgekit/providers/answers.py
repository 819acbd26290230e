"""What a provider's answer must look like before any of it is used.

The SDKs build their response objects without checking them, so a server answering in
another API's shape (an OpenAI-compatible server behind ``anthropic/<model>``, a proxy's
own JSON, ``null``) used to end deep in judging as ``TypeError: 'NoneType' object is not
iterable``. The raw body is read here instead:

- a body that is not JSON, or JSON too deeply nested or with a number too long to read,
  is a malformed response, retryable like any garbled answer;
- JSON of the wrong shape is a :class:`~judgekit.errors.ProviderError` naming the URL that
  answered and what is wrong, not retryable (the same server answers the same way), with
  the likely fix: a ``--base-url`` that speaks the provider's API.

>>> read_answer(b'{"choices": []}', OpenAICompletion, provider="openai", url="http://h/v1")
OpenAICompletion(choices=[], model=None, usage=None)
>>> read_answer(b'{"id": "msg_1"}', OpenAICompletion, provider="openai", url="http://h/v1")
Traceback (most recent call last):
judgekit.errors.ProviderError: OpenAI answered http://h/v1 with JSON that is not a chat completion (choices: Field required): check that --base-url is an OpenAI-compatible server
"""

from __future__ import annotations

from typing import Any, Final, TypeVar

from pydantic import BaseModel, Field, ValidationError, model_validator

from judgekit._util.jsonl import parse_json
from judgekit.errors import ProviderError
from judgekit.providers.failures import provider_label

__all__ = ["AnthropicMessage", "OpenAICompletion", "OpenAILogprobs", "read_answer"]

M = TypeVar("M", bound=BaseModel)


class _OpenAIMessage(BaseModel):
    # None when the model refused or called a tool: an empty answer, which the judge then
    # reports as unparseable rather than this layer guessing.
    content: str | None = None


class _OpenAITopLogprob(BaseModel):
    token: str
    logprob: float


class _OpenAITokenLogprob(BaseModel):
    token: str
    logprob: float
    top_logprobs: list[_OpenAITopLogprob] = Field(default_factory=list)


class OpenAILogprobs(BaseModel):
    """A choice's token log-probabilities (``logprobs=True``); ``content`` is null without."""

    content: list[_OpenAITokenLogprob] | None = None


class _OpenAIChoice(BaseModel):
    message: _OpenAIMessage
    # Present when log-probabilities were asked for and the server gives them (null else).
    logprobs: OpenAILogprobs | None = None


class _OpenAIUsage(BaseModel):
    prompt_tokens: int | None = Field(default=0, ge=0)
    completion_tokens: int | None = Field(default=0, ge=0)


class OpenAICompletion(BaseModel):
    """The part of a chat completion judgekit reads (other fields are ignored)."""

    choices: list[_OpenAIChoice]
    model: str | None = None
    usage: _OpenAIUsage | None = None


class _AnthropicBlock(BaseModel):
    type: str
    text: Any = None

    @model_validator(mode="after")
    def _text_blocks_hold_text(self) -> _AnthropicBlock:
        if self.type == "text" and not isinstance(self.text, str):
            raise ValueError("a text block needs a string `text`")
        return self


class _AnthropicUsage(BaseModel):
    input_tokens: int = Field(ge=0)
    output_tokens: int = Field(ge=0)


class AnthropicMessage(BaseModel):
    """The part of a Messages API response judgekit reads (other fields are ignored)."""

    content: list[_AnthropicBlock]
    model: str | None = None
    usage: _AnthropicUsage

    @property
    def text(self) -> str:
        """The text blocks, joined (tool use and thinking blocks are not the answer)."""
        return "".join(block.text for block in self.content if block.type == "text")


_WHAT: Final[dict[type[BaseModel], tuple[str, str]]] = {
    OpenAICompletion: ("a chat completion", "an OpenAI-compatible server"),
    AnthropicMessage: ("a Messages API response", "an Anthropic-compatible server"),
}


def read_answer(raw: bytes, shape: type[M], *, provider: str, url: str) -> M:
    """The body a server answered with, checked against ``shape``; raises ProviderError."""
    label = provider_label(provider)
    try:
        data = parse_json(raw)
    except ValueError as exc:  # malformed, too deep, a number too long; or not UTF-8
        raise ProviderError(
            f"{label} sent a malformed response from {url}: the body is not JSON ({exc})",
            retryable=True,
        ) from exc
    try:
        return shape.model_validate(data)
    except (ValidationError, RecursionError) as exc:
        what, fix = _WHAT.get(shape, (shape.__name__, "the right kind of server"))
        problem = _first_problem(exc) if isinstance(exc, ValidationError) else "nested too deeply"
        raise ProviderError(
            f"{label} answered {url} with JSON that is not {what} ({problem}): "
            f"check that --base-url is {fix}"
        ) from None


def _first_problem(exc: ValidationError) -> str:
    """``choices.0.message: expected an object, got null``: where, and what is wrong."""
    first = exc.errors(include_url=False)[0]
    where = ".".join(str(part) for part in first["loc"])
    if first["type"] == "model_type":  # the SDK-free wording of "a valid dictionary or instance"
        message = f"expected an object, got {_json_kind(first.get('input'))}"
    else:
        message = str(first["msg"]).removeprefix("Value error, ")
    return f"{where}: {message}" if where else message


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    return "a string" if isinstance(value, str) else "a list"
