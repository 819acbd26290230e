"""Two labellers at once in a real Chromium, each in their own browser, taking runs from one
team queue: never the same run at the same time, except the runs to label twice, which
both label blind to each other; then their disagreements settled in the browser and the
rubric page's figures taking the settled labels."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from judgekit.labelling.queue import double_coded
from tests.view.browser import artefacts, chromium, running_view

RUBRIC = "goal_completion_sloppy"


def _start(browser: Any, url: str, labeler: str) -> Any:
    page = browser.new_context().new_page()
    page.goto(url)
    page.goto(url.split("/?")[0] + f"/label?rubric={RUBRIC}")
    page.fill("#labeler", labeler)
    page.check("#team")
    page.fill("#double-code", "0.5")
    page.click("#begin")
    return page


def _shown(page: Any) -> str:
    return str(page.locator("#run-id").inner_text())


def test_two_labellers_at_once_share_a_queue_and_settle_their_disagreements(
    demo_folder: Path, tmp_path: Path
) -> None:
    shots = artefacts(tmp_path)
    labels = demo_folder / "labels" / f"{RUBRIC}.jsonl"
    before = labels.read_bytes()
    # Only shop's runs: each one labelled by demo-truth already, and judged.
    args = [
        "shop",
        "--rubric",
        "rubrics",
        "--labels-dir",
        "labels",
        "--verdicts",
        "verdicts",
    ]
    with chromium() as browser, running_view(*args, cwd=demo_folder) as url:
        ana, bo = _start(browser, url, "ana"), _start(browser, url, "bo")
        held: list[tuple[str, str]] = []
        for turn in range(16):
            a, b = _shown(ana), _shown(bo)
            assert a != b or double_coded(RUBRIC, a, 0.5), (turn, a, b)
            held += [("ana", a), ("bo", b)]
            with ana.expect_navigation():
                ana.keyboard.press("p")
            with bo.expect_navigation():
                bo.keyboard.press("f" if turn % 2 else "p")
            assert "demo-truth" not in ana.locator("main").inner_text()
        assert "team queue:" in ana.locator("#progress").inner_text()
        bo.screenshot(path=str(shots / "view-team.png"), full_page=True)
        lead = browser.new_context().new_page()
        lead.goto(url)
        lead.goto(url.split("/?")[0] + f"/rubric?id={RUBRIC}")
        figures_before = lead.locator("#calibration").inner_text()
        lead.click("#settle-link")
        to_settle = int(lead.locator("#unsettled-count").inner_text().split()[0])
        assert to_settle > 0
        lead.screenshot(path=str(shots / "view-settle.png"), full_page=True)
        for _ in range(to_settle):
            section = lead.locator("section.settle").first
            section.locator("input.settler").fill("lead")
            with lead.expect_navigation():
                section.locator("button", has_text="fail").click()
        assert lead.locator("#nothing-to-settle").count() == 1
        lead.screenshot(path=str(shots / "view-settled.png"), full_page=True)
        lead.goto(url.split("/?")[0] + f"/rubric?id={RUBRIC}")
        figures_after = lead.locator("#calibration").inner_text()
    lines = [json.loads(raw) for raw in labels.read_bytes()[len(before) :].splitlines()]
    given = [(line["labeler"], line["run_id"]) for line in lines if not line.get("settles")]
    assert given == held
    settled = [line for line in lines if line.get("settles")]
    assert len(settled) == to_settle
    assert all(line["label"] == "fail" and line["labeler"] == "lead" for line in settled)
    # Every run both hold at one time is one to label twice; each labeller's runs differ.
    both = {run for who, run in held if who == "ana"} & {run for who, run in held if who == "bo"}
    assert all(double_coded(RUBRIC, run, 0.5) for run in both)
    assert figures_after != figures_before
