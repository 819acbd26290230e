"""A request to the fake server, read the same way whichever API it was sent to."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["PATHS", "Api", "FakeRequest", "api_key_of", "read_request"]

Api = Literal["openai", "anthropic"]

PATHS: dict[str, Api] = {"/v1/chat/completions": "openai", "/v1/messages": "anthropic"}
"""The route of each API's chat endpoint."""


@dataclass(frozen=True)
class FakeRequest:
    """One API request as the server received it.

    ``messages`` holds ``{"role", "content"}`` pairs with content flattened to text; Anthropic's
    top-level ``system`` prompt comes first with role ``"system"``, so one ``reply`` function
    serves both APIs. ``body`` is the raw JSON body; ``headers`` have lower-case names.
    """

    api: Api
    model: str
    messages: list[dict[str, str]]
    body: dict[str, Any]
    headers: dict[str, str]

    @property
    def text(self) -> str:
        """Every message's content, one per line (handy for finding a marker in a prompt)."""
        return "\n".join(message["content"] for message in self.messages)


def read_request(api: Api, body: dict[str, Any], headers: Iterable[tuple[str, str]]) -> FakeRequest:
    """The request a JSON object ``body`` sent to ``api`` with ``headers`` (name, value
    pairs, the last of a name winning) makes."""
    return FakeRequest(
        api=api,
        model=str(body.get("model", "")),
        messages=_flatten_messages(api, body),
        body=body,
        headers={name.lower(): value for name, value in headers},
    )


def api_key_of(request: FakeRequest) -> str | None:
    """The API key the request was sent with, if any."""
    # Anthropic's SDK sends `x-api-key` or, in recent versions, `Authorization: Bearer`.
    if "x-api-key" in request.headers:
        return request.headers["x-api-key"]
    authorization = request.headers.get("authorization", "")
    return authorization.removeprefix("Bearer ") if authorization.startswith("Bearer ") else None


def _text_of(content: object) -> str:
    """A message's content as text: a string, or the text of its content blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(block.get("text", ""))
            for block in content
            if isinstance(block, dict) and block.get("type") == "text"
        )
    return ""


def _flatten_messages(api: Api, body: dict[str, Any]) -> list[dict[str, str]]:
    messages = body.get("messages")
    flat = [
        {"role": str(message.get("role", "")), "content": _text_of(message.get("content"))}
        for message in (messages if isinstance(messages, list) else [])
        if isinstance(message, dict)
    ]
    if api == "anthropic" and body.get("system"):
        flat.insert(0, {"role": "system", "content": _text_of(body["system"])})
    return flat
