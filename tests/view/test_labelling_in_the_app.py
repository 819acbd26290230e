"""Labelling through the view's routes: the terminal's plan, keys and files — each label a
durable line of the same labels file, each run assigned to the split at once, a revealed
test label spent, undo a second line, a stale page writing nothing, and a new start resuming."""

from __future__ import annotations

import json
import re
from pathlib import Path

from judgekit.formats.label import item_hash
from judgekit.formats.split_file import read_split_file
from judgekit.labelling.sampling import order_for_labelling
from tests.view.conftest import Client, client_for

RUBRIC = "goal_completion"


def _shown(client: Client, labeler: str) -> str:
    page = client.text("/label", {"rubric": RUBRIC, "labeler": labeler})
    found = re.search(r'<h1 id="run-id">([^<]*)</h1>', page)
    assert found is not None, page
    return found.group(1)


def _press(client: Client, labeler: str, key: str, note: str = "") -> None:
    shown = _shown(client, labeler)
    form = {"rubric": RUBRIC, "labeler": labeler, "key": key, "shown": shown, "note": note}
    response = client.post("/label/act", form)
    assert response.status == 303
    assert response.headers["Location"] == f"/label?rubric={RUBRIC}&labeler={labeler}"


def _new_lines(path: Path, before: bytes) -> list[dict[str, object]]:
    data = path.read_bytes()
    assert data.startswith(before)
    return [json.loads(line) for line in data[len(before) :].splitlines()]


def test_keys_label_skip_undo_and_note_as_in_the_terminal(demo_folder: Path) -> None:
    client = client_for(demo_folder)
    labels = demo_folder / "labels" / f"{RUBRIC}.jsonl"
    before = labels.read_bytes()
    started = client.post(
        "/label/start", {"rubric": RUBRIC, "labeler": "ana", "limit": "6", "seed": "3"}
    )
    assert started.headers["Location"] == f"/label?rubric={RUBRIC}&labeler=ana"
    order = order_for_labelling(list(client.app.data.runs), {}, "random", seed=3)[:6]
    assert _shown(client, "ana") == order[0]
    _press(client, "ana", "p")
    _press(client, "ana", "f", note="claims a refund it never made")
    _press(client, "ana", "s")
    assert _shown(client, "ana") == order[3]
    _press(client, "ana", "u")  # back to the skipped run
    assert _shown(client, "ana") == order[2]
    _press(client, "ana", "u")  # back to the second: labelled, shown again
    page = client.text("/label", {"rubric": RUBRIC, "labeler": "ana"})
    assert "you labelled it fail; a new label supersedes it" in page
    _press(client, "ana", "p")
    _press(client, "ana", "x")  # not a key: said, nothing written
    page = client.text("/label", {"rubric": RUBRIC, "labeler": "ana"})
    assert "&#39;x&#39; is not a key here: p pass · f fail" in page
    lines = _new_lines(labels, before)
    runs = client.app.data.runs
    assert [(line["run_id"], line["label"], line.get("note")) for line in lines] == [
        (order[0], "pass", None),
        (order[1], "fail", "claims a refund it never made"),
        (order[1], "pass", None),
    ]
    for line in lines:
        assert line["labeler"] == "ana" and line["rubric_id"] == RUBRIC
        assert line["revealed"] is False
        assert line["item_hash"] == item_hash(runs[str(line["run_id"])].item.text)
    split = read_split_file(demo_folder / "labels" / f"{RUBRIC}.split.jsonl")
    for run in order[:2]:  # assigned as labelled; a run the demo had split keeps its side
        assert split.assignments[run].side in ("dev", "test")


def test_a_page_left_behind_writes_nothing(demo_folder: Path) -> None:
    client = client_for(demo_folder)
    labels = demo_folder / "labels" / f"{RUBRIC}.jsonl"
    client.post("/label/start", {"rubric": RUBRIC, "labeler": "bo", "limit": "3"})
    before = labels.read_bytes()
    form = {"rubric": RUBRIC, "labeler": "bo", "key": "p", "shown": "not/the/run/shown"}
    client.post("/label/act", form)
    assert labels.read_bytes() == before
    page = client.text("/label", {"rubric": RUBRIC, "labeler": "bo"})
    assert "that page was out of date; this is the run to label now" in page


def test_a_new_start_resumes_where_the_last_session_stopped(demo_folder: Path) -> None:
    first = client_for(demo_folder)
    first.post("/label/start", {"rubric": RUBRIC, "labeler": "cy", "limit": "4"})
    order = order_for_labelling(list(first.app.data.runs), {}, "random", seed=0)[:4]
    _press(first, "cy", "p")
    _press(first, "cy", "f")
    again = client_for(demo_folder)  # a new server over the same files
    again.post("/label/start", {"rubric": RUBRIC, "labeler": "cy", "limit": "4"})
    assert _shown(again, "cy") == order[2]
    page = again.text("/label", {"rubric": RUBRIC, "labeler": "cy"})
    assert "labelled 2 · to go 2 · your tally: pass 1, fail 1" in page
    _press(again, "cy", "p")
    _press(again, "cy", "p")
    done = again.text("/label", {"rubric": RUBRIC, "labeler": "cy"})
    assert "done: every run of the sample is labelled (4 labelled, 0 skipped)" in done


def test_reveal_shows_the_judge_after_the_label_and_spends_a_test_label(
    demo_folder: Path,
) -> None:
    client = client_for(  # the shop runs alone: the ones the demo's judges judged
        demo_folder / "shop",
        rubric_refs=[str(demo_folder / "rubrics")],
        labels_dir=demo_folder / "labels",
        verdicts=[demo_folder / "verdicts"],
    )
    assert len(client.app.data.runs) == 160
    split_file = demo_folder / "labels" / f"{RUBRIC}.split.jsonl"
    client.post("/label/start", {"rubric": RUBRIC, "labeler": "di", "limit": "12", "reveal": "1"})
    assert 'id="reveal"' not in client.text("/label", {"rubric": RUBRIC, "labeler": "di"})
    sides = []
    for _ in range(12):
        run = _shown(client, "di")
        _press(client, "di", "p")
        page = client.text("/label", {"rubric": RUBRIC, "labeler": "di"})
        assert f"you labelled {run} pass" in page
        assert "judge local/careful-judge:" in page
        split = read_split_file(split_file)
        sides.append((run, split.assignments[run].side))
    split = read_split_file(split_file)
    tested = [run for run, side in sides if side == "test"]
    assert tested, sides
    for run in tested:  # agreeing or not: the person saw the verdict beside the label
        assert (
            split.spent.get(run)
            == "revealed after labelling: the judge's verdict was shown beside it"
        )
