"""YAML read with libyaml's parser: the same data, lines and errors as the pure-Python one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judgekit._util import yamlfile
from judgekit._util.yamlcompose import read_yaml
from judgekit.errors import DataError

pytestmark = pytest.mark.skipif(
    yamlfile._CParser is None, reason="PyYAML here is built without libyaml"
)

DOCUMENT = """\
suite: shop   # a comment
base: &base
  order: unordered
  max_calls: {issue_refund: 1}
when: 2024-05-20
count: 0x1F
ratio: 1.5e3
flags: [yes, no, ~, true]
text: |
  two
  lines
quoted: "a \\"b\\" c"
tasks:
  - <<: *base
    id: refund
    expect_tools:
      - name: issue_refund
        args: {order_id: A100, amount: {$approx: 40}}
  - id: "second"
    input: >
      folded
      text
"""


def _locations(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _locations(item, (*prefix, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _locations(item, (*prefix, index))
    return found


def test_libyaml_reads_the_same_data_and_lines_as_the_pure_parser(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(DOCUMENT, encoding="utf-8")
    data, lines = yamlfile.load_yaml(path)
    pure_data, pure_root, pure_line = read_yaml(DOCUMENT, path)
    pure_lines = yamlfile.LineMap(pure_root, pure_line)
    assert data == pure_data
    assert data["when"] == "2024-05-20"  # dates stay strings
    assert data["tasks"][0]["max_calls"] == {"issue_refund": 1}  # merged in
    locations = _locations(data)
    assert len(locations) == 32
    assert [lines.line_of(loc) for loc in locations] == [
        pure_lines.line_of(loc) for loc in locations
    ]
    assert lines.line_of(("tasks", 1, "input")) == 20
    assert lines.line_of(("tasks", 0, "order")) == 3  # through the merge


def test_load_yaml_reads_with_libyaml_and_words_a_refusal_with_the_pure_parser(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    used: list[Any] = []

    def spy(text: str, path: Path, **options: Any) -> Any:
        used.append(options.get("loader_class", "pure"))
        return read_yaml(text, path, **options)

    monkeypatch.setattr(yamlfile, "read_yaml", spy)
    path = tmp_path / "suite.yaml"
    path.write_text("a: 1\n", encoding="utf-8")
    data, lines = yamlfile.load_yaml(path)
    assert data == {"a": 1}
    assert lines.line_of(("a",)) == 1
    assert used == [yamlfile._LibyamlLoader]  # composed once, lines and all
    used.clear()
    path.write_text("a: &one {x: 1}\nb: {<<: *one}\n", encoding="utf-8")
    assert yamlfile.load_yaml(path)[0] == {"a": {"x": 1}, "b": {"x": 1}}
    assert used == [yamlfile._LibyamlLoader]
    used.clear()
    path.write_text("a: 1\na: 2\n", encoding="utf-8")
    with pytest.raises(DataError):
        yamlfile.load_yaml(path)
    assert used == [yamlfile._LibyamlLoader, "pure"]  # refused, then read once to word it


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("a: [1, 2\nb: 3\n", "{path}:2: YAML syntax error: expected ',' or ']', but got ':'"),
        ("a: 1\na: 2\n", "{path}:2: a: duplicate key 'a' (first at line 1)"),
        (
            "a: *nothing\n",
            "{path}:1: a: alias *nothing names no anchor (&nothing) defined before it",
        ),
        (
            "a: 1\n---\nb: 2\n",
            "{path}:2: a second YAML document starts here; judgekit reads one document per file",
        ),
        ("a: !!int twelve\n", "{path}:1: a: 'twelve' is not a valid !!int"),
        (
            "a: '\x07'\n",
            "{path}: YAML error: unacceptable character #x0007: special characters are not "
            'allowed\n  in "<unicode string>", position 4',
        ),
    ],
)
def test_errors_read_as_the_pure_parser_says_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, text: str, message: str
) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DataError) as fast:
        yamlfile.load_yaml(path)
    monkeypatch.setattr(yamlfile, "_CParser", None)
    with pytest.raises(DataError) as pure:
        yamlfile.load_yaml(path)
    assert str(fast.value) == str(pure.value) == message.format(path=path)
