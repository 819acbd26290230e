"""YAML beyond plain lists and mappings reads as PyYAML's safe constructor reads it.

The composer builds values in one pass; merge keys, ``!!set``, ``!!omap``, ``!!pairs`` and
tags on lists and mappings are built as that constructor builds them from a node graph, and
of several refusals the one it meets first (breadth first) is the one reported. Each case
here is what the node-graph reading gave, with libyaml's parser and with the pure one.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judgekit._util import yamlfile
from judgekit.errors import DataError

PARSERS = ["libyaml", "pure"]


def read(tmp_path: Path, text: str, parser: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    if parser == "pure":
        monkeypatch.setattr(yamlfile, "_CParser", None)
    elif yamlfile._CParser is None:
        pytest.skip("PyYAML here is built without libyaml")
    path = tmp_path / "tags.yaml"
    path.write_text(text, encoding="utf-8")
    return yamlfile.load_yaml(path)[0]


def refusal(tmp_path: Path, text: str, parser: str, monkeypatch: pytest.MonkeyPatch) -> str:
    with pytest.raises(DataError) as caught:
        read(tmp_path, text, parser, monkeypatch)
    return str(caught.value).removeprefix(f"{tmp_path / 'tags.yaml'}:")


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize(
    ("text", "data"),
    [
        # An omap item that is an alias to a mapping merged before the omap's round.
        ("x: &x {<<: {k: 1}}\na: !!omap [*x]\n", {"x": {"k": 1}, "a": [("k", 1)]}),
        ("x: &x {<<: {}, k: 1}\na: !!omap [*x]\n", {"x": {"k": 1}, "a": [("k", 1)]}),
        ("m: {<<: &x {<<: {k: 1}}}\na: !!omap [*x]\n", {"m": {"k": 1}, "a": [("k", 1)]}),
        # A key merged from two mappings: the first, unless the keys are distinct objects.
        ("<<: [{a: 1}, {a: 2}]\n", {"a": 1}),
        ("<<: [{ab: 1}, {ab: 2}]\n", {"ab": 2}),
        ("x: &x {ab: 1}\n<<: [*x, *x, {ab: 2}]\n", {"ab": 2, "x": {"ab": 1}}),
        ("a: {x: 1, ? !!merge m : {y: 2}}\n", {"a": {"y": 2, "x": 1}}),
        ("s: &s !!set {a, b}\nm: {<<: *s}\n", {"s": {"a", "b"}, "m": {"a": None, "b": None}}),
        ("a: !!pairs [{a: 1}, {a: 2}]\n", {"a": [("a", 1), ("a", 2)]}),
        ("a: !!omap [{[1]: 2}]\n", {"a": [([1], 2)]}),
        (
            "levels: {1: one, 2: two}\nm: {<<: {1: uno}, 2: dos}\n",
            {"levels": {1: "one", 2: "two"}, "m": {1: "uno", 2: "dos"}},
        ),
    ],
)
def test_what_the_safe_constructor_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parser: str, text: str, data: Any
) -> None:
    read_data = read(tmp_path, text, parser, monkeypatch)
    assert read_data == data
    assert list(read_data) == list(data)  # keys in the constructor's order


@pytest.mark.parametrize("parser", PARSERS)
def test_an_alias_shares_its_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parser: str
) -> None:
    data = read(tmp_path, "x: &x {k: [1]}\ny: {<<: *x}\nz: [*x]\n", parser, monkeypatch)
    assert data["y"]["k"] is data["x"]["k"]
    assert data["z"][0] is data["x"]


@pytest.mark.parametrize("parser", PARSERS)
@pytest.mark.parametrize(
    ("text", "message"),
    [
        # The same omap of an alias, the mapping anchored deeper: not merged yet when read.
        (
            "a: {b: &x {<<: {k: 1}}}\nc: !!omap [*x]\n",
            "1: could not determine a constructor for the tag 'tag:yaml.org,2002:merge'",
        ),
        (
            "x: &x {<<: {k: 1}, k: 2}\na: !!omap [*x]\n",
            "1: expected a single mapping item, but found 2 items",
        ),
        ("a: !!omap [{a: 1}, 3]\n", "1: expected a mapping of length 1, but found scalar"),
        ("a: !!omap {a: 1}\n", "1: expected a sequence, but found mapping"),
        ("a: !!map foo\n", "1: expected a mapping node, but found scalar"),
        ("a: [<<]\n", "1: could not determine a constructor for the tag 'tag:yaml.org,2002:merge'"),
        ("a: {? [1] : 2}\n", "1: found unhashable key"),
        ("l: &l [1]\nm: {<<: *l}\n", "1: expected a mapping for merging, but found scalar"),
        (
            "a: &a 1\nb: {<<: *a}\n",
            "1: expected a mapping or list of mappings for merging, but found scalar",
        ),
        ("a: !!str [x]\n", "1: expected a scalar node, but found sequence"),
        # Of two refusals, the one met first breadth first: the tag that raises at once...
        (
            "t: !!omap {}\nq: !!python/tuple {}\n",
            "2: could not determine a constructor for the tag 'tag:yaml.org,2002:python/tuple'",
        ),
        # ... and, a round later, the bodies in the order they were made (merged pairs first).
        ("q: !!set []\nr: {<<: 1}\n", "1: expected a mapping node, but found sequence"),
        (
            "<<: {a: {<<: 1}}\nq: !!set []\n",
            "1: expected a mapping or list of mappings for merging, but found scalar",
        ),
        ("s: {? !!omap {} : {}, b: !!pairs {}}\n", "1: found unhashable key"),
    ],
)
def test_what_the_safe_constructor_refuses_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, parser: str, text: str, message: str
) -> None:
    assert refusal(tmp_path, text, parser, monkeypatch) == message
