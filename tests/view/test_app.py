"""The view's routes on the demo's folder: what each page shows, which labels stay hidden,
and what every write puts in the files — the app called as its HTTP server calls it."""

from __future__ import annotations

import json
import re
from pathlib import Path

from judgekit.formats.split_file import read_split_file
from judgekit.view.held_out import VIEW_SPENT
from tests.view.conftest import PORT, TOKEN, client_for


def _count(page: str) -> str:
    found = re.search(r'id="count">([^<]*)<', page)
    assert found is not None
    return found.group(1)


def _run_links(page: str) -> list[str]:
    return re.findall(r'class="run-link" href="/run\?id=([^"&]*)', page)


def test_the_demo_folder_shows_its_runs_and_says_which_it_left_out(demo_folder: Path) -> None:
    client = client_for(demo_folder)
    page = client.text("/runs")
    assert _count(page) == "360 runs, page 1 of 8"
    assert (
        f"{demo_folder}/shop-candidate/runs.jsonl: 160 runs not shown: their run ids are those "
        f"of {demo_folder}/shop/runs.jsonl&#39;s runs (labels and verdicts name runs by id "
        f"alone); view it on its own: judgekit view {demo_folder}/shop-candidate"
    ) in page
    assert len(_run_links(page)) == 50
    last = client.text("/runs", {"page": "8"})
    assert _count(last) == "360 runs, page 8 of 8" and len(_run_links(last)) == 10


def test_the_sloppy_judges_disagreements_are_its_dev_ones(demo_folder: Path) -> None:
    client = client_for(demo_folder)
    query = {"rubric": "goal_completion_sloppy", "disagreement": "judge"}
    page = client.text("/runs", query)
    assert _count(page) == "16 runs"
    rubric = client.text("/rubric", {"id": "goal_completion_sloppy"})
    assert "kappa 0.426 [0.210, 0.641] (95%, analytic)" in rubric
    assert "disagreements: 16 (0 shown" in rubric
    listed = re.findall(
        r'<li><a href="/run\?id=([^"&]*)&amp;rubric=goal_completion_sloppy">', rubric
    )
    assert sorted(listed) == sorted(_run_links(page))
    # None of them is a test run: held-out labels are never compared on a page.
    split = read_split_file(demo_folder / "labels" / "goal_completion_sloppy.split.jsonl")
    from urllib.parse import unquote

    assert {split.assignments[unquote(run)].side for run in listed} == {"dev"}


def test_filters_narrow_the_rows_as_asked(demo_folder: Path) -> None:
    client = client_for(demo_folder)
    assert _count(client.text("/runs", {"source": "travel"})) == "200 runs, page 1 of 4"
    assert _count(client.text("/runs", {"task": "refund_full"})) == "40 runs"
    failed = client.text("/runs", {"source": "shop", "outcome": "fail"})
    passed = client.text("/runs", {"source": "shop", "outcome": "pass"})
    assert int(_count(failed).split()[0]) + int(_count(passed).split()[0]) == 160
    held = client.text("/runs", {"rubric": "goal_completion", "label": "held"})
    assert _count(held) == "60 runs, page 1 of 2"
    none = client.text("/runs", {"rubric": "goal_completion", "label": "none"})
    assert _count(none) == "240 runs, page 1 of 5"
    assert _count(client.text("/runs", {"q": "A100", "source": "shop"})) == "80 runs, page 1 of 2"


def test_a_run_page_shows_its_transcript_grades_verdicts_and_dev_labels(demo_folder: Path) -> None:
    client = client_for(demo_folder)
    page = client.text("/run", {"id": "shop/refund_full/2"})
    assert "Order A100 arrived broken. Refund it in full." in page
    assert page.count("<code>issue_refund</code>") == 2
    assert "orders.A100.refunded: expected 40, got 80" in page
    assert "local/careful-judge" in page and "local/sloppy-judge" in page


def test_a_held_out_label_is_hidden_until_asked_for_which_spends_it(demo_folder: Path) -> None:
    split_file = demo_folder / "labels" / "goal_completion.split.jsonl"
    split = read_split_file(split_file)
    test_run = sorted(run for run, line in split.assignments.items() if line.side == "test")[0]
    client = client_for(demo_folder)
    page = client.text("/run", {"id": test_run})
    assert "goal_completion: 1 label(s) held out for <code>judgekit promote</code>" in page
    assert "demo-truth" not in page.split("<h2>Labels</h2>")[1].split("goal_completion_sloppy")[0]
    before = split_file.read_bytes()
    response = client.post("/spend", {"rubric": "goal_completion", "run": test_run})
    assert response.status == 303
    assert (
        response.headers["Location"]
        == f"/run?id={test_run.replace('/', '%2F')}&rubric=goal_completion"
    )
    after = split_file.read_bytes()
    assert after.startswith(before)
    spent = json.loads(after[len(before) :])
    assert spent["run_id"] == test_run and spent["spent"] == VIEW_SPENT
    shown = client.text("/run", {"id": test_run})
    assert "by demo-truth" in shown.split("<h2>Labels</h2>")[1]


def test_no_page_without_the_token_and_no_write_from_another_origin(demo_folder: Path) -> None:
    client = client_for(demo_folder)
    stranger = client.get("/runs", cookie="")
    assert (stranger.status, stranger.body) == (
        403,
        b"open the address judgekit view printed: it carries the token\n",
    )
    opened = client.get("/runs", {"token": TOKEN, "rubric": "goal_completion"}, cookie="")
    assert opened.status == 303
    assert opened.headers["Location"] == "/runs?rubric=goal_completion"
    assert opened.headers["Set-Cookie"] == (
        f"judgekit_view_{PORT}={TOKEN}; HttpOnly; SameSite=Strict; Path=/"
    )
    wrong = client.get("/runs", {"token": "guess"}, cookie="")
    assert wrong.status == 403
    rebound = client.get("/runs", host=f"evil.example:{PORT}")
    assert (rebound.status, rebound.body) == (
        400,
        b"judgekit view answers only at 127.0.0.1 and localhost\n",
    )
    labels = demo_folder / "labels" / "goal_completion.jsonl"
    before = labels.read_bytes()
    start = {"rubric": "goal_completion", "labeler": "mallory"}
    other = client.post("/label/start", start, origin="http://evil.example")
    assert (other.status, other.body) == (
        403,
        b"refused: the request did not come from this view's own page (Origin)\n",
    )
    forged = client.post("/label/start", {**start, "form_token": "forged"})
    assert (forged.status, forged.body) == (
        403,
        b"refused: the form's token is missing or wrong; reload the page\n",
    )
    assert labels.read_bytes() == before
    csp = client.get("/runs").headers["Content-Security-Policy"]
    assert csp == (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    )


def test_a_rubric_page_shows_its_promotion_and_probes(demo_folder: Path) -> None:
    from judgekit.formats.probe_file import ProbeResult, add_probe

    probe = ProbeResult(
        bias="verbosity",
        rubric_version="419395345c13",
        model="local/careful-judge",
        rate=0.125,
        ci=(0.05, 0.25),
        confidence=0.95,
        n=40,
        at="2026-12-01T10:00:00Z",
    )
    add_probe(demo_folder / "rubrics" / "goal_completion.probes.json", "goal_completion", probe)
    page = client_for(demo_folder).text("/rubric", {"id": "goal_completion"})
    promotion = re.search(r'<pre class="text" id="promotion">([^<]*)</pre>', page)
    assert promotion is not None and promotion.group(1).startswith("promoted")
    assert (
        "<tr><td>verbosity</td><td>419395345c13</td><td>local/careful-judge</td><td>0.125</td>"
        "<td>0.050–0.250</td><td>40</td><td>2026-12-01T10:00:00Z</td></tr>"
    ) in page
