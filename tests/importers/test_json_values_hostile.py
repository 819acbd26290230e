"""Hostile numbers in an export file: one line naming the file and line, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgekit.errors import DataError
from judgekit.importers.json_values import file_head, iter_json_values

LONG = "9" * 5000


def test_a_number_too_long_in_the_second_of_spread_values(tmp_path: Path) -> None:
    path = tmp_path / "spans.json"
    path.write_text('{\n  "a": 1\n}\n{\n  "b": ' + LONG + "\n}\n")
    with pytest.raises(DataError) as raised:
        list(iter_json_values(path))
    assert str(raised.value) == (
        f"{path}:4: malformed JSON: Exceeds the limit (4300 digits) for integer string "
        "conversion: value has 5000 digits; use sys.set_int_max_str_digits() to increase "
        "the limit"
    )


def test_a_number_too_long_in_a_single_document_is_read_for_its_exact_error(
    tmp_path: Path,
) -> None:
    path = tmp_path / "one.json"
    path.write_text('{\n  "b": ' + LONG + "\n}\n")
    with pytest.raises(DataError) as raised:
        file_head(path)
    assert str(raised.value) == (
        f"{path}:2: malformed JSON at column 8: a number of 5000 digits, more than the 4300 "
        "that can be read (expected JSON or JSONL)"
    )
