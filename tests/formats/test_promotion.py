"""The promotion record file: one loader, one writer, old and hand-written files still read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.formats.promotion import (
    CriterionRecord,
    PromotionRecord,
    StaleMark,
    load_promotion_record,
    record_digest,
    write_promotion_record,
)


def test_a_record_without_most_fields_reads(tmp_path: Path) -> None:
    path = tmp_path / "r.promotion.json"
    path.write_text(json.dumps({"rubric_version": "abc", "promotable": True, "n": 60}))
    record = load_promotion_record(path)
    assert (record.rubric_version, record.promotable, record.n, record.kappa) == (
        "abc",
        True,
        60,
        None,
    )
    assert record.as_json() == {"rubric_version": "abc", "promotable": True, "n": 60}


def test_written_as_two_space_json_in_field_order(tmp_path: Path) -> None:
    path = tmp_path / "r.promotion.json"
    record = PromotionRecord(
        rubric_id="é",
        rubric_version="abc",
        promotable=True,
        n=60,
        kappa=0.5,
        kappa_ci=[0.25, 0.75],
        criteria={
            "min_labels": CriterionRecord(value=60, bar=50, met=True, short_by=None, what="runs")
        },
        promoted_at="2026-11-29T10:00:00+00:00",
    )
    write_promotion_record(path, record)
    assert path.read_text(encoding="utf-8") == (
        '{\n  "rubric_id": "é",\n  "rubric_version": "abc",\n  "promotable": true,\n'
        '  "n": 60,\n  "kappa": 0.5,\n  "kappa_ci": [\n    0.25,\n    0.75\n  ],\n'
        '  "criteria": {\n    "min_labels": {\n      "value": 60,\n      "bar": 50,\n'
        '      "met": true,\n      "short_by": null,\n      "what": "runs"\n    }\n  },\n'
        '  "promoted_at": "2026-11-29T10:00:00+00:00"\n}\n'
    )
    assert load_promotion_record(path) == record


def test_a_stale_mark_is_added_last_and_unknown_fields_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "r.promotion.json"
    path.write_text('{"rubric_id": "x", "kappa": 0.9, "note": "by hand"}')
    mark = StaleMark(
        at="2026-12-01T00:00:00+00:00",
        reason="judge drift",
        kappa_now=0.4,
        kappa_ci_now=[0.3, 0.5],
        n_now=100,
        p_value=0.001,
    )
    write_promotion_record(path, load_promotion_record(path).marked_stale(mark))
    data = json.loads(path.read_text())
    # Sealed again: the digest is that of its content, the mark included.
    assert list(data) == ["rubric_id", "kappa", "stale", "digest", "note"]
    assert data["digest"] == record_digest(data)
    assert data["stale"] == {
        "at": "2026-12-01T00:00:00+00:00",
        "reason": "judge drift",
        "kappa_now": 0.4,
        "kappa_ci_now": [0.3, 0.5],
        "n_now": 100,
        "p_value": 0.001,
    }
    assert data["note"] == "by hand"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "{",
            "not a readable promotion record: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)",
        ),
        ("[1]", "not a readable promotion record: not a JSON object"),
        (
            '{"kappa": "high"}',
            "kappa: Input should be a valid number, unable to parse string as a number (got 'high')",
        ),
    ],
)
def test_a_malformed_record_names_the_file_and_field(
    tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "r.promotion.json"
    path.write_text(text)
    with pytest.raises(DataError) as caught:
        load_promotion_record(path)
    assert str(caught.value) == f"{path}: {message}"
