"""Which key gives which label: one keystroke per verdict, whatever the scale.

- binary: ``p`` pass, ``f`` fail;
- likert: the digit of each score (``1``..``5``); a scale reaching past one digit is typed
  as a number and Enter;
- choices: the number of each choice (``1``, ``2``, ...) and its first letter when no other
  choice or command shares it;
- pairwise: ``a``, ``b`` and ``t`` (tie).

The commands ``s`` skip, ``u`` undo, ``n`` note, ``?`` help and ``q`` quit are never labels.
"""

from __future__ import annotations

from dataclasses import dataclass

from judgekit.formats.rubric import (
    Rubric,
    Score,
    likert_bounds,
    normalise_score,
    scale_values,
)

__all__ = ["COMMANDS", "ScaleKeys", "scale_keys"]

COMMANDS = {"s": "skip", "u": "undo", "n": "note", "?": "help", "q": "quit"}


@dataclass(frozen=True)
class ScaleKeys:
    """The label keys of one rubric's scale.

    >>> keys = scale_keys(Rubric(id="ok", scale="binary", prompt="{final_answer}",
    ...                          judge={"model": "openai/gpt-4o-mini"}))
    >>> keys.score_for("p"), keys.legend()
    ('pass', 'p pass · f fail')
    """

    rubric: Rubric
    keys: dict[str, Score]
    typed: bool = False  # scores need more than one key: type the number, then Enter

    def score_for(self, answer: str) -> Score | None:
        """The label a key (or, from piped input, a typed answer such as ``pass``) gives."""
        if answer in self.keys:
            return self.keys[answer]
        if answer.casefold() in self.keys:
            return self.keys[answer.casefold()]
        try:
            return normalise_score(self.rubric.scale, answer)
        except ValueError:
            return None

    def legend(self) -> str:
        """``key label`` pairs for the screen, one per score."""
        if self.typed:
            low, high = likert_bounds(self.rubric.scale)
            return f"type a score {low}..{high}, then Enter"
        shown: dict[Score, list[str]] = {}
        for key, score in self.keys.items():
            shown.setdefault(score, []).append(key)
        return " · ".join(f"{'/'.join(keys)} {score}" for score, keys in shown.items())


def scale_keys(rubric: Rubric) -> ScaleKeys:
    """The keys that label runs under ``rubric``."""
    kind = rubric.kind
    if kind == "binary":
        return ScaleKeys(rubric, {"p": "pass", "f": "fail"})
    if kind == "pairwise":
        return ScaleKeys(rubric, {"a": "A", "b": "B", "t": "tie"})
    values = scale_values(rubric.scale)
    if kind == "likert":
        low, high = likert_bounds(rubric.scale)
        if low < 0 or high > 9:
            return ScaleKeys(rubric, {}, typed=True)
        return ScaleKeys(rubric, {str(v): v for v in values})
    keys: dict[str, Score] = {}
    firsts = [str(v).strip()[:1].casefold() for v in values]
    for number, value in enumerate(values, start=1):
        first = firsts[number - 1]
        if first.isalpha() and firsts.count(first) == 1 and first not in COMMANDS:
            keys[first] = value
        if number <= 9:
            keys[str(number)] = value
    return ScaleKeys(rubric, keys)
