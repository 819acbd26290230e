"""Helpers for testing judge plumbing offline: a fake OpenAI/Anthropic server.

>>> from judgekit.testing import FakeLLMServer
>>> with FakeLLMServer() as server:
...     server.openai_base_url.startswith("http://127.0.0.1:")
True
"""

from __future__ import annotations

from judgekit.testing.fake_llm_server import (
    DEFAULT_VERDICT,
    FakeLLMServer,
    FakeRequest,
    FaultPlan,
    RateLimit,
    Reply,
)

__all__ = ["DEFAULT_VERDICT", "FakeLLMServer", "FakeRequest", "FaultPlan", "RateLimit", "Reply"]
