"""`judgekit labels import`: each platform's human labels, made with its own SDK's classes,
become label lines as the terminal labeller writes them (its labeller prefixed, its time,
the run's text hash), split dev/test by the labeller's rule; a second import adds nothing,
a changed value supersedes, and what cannot count is counted with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.calibration.split import EXAMPLE_SPENT, load_split
from judgekit.formats.label import read_labels
from judgekit.formats.rubric_file import load_rubric
from judgekit.formats.run import load_runs
from judgekit.formats.split_file import read_split_file
from judgekit.labelling.plan import items_for
from tests.conftest import REPO
from tests.labelling import platform_exports as px
from tests.labelling.import_world import World, invoke

N = 6
LABELLERS = {
    "langfuse": "langfuse:user-ana",
    "langsmith": "langsmith:u-ana",
    "phoenix": "phoenix:VXNlcjox",
    "mlflow": "mlflow:ana@example.com",
}


def _run_of_trace(world: World) -> dict[int, str]:
    """Trace number → the id of its run (the run importer's)."""
    return {int(run.input.split("A")[1][:-1]): run.run_id for run in load_runs(world.runs)}  # type: ignore[union-attr]


@pytest.mark.parametrize("platform", list(LABELLERS))
def test_each_platform_s_human_labels_are_written_as_the_labeller_writes_them(
    tmp_path: Path, platform: str
) -> None:
    world = World(tmp_path, platform, N)
    code, out, err = world.import_labels()
    assert (code, err) == (0, ""), err
    runs = _run_of_trace(world)
    # The hash the terminal labeller records for each run, from the items it shows.
    hashes = {item.run.run_id: item.hash for item in items_for(load_runs(world.runs))}
    assert world.label_lines() == [
        {
            "run_id": runs[i],
            "rubric_id": "correct",
            "label": "pass" if px.correct(i) else "fail",
            "labeler": LABELLERS[platform],
            "at": f"2026-03-01T09:0{i}:00Z",
            "item_hash": hashes[runs[i]],
        }
        for i in range(N)
    ]
    rubric = load_rubric(world.rubric)
    split = read_split_file(world.split)
    assert set(split.assignments) == set(runs.values())
    replayed = load_split(rubric, world.labels, read_labels(world.labels, rubric).current)
    dev, test = len(replayed.dev), len(replayed.test)
    assert (dev + test, replayed.test_share) == (N, 0.5)
    assert out == (
        f"{platform}: {2 * N} read, {N} by a person, {N} named 'correctness'\n"
        f"imported: {N} new into {world.labels} (dev {dev}, test {test}); 0 already there; "
        "0 left out\n"
    )


def test_importing_again_adds_nothing_and_a_changed_score_supersedes(tmp_path: Path) -> None:
    world = World(tmp_path, "langfuse", N)
    assert world.import_labels()[0] == 0
    first = world.labels.read_text()
    code, out, _ = world.import_labels()
    assert code == 0
    assert out.splitlines()[1] == (
        f"imported: 0 new into {world.labels} (dev 0, test 0); {N} already there; 0 left out"
    )
    assert world.labels.read_text() == first
    # Ana changes her mind on trace 2 an hour later, with a comment.
    changed = px.langfuse_score(
        2, string_value="correct", value=1, updated_at=px.at(60), comment="refund went through"
    )
    world.labels_export.write_text(world.labels_export.read_text() + changed.json() + "\n")
    code, out, _ = world.import_labels()
    assert out.splitlines()[1:] == [
        f"imported: 1 new into {world.labels} (dev 1, test 0); {N - 1} already there; 1 left out",
        "  1 left out: a later label of the same run by the same labeller in these files "
        f"replaces it (first: {world.labels_export}:8: stringValue)",
    ]
    last = world.label_lines()[-1]
    assert (last["label"], last["note"], last["at"]) == (
        "pass",
        "refund went through",
        "2026-03-01T10:00:00Z",
    )
    rubric = load_rubric(world.rubric)
    current = read_labels(world.labels, rubric).current
    assert current[(_run_of_trace(world)[2], "langfuse:user-ana")].label == "pass"
    # The older export again: the newer label in the file stands.
    older = world.labels_export.read_text().splitlines(keepends=True)[:-1]
    world.labels_export.write_text("".join(older))
    code, out, _ = world.import_labels()
    assert out.splitlines()[1:] == [
        f"imported: 0 new into {world.labels} (dev 0, test 0); {N - 1} already there; 1 left out",
        "  1 left out: the labels file holds a newer label of the run by the same labeller "
        f"(first: {world.labels_export}:8: stringValue)",
    ]


def test_what_cannot_count_is_counted_with_its_reason(tmp_path: Path) -> None:
    world = World(tmp_path, "langfuse", N)
    unknown_trace = px.langfuse_score(7, id="s-7", queue_id=None)
    step = px.langfuse_score(1, id="s-obs", observation_id="obs-1", author_user_id="user-bo")
    nobody = px.langfuse_score(3, id="s-anon", author_user_id=None, queue_id=None)
    extra = [unknown_trace, step, nobody, px.langfuse_queue_item(4, "PENDING")]
    with world.labels_export.open("a") as out:
        out.write("".join(obj.json() + "\n" for obj in extra))
    code, out, err = world.import_labels()
    assert (code, err) == (0, ""), err
    path = world.labels_export
    assert out.splitlines() == [
        f"langfuse: {2 * N + 3} read, {N + 3} by a person, {N + 3} named 'correctness'",
        f"imported: {N - 1} new into {world.labels} (dev 3, test 2); 0 already there; 4 left out",
        f"  1 left out: its annotation-queue item is PENDING, not COMPLETED (first: {path}:14: stringValue)",
        f"  1 left out: its trace, span or session is no run of the runs files (first: {path}:20: stringValue)",
        "  1 left out: a score of an observation: one step of a trace, not the whole trace "
        f"(first: {path}:21: stringValue)",
        f"  1 left out: it names no labeller (first: {path}:22: stringValue)",
    ]
    assert px.langfuse_trace_id(4) not in {line["run_id"] for line in world.label_lines()}


def test_a_file_of_several_names_asks_which(tmp_path: Path) -> None:
    world = World(tmp_path, "langsmith", 2)
    helpful = px.langsmith_feedback(0, id=px.uuid.UUID(int=1), key="helpfulness", score=0.5)
    with world.labels_export.open("a") as out:
        out.write(helpful.model_dump_json() + "\n")
    code, _, err = world.import_labels()
    assert (code, err) == (
        2,
        f"judgekit: error: the human labels in {world.labels_export} have several names: "
        "'correctness' (2), 'helpfulness' (1); choose one with --name\n",
    )
    code, _, err = world.import_labels("--name", "tone")
    assert err == (
        f"judgekit: error: no human label named 'tone' in {world.labels_export}: the names are "
        "'correctness' (2), 'helpfulness' (1)\n"
    )
    code, out, _ = world.import_labels("--name", "correctness")
    assert (code, out.splitlines()[0]) == (
        0,
        "langsmith: 5 read, 3 by a person, 2 named 'correctness'",
    )


def test_feedback_on_a_child_run_and_mlflow_s_non_labels_are_left_out(tmp_path: Path) -> None:
    world = World(tmp_path, "mlflow", 3)
    expectation = px.mlflow_entities.Expectation(
        name="correctness", value="refunded", trace_id=px.mlflow_trace_id(0),
        source=px.mlflow_entities.AssessmentSource(source_type="HUMAN", source_id="bo"),
    )  # fmt: skip
    on_span = px.mlflow_feedback(1, span_id="5d1ea7e1f0a1b2c3")
    overridden = px.mlflow_feedback(2, value=False)
    overridden.valid = False
    trace = px.mlflow_trace(2, [expectation, on_span, overridden])
    with world.labels_export.open("a") as out:
        out.write(trace.to_json() + "\n")
    code, out, err = world.import_labels()
    path = world.labels_export
    assert (code, err) == (0, "")
    assert out.splitlines()[1:] == [
        f"imported: 3 new into {world.labels} (dev 1, test 2); 0 already there; 3 left out",
        f"  1 left out: an expectation, not a judgement of the run (first: {path}:4: info.assessments[0].expectation)",
        "  1 left out: an assessment of a span: one step of a trace, not the whole trace "
        f"(first: {path}:4: info.assessments[1].feedback.value)",
        "  1 left out: overridden by a later assessment (valid: false) "
        f"(first: {path}:4: info.assessments[2].valid)",
    ]
    assert json.loads(path.read_text().splitlines()[3])["info"]["assessments"][2]["valid"] is False


def test_the_docs_example_is_what_the_langfuse_sdk_writes(tmp_path: Path) -> None:
    examples = REPO / "examples" / "platform-labels"
    made_runs = px.langfuse_runs(tmp_path / "observations.json", N)
    made_scores = px.langfuse_labels(tmp_path / "scores.jsonl", N)
    assert (examples / "langfuse-observations.json").read_text() == made_runs.read_text()
    assert (examples / "langfuse-scores.jsonl").read_text() == made_scores.read_text()


def test_a_test_label_of_one_of_the_rubric_s_examples_is_spent(tmp_path: Path) -> None:
    world = World(tmp_path, "mlflow", 2)
    examples = "examples:\n" + "".join(
        f"  - {{input: {px.question(i)!r}, output: {px.answer(i)!r}, label: "
        f"{'pass' if px.correct(i) else 'fail'}}}\n"
        for i in range(2)
    )
    world.rubric.write_text(world.rubric.read_text() + examples)
    assert world.import_labels()[0] == 0
    split = read_split_file(world.split)
    tests = [run for run, line in split.assignments.items() if line.side == "test"]
    assert tests and split.spent == {run: EXAMPLE_SPENT for run in tests}


def test_labels_of_a_thread_s_traces_label_its_conversation_run(tmp_path: Path) -> None:
    """With --group-by thread, a run is a conversation of traces: a person's feedback on any
    of them labels it, and of one person's two, the later stands."""
    world = World(tmp_path, "langsmith", 3)
    runs = [json.loads(line) for line in world.export.read_text().splitlines()]
    for run in runs[:2]:
        run["extra"] = {"metadata": {"thread_id": "thread-1"}}
    world.export.write_text("".join(json.dumps(run) + "\n" for run in runs))
    grouped = tmp_path / "threads.jsonl"
    code, _, err = invoke(
        "import", "langsmith", world.export, "--group-by", "thread", "-o", grouped
    )
    assert code == 0, err
    assert sorted(run.run_id for run in load_runs(grouped)) == [
        str(px.langsmith_trace_id(2)),
        "thread-1",
    ]
    code, out, _ = world.import_labels(runs_files=(grouped,))
    assert code == 0
    assert [(line["run_id"], line["label"], line["at"]) for line in world.label_lines()] == [
        ("thread-1", "pass", "2026-03-01T09:01:00Z"),
        (str(px.langsmith_trace_id(2)), "fail", "2026-03-01T09:02:00Z"),
    ]
    assert out.splitlines()[2] == (
        "  1 left out: a later label of the same run by the same labeller in these files "
        f"replaces it (first: {world.labels_export}:1: score)"
    )


def test_the_summary_s_options_are_its_own(tmp_path: Path) -> None:
    world = World(tmp_path, "mlflow", 1)
    assert invoke("labels") == (
        2,
        "",
        "judgekit: error: Missing option '--rubric'. (see judgekit labels --help)\n",
    )
    code, _, err = invoke("labels", "--rubric", world.rubric, "import", "mlflow", world.runs)
    assert (code, err) == (
        2,
        "judgekit: error: --rubric before `import` belongs to the summary; give the options of "
        "`judgekit labels import` after it (see judgekit labels --help)\n",
    )
