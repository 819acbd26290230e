"""The prompt template language: property tests for the placeholder scanner."""

from __future__ import annotations

import re

from hypothesis import assume, given
from hypothesis import strategies as st

from judgekit.formats.rubric import PAIRWISE_PLACEHOLDERS, RUN_PLACEHOLDERS, Rubric
from judgekit.formats.template import fill_template, placeholder_names

KNOWN = tuple(dict.fromkeys(RUN_PLACEHOLDERS + PAIRWISE_PLACEHOLDERS))
VALUES = {name: f"<{name.upper()}>" for name in KNOWN}
IDENTIFIER_IN_BRACES = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")

# Text rich in the characters that matter: braces, quotes, identifiers and known names.
fragments = st.sampled_from(
    ["{", "}", '"', ":", " ", "\n", "a", "_", "0", "{{", "}}", "score", "input", "reason", *KNOWN]
)
texts = st.lists(fragments | st.text(max_size=5), max_size=30).map("".join)


@given(texts)
def test_text_without_a_known_placeholder_renders_unchanged(text: str) -> None:
    assume(not any("{" + name + "}" in text for name in KNOWN))
    assert fill_template(text, VALUES) == text


@given(texts)
def test_text_without_identifier_braces_has_no_placeholders(text: str) -> None:
    assume(not IDENTIFIER_IN_BRACES.search(text))
    assert placeholder_names(text) == []
    assert fill_template(text, VALUES) == text


literals = texts.filter(lambda t: not IDENTIFIER_IN_BRACES.search(t))


@given(st.lists(st.tuples(literals, st.sampled_from(KNOWN)), max_size=6), literals)
def test_placeholders_between_literal_text_are_found_and_filled(
    parts: list[tuple[str, str]], tail: str
) -> None:
    template = "".join(literal + "{" + name + "}" for literal, name in parts) + tail
    assert placeholder_names(template) == [name for _, name in parts]
    filled = "".join(literal + VALUES[name] for literal, name in parts) + tail
    assert fill_template(template, VALUES) == filled


@given(literals, literals, st.text())
def test_values_are_inserted_verbatim_never_rescanned(before: str, after: str, value: str) -> None:
    template = before + "{final_answer}" + after
    values = {"final_answer": value, "input": "EXPANDED"}
    assert fill_template(template, values) == before + value + after


@given(literals, literals)
def test_any_literal_text_around_a_placeholder_is_a_valid_prompt(before: str, after: str) -> None:
    rubric = Rubric(
        id="r",
        scale="binary",
        prompt=before + "{final_answer}" + after,
        judge={"model": "openai/gpt-4o-mini"},
    )
    assert rubric.placeholders == ("final_answer",)
