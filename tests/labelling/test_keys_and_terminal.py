"""Keys per scale, and the terminal put back as it was however the prompt ends."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pexpect

from judgekit.formats.rubric import Rubric
from judgekit.labelling.keys import scale_keys
from tests.labelling.conftest import TIMEOUT, child_env, label_args


def rubric(scale: object) -> Rubric:
    prompt = "{answer_a} or {answer_b}" if scale == "pairwise" else "{final_answer}"
    return Rubric.model_validate(
        {"id": "x", "scale": scale, "prompt": prompt, "judge": {"model": "openai/m"}}
    )


def test_keys_for_every_scale() -> None:
    assert scale_keys(rubric("binary")).keys == {"p": "pass", "f": "fail"}
    assert scale_keys(rubric("pairwise")).keys == {"a": "A", "b": "B", "t": "tie"}
    assert scale_keys(rubric("likert")).keys == {str(n): n for n in range(1, 6)}
    assert scale_keys(rubric({"likert": [0, 3]})).legend() == "0 0 · 1 1 · 2 2 · 3 3"
    wide = scale_keys(rubric({"likert": [1, 10]}))
    assert wide.typed and wide.score_for("10") == 10 and wide.score_for("11") is None
    choices = scale_keys(rubric({"choices": ["correct", "partial", "wrong", "skipped"]}))
    # "skipped" starts with the skip command's letter: only its number labels it.
    assert choices.legend() == "c/1 correct · p/2 partial · w/3 wrong · 4 skipped"
    assert choices.score_for("Partial") == "partial"


def stty_state_around(tmp: Path, stop: str) -> tuple[str, str]:
    """The terminal settings before `judgekit label` starts and after it ends, where it is
    ended by typing q or by SIGTERM."""
    command = " ".join(f"'{part}'" for part in [sys.executable, *label_args()])
    script = f"stty -g > before.txt; {command}; stty -g > after.txt; echo FINISHED"
    child = pexpect.spawn(
        "/bin/sh", ["-c", script], env=child_env(tmp), cwd=str(tmp), encoding="utf-8",
        timeout=TIMEOUT, dimensions=(60, 200),
    )  # fmt: skip
    child.expect_exact("to go 18 ")
    if stop == "q":
        child.send("q")
    else:
        pids = subprocess.run(
            ["pgrep", "-P", str(child.pid)], capture_output=True, text=True, check=True
        ).stdout.split()
        os.kill(int(pids[0]), signal.SIGTERM)
    child.expect_exact("FINISHED")
    child.expect(pexpect.EOF)
    return (tmp / "before.txt").read_text(), (tmp / "after.txt").read_text()


def test_the_terminal_is_restored_after_quitting(tmp_path: Path) -> None:
    before, after = stty_state_around(tmp_path, "q")
    assert before == after


def test_the_terminal_is_restored_after_sigterm(tmp_path: Path) -> None:
    before, after = stty_state_around(tmp_path, "term")
    assert before == after
