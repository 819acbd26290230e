"""A rubric promoted for real in a test: hand labels, a split with every labelled run on the
test side, the judge's verdicts, and ``judgekit promote`` writing a record that holds."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from threading import Lock
from typing import Any

from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.rubric_file import load_rubric, rubric_version
from judgekit.testing.fake_llm_server import FakeRequest
from tests.conftest import REPO

AT = datetime(2026, 11, 1, tzinfo=UTC).isoformat()
Score = str | int


def balanced(n_per_class: int = 30, *, prefix: str = "p") -> dict[str, str]:
    """``n_per_class`` runs labelled pass and as many fail."""
    return {f"{prefix}{i}": "pass" if i % 2 else "fail" for i in range(2 * n_per_class)}


def promote_for_real(
    rubric_path: Path,
    human: Mapping[str, Score],
    judged: Mapping[str, Score] | None = None,
    *,
    confidences: Mapping[str, float] | None = None,
    store: bool = False,
) -> dict[str, Any]:
    """Promote the rubric at ``rubric_path`` on the labels ``human`` (run → label; written
    to ``labels/<id>.jsonl`` beside ``rubrics/`` unless that file exists already) against
    the verdicts ``judged`` (run → score; default: the labels), each with its confidence
    when given. Every labelled run is a test run. Returns the record written."""
    rubric = load_rubric(rubric_path)
    labels = rubric_path.parent.parent / "labels" / f"{rubric.id}.jsonl"
    labels.parent.mkdir(exist_ok=True)
    if not labels.exists():
        rows = [
            {"run_id": r, "rubric_id": rubric.id, "label": h, "labeler": "ana", "at": AT}
            for r, h in human.items()
        ]
        labels.write_text("".join(json.dumps(row) + "\n" for row in rows))
    split = labels.with_name(f"{rubric.id}.split.jsonl")
    split.write_text(
        "".join(
            json.dumps({"run_id": r, "side": "test", "label": h, "test_share": 1.0, "at": AT})
            + "\n"
            for r, h in human.items()
        )
    )
    verdicts = rubric_path.parent.parent / f"{rubric.id}.promoted-verdicts.jsonl"
    rows = [
        {
            "run_id": r,
            "rubric_id": rubric.id,
            "rubric_version": rubric_version(rubric),
            "model": rubric.judge.model,
            "status": "scored",
            "score": s,
            "confidence": None if confidences is None else confidences[r],
            "at": AT,
        }
        for r, s in (judged or human).items()
    ]
    verdicts.write_text("".join(json.dumps(row) + "\n" for row in rows))
    args = ["promote", "--rubric", str(rubric_path), "--verdicts", str(verdicts)]
    args += ["--labels", str(labels), *([] if store else ["--no-store"])]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    record: dict[str, Any] = json.loads(
        (rubric_path.parent / f"{rubric.id}.promotion.json").read_text()
    )
    return record


def selective_rubric(tmp_path: Path) -> Path:
    """goal_completion asking five samples, promoted selectively on 200 test labels: its
    threshold keeps only verdicts whose five samples all agree (coverage 0.9)."""
    folder = tmp_path / "rubrics"
    folder.mkdir()
    path = folder / "goal_completion.yaml"
    text = (REPO / "rubrics" / "goal_completion.yaml").read_text()
    text = text.replace("temperature: 0, samples: 1", "temperature: 1, samples: 5")
    path.write_text(
        text.replace("promotion: {", "promotion: {selective: {alpha: 0.1, delta: 0.1}, ")
    )
    human = {f"shop/l/{i}": "pass" if i % 2 else "fail" for i in range(200)}
    flipped = {"pass": "fail", "fail": "pass"}
    judged = {r: flipped[h] if i < 20 else h for i, (r, h) in enumerate(human.items())}
    sure = {r: 0.6 if i < 20 else 1.0 for i, r in enumerate(human)}
    promote_for_real(path, human, judged, confidences=sure)
    return path


def hesitant_judge() -> Any:
    """Passes every answer; on those that say "unsure" its five samples split 3 to 2."""
    asked: Counter[str] = Counter()
    lock = Lock()

    def reply(request: FakeRequest) -> str:
        answer = re.search(r"ticket (\d+)", request.text)
        assert answer is not None
        with lock:
            asked[answer.group(1)] += 1
            nth = asked[answer.group(1)]
        score = "fail" if "unsure" in request.text and nth % 5 in (1, 3) else "pass"
        return json.dumps({"reason": "checked", "score": score})

    return reply
