"""The template language of rubric prompts.

``{name}`` with an identifier between the braces is a placeholder; every other brace is
literal text, so a prompt may show a JSON example such as ``{"score": 1}`` without escaping.
Which names a rubric may use is the rubric's business (:mod:`judgekit.formats.rubric`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["fill_template", "placeholder_names"]

# Only a brace, an identifier and a brace with nothing between is a placeholder: a JSON
# example such as {"reason": "...", "score": 1} or a set {a, b} never matches, so prompt
# authors need no escaping. `{ name }` (with spaces) is the way to write a literal name.
_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def placeholder_names(template: str) -> list[str]:
    """The names of every ``{identifier}`` in ``template``, in order, known or not.

    >>> placeholder_names('Task: {input}. Answer {"score": 1} in {final_answer}')
    ['input', 'final_answer']
    """
    return _PLACEHOLDER.findall(template)


def fill_template(template: str, values: Mapping[str, str]) -> str:
    """Replace each ``{name}`` whose name is in ``values``; leave every other brace alone.

    One pass: a value containing ``{input}`` is inserted as it is, never expanded again.

    >>> fill_template('Grade {final_answer} as {"score": 1}', {"final_answer": "{input}"})
    'Grade {input} as {"score": 1}'
    """

    def substitute(match: re.Match[str]) -> str:
        name = match.group(1)
        return values[name] if name in values else match.group(0)

    return _PLACEHOLDER.sub(substitute, template)
