"""The real labelling prompt, driven through a pseudo-terminal and through piped stdin."""

from __future__ import annotations

import json
import signal
from pathlib import Path

from judgekit.formats.verdict import Verdict
from tests.labelling.conftest import Prompt, run_piped, shop_items, shop_order, shown_runs

LABELS = Path("labels") / "goal_completion.jsonl"
MARKER = "JUDGE-MARKER-7f3a"
SHOP_COUNT = 18


def written(tmp: Path) -> list[dict[str, object]]:
    """The label lines, without the clock-dependent ``at`` (checked to be present)."""
    lines = []
    for text in (tmp / LABELS).read_text(encoding="utf-8").splitlines():
        line = json.loads(text)
        assert line.pop("at").endswith("Z")
        lines.append(line)
    return lines


def expected(
    run_id: str, label: str, *, note: str | None = None, revealed: bool = False
) -> dict[str, object]:
    line: dict[str, object] = {
        "run_id": run_id,
        "rubric_id": "goal_completion",
        "label": label,
        "labeler": "ana",
    }
    if note is not None:
        line["note"] = note
    line["item_hash"] = shop_items()[run_id].hash
    line["revealed"] = revealed
    return line


def to_go(n: int) -> str:
    return f"to go {n} "


def test_label_skip_undo_note_and_quit_in_a_terminal(tmp_path: Path) -> None:
    order = shop_order()
    prompt = Prompt(tmp_path)
    prompt.wait_for(to_go(18))
    prompt.press("p", then=to_go(17))
    prompt.press("f", then=to_go(16))
    prompt.press("n", then="note: ")
    prompt.press("claims refund, none issued\r", then="(now the label key)")
    prompt.press("f", then=to_go(15))
    prompt.press("s", then=to_go(14))
    prompt.press("u", then=to_go(15))  # back to the skipped run
    prompt.press("p", then=to_go(14))
    prompt.press("u", then="you labelled it pass")  # back to the run just labelled
    prompt.press("f", then=to_go(14))
    prompt.press("q")
    assert prompt.finish() == 0
    assert written(tmp_path) == [
        expected(order[0], "pass"),
        expected(order[1], "fail"),
        expected(order[2], "fail", note="claims refund, none issued"),
        expected(order[3], "pass"),
        expected(order[3], "fail"),  # the relabel supersedes the line above
    ]
    assert "4 labelled, 1 skipped this session" in prompt.screen()


def test_help_and_unknown_keys_change_nothing(tmp_path: Path) -> None:
    prompt = Prompt(tmp_path)
    prompt.wait_for(to_go(18))
    prompt.press("?", then="s skip this run")
    prompt.press("x", then="'x' is not a key here: p pass · f fail")
    prompt.press("q")
    assert prompt.finish() == 0
    assert not (tmp_path / LABELS).exists() or written(tmp_path) == []


def test_every_label_survives_a_kill_and_the_rerun_resumes(tmp_path: Path) -> None:
    order = shop_order()
    prompt = Prompt(tmp_path)
    prompt.wait_for(to_go(18))
    prompt.press("p", then=to_go(17))
    prompt.press("f", then=to_go(16))
    prompt.press("p", then=to_go(15))
    prompt.child.kill(signal.SIGKILL)
    prompt.child.wait()
    assert written(tmp_path) == [
        expected(order[0], "pass"),
        expected(order[1], "fail"),
        expected(order[2], "pass"),
    ]
    again = Prompt(tmp_path)
    again.wait_for(to_go(15))
    screen = again.screen()
    assert "labelled 3 · to go 15" in screen
    assert shown_runs(screen) == [order[3]]
    again.press("q")
    assert again.finish() == 0


def verdicts_file(tmp: Path) -> Path:
    path = tmp / "verdicts.jsonl"
    with path.open("w", encoding="utf-8") as fh:
        for run_id in shop_items():
            verdict = Verdict(
                run_id=run_id,
                rubric_id="goal_completion",
                rubric_version="v1",
                model="openai/gpt-4o-mini",
                status="scored",
                score="pass",
                reason=f"{MARKER} the answer matches",
                at="2026-11-29T10:00:00Z",  # type: ignore[arg-type]
            )
            fh.write(verdict.model_dump_json() + "\n")
    return path


def test_blind_mode_never_shows_the_judge(tmp_path: Path) -> None:
    prompt = Prompt(tmp_path, "--verdicts", verdicts_file(tmp_path))
    prompt.wait_for(to_go(18))
    assert MARKER not in prompt.screen()
    prompt.press("f", then=to_go(17))
    prompt.press("p", then=to_go(16))
    prompt.press("q")
    assert prompt.finish() == 0
    assert MARKER not in prompt.screen()
    assert [line["revealed"] for line in written(tmp_path)] == [False, False]


def test_reveal_shows_the_judge_only_after_the_label(tmp_path: Path) -> None:
    order = shop_order()
    prompt = Prompt(tmp_path, "--verdicts", verdicts_file(tmp_path), "--reveal")
    prompt.wait_for(to_go(18))
    assert MARKER not in prompt.screen()
    prompt.press("f", then=MARKER)
    prompt.wait_for("press any key for the next run")
    assert "pass (disagrees with you)" in prompt.screen()
    prompt.press(" ", then=to_go(17))
    before_second = len(prompt.screen())
    prompt.press("p", then=MARKER)
    assert MARKER not in prompt.screen()[before_second - 200 : before_second]
    prompt.press("q")
    assert prompt.finish() == 0
    assert written(tmp_path) == [
        expected(order[0], "fail", revealed=True),
        expected(order[1], "pass", revealed=True),
    ]


def test_piped_answers_one_per_line(tmp_path: Path) -> None:
    order = shop_order()
    done = run_piped(tmp_path, "p\nf\ns\nq\n")
    assert done.returncode == 0, done.stderr
    assert written(tmp_path) == [expected(order[0], "pass"), expected(order[1], "fail")]
    assert "2 labelled, 1 skipped this session" in done.stdout
    # Typed words work too, and the rerun resumes after the labelled runs (the skipped one
    # comes back first).
    again = run_piped(tmp_path, "fail\nnote\n")
    assert again.returncode == 0, again.stderr
    assert written(tmp_path)[2:] == [expected(order[2], "fail")]
    assert "'note' is not a key here" in again.stdout


def test_piped_note_then_label(tmp_path: Path) -> None:
    order = shop_order()
    done = run_piped(tmp_path, "n\nwrong order id\nf\n")
    assert done.returncode == 0, done.stderr
    assert written(tmp_path) == [expected(order[0], "fail", note="wrong order id")]


def test_no_terminal_and_no_input_is_refused_in_one_line(tmp_path: Path) -> None:
    done = run_piped(tmp_path, None)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(
        "judgekit: error: no terminal to label in and no answers on stdin"
    )
    assert not (tmp_path / LABELS).exists()


def test_a_limited_sample_resumes_and_then_says_it_is_done(tmp_path: Path) -> None:
    order = shop_order(seed=7)
    first = run_piped(tmp_path, "p\nq\n", "--limit", "3", "--seed", "7")
    assert "labelled 0 · to go 3" in first.stdout
    second = run_piped(tmp_path, "f\nf\n", "--limit", "3", "--seed", "7")
    assert "labelled 1 · to go 2" in second.stdout
    assert "done: every run of the sample is labelled (3 labelled, 0 skipped)" in second.stdout
    assert [line["run_id"] for line in written(tmp_path)] == order[:3]
    third = run_piped(tmp_path, "p\n", "--limit", "3", "--seed", "7")
    assert third.returncode == 0
    assert "nothing to label: all 3 runs of the sample are labelled by ana" in third.stdout


def test_reveal_reads_the_judges_verdicts_from_the_store(tmp_path: Path) -> None:
    from judgekit.store import open_store

    with open_store(f"sqlite:///{tmp_path / '.judgekit' / 'judgekit.sqlite'}") as store:
        store.record_verdicts(
            Verdict.model_validate_json(text)
            for text in verdicts_file(tmp_path).read_text().splitlines()
        )
    done = run_piped(tmp_path, "f\nq\n", "--reveal", "--strategy", "stratified")
    assert done.returncode == 0, done.stderr
    screen = done.stdout
    first_legend = screen.index("q quit")
    assert MARKER not in screen[:first_legend]
    assert screen.index(MARKER) > first_legend
    assert "judge openai/gpt-4o-mini: pass (disagrees with you)" in screen
    assert [line["revealed"] for line in written(tmp_path)] == [True]


def test_abstained_strategy_queues_the_abstained_runs_and_says_how_many(tmp_path: Path) -> None:
    path = tmp_path / "verdicts.jsonl"
    confidences = {
        "shop/refund_full/2": 0.4,
        "shop/refund_full/3": 0.2,
        "shop/cancel_shipped/1": 0.3,
    }
    with path.open("w", encoding="utf-8") as fh:
        for run_id in shop_items():
            verdict = Verdict(
                run_id=run_id,
                rubric_id="goal_completion",
                rubric_version="v1",
                model="openai/gpt-4o-mini",
                status="abstained" if run_id in confidences else "scored",
                score="pass",
                confidence=confidences.get(run_id, 0.9),
                at="2026-11-29T10:00:00Z",  # type: ignore[arg-type]
            )
            fh.write(verdict.model_dump_json() + "\n")
    done = run_piped(
        tmp_path, "p\np\nf\n", "--verdicts", path, "--strategy", "abstained", "--reveal"
    )
    assert done.returncode == 0, done.stderr
    # Revealed, an abstained verdict shows the score the judge gave, and that it abstained.
    assert done.stdout.count("judge openai/gpt-4o-mini: pass (agrees with you; abstained)") == 2
    assert done.stdout.count("judge openai/gpt-4o-mini: pass (disagrees with you; abstained)") == 1
    assert "3 runs queued: their current verdict is abstained (least confident first)" in (
        done.stderr
    )
    assert [line["run_id"] for line in written(tmp_path)] == [
        "shop/refund_full/3",
        "shop/cancel_shipped/1",
        "shop/refund_full/2",
    ]
