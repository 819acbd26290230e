"""The demo's ten simulated nights: recorded at their nights, and the alerts that catch the
judge's drift (night 7) and the change that broke refunds (night 10), word for word."""

from __future__ import annotations

import base64
import html
import json
from datetime import UTC, datetime

from judgekit.demo.history import (
    BRANCH,
    CHANGE_NIGHT,
    DRIFT_NIGHT,
    NIGHTLY,
    NIGHTS,
    PER_NIGHT,
    night_times,
)
from judgekit.demo.judges import JUDGES
from judgekit.formats.rubric_file import load_rubric
from judgekit.monitoring.monitor import build_monitor_report
from judgekit.monitoring.plots import SPEND_METRICS, series_figure
from tests.demo.conftest import DemoRun
from tests.monitoring.test_plot_text import texts_outside

TASKS = 4  # the shop's


def days() -> list[str]:
    return [at.date().isoformat() for at in night_times(datetime.now(UTC).date())]


def test_each_night_is_a_batch_of_its_own_day(demo_run: DemoRun) -> None:
    nights = days()
    assert len(nights) == NIGHTS == 10
    with demo_run.store() as store:
        batches = [b for b in store.batches(source="demo") if b.branch == BRANCH]
        assert len(batches) == NIGHTS
        report = build_monitor_report(store, only=NIGHTLY)
    by_metric = {series.metric: series for series in report.series}
    points = by_metric["pass_rate"].points
    assert [point.label for point in points] == nights
    assert [point.n for point in points] == [PER_NIGHT * TASKS] * NIGHTS == [400] * 10
    for judge in JUDGES:
        verdicts = by_metric[f"rubric:{judge.rubric_id}"].points
        assert [(p.label, p.n) for p in verdicts] == [(day, 400) for day in nights]
    # Each night's own files, fresh trials: no run id repeats from one night to the next.
    ids: set[str] = set()
    for number in range(1, NIGHTS + 1):
        lines = (demo_run.out / BRANCH / f"night-{number:02}" / "runs.jsonl").read_text()
        night = {json.loads(line)["run_id"] for line in lines.splitlines()}
        assert len(night) == 400 and not night & ids
        ids |= night


def test_the_night_table_says_what_changed_when(demo_run: DemoRun) -> None:
    nights = days()
    rows = [
        line.split()
        for line in demo_run.output.splitlines()
        if len(line.split()) > 1 and line.split()[1] in nights
    ]
    assert [row[:2] for row in rows] == [[str(n), day] for n, day in enumerate(nights, 1)]
    for number, row in enumerate(rows, start=1):
        agent = "changed" if number >= CHANGE_NIGHT else "stable"
        judge = ["drifted"] if number >= DRIFT_NIGHT else ["as", "promoted"]
        assert row[2:-2] == [agent, *judge, "400"]
    assert rows[0][-2:] == ["0.70", "0.69"]
    assert rows[6][-2:] == ["0.73", "0.56"]  # the judge moved, the runs did not
    assert rows[9][-2:] == ["0.61", "0.47"]


def test_the_monitor_on_night_7_catches_the_judge_alone(demo_run: DemoRun) -> None:
    nights = days()
    assert (
        f"the monitor on night 7: ALERT rubric:goal_completion: goal_completion (promoted) "
        f"dropped 0.694 → 0.557 (baseline {nights[0]} … {nights[5]} (6 windows): n = 2400; "
        f"latest {nights[6]}: n = 400); one-sided p < 0.0001, alpha 0.01, Holm across 7 "
        "metrics\n"
    ) in demo_run.output
    assert demo_run.output.count("the monitor on night 7: ALERT") == 1


def test_the_monitor_tonight_names_the_metric_the_task_and_the_test(demo_run: DemoRun) -> None:
    nights = days()
    window = (
        f"(baseline {nights[2]} … {nights[8]} (7 windows): n = 2800; latest {nights[9]}: n = 400)"
    )
    test = "one-sided p < 0.0001, alpha 0.01, Holm across 7 metrics"
    refunds = "fell most: refund_full 0.73 → 0.41 (41/100), refund_and_notify 0.80 → 0.70 (70/100)"
    expected = [
        f"ALERT pass_rate: pass rate dropped 0.728 → 0.610 {window}; {test}; {refunds}, "
        "cancel_shipped 0.65 → 0.61 (61/100)",
        f"ALERT path: Path (no loops, duplicates, within budget) dropped 0.830 → 0.720 {window}; "
        f"{test}; {refunds}, cancel_shipped 0.80 → 0.77 (77/100)",
        f"ALERT state: State (the world ended right) dropped 0.778 → 0.667 {window}; {test}; "
        f"{refunds}, cancel_shipped 0.86 → 0.84 (84/100)",
        f"ALERT rubric:goal_completion: goal_completion (promoted) dropped 0.637 → 0.472 "
        f"{window}; {test}",
    ]
    lines = [line.rstrip() for line in demo_run.output.splitlines()]
    assert [line for line in lines if line.startswith("ALERT ")] == expected
    assert "monitor: 4 alerts" in lines
    assert (
        "night 7: rubric:goal_completion alerted while the grades held still: the judge moved, "
        "not the agent (`judgekit monitor --recheck goal_completion` asks it again about the "
        "labelled runs). Night 10: pass_rate, path, state alerted, refund_full falling most: "
        "the change that broke refunds, which the gate of step 6 stops before it ships."
    ) in lines


def test_the_report_shows_the_series_and_the_alerts(demo_run: DemoRun) -> None:
    page = (demo_run.out / "report.html").read_text(encoding="utf-8")
    # The plot of the series over the ten nights, the very scores.png written beside it.
    scores = base64.b64encode((demo_run.out / "scores.png").read_bytes()).decode("ascii")
    assert f'<img src="data:image/png;base64,{scores}" alt="Scores over time' in page
    assert "4 alert(s): the latest window is worse than the baseline" in page
    for line in demo_run.output.splitlines():
        if line.startswith("ALERT "):
            message = line.rstrip().split(": ", 1)[1]
            assert html.escape(message, quote=False) in page
    assert "--branch nightly" in page  # the report says what it was narrowed to


def test_the_monitor_command_the_demo_shows_says_the_same(demo_run: DemoRun) -> None:
    rubrics = [load_rubric(demo_run.out / "rubrics" / f"{j.rubric_id}.yaml") for j in JUDGES]
    with demo_run.store() as store:
        report = build_monitor_report(
            store, rubrics=rubrics, labels_dir=demo_run.out / "labels", only=NIGHTLY
        )
    printed = [line.rstrip() for line in demo_run.output.splitlines() if line.startswith("ALERT ")]
    assert [f"ALERT {a.metric}: {a.message}" for a in report.alerts] == printed


def test_no_text_of_the_demo_scores_plot_leaves_the_image(demo_run: DemoRun) -> None:
    rubrics = [load_rubric(demo_run.out / "rubrics" / f"{j.rubric_id}.yaml") for j in JUDGES]
    with demo_run.store() as store:
        report = build_monitor_report(
            store, rubrics=rubrics, labels_dir=demo_run.out / "labels", only=NIGHTLY
        )
    scores = [one for one in report.series if one.metric not in SPEND_METRICS]
    figure = series_figure(scores, title="Scores over time")
    assert texts_outside(figure) == []
    # The informational rubric's long note (a labels path, as long as the temporary folder's
    # name) wraps to two lines under the title, ending in … only where the path is too long.
    sloppy = figure.axes[-1].get_title(loc="left").split("\n")
    assert sloppy[0] == "goal_completion_sloppy (calibrating) (informational, never alerts)"
    assert len(sloppy) == 3 and sloppy[1].startswith("informational: calibrating (hand labels in")
    # Wrapped at spaces: the note's words in order, the last line ending in … if cut short.
    shown = " ".join(sloppy[1:]).removesuffix(" …").removesuffix("…")
    note = next(one.note for one in scores if one.metric.endswith("goal_completion_sloppy"))
    assert note is not None and note.startswith(shown.rsplit(" ", 1)[0])
    assert (demo_run.out / "scores.png").read_bytes() == report.plots.scores
