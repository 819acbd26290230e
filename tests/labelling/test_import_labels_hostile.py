"""Malformed and hostile platform exports: a value off the mapping, a value of the wrong
type, a missing field, torn JSON, a bad --map, a lost split. Each is one error naming the
file, the line (or the list's index) and the field, exit 2, and nothing is written."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from tests.labelling import platform_exports as px
from tests.labelling.import_world import World


def _refused(world: World, *extra: str, files: tuple[Path, ...] = ()) -> str:
    """The error of an import that must write nothing."""
    before = (
        sorted(p.name for p in (world.root / "labels").glob("*"))
        if world.labels.parent.exists()
        else None
    )
    code, out, err = world.import_labels(*extra, files=files)
    assert (code, out) == (2, ""), out
    after = (
        sorted(p.name for p in (world.root / "labels").glob("*"))
        if world.labels.parent.exists()
        else None
    )
    assert after == before
    return err


def test_a_value_off_the_mapping_names_file_line_field_and_the_valid_values(tmp_path: Path) -> None:
    world = World(tmp_path, "langsmith", 3)
    half = px.langsmith_feedback(1, id=uuid.UUID(int=7), score=0.5)
    lines = world.labels_export.read_text().splitlines(keepends=True)
    world.labels_export.write_text("".join(lines[:4]) + half.model_dump_json() + "\n" + lines[4])
    assert _refused(world) == (
        f"judgekit: error: {world.labels_export}:5: score: value \"0.5\" of 'correctness' is not "
        'mapped to the scale of correct: valid values are those mapped ("1", "0") and the '
        'scale\'s own ("pass", "fail"); add --map 0.5=SCORE\n'
    )
    assert not world.labels.parent.exists()


def test_a_category_outside_its_score_config(tmp_path: Path) -> None:
    world = World(tmp_path, "langfuse", 2)
    odd = px.langfuse_score(1, id="s-odd", string_value="maybe", value=0.5)
    world.labels_export.write_text(world.labels_export.read_text() + odd.json() + "\n")
    assert _refused(world) == (
        f"judgekit: error: {world.labels_export}:8: stringValue: 'maybe' is not a category of "
        "score config 'cfg-1' (correct, incorrect)\n"
    )


def test_a_value_of_the_wrong_type(tmp_path: Path) -> None:
    world = World(tmp_path, "langsmith", 2)
    tagged = px.langsmith_feedback(0, id=uuid.UUID(int=8), score=None, value={"tag": "ok"})
    world.labels_export.write_text(tagged.model_dump_json() + "\n")
    assert _refused(world) == (
        f"judgekit: error: {world.labels_export}:1: value: expected a number, true/false or a "
        "string, got an object\n"
    )
    world = World(tmp_path / "p", "phoenix", 2)
    annotations = json.loads(world.labels_export.read_text())
    annotations[2]["result"] = {"label": ["correct"]}
    world.labels_export.write_text(json.dumps(annotations, indent=2))
    assert _refused(world) == (
        f"judgekit: error: {world.labels_export}: [2].result.label: expected a number, "
        "true/false or a string, got a list\n"
    )


def test_missing_fields(tmp_path: Path) -> None:
    world = World(tmp_path, "phoenix", 2)
    annotations = json.loads(world.labels_export.read_text())
    del annotations[1]["annotator_kind"]
    world.labels_export.write_text(json.dumps(annotations))
    assert _refused(world) == (
        f"judgekit: error: {world.labels_export}:1: [1].annotator_kind: required field is "
        "missing (expected a string)\n"
    )
    world = World(tmp_path / "m", "mlflow", 2)
    trace = json.loads(world.labels_export.read_text().splitlines()[1])
    del trace["info"]["assessments"][0]["assessment_name"]
    world.labels_export.write_text(json.dumps(trace) + "\n")
    assert _refused(world) == (
        f"judgekit: error: {world.labels_export}:1: info.assessments[0].assessment_name: "
        "required field is missing (expected a string)\n"
    )
    world = World(tmp_path / "f", "langfuse", 2)
    world.labels_export.write_text('{"id": "s1", "traceId": "t1", "name": "correctness"}\n')
    assert _refused(world) == (
        f"judgekit: error: {world.labels_export}:1: expected a Langfuse score, annotation-queue "
        "item or score config (with `source`, `objectId` or `categories`)\n"
    )


def test_torn_json(tmp_path: Path) -> None:
    world = World(tmp_path, "mlflow", 3)
    text = world.labels_export.read_text()
    world.labels_export.write_text(text[: len(text) - 40])  # the last trace cut short
    assert _refused(world).startswith(
        f"judgekit: error: {world.labels_export}:3: malformed JSON at column "
    )


def test_a_mapping_off_the_scale_is_a_usage_error(tmp_path: Path) -> None:
    world = World(tmp_path, "langfuse", 2)
    assert _refused(world, "--map", "correct=maybe") == (
        'judgekit: error: --map \'correct=maybe\': "maybe" is not a binary score; use "pass" '
        'or "fail" (the scale of correct)\n'
    )
    assert _refused(world, "--map", "correct") == (
        "judgekit: error: --map 'correct': expected VALUE=SCORE, e.g. correct=pass\n"
    )
    assert _refused(world, "--map", "correct=fail") == (
        "judgekit: error: --map maps 'correct' twice: to pass and to fail\n"
    )


def test_a_lost_split_stops_the_import_before_anything_is_written(tmp_path: Path) -> None:
    world = World(tmp_path, "langfuse", 2)
    world.labels.parent.mkdir()
    terminal = {
        "run_id": px.langfuse_trace_id(0), "rubric_id": "correct", "label": "pass",
        "labeler": "ana", "at": "2026-03-02T09:00:00Z", "revealed": False,
    }  # fmt: skip
    world.labels.write_text(json.dumps(terminal) + "\n")  # its split file is gone
    err = _refused(world)
    assert err.startswith(
        "judgekit: error: the split file is missing, but correct's labels were split before: "
        "1 labels were written by `judgekit label`"
    )
    assert world.labels.read_text() == json.dumps(terminal) + "\n"


def test_an_id_of_the_wrong_type(tmp_path: Path) -> None:
    world = World(tmp_path, "langfuse", 2)
    score = json.loads(px.langfuse_score(0).json())
    score["traceId"] = 7
    world.labels_export.write_text(json.dumps({"data": [score], "meta": {}}) + "\n")
    assert _refused(world) == (
        f"judgekit: error: {world.labels_export}:1: data[0].traceId: expected a string, got the "
        "number 7\n"
    )
