"""YAML built straight from libyaml's events: the data, lines and errors of the composer.

:func:`read_plain_yaml` is the fast reader of plain YAML; what it does not read exactly as
the composer does it hands back (:class:`NotPlainYaml`). These tests hold it to the
composer (with the same libyaml parser) on every case listed and on generated documents,
and hold :func:`load_yaml` to what it said before the fast reader existed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from judgekit._util import yamlcompose, yamlfile
from judgekit._util.yamlbuild import NotPlainYaml, read_plain_yaml
from judgekit._util.yamlcompose import MAX_DEPTH, LineNode, read_yaml
from judgekit.errors import DataError

pytestmark = pytest.mark.skipif(
    yamlfile._CParser is None, reason="PyYAML here is built without libyaml"
)

PATH = Path("doc.yaml")


def _typed(value: Any) -> Any:
    """``value`` with every scalar's type beside it (1, 1.0 and True compare equal)."""
    if isinstance(value, dict):
        return ("map", [(_typed(k), _typed(v)) for k, v in value.items()])
    if isinstance(value, list):
        return ("seq", [_typed(v) for v in value])
    if isinstance(value, float) and math.isnan(value):
        return ("float", "nan")
    return (type(value).__name__, value)


def _tree(lines: LineNode | None) -> Any:
    if lines is None:
        return None
    keys = None if lines.keys is None else {k: (n, _tree(c)) for k, (n, c) in lines.keys.items()}
    items = None if lines.items is None else [(n, _tree(c)) for n, c in lines.items]
    return keys, items, [_tree(m) for m in lines.merges]


def _composed(text: str) -> Any:
    data, lines, line = read_yaml(text, PATH, loader_class=yamlfile._LibyamlLoader)
    return _typed(data), _tree(lines), line


def _built(text: str) -> Any:
    data, lines, line = read_plain_yaml(text)
    return _typed(data), _tree(lines), line


PLAIN = """\
suite: shop   # a comment
when: 2024-05-20
stamp: 2001-12-14t21:59:43.10-05:00
ints: [0, -1, +7, 017, 0o17, 0x1F, -0b101, 1_000, '1', "2", 1:30, 12345678901234567890]
floats: [1.5, -.5, 1., 6.8523015e+5, 1_0.5, .inf, -.Inf, .NaN, 190:20:30.15]
bools: [yes, No, on, OFF, y, n, true, FALSE, True]
nulls: [~, null, Null, '', ]
empty:
1: one
2.5: "a float"
"1": one as text
false: yes
~: nothing
? complex text
: value
text: |
  two
  lines
folded: >-
  folded
  text
quoted: "a \\"b\\" c"
single: 'it''s'
flow: {a: [1, {b: c}], d: {}, e: []}
nested:
  - - deep
    - [x, y]
  - key: value
    other:
      - 1
      - id: "$approx"
        amount: {$approx: 40}
unicode: é ü 中文
"""


def test_plain_document_reads_as_composed() -> None:
    assert _built(PLAIN) == _composed(PLAIN)
    data, lines, line = read_plain_yaml(PLAIN)
    assert line == 1
    assert data["ints"] == [0, -1, 7, 15, "0o17", 31, -5, 1000, "1", "2", 90, 12345678901234567890]
    assert data["bools"] == [True, False, True, False, "y", "n", True, False, True]
    assert data["when"] == "2024-05-20"  # dates stay strings
    assert list(data)[8:13] == [1, 2.5, "1", False, None]
    assert lines is not None and lines.keys is not None
    assert lines.keys["nested"][0] == 25
    nested = lines.keys["nested"][1]
    assert nested is not None and nested.items is not None
    assert [line for line, _ in nested.items] == [26, 28]


@pytest.mark.parametrize(
    "text",
    ["", "# only a comment\n", "---\n", "just text\n", "--- 12\n...\n", "[]\n", "- a\n- b\n"],
)
def test_empty_and_scalar_documents_read_as_composed(text: str) -> None:
    assert _built(text) == _composed(text)


@pytest.mark.parametrize(
    "text",
    [
        "base: &b {x: 1}\nc:\n  <<: *b\n",  # a merge key
        "a: &x 1\nb: &x 2\n",  # an anchor defined twice
        "a: *x\n",  # an alias to no anchor
        "a: &x [1, *x]\n",  # an alias inside the list it names
        "a: &x [1]\n? *x\n: 2\n",  # a list as a key, through an alias
        "a: !!str 1\n",  # a tag
        "a: ! 1\n",  # the non-specific tag
        "a: !!set {x}\n",
        "a: 1\na: 2\n",  # a key said twice
        "1: a\n1.0: b\n",  # ... as the constructor would count it
        "true: a\n1: b\n",
        "[a]: 1\n",  # a list as a key
        "? {a: 1}\n: 2\n",
        "a: =\n",  # a plain scalar with no constructor
        "a: " + "9" * 5000 + "\n",  # an integer Python refuses to convert
        "a: 0x" + "f" * 5000 + "\n",  # one it converts but cannot write back
        "a: 1\n---\nb: 2\n",  # a second document
        "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "\n",
    ],
)
def test_what_only_the_composer_reads_is_handed_back(text: str) -> None:
    with pytest.raises(NotPlainYaml):
        read_plain_yaml(text)


@pytest.mark.parametrize(
    ("bound", "text", "used"),
    [
        ("MAX_ALIASES", "a: &x 1\nb: [*x, *x, *x]\n", 3),
        # *x repeats 4 values: the list, 1, the inner list and 2 (the composer's count)
        ("MAX_ALIAS_VALUES", "a: &x [1, [2]]\nb: [*x]\n", 4),
    ],
)
def test_aliases_beyond_the_bounds_are_handed_back(
    monkeypatch: pytest.MonkeyPatch, bound: str, text: str, used: int
) -> None:
    monkeypatch.setattr(yamlcompose, bound, used - 1)
    with pytest.raises(NotPlainYaml):
        read_plain_yaml(text)
    with pytest.raises(DataError):
        read_yaml(text, PATH, loader_class=yamlfile._LibyamlLoader)
    monkeypatch.setattr(yamlcompose, bound, used)
    assert _built(text) == _composed(text)


def test_an_alias_gives_its_anchors_very_value_and_lines() -> None:
    text = "a: &x {k: [1, 2]}\nb: [*x, &y 3, *y]\n*y : *x\n"
    data, lines, _ = read_plain_yaml(text)
    composed, composed_lines, _ = read_yaml(text, PATH, loader_class=yamlfile._LibyamlLoader)
    assert data == composed == {"a": {"k": [1, 2]}, "b": [{"k": [1, 2]}, 3, 3], 3: {"k": [1, 2]}}
    assert data["b"][0] is data["a"] is data[3]  # one object, as PyYAML constructs it
    assert composed["b"][0] is composed["a"] is composed[3]
    assert _tree(lines) == _tree(composed_lines)
    assert lines is not None and lines.keys is not None
    assert lines.keys["3"][0] == 3


def test_nesting_up_to_the_limit_is_read() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH + "\n"
    assert _built(text) == _composed(text)


# Plain scalars of every kind the resolver tells apart, and some it refuses.
TOKENS = [
    "a", "id", "key two", "$approx", "é", "0", "-1", "+1", "017", "0o17", "0x1F", "0b101",
    "1_000", "1:30", "1.5", "1.", ".5", "1.5e+3", "1e3", ".inf", "-.Inf", ".NaN", "true",
    "False", "yes", "No", "on", "OFF", "y", "~", "null", "Null", "2024-05-20", "<<", "=",
    '"quoted"', "'1'", '"true"', "''", "'it''s'", "&anchor x", "*anchor", "!!str 5",
    "!!int x", "12345678901234567890", "&a x", "&b 1", "*a", "*b",
]  # fmt: skip
CAREFUL = {"<<", "=", "!!str 5", "!!int x"}  # the composer's to read

# Mostly what the fast reader reads, so most documents are read both ways; keys also from
# a wider set, so mappings of several keys are seldom refused for a repeated key.
_scalars = st.sampled_from([t for t in TOKENS if t not in CAREFUL]) | st.sampled_from(TOKENS)
_keys = _scalars | st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)


@dataclass(frozen=True)
class Anchored:
    """A list or mapping with an anchor (``&a``) in a generated document."""

    name: str
    inner: list[Any]


def _block(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, str):
        return [pad + value]
    if isinstance(value, Anchored):
        if not value.inner:
            return [f"{pad}{value.name} []"]
        return [pad + value.name, *_block(value.inner, indent)]
    lines: list[str] = []
    for entry in value:
        if isinstance(value, list) and not isinstance(entry, tuple):
            child, head = entry, pad + "- "
        else:
            key, child = entry
            head = f"{pad}{key}: "
        if isinstance(child, str):
            lines.append(head + child)
        elif isinstance(child, Anchored):
            if not child.inner:
                lines.append(f"{head}{child.name} []")
            else:
                lines.append(head + child.name)
                lines.extend(_block(child.inner, indent + 2))
        elif not child:
            lines.append(head + ("[]" if isinstance(child, list) else "{}"))
        else:
            lines.append(head.rstrip())
            lines.extend(_block(child, indent + 2))
    return lines


def _flow(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Anchored):
        return f"{value.name} {_flow(value.inner)}"
    if value and isinstance(value[0], tuple):
        return "{" + ", ".join(f"{k}: {_flow(v)}" for k, v in value) + "}"
    return "[" + ", ".join(_flow(v) for v in value) + "]"


def _collections(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    plain = st.lists(inner, max_size=4) | st.lists(st.tuples(_keys, inner), min_size=1, max_size=4)
    return plain | st.builds(Anchored, st.sampled_from(["&a", "&b", "&c"]), plain)


_random_documents = st.recursive(_scalars, _collections, max_leaves=20)

# Documents whose aliases name anchors defined (and closed) before them, so that most are
# read by the fast reader: {defs: [&a A, &b B], body: ... *a ... *b ...}.
_unanchored = st.sampled_from([t for t in TOKENS if t not in CAREFUL and t[0] not in "&*"])


def _anchored(name: str, value: Any) -> Any:
    return f"{name} {value}" if isinstance(value, str) else Anchored(name, value)


def _plain_collections(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    keys = _unanchored | st.from_regex(r"[a-z][a-z0-9_]{0,7}", fullmatch=True)
    return st.lists(inner, max_size=4) | st.lists(st.tuples(keys, inner), min_size=1, max_size=4)


_definitions = st.recursive(_unanchored, _plain_collections, max_leaves=8)
_bodies = st.recursive(
    _unanchored | st.sampled_from(["*a", "*b"]), _plain_collections, max_leaves=12
)
_aliased_documents = st.builds(
    lambda a, b, body: [("defs", [_anchored("&a", a), _anchored("&b", b)]), ("body", body)],
    _definitions,
    _definitions,
    _bodies,
)
_documents = _random_documents | _aliased_documents


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=_documents, flow=st.booleans())
def test_generated_documents_read_as_composed(document: Any, flow: bool) -> None:
    text = _flow(document) + "\n" if flow else "\n".join(_block(document, 0)) + "\n"
    try:
        built = _built(text)
    except NotPlainYaml:
        return  # the composer's to read; load_yaml's test below holds that path
    except Exception:
        with pytest.raises(Exception):  # noqa: B017 - libyaml refuses it both ways
            _composed(text)
        return
    assert built == _composed(text)


def _locations(value: Any, prefix: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    """Every location in ``value``, and one beyond its end (its nearest ancestor's line)."""
    found = [prefix, (*prefix, "missing")]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _locations(item, (*prefix, str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _locations(item, (*prefix, index))
    return found


def _careful_only(text: str, **options: Any) -> tuple[Any, Any, Any]:
    raise NotPlainYaml("switched off")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(document=_documents, flow=st.booleans())
def test_load_yaml_says_what_it_said_without_the_fast_reader(
    tmp_path_factory: pytest.TempPathFactory, document: Any, flow: bool
) -> None:
    text = _flow(document) + "\n" if flow else "\n".join(_block(document, 0)) + "\n"
    path = tmp_path_factory.mktemp("doc") / "doc.yaml"
    path.write_text(text, encoding="utf-8")
    outcomes = []
    with pytest.MonkeyPatch.context() as patch:
        for reader in (read_plain_yaml, _careful_only):
            patch.setattr(yamlfile, "read_plain_yaml", reader)
            try:
                data, lines = yamlfile.load_yaml(path)
                where = _locations(data)
                outcomes.append((_typed(data), where, [lines.line_of(loc) for loc in where]))
            except DataError as exc:
                outcomes.append(str(exc))
    assert outcomes[0] == outcomes[1]


def test_any_failure_of_the_fast_reader_is_read_the_careful_way(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "doc.yaml"
    path.write_text(PLAIN, encoding="utf-8")
    want_data, want_lines = yamlfile.load_yaml(path)
    where = _locations(want_data)
    want = [want_lines.line_of(loc) for loc in where]
    calls: list[bool] = []

    def failing(text: str, *, lines: bool = True) -> Any:
        calls.append(lines)
        if len(calls) > 1:  # the data read, its lines not
            raise RuntimeError("a bug")
        return read_plain_yaml(text, lines=lines)

    monkeypatch.setattr(yamlfile, "read_plain_yaml", failing)
    data, lines = yamlfile.load_yaml(path)
    assert [lines.line_of(loc) for loc in where] == want
    assert calls == [False, True]
    calls.append(True)  # every read fails from here on
    data, lines = yamlfile.load_yaml(path)
    assert _typed(data) == _typed(want_data)
    assert [lines.line_of(loc) for loc in where] == want
