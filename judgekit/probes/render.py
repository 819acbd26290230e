"""A probe's outcome as text for a terminal, and as the ``--json`` object."""

from __future__ import annotations

from typing import Any

from judgekit._util.number_format import bracketed_interval, confidence, statistic, threshold
from judgekit._util.terminal_text import visible
from judgekit.probes.flips import FlipFigures
from judgekit.probes.probe import ProbeOutcome
from judgekit.probes.self_preference import SelfPreference

__all__ = ["outcome_json", "render_outcome"]

_WHAT = {
    ("verbosity", False): "each final answer padded with neutral filler to twice its length",
    ("verbosity", True): "answer B padded with neutral filler to twice its length",
    ("position", False): "the prompt's task paragraph moved after the answer's",
    ("position", True): "answers A and B swapped",
}


def _flip_lines(figures: FlipFigures) -> list[str]:
    level = confidence(figures.confidence)
    lines = [
        f"flip rate {statistic(figures.rate)} {bracketed_interval(*figures.ci)} ({level}, "
        f"Wilson): {figures.flipped} of {figures.n_compared} runs changed verdict; "
        f"{figures.n_not_scored} left out (unscored on either side)"
    ]
    lines += [f"  {direction} {count}" for direction, count in figures.directions.items()]
    if figures.mean_shift is not None and figures.mean_shift_ci is not None:
        lines.append(
            f"mean shift {statistic(figures.mean_shift)} "
            f"{bracketed_interval(*figures.mean_shift_ci)} ({level}, t; perturbed − original)"
        )
    return lines


def _self_lines(figures: SelfPreference, level: str) -> list[str]:
    def share(passes: int, failed: int) -> str:
        return f"{statistic(passes / failed if failed else None)} ({passes} of {failed})"

    return [
        f"false-pass rate on runs humans failed: by {visible(figures.model, one_line=True)} "
        f"{share(figures.own_false_passes, figures.own_failed)}, by other models "
        f"{share(figures.other_false_passes, figures.other_failed)}",
        f"self-preference (own − others) {statistic(figures.difference)} "
        f"{bracketed_interval(*figures.ci)} ({level}, Newcombe): above 0, the judge passes "
        "its own model's failures more often",
    ]


def render_outcome(outcome: ProbeOutcome) -> str:
    """The probe's figures, the policy's verdict on them, and where they were written."""
    result, rubric = outcome.result, outcome.rubric
    head = (
        f"{result.bias} probe of {rubric.id} (version {result.rubric_version}, judge "
        f"{result.model})"
    )
    figures = outcome.figures
    if isinstance(figures, SelfPreference):
        lines = [f"{head}: the judge on its own model's runs against other models' runs"]
        lines += _self_lines(figures, confidence(result.confidence))
    else:
        what = _WHAT[(result.bias, rubric.kind == "pairwise")]
        lines = [f"{head}: {what}", *_flip_lines(figures)]
    if outcome.not_judged:
        lines.append(f"{outcome.not_judged} runs not judged (the provider failed)")
    if outcome.bar is not None:
        word = "exceeded" if outcome.exceeded else "within"
        lines.append(
            f"max_flip_rate.{result.bias}: upper bound {statistic(result.ci[1])}, bar "
            f"{threshold(outcome.bar)}: {word}"
        )
    lines.append(f"wrote {outcome.path}")
    return "\n".join(lines)


def outcome_json(outcome: ProbeOutcome) -> dict[str, Any]:
    """The ``--json`` object: the result as written, the file, the bar and the verdict."""
    return {
        "rubric_id": outcome.rubric.id,
        **outcome.result.model_dump(mode="json"),
        "file": str(outcome.path),
        "bar": outcome.bar,
        "exceeded": outcome.exceeded,
    }
