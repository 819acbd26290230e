"""`judgekit demo`: the whole flow offline, with no API key, in well under a minute."""

from __future__ import annotations

import json
import re
import struct
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console
from sqlalchemy import func, select

import judgekit.demo as demo
from judgekit.cli import main
from judgekit.demo import CAREFUL, JUDGES, SLOPPY, SimulatedJudge
from judgekit.demo.commands import next_steps
from judgekit.demo.common import SUITES, project_files, project_root
from judgekit.demo.history import NIGHTLY, NIGHTS, PER_NIGHT
from judgekit.demo.labels import bundled_labels_path, demo_labels, labels_text
from judgekit.errors import ConfigError
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import load_runs
from judgekit.formats.task import load_tasks
from judgekit.monitoring.monitor import build_monitor_report
from judgekit.monitoring.plots import WIDTH_PX, series_height_px
from judgekit.stats.proportions import wilson_interval
from judgekit.store import Store, open_store, schema
from judgekit.store.record_files import runs_batch_key
from tests.demo.conftest import DemoRun, invoke_demo

RATES = re.compile(
    r"(?P<judge>[\w-]+): false-pass rate set (?P<fp_set>[\d.]+), measured [\d.]+ "
    r"\(95% CI (?P<fp_low>[\d.]+)–(?P<fp_high>[\d.]+)\); false-fail rate set (?P<ff_set>[\d.]+), "
    r"measured [\d.]+ \(95% CI (?P<ff_low>[\d.]+)–(?P<ff_high>[\d.]+)\)"
)
DESIGNED = re.compile(
    r"^  (?P<task>[\w-]+) +designed rate (?P<designed>[\d.]+); measured (?P<rate>[\d.]+) "
    r"\[(?P<low>[\d.]+), (?P<high>[\d.]+)\](?P<outside>  outside its 95% interval)?$",
    re.MULTILINE,
)
REFUSED = re.compile(
    r"^refused goal_completion_sloppy \(version \w+, judge local/sloppy-judge\): "
    r"1 of 3 criteria not met\n"
    r"  min_kappa: lower bound of the 95% kappa interval (?P<low>[\d.]+), bar 0\.6 "
    r"\((?P<short>[\d.]+) short\)\n(?!  )",
    re.MULTILINE,
)


def test_demo_exits_0_within_a_minute(demo_run: DemoRun) -> None:
    assert demo_run.code == 0, demo_run.output
    assert demo_run.elapsed < 60
    output = demo_run.output
    assert "simulated judge" in output
    assert "labels a careful person would give" in output
    assert "the monitor tonight, as `judgekit monitor --branch nightly` prints it:" in output
    assert re.search(r"demo finished in \d+\.\d s", output)


def test_demo_prints_the_commands_for_a_real_model_on_its_own_copy(demo_run: DemoRun) -> None:
    """Section 7's commands run on a copy of the project in --out: promoting there never
    writes into the installed package. They run from the demo's folder as pasted in
    tests/hostile/test_pasted_commands.py; here, what is printed and copied."""
    out, root = demo_run.out, project_root()
    printed = demo_run.output.split("The same with a real model", 1)[1].splitlines()
    shown = [line.strip() for line in printed if line.startswith("  ")]
    # Printed relative to the folder the demo ran in, which holds --out.
    assert shown == [c for _, commands in next_steps(out, out.parent) for c in commands]
    assert shown[0] == (
        "OPENAI_API_KEY=your-key judgekit judge out/shop/runs.jsonl --rubric "
        "out/project/rubrics/goal_completion.yaml --tasks out/project/tasks "
        "--model openai/gpt-4o-mini"
    )
    copied = sorted(
        p.relative_to(out / "project") for p in (out / "project").rglob("*") if p.is_file()
    )
    assert copied == sorted(project_files())
    for relative in copied:
        assert (out / "project" / relative).read_bytes() == (root / relative).read_bytes()


def test_demo_writes_every_file(demo_run: DemoRun) -> None:
    out = demo_run.out
    for suite in SUITES:
        tasks = load_tasks(suite.tasks_file(project_root()))
        runs = (out / suite.name / "runs.jsonl").read_text().splitlines()
        assert len(runs) == len(tasks) * demo.TRIALS
        assert len((out / suite.name / "results.jsonl").read_text().splitlines()) == len(runs)
        assert (out / suite.name / "results.csv").is_file()
    shop_runs = (out / "shop" / "runs.jsonl").read_text().splitlines()
    answers = [json.loads(line)["final_answer"] for line in shop_runs]
    assert len(set(answers)) == len(answers)  # unique per trial: a prompt names its run
    for judge in JUDGES:
        assert (out / "rubrics" / f"{judge.rubric_id}.yaml").is_file()
        verdicts = (out / "verdicts" / f"{judge.rubric_id}.jsonl").read_text().splitlines()
        assert len(verdicts) == len(shop_runs)
        assert all(json.loads(line)["model"] == judge.model for line in verdicts)
        labels = [
            json.loads(line)
            for line in (out / "labels" / f"{judge.rubric_id}.jsonl").read_text().splitlines()
        ]
        assert len(labels) == demo.LABELS
        assert {label["rubric_id"] for label in labels} == {judge.rubric_id}
        assert {label["labeler"] for label in labels} == {"demo-truth"}
        assert {label["label"] for label in labels} == {"pass", "fail"}
    assert (demo_run.home / "judgekit.sqlite").is_file()


def results(out: Path, suite: str) -> dict[str, list[bool]]:
    """Task id -> each trial's outcome, from the suite's results.jsonl."""
    found: dict[str, list[bool]] = {}
    for line in (out / suite / "results.jsonl").read_text().splitlines():
        grade = json.loads(line)
        found.setdefault(grade["task_id"], []).append(grade["passed"])
    return found


def test_each_designed_pass_rate_is_inside_its_interval(demo_run: DemoRun) -> None:
    """The stubs' designed rates against the measured pass@1, all nine tasks at 95% together.

    Each task's own 95% interval misses its rate 1 time in 20, so with nine tasks some miss
    by chance (with the seeds of 40 trials, refuse_overrefund and weather-only do);
    Bonferroni intervals (1 - 0.05/9 each) hold all nine at once with 95% confidence.
    """
    printed = {match["task"]: match for match in DESIGNED.finditer(demo_run.output)}
    outcomes = {suite.name: results(demo_run.out, suite.name) for suite in SUITES}
    family = sum(len(tasks) for tasks in outcomes.values())
    assert family == 9
    inside = 0
    for suite in SUITES:
        designed = demo.trials.designed_rates(suite)
        assert set(outcomes[suite.name]) == set(designed)
        for task_id, passed in outcomes[suite.name].items():
            n, c = len(passed), sum(passed)
            assert n == demo.TRIALS
            low, high = wilson_interval(c, n, confidence=1 - 0.05 / family)
            assert low <= designed[task_id] <= high, (task_id, c, n, designed[task_id])
            # and the demo printed the task's own 95% interval truthfully
            low95, high95 = wilson_interval(c, n)
            line = printed[task_id]
            assert float(line["designed"]) == pytest.approx(designed[task_id])
            assert (line["rate"], line["low"], line["high"]) == (
                f"{c / n:.2f}",
                f"{low95:.2f}",
                f"{high95:.2f}",
            )
            assert (line["outside"] is None) == (low95 <= designed[task_id] <= high95)
            inside += low95 <= designed[task_id] <= high95
    assert f"designed rate inside its task's 95% interval: {inside} of 9 tasks" in demo_run.output
    assert "contain 9 of 9." in demo_run.output


def test_demo_promotes_the_careful_judge_and_refuses_the_sloppy_one(demo_run: DemoRun) -> None:
    out, output = demo_run.out, demo_run.output
    record = json.loads((out / "rubrics" / "goal_completion.promotion.json").read_text())
    assert record["rubric_id"] == CAREFUL.rubric_id
    assert record["model"] == CAREFUL.model
    # Promoted on the held-out half only: 26 of the 52 fail labels and 34 of the 68 pass.
    split = record["split"]
    assert (split["n_dev"], split["n_test"], split["n_test_fresh"]) == (60, 60, 60)
    assert record["n"] == len(split["test_runs"]) == 60
    assert record["class_balance"]["human"] == {"pass": 34, "fail": 26}
    assert "split, stratified by label: 60 dev labels to read and tune the rubric on" in output
    assert sorted(path.name for path in (out / "rubrics").glob("*.promotion.json")) == [
        f"{CAREFUL.rubric_id}.promotion.json"
    ]
    assert re.search(r"^promoted goal_completion \(version \w+, judge local/careful", output, re.M)
    refused = REFUSED.search(output)
    assert refused is not None, output
    with demo_run.store() as store, store.engine.connect() as connection:
        rows = connection.execute(select(schema.calibrations)).mappings().all()
    sloppy = next(row for row in rows if row["rubric_id"] == SLOPPY.rubric_id)
    assert not sloppy["promotable"]
    assert float(refused["low"]) == pytest.approx(sloppy["kappa_low"], abs=0.0005)
    assert float(refused["short"]) == pytest.approx(0.6 - sloppy["kappa_low"], abs=0.0011)


def test_measured_error_rates_bracket_the_set_rates(demo_run: DemoRun) -> None:
    found = {match["judge"]: match for match in RATES.finditer(demo_run.output)}
    assert set(found) == {judge.name for judge in JUDGES}
    for judge in JUDGES:
        match = found[judge.name]
        assert float(match["fp_set"]) == pytest.approx(judge.false_pass_rate)
        assert float(match["ff_set"]) == pytest.approx(judge.false_fail_rate)
        assert float(match["fp_low"]) <= judge.false_pass_rate <= float(match["fp_high"])
        assert float(match["ff_low"]) <= judge.false_fail_rate <= float(match["ff_high"])


def batch_rows(store: Store, table_name: str, batch_id: int) -> int:
    table = schema.metadata.tables[table_name]
    query = select(func.count()).select_from(table).where(table.c.batch_id == batch_id)
    with store.engine.connect() as connection:
        return int(connection.execute(query).scalar_one())


def test_the_store_holds_everything_in_one_batch_per_suite(demo_run: DemoRun) -> None:
    root = project_root()
    with demo_run.store() as store:
        batches = {batch.batch_key: batch for batch in store.batches(source="demo")}
        # One batch per suite, the gated candidate's, and one per simulated night.
        assert len(batches) == store.count("batches") == len(SUITES) + 1 + NIGHTS
        total = 0
        for suite in SUITES:
            batch = batches[runs_batch_key(demo_run.out / suite.name / "runs.jsonl")]
            assert batch.branch == "demo"
            expected = len(load_tasks(suite.tasks_file(root))) * demo.TRIALS
            assert batch_rows(store, "runs", batch.id) == expected
            assert batch_rows(store, "grades", batch.id) == expected
            total += expected
        shop = batches[runs_batch_key(demo_run.out / "shop" / "runs.jsonl")]
        shop_runs = len(load_tasks(root / "tasks" / "shop.yaml")) * demo.TRIALS
        assert batch_rows(store, "verdicts", shop.id) == shop_runs * len(JUDGES)
        candidate = batches[runs_batch_key(demo_run.out / "shop-candidate" / "runs.jsonl")]
        assert batch_rows(store, "grades", candidate.id) == shop_runs
        total += shop_runs
        nightly = NIGHTS * PER_NIGHT * 4  # the shop's four tasks
        assert store.count("runs") == store.count("grades") == total + nightly == 4520
        assert store.count("verdicts") == (shop_runs + nightly) * len(JUDGES) == 8320
        assert store.count("calibrations") == len(JUDGES)
        assert store.count("promotions") == 1


def test_report_html_is_self_contained_with_a_row_per_task(demo_run: DemoRun) -> None:
    html = (demo_run.out / "report.html").read_text(encoding="utf-8")
    for suite in SUITES:
        for task in load_tasks(suite.tasks_file(project_root())):
            assert f"<tr><td>{task.id}</td>" in html
    assert "data:image/png;base64," in html
    assert "<script" not in html.lower()
    assert not re.search(r"""(?:src|href)\s*=\s*["']?https?:""", html, re.IGNORECASE)
    assert "promoted" in html and "calibrating" in html  # the rubrics' statuses


def test_report_gives_each_suite_its_own_headline(demo_run: DemoRun) -> None:
    html = (demo_run.out / "report.html").read_text(encoding="utf-8")
    assert '<section id="suite">' not in html  # no pass rate blending shop and travel
    for suite in SUITES:
        assert f'<li><a href="#suite-{suite.name}">Suite {suite.name}</a></li>' in html
        section = html.split(f'<section id="suite-{suite.name}">', 1)[1].split("</section>")[0]
        assert section.count('<p class="headline">') == 1
        for task in load_tasks(suite.tasks_file(project_root())):
            assert f"<tr><td>{task.id}</td>" in section


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_the_plots_are_pngs_of_the_documented_sizes(demo_run: DemoRun) -> None:
    out = demo_run.out
    rubrics = [load_rubric(out / "rubrics" / f"{judge.rubric_id}.yaml") for judge in JUDGES]
    with demo_run.store() as store:
        report = build_monitor_report(
            store, rubrics=rubrics, labels_dir=out / "labels", only=NIGHTLY
        )
    scores = [s.metric for s in report.series if s.metric not in ("cost_usd", "turns")]
    assert {f"rubric:{judge.rubric_id}" for judge in JUDGES} <= set(scores)
    assert [alert.metric for alert in report.alerts] == [
        "pass_rate",
        "path",
        "state",
        "rubric:goal_completion",
    ]
    assert png_size(out / "scores.png") == (WIDTH_PX, series_height_px(len(scores)))
    assert png_size(out / "scores.cost_turns.png") == (WIDTH_PX, series_height_px(2))


def test_a_rerun_into_the_same_folder_is_refused(demo_run: DemoRun) -> None:
    result = CliRunner().invoke(main, ["demo", "--out", str(demo_run.out)])
    assert result.exit_code == 2
    assert "already holds a demo" in result.output


def test_the_bundled_labels_match_the_demo_runs(demo_run: DemoRun) -> None:
    """labels/goal_completion.jsonl is what examples/make_demo_labels.py writes from these
    runs: the same sample, outcomes and item hashes. Failing here means the shop's stub
    agent or tasks changed; run `python examples/make_demo_labels.py`."""
    shop = demo_run.out / "shop"
    grades = [json.loads(line) for line in (shop / "results.jsonl").read_text().splitlines()]
    truth = {grade["run_id"]: grade["passed"] for grade in grades}
    tasks = load_tasks(project_root() / "tasks" / "shop.yaml")
    expected = labels_text(demo_labels(load_runs(shop / "runs.jsonl"), truth, tasks))
    assert bundled_labels_path(project_root()).read_text(encoding="utf-8") == expected
    copied = (demo_run.out / "labels" / "goal_completion.jsonl").read_text(encoding="utf-8")
    assert copied == expected


def test_stale_bundled_labels_are_refused(demo_run: DemoRun, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "rubrics").mkdir(parents=True)
    rubric = project_root() / "rubrics" / "goal_completion.yaml"
    (root / "rubrics" / "goal_completion.yaml").write_text(rubric.read_text())
    lines = bundled_labels_path(project_root()).read_text().splitlines()
    first = json.loads(lines[0]) | {"item_hash": "0" * 64}  # the run's text changed since
    bundled_labels_path(root).parent.mkdir()
    bundled_labels_path(root).write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    with pytest.raises(ConfigError, match=r"1 of 120 labels do not match the demo's runs"):
        demo.labels.copy_bundled_labels(
            root,
            JUDGES,
            tmp_path / "labels",
            runs_file=demo_run.out / "shop" / "runs.jsonl",
            tasks_file=project_root() / "tasks" / "shop.yaml",
            console=Console(),
        )


def test_the_demo_leaves_the_store_of_judgekit_db_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    other = tmp_path / "other" / "judgekit.sqlite"
    url = f"sqlite:///{other}"
    with open_store(url) as store:
        store.batch(key="theirs", source="run")
    before = {path.name: path.read_bytes() for path in other.parent.iterdir()}
    monkeypatch.setenv("JUDGEKIT_DB", url)
    run = invoke_demo(tmp_path, monkeypatch)
    assert run.code == 0, run.output
    assert "JUDGEKIT_DB is set: the demo leaves that store alone" in run.output
    assert {path.name: path.read_bytes() for path in other.parent.iterdir()} == before
    with run.store() as store:
        assert store.count("verdicts") == 2 * 4 * (demo.TRIALS + NIGHTS * PER_NIGHT)


def test_a_simulated_judge_is_deterministic_and_errs_at_its_rates() -> None:
    judge = SimulatedJudge("j", "r", true_pass_rate=0.9, true_fail_rate=0.7)
    assert judge.score("run-1", True) == judge.score("run-1", True)
    says_pass = [judge.score(f"run-{i}", True) == "pass" for i in range(4000)]
    says_fail = [judge.score(f"run-{i}", False) == "fail" for i in range(4000)]
    assert sum(says_pass) / 4000 == pytest.approx(0.9, abs=0.02)
    assert sum(says_fail) / 4000 == pytest.approx(0.7, abs=0.03)


def test_the_gate_catches_the_change_that_broke_refunds(demo_run: DemoRun) -> None:
    """The regressed stub fails refund_full alone, trial for trial the same elsewhere; the
    pass rate of all runs pooled would not have caught it."""
    baseline = results(demo_run.out, "shop")
    candidate = results(demo_run.out, "shop-candidate")
    assert {t: v for t, v in candidate.items() if t != "refund_full"} == {
        t: v for t, v in baseline.items() if t != "refund_full"
    }
    assert sum(candidate["refund_full"]) < sum(baseline["refund_full"])
    lines = [line.rstrip() for line in demo_run.output.splitlines()]
    assert "gate: FAIL: 1 of 4 tasks failed: refund_full" in lines
    assert any(
        line.startswith("the pass rate of all runs pooled (p = ")
        and line.endswith(") would not have caught it: the gate tests each task")
        for line in lines
    )
