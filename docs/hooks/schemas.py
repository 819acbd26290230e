"""MkDocs hook: the file-format reference rendered from the JSON Schemas in schemas/.

A page line ``<!-- schema: NAME -->`` becomes the Markdown jsonschema2md writes for
``schemas/NAME.schema.json`` — the files `judgekit schema NAME` prints and
tests/formats/test_schema_files.py keeps equal to the pydantic models — so the reference is
built from the models at every build, never pasted by hand.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema2md

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"
MARKER = re.compile(r"^<!-- schema: (\w+) -->$", re.M)


def render_schema(name: str) -> str:
    """The Markdown of one schema, its headings under the page's ``##`` and its anchors
    prefixed with the schema's name so several schemas share a page."""
    schema = json.loads((SCHEMAS / f"{name}.schema.json").read_text(encoding="utf-8"))
    parser = jsonschema2md.Parser(examples_as_yaml=False, show_examples="all", header_level=2)
    lines = list(parser.parse_schema(schema))
    text = "".join(lines[1:])  # the schema's title is the page's own heading

    def anchor(target: str) -> str:
        return f"{name}-" + re.sub(r"[^\w-]", "-", target.replace("%24", ""))

    text = re.sub(r'<a id="([^"]+)"></a>', lambda m: f'<a id="{anchor(m[1])}"></a>', text)
    return re.sub(r"\]\(#([^)]+)\)", lambda m: f"](#{anchor(m[1])})", text)


def on_page_markdown(markdown: str, **_: Any) -> str:
    return MARKER.sub(lambda m: render_schema(m[1]), markdown)
