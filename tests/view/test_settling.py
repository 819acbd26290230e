"""Settling labellers' disagreements in the view: the runs listed with each labeller's label
and note and no verdict, the settled label a line of the labels file naming who it settles,
and calibrate's figures on the rubric page taking it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from judgekit.formats.split_file import read_split_file
from tests.view.conftest import client_for

RUBRIC = "goal_completion_sloppy"


def test_a_disagreement_between_labellers_is_settled_and_counted(demo_folder: Path) -> None:
    labels = demo_folder / "labels" / f"{RUBRIC}.jsonl"
    split = read_split_file(demo_folder / "labels" / f"{RUBRIC}.split.jsonl")
    first = json.loads(labels.read_text().splitlines()[0])
    dev = sorted(run for run, line in split.assignments.items() if line.side == "dev")
    run = dev[0]
    truth = next(
        json.loads(line)
        for line in labels.read_text().splitlines()
        if json.loads(line)["run_id"] == run
    )
    other = "pass" if truth["label"] == "fail" else "fail"
    disagreeing = {**first, "run_id": run, "label": other, "labeler": "ana", "note": "<b>sure</b>"}
    with labels.open("a") as fh:
        fh.write(json.dumps(disagreeing) + "\n")
    client = client_for(demo_folder)
    rubric_page = client.text("/rubric", {"id": RUBRIC})
    assert "1 runs where labellers disagree: settle them" in rubric_page
    shared = "ana 1 · demo-truth 120; 1 runs labelled by two or more: cohen_kappa 0.000"
    assert shared in rubric_page
    tied = re.search(r"(\d+) runs with tied labels left out", rubric_page)
    assert tied is not None and tied.group(1) == "1"
    page = client.text("/settle", {"rubric": RUBRIC})
    assert '<p id="unsettled-count">1 runs to settle</p>' in page
    assert f'<h2 class="settle-run">{run}</h2>' in page
    assert "&lt;b&gt;sure&lt;/b&gt;" in page and "<b>sure</b>" not in page
    assert "sloppy-judge" not in page.split("<main>")[1]  # no verdict here
    before = labels.read_bytes()
    key = truth["label"][0]
    response = client.post("/settle", {"rubric": RUBRIC, "run": run, "key": key, "settler": "lead"})
    assert response.status == 303
    assert response.headers["Location"] == f"/settle?rubric={RUBRIC}&settler=lead"
    (line,) = [json.loads(raw) for raw in labels.read_bytes()[len(before) :].splitlines()]
    assert (line["run_id"], line["label"], line["labeler"], line["settles"]) == (
        run,
        truth["label"],
        "lead",
        ["ana", "demo-truth"],
    )
    assert "nothing to settle: every run's labellers agree" in client.text(
        "/settle", {"rubric": RUBRIC}
    )
    after = client.text("/rubric", {"id": RUBRIC})
    assert "0 runs with tied labels left out" in after
    assert shared in after  # the labellers' own labels, as they were


def test_settling_a_run_nobody_disagrees_on_is_refused(demo_folder: Path) -> None:
    client = client_for(demo_folder)
    labels = demo_folder / "labels" / f"{RUBRIC}.jsonl"
    before = labels.read_bytes()
    form = {"rubric": RUBRIC, "run": "shop/refund_full/2", "key": "p", "settler": "lead"}
    response = client.post("/settle", form)
    assert response.status == 409
    assert (
        "run &#39;shop/refund_full/2&#39; has no disagreement between labellers to settle"
        in response.body.decode()
    )
    assert labels.read_bytes() == before
