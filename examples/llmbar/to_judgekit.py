"""Turn LLMBar's published judge verdicts into judgekit verdicts and hand labels.

``../shared/data/llmbar/verdicts.jsonl`` has one line per (dataset, evaluator, strategy,
item): ``label`` is the human gold choice (1 or 2), ``winner_swap_false`` the judge's choice
with the two outputs in their original order, ``winner_swap_true`` its choice with the order
swapped (mapped back to the original numbering); a choice is null when the judge's output
could not be read. For one (dataset, evaluator, strategy) this script writes, under
``--out``:

* ``verdicts.jsonl``: one judgekit verdict per item, from ``winner_swap_false``: score
  ``"A"`` for 1, ``"B"`` for 2 (unscored when null); ``position_bias`` is true when the two
  orders disagree (null when either is missing) and ``confidence`` the share of the two
  orders that gave the verdict's choice (1.0 or 0.5, null when either is missing), which
  selective judging reads; rubric ``preference`` at the version
  ``rubrics/preference.yaml`` has when judged by ``llmbar/<evaluator>`` (the judge model is
  part of the version, so this is what ``judgekit calibrate --model llmbar/<evaluator>``
  selects);
* ``labels/preference.jsonl``: the gold choice as a label, by ``mtbench-expert`` for the
  MT-Bench subset and ``llmbar-gold`` otherwise.

It prints what it wrote, the judge's position-bias rate, its self-consistency kappa
(original order against swapped order) and, when ``--published`` is given, the published
statistics of the same group to check against.

    python examples/llmbar/to_judgekit.py --dataset Processed/MT-Bench --evaluator GPT-4 \\
        --strategy Vanilla_NoRules --out /tmp/llmbar
"""

from __future__ import annotations

import argparse
import json
import re
import warnings
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from judgekit.formats.rubric_file import effective_rubric, load_rubric, rubric_version
from judgekit.stats import cohen_kappa_score

REPO = Path(__file__).resolve().parents[2]
DATA = REPO.parent / "shared" / "data" / "llmbar"
AT = datetime(2024, 1, 1, tzinfo=UTC).isoformat()  # fixed, so the output is reproducible
CHOICE = {"1": "A", "2": "B"}


def read_group(path: Path, dataset: str, evaluator: str, strategy: str) -> list[dict[str, Any]]:
    """The lines of one (dataset, evaluator, strategy), in item order."""
    key = (dataset, evaluator, strategy)
    with path.open(encoding="utf-8") as fh:
        rows = [json.loads(line) for line in fh if line.strip()]
    group = [r for r in rows if (r["dataset"], r["evaluator"], r["strategy"]) == key]
    if not group:
        raise SystemExit(f"no lines for dataset={dataset} evaluator={evaluator} {strategy}")
    return sorted(group, key=lambda r: int(r["idx"]))


def run_id(dataset: str, idx: int) -> str:
    """``mt-bench-0007`` for item 7 of Processed/MT-Bench."""
    slug = re.sub(r"[^a-z0-9]+", "-", dataset.split("/")[-1].lower()).strip("-")
    return f"{slug}-{idx:04d}"


def choice(value: Any) -> str | None:
    return None if value is None else CHOICE[str(value)]


def confidence(first: str | None, swapped: str | None) -> float | None:
    """The share of the two orders that gave the verdict's choice, as judgekit measures a
    pairwise judge asked in both orders: 1.0 when they agree, 0.5 when the choice follows
    the position; unknown when either is missing."""
    if first is None or swapped is None:
        return None
    return 1.0 if first == swapped else 0.5


def convert(
    group: list[dict[str, Any]], *, dataset: str, evaluator: str, rubric_path: Path
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The verdicts and labels of one group, as JSON objects."""
    model = f"llmbar/{evaluator}"
    version = rubric_version(effective_rubric(load_rubric(rubric_path), model))
    labeler = "mtbench-expert" if "MT-Bench" in dataset else "llmbar-gold"
    verdicts, labels = [], []
    for row in group:
        rid = run_id(dataset, int(row["idx"]))
        first, swapped = choice(row["winner_swap_false"]), choice(row["winner_swap_true"])
        verdict: dict[str, Any] = {
            "run_id": rid,
            "rubric_id": "preference",
            "rubric_version": version,
            "model": model,
            "status": "scored" if first is not None else "unscored",
            "score": first,
            "reason": f"LLMBar {row['strategy']}: {first} in original order, {swapped} swapped",
            "position_bias": None if first is None or swapped is None else first != swapped,
            "confidence": confidence(first, swapped),
            "at": AT,
        }
        if first is None:
            verdict["unscored_reason"] = "no choice in the LLMBar output"
        verdicts.append(verdict)
        labels.append(
            {
                "run_id": rid,
                "rubric_id": "preference",
                "label": CHOICE[str(row["label"])],
                "labeler": labeler,
                "at": AT,
            }
        )
    return verdicts, labels


def summary(group: list[dict[str, Any]]) -> dict[str, Any]:
    """Position bias and self-consistency of the judge, and LLMBar's own counts.

    ``correct_*`` and ``equal`` count as LLMBar does (checked on all 499 groups): over every
    item, a missing choice counting as wrong, and two missing choices as ``equal``.
    """
    first = [str(r["winner_swap_false"]) for r in group]  # "None" when missing
    swapped = [str(r["winner_swap_true"]) for r in group]
    gold = [str(r["label"]) for r in group]
    both = [(a, b) for a, b in zip(first, swapped, strict=True) if "None" not in (a, b)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kappa = cohen_kappa_score(first, swapped)
    n = len(group)
    return {
        "n": n,
        "position_bias_rate": sum(a != b for a, b in both) / len(both) if both else None,
        "n_position_checked": len(both),
        "self_consistency_kappa": kappa,
        "correct_False": sum(a == g for a, g in zip(first, gold, strict=True)),
        "correct_True": sum(b == g for b, g in zip(swapped, gold, strict=True)),
        "correct_both": sum(a == b == g for a, b, g in zip(first, swapped, gold, strict=True)),
        "equal": sum(a == b for a, b in zip(first, swapped, strict=True)),
    }


def published(path: Path, dataset: str, evaluator: str, strategy: str) -> dict[str, Any]:
    key = (dataset, evaluator, strategy)
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            if (row["dataset"], row["evaluator"], row["strategy"]) == key:
                stats: dict[str, Any] = row["statistics"]
                return stats
    raise SystemExit(f"no published statistics for {key}")


def write_jsonl(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DATA / "verdicts.jsonl")
    parser.add_argument("--published", type=Path, default=DATA / "published_statistics.jsonl")
    parser.add_argument("--dataset", default="Processed/MT-Bench")
    parser.add_argument("--evaluator", default="GPT-4")
    parser.add_argument("--strategy", default="Vanilla_NoRules")
    parser.add_argument("--rubric", type=Path, default=REPO / "rubrics" / "preference.yaml")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)

    group = read_group(args.data, args.dataset, args.evaluator, args.strategy)
    verdicts, labels = convert(
        group, dataset=args.dataset, evaluator=args.evaluator, rubric_path=args.rubric
    )
    write_jsonl(args.out / "verdicts.jsonl", verdicts)
    write_jsonl(args.out / "labels" / "preference.jsonl", labels)
    s = summary(group)
    print(f"{args.dataset} / {args.evaluator} / {args.strategy}: {s['n']} items")
    print(f"wrote {args.out / 'verdicts.jsonl'} and {args.out / 'labels' / 'preference.jsonl'}")
    print(
        f"position-bias rate {s['position_bias_rate']:.3f} "
        f"(of {s['n_position_checked']} items with both orders judged)"
    )
    print(f"self-consistency kappa (original vs swapped order) {s['self_consistency_kappa']!r}")
    print(
        f"correct_False {s['correct_False']}/{s['n']}, correct_True {s['correct_True']}/{s['n']}, "
        f"correct_both {s['correct_both']}/{s['n']}, equal {s['equal']}/{s['n']}"
    )
    if args.published.is_file():
        stats = published(args.published, args.dataset, args.evaluator, args.strategy)
        print(f"published: kappa_agreement {stats['kappa_agreement']!r}")
        print(
            "published: "
            + ", ".join(f"{k} {stats[k]}" for k in ("correct_False", "correct_True", "equal"))
        )


if __name__ == "__main__":
    main()
