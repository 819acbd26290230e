"""What the labeller sees: one run as text, drawn with rich.

The text of a run (:func:`item_text`) is what is shown, and its sha256 is the label's
``item_hash``: when a run's content changes later, its labels are reported as stale. The
rubric's question and keys are drawn around it but are not part of it, so rewording a
rubric's description does not make every label stale.

The text is drawn through :func:`~judgekit._util.terminal_text.visible` (as is every id, name,
note and reason on the screen): an answer's escape sequences, control characters and bidi
overrides show as ``␛[2J``, ``\\x9b``, ``\\u202e``, never obeyed by the terminal. The hash is
of the text itself, so showing it visibly leaves every label as fresh as it was.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cached_property

from rich.console import Console, Group
from rich.rule import Rule
from rich.text import Text

from judgekit._util.terminal_text import visible, visible_text
from judgekit.formats.label import Label, item_hash, item_text
from judgekit.formats.rubric import Rubric, Score
from judgekit.formats.run import Run
from judgekit.formats.verdict import Verdict
from judgekit.labelling.keys import ScaleKeys

__all__ = ["Item", "LabelScreen", "item_text", "make_item"]

# Line prefixes of render_transcript and render_conversation, and how to draw them.
_STYLES = (
    ("Task:", "bold"),
    ("Conversation:", "bold"),
    ("User:", "bold"),
    ("Agent:", "bold green"),
    ("Tool call ", "cyan"),
    ("Result:", "dim"),
    ("Error:", "red"),
    ("Final answer:", "bold green"),
    ("The run stopped early:", "yellow"),
)


class Item:
    """A run to label, with the text shown and its hash — each made when first asked for,
    since a view of 100,000 runs shows few of them."""

    def __init__(self, run: Run, task_input: str | None = None) -> None:
        self.run = run
        self._task_input = task_input

    @cached_property
    def text(self) -> str:
        return item_text(self.run, self._task_input)

    @cached_property
    def hash(self) -> str:
        return item_hash(self.text)


def make_item(run: Run, task_input: str | None = None) -> Item:
    return Item(run, task_input)


def _styled(text: str) -> Text:
    text = visible(text)
    shown = Text(text)
    start = 0
    for line in text.split("\n"):
        for prefix, style in _STYLES:
            if line.startswith(prefix):
                shown.stylize(style, start, start + len(prefix))
                break
        start += len(line) + 1
    return shown


class LabelScreen:
    """Draws runs, prompts and reveals on a rich console."""

    def __init__(self, console: Console, rubric: Rubric, keys: ScaleKeys, *, clear: bool) -> None:
        self.console = console
        self.rubric = rubric
        self.keys = keys
        self.clear = clear

    def show(
        self,
        item: Item,
        *,
        labelled: int,
        to_go: int,
        tally: Mapping[Score, int],
        previous: Label | None = None,
        stale: bool = False,
        note: str | None = None,
    ) -> None:
        """Draw one run, the rubric's question, the keys and the progress line."""
        if self.clear:
            self.console.clear()
        counts = ", ".join(f"{score} {n}" for score, n in tally.items()) or "none yet"
        progress = Text(
            f"{self.rubric.id} · labelled {labelled} · to go {to_go} · your tally: {counts}",
            style="bold",
        )
        parts: list[Text | Rule] = [progress]
        if previous is not None:
            why = "stale: the run changed since you labelled it" if stale else "you labelled it"
            parts.append(Text(f"{why} {previous.label!s}; a new label supersedes it", "yellow"))
        # A rule above and below rather than a Panel: a panel pads and crops every wrapped
        # line, which doubles the drawing time of a run with 50 tool calls.
        parts.append(
            Rule(visible_text(f"─ {item.run.run_id}", "bold", one_line=True), align="left")
        )
        parts.append(_styled(item.text))
        parts.append(Rule())
        question = self.rubric.description or f"Label this run under {self.rubric.id}"
        parts.append(Text(question, style="bold magenta"))
        parts.append(
            Text(f"{self.keys.legend()}   s skip · u undo · n note · ? help · q quit", "dim")
        )
        if note is not None:
            parts.append(visible_text(f"note: {note} (now the label key)", "italic"))
        self.console.print(Group(*parts), highlight=False, soft_wrap=False)

    def message(self, text: str, style: str = "yellow") -> None:
        """A line of judgekit's words, which may quote data (a note, a name): made visible."""
        self.console.print(visible_text(text, style), highlight=False)

    def help(self) -> None:
        self.console.print(
            Text(
                f"labels: {self.keys.legend()}\n"
                "s skip this run · u undo (show the previous run again; a new label "
                "supersedes the old one) · n add a note, then the label key · q quit "
                "(every label given is saved)\n"
                "The judge's verdict stays hidden until you have labelled (--reveal shows "
                "it after).",
                "cyan",
            ),
            highlight=False,
        )

    def reveal(self, label: Score, verdicts: Sequence[Verdict]) -> None:
        """Show the judge's verdicts on the run just labelled."""
        if not verdicts:
            self.message("no judge verdict for this run", "dim")
            return
        for verdict in verdicts:
            score = verdict.score if verdict.status != "unscored" else "unscored"
            agrees = "agrees with you" if score == label else "disagrees with you"
            if verdict.status == "abstained":  # the judge's score, though it did not count
                agrees += "; abstained"
            why = verdict.reason or verdict.unscored_reason or ""
            self.console.print(
                visible_text(f"judge {verdict.model}: {score!s} ({agrees}) {why}", "blue"),
                highlight=False,
            )
