"""How graders show calls in their reasons: ``book(flight_id='AA123', seats=1)``."""

from __future__ import annotations

from judgekit.formats.matchers import render_value
from judgekit.graders.run_view import CallView


def render_call(call: CallView, limit: int = 120) -> str:
    if call.arguments_error is not None:
        return f"{call.name}(<invalid arguments {render_value(call.raw_arguments, 40)}>)"
    inner = ", ".join(f"{k}={render_value(v, 40)}" for k, v in call.args.items())
    text = f"{call.name}({inner})"
    return text if len(text) <= limit else text[: limit - 2] + "…)"


def call_label(index: int) -> str:
    """Calls are numbered from 1 in reasons, as people count them."""
    return f"call #{index + 1}"
