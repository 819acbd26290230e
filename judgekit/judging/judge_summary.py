"""What ``judgekit judge`` reports of a session: summary lines, the runs not judged, and the
``--json`` object."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgekit._util.number_format import dollars, percent, setting, threshold
from judgekit.formats.rubric import Rubric
from judgekit.judging.judge import JudgeTally
from judgekit.judging.pricing import unknown_price_hint
from judgekit.judging.run_sample import RunSample

__all__ = [
    "not_judged_lines",
    "over_budget_line",
    "sample_json",
    "sample_line",
    "set_apart_line",
    "summary_json",
    "summary_lines",
    "unscored_failure",
]


def summary_lines(tally: JudgeTally, rubric: Rubric, version: str) -> list[str]:
    """Verdicts and scores, calls and cost, then what was kept."""
    scored = tally.scored
    scores = ", ".join(f"{score} {n}" for score, n in sorted(tally.scores.items())) or "none"
    unscored_rate = tally.unscored / tally.verdicts if tally.verdicts else 0.0
    cost = _cost(tally, rubric.judge.model)
    lines = [
        f"{rubric.id} (version {version}, {rubric.judge.model}): {tally.verdicts} verdicts, "
        f"{scored} scored ({scores}), {tally.unscored} unscored ({percent(unscored_rate)}"
        f"{_unscored_reasons(tally)})" + _abstained(tally),
        f"{tally.api_calls} API calls, {tally.cache_hits} cache hits, "
        f"{tally.input_tokens:,} input + {tally.output_tokens:,} output tokens, cost {cost}",
    ]
    lines += [_juror_line(model, part) for model, part in tally.jurors]
    if tally.confidence_note:
        lines.append(tally.confidence_note)
    if tally.kept:
        lines.append(
            f"{tally.kept} of the verdicts were already in the output folder: not asked again"
        )
    return lines


def sample_line(tally: JudgeTally, sample: RunSample, window: int) -> str:
    """``judged 3 of 40 runs (sample 10%)``: how many of the window's runs have a verdict."""
    return f"judged {tally.verdicts} of {window} runs (sample {sample.describe()})"


def sample_json(
    tally: JudgeTally, sample: RunSample | None, *, picked: int, window: int
) -> dict[str, Any] | None:
    """The ``sample`` field of ``--json``: what --sample picked of the window; None without."""
    if sample is None:
        return None
    return {
        "sample": sample.describe(),
        "seed": sample.seed,
        "runs": window,
        "picked": picked,
        "judged": tally.verdicts,
    }


def _juror_line(model: str, part: JudgeTally) -> str:
    """One juror's share of a jury's session (its unscored verdicts include those of runs
    the jury then had no verdict on)."""
    return (
        f"  juror {model}: {part.scored} scored, {part.unscored} unscored; {part.api_calls} API "
        f"calls, {part.cache_hits} cache hits, cost "
        f"{'unknown' if part.unknown_cost else dollars(part.cost_usd)}"
    )


def over_budget_line(tally: JudgeTally, runs: int) -> str | None:
    """How many runs the --max-cost budget left unjudged and how to finish; None when it
    left none."""
    if not (tally.stopped_by_budget and tally.over_budget):
        return None
    if tally.day_cap_stop is not None:
        return (
            f"stopped: {tally.day_cap_stop}; {tally.over_budget} of {runs} runs not judged, "
            "since their next request could have passed it; rerun after it resets to finish "
            "(it asks only for those)"
        )
    return (
        f"stopped at the --max-cost budget: {tally.over_budget} of {runs} runs not judged, "
        "since their next request could have passed it; rerun with a higher --max-cost to "
        "finish (it asks only for those)"
    )


def set_apart_line(tally: JudgeTally, earlier_file: Path) -> str | None:
    """How many earlier verdicts were moved to ``earlier_file`` instead of reused, and why;
    None when none were."""
    if not tally.set_apart:
        return None
    reasons = ", ".join(f"{n} {why}" for why, n in tally.set_apart.most_common())
    total = tally.set_apart.total()
    return f"{total} earlier verdicts kept apart in {earlier_file}, not reused: {reasons}"


def unscored_failure(tally: JudgeTally, max_unscored: float) -> str | None:
    """Why this judging failed for its unscored verdicts — all of them, or a share above
    ``max_unscored`` — or None. The verdicts stand in the file; the exit code says no."""
    if not tally.unscored:
        return None
    share = tally.unscored / tally.verdicts
    reasons = _unscored_reasons(tally).removeprefix("; ")
    if tally.unscored == tally.verdicts:
        head = f"all {tally.verdicts} verdicts are unscored, none usable"
    elif share > max_unscored:
        head = (
            f"{tally.unscored} of {tally.verdicts} verdicts unscored ({percent(share)}), "
            f"above --max-unscored {setting(max_unscored)}"
        )
    else:
        return None
    return f"{head} ({reasons}); check the model and the rubric's answer format"


def _unscored_reasons(tally: JudgeTally) -> str:
    """``; 2 not valid JSON, 1 missing field 'score'``, or "" when none is unscored."""
    if not tally.unscored_reasons:
        return ""
    return "; " + ", ".join(f"{n} {kind}" for kind, n in tally.unscored_reasons.most_common())


def _cost(tally: JudgeTally, model: str) -> str:
    """``$0.0068 (prices: genai-prices)``: the cost and where its price came from."""
    if tally.unknown_cost:
        return f"unknown ({unknown_price_hint(tally.unpriced_model or model)})"
    source = f" (prices: {tally.price_source})" if tally.price_source else ""
    return dollars(tally.cost_usd) + source


def _abstained(tally: JudgeTally) -> str:
    """``, 3 abstained (confidence below 0.8, ...)`` under a selective promotion, else ""."""
    if tally.abstain_below is None:
        return ""
    kept = tally.scored + tally.abstained
    coverage = tally.scored / kept if kept else None
    return (
        f", {tally.abstained} abstained (confidence below the promoted "
        f"{threshold(tally.abstain_below)}; coverage {percent(coverage)})"
    )


def not_judged_lines(tally: JudgeTally, model: str, endpoint: str) -> list[str]:
    """How many runs got no answer, from where, and each reason with its count (reasons may
    quote a server: show them through :func:`judgekit._util.terminal_text.visible`)."""
    where = f" at {endpoint}" if endpoint else ""
    head = (
        f"{tally.not_judged} runs not judged: {model}{where} gave no answer after retries; "
        "rerun to finish (it asks only for those)"
    )
    reasons = [f"  {n} × {reason}" for reason, n in tally.not_judged_reasons.most_common()]
    return [head, *reasons]


def summary_json(
    tally: JudgeTally,
    rubric: Rubric,
    version: str,
    *,
    endpoint: str,
    verdicts_file: Path,
    earlier_file: Path,
    store: dict[str, Any] | None,
) -> dict[str, Any]:
    """The ``--json`` object of a judging session."""
    return {
        "rubric_id": rubric.id,
        "rubric_version": version,
        "model": rubric.judge.model,
        "endpoint": endpoint or None,
        "verdicts": tally.verdicts,
        "kept": tally.kept,
        "unscored": tally.unscored,
        "unscored_reasons": dict(tally.unscored_reasons),
        "abstained": tally.abstained,
        "abstain_below": tally.abstain_below,
        "confidence_note": tally.confidence_note,
        "scores": dict(tally.scores),
        "not_judged": tally.not_judged,
        "not_judged_reasons": dict(tally.not_judged_reasons),
        "api_calls": tally.api_calls,
        "cache_hits": tally.cache_hits,
        "input_tokens": tally.input_tokens,
        "output_tokens": tally.output_tokens,
        "cost_usd": None if tally.unknown_cost else tally.cost_usd,
        "price_source": None if tally.unknown_cost else tally.price_source,
        "stopped_by_budget": tally.stopped_by_budget,
        "over_budget": tally.over_budget,
        "day_cap_stop": tally.day_cap_stop,
        "verdicts_file": str(verdicts_file),
        "set_apart": dict(tally.set_apart),
        "earlier_verdicts_file": str(earlier_file) if tally.set_apart else None,
        "store": store,
        "jurors": [_juror_json(model, part) for model, part in tally.jurors] or None,
    }


def _juror_json(model: str, part: JudgeTally) -> dict[str, Any]:
    return {
        "model": model,
        "verdicts": part.verdicts,
        "unscored": part.unscored,
        "api_calls": part.api_calls,
        "cache_hits": part.cache_hits,
        "input_tokens": part.input_tokens,
        "output_tokens": part.output_tokens,
        "cost_usd": None if part.unknown_cost else part.cost_usd,
    }
