"""`judgekit label` assigns each new label's run to the dev or test side at once, and a test
label whose judge verdict was revealed is spent, the judge agreeing or not."""

from __future__ import annotations

import json
from pathlib import Path

from judgekit.calibration.split import run_hash
from tests.labelling.conftest import run_piped, shop_order
from tests.labelling.test_label_prompt import verdicts_file

SPLIT = Path("labels") / "goal_completion.split.jsonl"


def split_lines(tmp: Path) -> list[dict[str, object]]:
    lines = []
    for text in (tmp / SPLIT).read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        assert line.pop("at").endswith("Z")
        lines.append(line)
    return lines


def test_each_label_is_assigned_at_once_and_a_revealed_test_label_is_spent(
    tmp_path: Path,
) -> None:
    order = shop_order()
    assert [run_hash("goal_completion", run)[0] for run in order[:4]] == [164, 14, 123, 98]
    # Every verdict says pass: the fail labels disagree with what --reveal shows.
    verdicts = verdicts_file(tmp_path)
    done = run_piped(tmp_path, "f\np\np\nf\nq\n", "--verdicts", verdicts, "--reveal")
    assert done.returncode == 0, done.stderr
    revealed = "revealed after labelling: the judge's verdict was shown beside it"
    assigned = {"test_share": 0.5}
    assert split_lines(tmp_path) == [
        # fail, its class empty: byte 164 → dev (the revealed disagreement is on dev: kept)
        {"run_id": order[0], "side": "dev", "label": "fail", "labels": {"ana": "fail"}, **assigned},
        # pass, its class empty: byte 14 → test; the judge's agreeing pass was revealed:
        # spent all the same (spending only disagreements would keep the agreements)
        {
            "run_id": order[1],
            "side": "test",
            "label": "pass",
            "labels": {"ana": "pass"},
            **assigned,
        },
        {"run_id": order[1], "spent": revealed},
        # pass, 1 of 1 pass on test → dev
        {"run_id": order[2], "side": "dev", "label": "pass", "labels": {"ana": "pass"}, **assigned},
        # fail, 0 of 1 fail on test → test; the judge's pass was revealed: spent
        {
            "run_id": order[3],
            "side": "test",
            "label": "fail",
            "labels": {"ana": "fail"},
            **assigned,
        },
        {"run_id": order[3], "spent": revealed},
    ]


def test_without_reveal_nothing_is_spent(tmp_path: Path) -> None:
    order = shop_order()
    done = run_piped(tmp_path, "f\np\np\nf\nq\n", "--verdicts", verdicts_file(tmp_path))
    assert done.returncode == 0, done.stderr
    assert [(line["run_id"], line.get("side")) for line in split_lines(tmp_path)] == [
        (order[0], "dev"),
        (order[1], "test"),
        (order[2], "dev"),
        (order[3], "test"),
    ]
