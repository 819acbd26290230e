"""`judgekit view` in a real Chromium: open the demo's folder, filter to the sloppy judge's
disagreements, open one with its transcript, label ten runs with the keyboard, undo one, and
see calibrate's figures change; hostile text in every field shown inert."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from judgekit.cli import main
from tests.view.browser import artefacts, chromium, running_view

SLOPPY = "goal_completion_sloppy"


def _figures(text: str) -> list[str]:
    """The lines of calibrate's report that move with the labels."""
    wanted = ("measured on dev:", "labels:", "kappa ", "class balance:")
    return [line.strip() for line in text.splitlines() if line.strip().startswith(wanted)]


def test_a_new_user_reviews_and_labels_the_demo_in_the_browser(
    demo_folder: Path, tmp_path: Path
) -> None:
    shots = artefacts(tmp_path)
    labels = demo_folder / "labels" / f"{SLOPPY}.jsonl"
    before = labels.read_bytes()
    with chromium() as browser, running_view(cwd=demo_folder) as url:
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.goto(url)
        assert page.url.endswith("/runs")  # the token is now a cookie, not in the address
        assert page.locator("#count").inner_text() == "360 runs, page 1 of 8"
        page.screenshot(path=str(shots / "view-runs.png"))

        page.click(f"header nav >> text={SLOPPY}")
        figures_before = _figures(page.locator("#calibration").inner_text())
        assert "kappa 0.426 [0.210, 0.641] (95%, analytic)" in figures_before
        page.click("#show-disagreements")
        assert page.locator("#count").inner_text() == "16 runs"
        page.screenshot(path=str(shots / "view-disagreements.png"), full_page=True)

        first = page.locator("a.run-link").first
        run_id = first.inner_text()
        first.click()
        assert page.locator("#run-id").inner_text() == run_id
        assert page.locator("#input").inner_text().strip() != ""
        assert "local/sloppy-judge" in page.locator("body").inner_text()
        page.screenshot(path=str(shots / "view-run.png"), full_page=True)

        page.click(f"header nav >> text={SLOPPY}")
        page.click("#label-here")
        page.fill("#labeler", "ana")
        page.click("#begin")
        assert page.locator("#run-id").count() == 1, page.locator("body").inner_text()
        shown: list[str] = []
        for number in range(10):
            shown.append(page.locator("#run-id").inner_text())
            assert "judge" not in page.locator("#item").inner_text().lower()
            with page.expect_navigation():
                page.keyboard.press("f" if number % 3 == 0 else "p")
        with page.expect_navigation():
            page.keyboard.press("u")
        assert page.locator("#run-id").inner_text() == shown[-1]
        previous = page.locator("#previous").inner_text()
        assert previous == "you labelled it fail; a new label supersedes it"  # the tenth: f
        page.keyboard.press("n")
        page.keyboard.type("the refund went out twice")
        page.keyboard.press("Enter")
        with page.expect_navigation():
            page.keyboard.press("f")
        assert "labelled 10 · to go" in page.locator("#progress").inner_text()
        page.screenshot(path=str(shots / "view-label.png"), full_page=True)

        page.click(f"header nav >> text={SLOPPY}")
        figures_after = _figures(page.locator("#calibration").inner_text())
        assert dialogs == []

    lines = [json.loads(line) for line in labels.read_bytes()[len(before) :].splitlines()]
    assert [line["run_id"] for line in lines] == [*shown, shown[-1]]
    keys = ["fail" if number % 3 == 0 else "pass" for number in range(10)]
    assert [line["label"] for line in lines] == [*keys, "fail"]
    assert lines[-1]["note"] == "the refund went out twice"
    # The page's figures are calibrate's own on the same files, and they moved.
    printed = CliRunner().invoke(
        main,
        [
            "calibrate",
            "--rubric",
            str(demo_folder / "rubrics" / f"{SLOPPY}.yaml"),
            "--labels",
            str(labels),
            "--verdicts",
            str(demo_folder / "verdicts" / f"{SLOPPY}.jsonl"),
            "--runs",
            str(demo_folder / "shop" / "runs.jsonl"),
            "--runs",
            str(demo_folder / "travel" / "runs.jsonl"),
            "--no-store",
        ],
    )
    assert _figures(printed.output) == figures_after, printed.output
    assert figures_after != figures_before


HOSTILE = [
    "<script>alert('input')</script>",
    '"><img src=x onerror=alert(1)>',
    "javascript:alert(document.cookie)",
    "\u202eevil\u202c and \x1b[2J",
    '</pre><a href="javascript:alert(2)">click</a>',
]


def _hostile_project(folder: Path, demo_folder: Path) -> None:
    run_dir = folder / "hostile"
    run_dir.mkdir(parents=True)
    runs = [
        {
            "run_id": f"h{number}",
            "task_id": text,
            "input": text,
            "final_answer": text,
            "messages_to_user": [text],
            "tool_calls": [
                {"name": text, "args": {text: text}, "result": text},
                {"name": "t", "args": {}, "error": text},
            ],
            "metadata": {"note": text},
        }
        for number, text in enumerate(HOSTILE)
    ]
    (run_dir / "runs.jsonl").write_text("".join(json.dumps(run) + "\n" for run in runs))
    (folder / "rubrics").mkdir()
    rubric = (demo_folder / "rubrics" / "goal_completion.yaml").read_text()
    (folder / "rubrics" / "goal_completion.yaml").write_text(rubric)
    (folder / "labels").mkdir()
    labels = [
        {
            "run_id": f"h{number}",
            "rubric_id": "goal_completion",
            "label": "pass",
            "labeler": text,
            "at": "2026-01-01T00:00:00Z",
            "note": text,
        }
        for number, text in enumerate(HOSTILE)
    ]
    (folder / "labels" / "goal_completion.jsonl").write_text(
        "".join(json.dumps(label) + "\n" for label in labels)
    )


def test_hostile_text_in_every_field_is_shown_inert(demo_folder: Path, tmp_path: Path) -> None:
    folder = tmp_path / "project"
    _hostile_project(folder, demo_folder)
    shots = artefacts(tmp_path)
    with chromium() as browser, running_view(cwd=folder) as url:
        page = browser.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        errors: list[Any] = []
        page.on("pageerror", lambda error: errors.append(error))
        page.goto(url)
        for path in ("/runs?rubric=goal_completion", *[f"/run?id=h{n}" for n in range(5)]):
            page.goto(url.split("/?")[0] + path)
            assert page.locator("script").count() == 1  # the view's own script, nothing else
            assert page.locator("img").count() == 0
            assert page.locator('a[href^="javascript:"]').count() == 0
            text = page.locator("main").inner_text()
            if path.startswith("/run?id=h0"):
                assert text.count("<script>alert('input')</script>") >= 5
            if path.startswith("/run?id=h3"):
                assert "\\u202eevil\\u202c and ␛[2J" in text
                assert "\u202e" not in text and "\x1b" not in text
        page.goto(url.split("/?")[0] + "/label?rubric=goal_completion")
        page.fill("#labeler", HOSTILE[1])
        page.click("#begin")
        assert page.locator("img").count() == 0
        page.screenshot(path=str(shots / "view-hostile.png"), full_page=True)
    assert dialogs == [] and errors == []
    assert re.search(r"h\d", (folder / "labels" / "goal_completion.jsonl").read_text())
