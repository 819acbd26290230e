"""Human labels of other platforms read from their exports: Langfuse scores, LangSmith
feedback, Phoenix annotations and MLflow assessments, each read as
:class:`~judgekit.importers.human_labels.records.PlatformLabel` records (what they label,
the value's text, who gave it and when, whether a person did).

::

    labels = LABEL_READERS["langfuse"]([Path("scores.jsonl")])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from judgekit.importers.human_labels.langfuse_scores import read_langfuse_scores
from judgekit.importers.human_labels.langsmith_feedback import read_langsmith_feedback
from judgekit.importers.human_labels.mlflow_assessments import read_mlflow_assessments
from judgekit.importers.human_labels.phoenix_annotations import read_phoenix_annotations
from judgekit.importers.human_labels.records import PlatformLabel, Target

__all__ = ["LABEL_READERS", "PLATFORMS", "PlatformLabel", "Target"]

LABEL_READERS: dict[str, Callable[[Sequence[Path]], list[PlatformLabel]]] = {
    "langfuse": read_langfuse_scores,
    "langsmith": read_langsmith_feedback,
    "phoenix": read_phoenix_annotations,
    "mlflow": read_mlflow_assessments,
}
PLATFORMS = tuple(LABEL_READERS)
