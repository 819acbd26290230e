"""The recheck of a selective promotion: the judge, asked five times per run on the fake
server, keeps its guarantee when its errors stay where its samples split, and breaks it
(the rubric goes stale) when it turns confidently wrong — even with kappa at its level."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from threading import Lock
from typing import Any

import pytest
from scipy.stats import binom

from judgekit.testing import FakeLLMServer
from judgekit.testing.fake_llm_server import FakeRequest
from tests.monitoring.test_recheck import RUBRIC, TRUTH, promoted, recheck, rubric_status
from tests.promoted import promote_for_real

__all__ = ["promoted"]  # the fixture, used here

_RUN = re.compile(r"\(run (shop/t/(\d+))\)")


def sampled_judge(wrong_samples: dict[int, int]) -> Any:
    """Five samples per run: the first ``wrong_samples[i % 10]`` of run i's are wrong."""
    asked: Counter[str] = Counter()
    lock = Lock()

    def reply(request: FakeRequest) -> str:
        run_id, number = _RUN.findall(request.text)[-1]
        with lock:
            asked[run_id] += 1
            nth = asked[run_id]
        right = nth > wrong_samples.get(int(number) % 10, 0)
        passed = TRUTH[run_id] == right
        return json.dumps({"reason": "checked", "score": "pass" if passed else "fail"})

    return reply


@pytest.fixture
def selective(promoted: Path) -> Path:
    """The promoted rubric judged with five samples and promoted selectively at α = 0.1:
    its judge was sure and right on 70 runs, right at 0.8 on 10 (i % 10 == 7) and wrong at
    0.6 on 20 (i % 10 in {8, 9}), so the threshold is 0.8 (coverage 0.8)."""
    path = promoted / "rubrics" / "answer_ok.yaml"
    text = RUBRIC.replace("temperature: 0, samples: 1", "temperature: 1, samples: 5")
    path.write_text(text + "promotion: {selective: {alpha: 0.1, delta: 0.1}}\n")
    human = {r: "pass" if ok else "fail" for r, ok in TRUTH.items()}
    flipped = {"pass": "fail", "fail": "pass"}
    judged, sure = {}, {}
    for run, label in human.items():
        digit = int(run.rsplit("/", 1)[1]) % 10
        judged[run] = flipped[label] if digit in (8, 9) else label
        sure[run] = {7: 0.8, 8: 0.6, 9: 0.6}.get(digit, 1.0)
    promote_for_real(path, human, judged, confidences=sure)
    return promoted


def test_errors_where_the_samples_split_keep_the_guarantee(selective: Path) -> None:
    # i % 10 == 8: 3 of 5 samples wrong (a wrong verdict at 0.6); == 9: 2 wrong (right, 0.6).
    with FakeLLMServer(reply=sampled_judge({8: 3, 9: 2})) as server:
        code, found = recheck(server)
        assert server.calls == 500
    assert code == 0 and found["drifted"] is False
    assert found["guarantee"] == {
        "alpha": 0.1,
        "threshold": 0.8,
        "n": 100,
        "kept": 80,
        "errors": 0,
        "coverage": 0.8,
        "agreement_on_kept": 1.0,
        "p_value": 1.0,
        "test_alpha": 0.05,
        "broken": False,
    }
    assert found["message"].endswith(
        "; selective guarantee held: agreement on kept 1.000 (80 of 80 kept at threshold 0.8, "
        "coverage 0.80) against the promised ≥ 0.90, one-sided p = 1.000, alpha 0.05"
    )
    assert rubric_status() == "promoted"


def test_a_confidently_wrong_judge_breaks_the_guarantee(selective: Path) -> None:
    # Runs i % 10 in {0, 1}: all five samples wrong (confidence 1, wrong); 8 and 9 as above.
    with FakeLLMServer(reply=sampled_judge({0: 5, 1: 5, 8: 3, 9: 2})) as server:
        code, found = recheck(server)
    assert code == 1 and found["drifted"] is True
    # Kappa fell from the promoted 0.6 barely enough to tell (its own test): the guarantee,
    # tested on the kept verdicts alone, is broken by far.
    assert found["p_value"] == pytest.approx(0.0482, abs=1e-4)
    guarantee = found["guarantee"]
    assert (guarantee["kept"], guarantee["errors"], guarantee["broken"]) == (80, 20, True)
    assert guarantee["p_value"] == pytest.approx(binom.sf(19, 80, 0.1), rel=1e-9)
    assert found["message"].endswith(
        "; selective guarantee broken: agreement on kept 0.750 (60 of 80 kept at threshold "
        "0.8, coverage 0.80) against the promised ≥ 0.90, one-sided p < 0.0001, alpha 0.05"
    )
    record = json.loads((selective / "rubrics" / "answer_ok.promotion.json").read_text())
    assert record["stale"]["reason"] == f"judge drift: {found['message']}"
    assert rubric_status() == "stale"
