"""The whole-line prefix of an append-only file: appends keep it, edits and truncation do not."""

from __future__ import annotations

import hashlib
from pathlib import Path

from judgekit._util.file_prefix import prefix_change, prefix_of, whole_lines_prefix


def test_the_prefix_is_the_whole_lines_only(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c"')  # a last line cut short by a crash
    prefix = whole_lines_prefix(path)
    assert prefix.length == 18
    assert prefix.sha256 == hashlib.sha256(b'{"a": 1}\n{"b": 2}\n').hexdigest()
    assert prefix_of(b"no newline yet").length == 0


def test_appends_keep_the_prefix_and_edits_or_truncation_do_not(tmp_path: Path) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n')
    prefix = whole_lines_prefix(path)
    path.write_bytes(b'{"a": 1}\n{"b": 2}\n{"c": 3}\n')
    assert prefix_change(path, prefix) is None
    path.write_bytes(b'{"a": 1}\n{"b": 3}\n{"c": 3}\n')
    assert prefix_change(path, prefix) == "changed"
    path.write_bytes(b'{"a": 1}\n')
    assert prefix_change(path, prefix) == "shorter"
