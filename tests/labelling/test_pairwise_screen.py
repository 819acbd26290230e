"""A pairwise run shows both answers to the labeller, and they are part of what is hashed."""

from __future__ import annotations

from judgekit.formats.run import Run
from judgekit.labelling.screen import make_item


def test_pairwise_runs_show_both_answers() -> None:
    run = Run(
        run_id="p1",
        task_id="t",
        input="Name a prime.",
        tool_calls=[],
        metadata={"answers": ["7", "9"]},
    )
    item = make_item(run)
    assert item.text.endswith("Answer A:\n7\n\nAnswer B:\n9")
    swapped = make_item(run.model_copy(update={"metadata": {"answers": ["9", "7"]}}))
    assert swapped.hash != item.hash
