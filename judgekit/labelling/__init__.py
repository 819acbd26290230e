"""Hand labelling: a blind, resumable prompt in the terminal, and the label store.

::

    judgekit label runs.jsonl --rubric goal_completion --labeler ana
    judgekit labels --rubric goal_completion
"""

from __future__ import annotations

from judgekit.formats.label import LabelLog, item_hash, labels_path, read_labels
from judgekit.labelling.keys import ScaleKeys, scale_keys
from judgekit.labelling.labels_file import LabelWriter
from judgekit.labelling.sampling import STRATEGIES, Strategy, order_for_labelling
from judgekit.labelling.screen import Item, LabelScreen, item_text, make_item
from judgekit.labelling.session import label_items
from judgekit.labelling.session_state import SessionOutcome

__all__ = [
    "STRATEGIES",
    "Item",
    "LabelLog",
    "LabelScreen",
    "LabelWriter",
    "ScaleKeys",
    "SessionOutcome",
    "Strategy",
    "item_hash",
    "item_text",
    "label_items",
    "labels_path",
    "make_item",
    "order_for_labelling",
    "read_labels",
    "scale_keys",
]
