"""The hand-label format (``labels/<rubric_id>.jsonl``), one append-only line per label."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class Label(BaseModel):
    """A person's verdict on one run under one rubric.

    A later line for the same (run, rubric, labeler) supersedes an earlier one.
    """

    model_config = ConfigDict(extra="forbid")

    run_id: str
    rubric_id: str
    label: Any = Field(
        description="pass/fail, 1..5, a choice, or A/B/tie, as the rubric's scale says"
    )
    labeler: str
    at: datetime
    note: str | None = None
    item_hash: str | None = Field(
        default=None, description="sha256 of the text the labeler saw; absent for imported labels"
    )
    revealed: bool | None = Field(
        default=None,
        description="Whether the judge's verdict was shown right after the label (--reveal); "
        "absent for imported labels",
    )
