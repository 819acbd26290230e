"""Write labels/goal_completion.jsonl, the hand labels ``judgekit demo`` calibrates against
(a link to the file the package ships, ``judgekit/demo/project/labels/``).

The labels are the deterministic outcome of a stratified sample of the demo's shop runs
(labeller ``demo-truth``), each with the hash of the text a labeller would see. The runs
are seeded by suite, task and trial, so the file keeps matching them until the shop's stub
agent or tasks change; tests/demo/test_demo.py then reports it stale. Write it again with:

    python examples/make_demo_labels.py
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from judgekit.demo.common import SHOP, project_root
from judgekit.demo.labels import bundled_labels_path, demo_labels, write_labels
from judgekit.demo.trials import run_suite


def main() -> None:
    root = project_root()
    with tempfile.TemporaryDirectory() as tmp:
        run = run_suite(SHOP, root, Path(tmp))
        labels = demo_labels(run.runs(), run.truth, run.tasks)
    path = bundled_labels_path(root)
    write_labels(path, labels)
    passed = sum(label.label == "pass" for label in labels)
    print(f"wrote {len(labels)} labels ({passed} pass, {len(labels) - passed} fail) to {path}")


if __name__ == "__main__":
    main()
