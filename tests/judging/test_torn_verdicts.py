"""One policy for a torn last line of ``verdicts.jsonl``, whichever command reads it: what a
crash mid-append leaves (a last line without its newline that is no JSON) is left out with a
warning naming the file and line by `judge` (a rerun), `calibrate --verdicts` and `store
import` alike; a whole last line without its newline is kept; a malformed line anywhere else,
or a last line that is complete but malformed, is the same one-line error, exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.testing import FakeLLMServer
from tests.conftest import REPO
from tests.judging.conftest import RUBRIC, SHOP_RUNS, judge_args, verdict_json

TORN = "ignored a truncated last line (left by a crash while writing?)"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def server() -> Any:
    with FakeLLMServer(reply=lambda request: verdict_json("pass")) as running:
        yield running


def judged(server: FakeLLMServer, out: Path) -> Path:
    """The 18 shop runs judged into ``out``: its verdicts.jsonl."""
    code, _, err = invoke(*judge_args(SHOP_RUNS, server.openai_base_url, out, "--no-store"))
    assert code == 0, err
    return out / "verdicts.jsonl"


def lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def calibrate(tmp_path: Path, verdicts: Path) -> tuple[int, str, str]:
    labels = tmp_path / "labels" / "goal_completion.jsonl"
    if not labels.exists():
        labels.parent.mkdir(exist_ok=True)
        shutil.copy(REPO / "labels" / "goal_completion.jsonl", labels)
        shutil.copy(REPO / "labels" / "goal_completion.split.jsonl", labels.parent)
    return invoke(
        "calibrate", "--rubric", RUBRIC, "--verdicts", verdicts, "--labels", labels, "--no-store"
    )


def test_a_torn_last_verdict_is_left_out_with_a_warning_by_every_command(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    verdicts = judged(server, tmp_path / "out")
    whole = lines(verdicts)
    assert len(whole) == 18
    torn = b"".join(whole[:-1]) + whole[-1][:40]
    verdicts.write_bytes(torn)
    warning = f"judgekit: warning: {verdicts}:18: {TORN}\n"

    code, out, err = calibrate(tmp_path, verdicts)
    assert (code, err) == (0, warning)
    assert verdicts.read_bytes() == torn  # reading leaves the file as it was

    code, out, err = invoke("store", "import", verdicts)
    assert (code, err) == (0, warning)
    assert out.startswith(f"{verdicts}: 17 verdicts recorded (batch ")

    calls = server.calls
    code, out, err = invoke(*judge_args(SHOP_RUNS, server.openai_base_url, tmp_path / "out"))
    assert (code, err) == (0, warning)
    report = json.loads(out)
    assert (report["verdicts"], server.calls) == (18, calls)  # the torn one from the cache
    after = lines(verdicts)
    assert after[:17] == whole[:17] and len(after) == 18  # repaired: 18 whole lines
    assert json.loads(after[17])["run_id"] == json.loads(whole[17])["run_id"]

    # A whole last line without its newline is kept, and ended by the rerun.
    ended = verdicts.read_bytes()
    verdicts.write_bytes(ended[:-1])
    code, _, err = calibrate(tmp_path, verdicts)
    assert (code, err) == (0, "")
    code, out, err = invoke("store", "import", verdicts)
    assert (code, err) == (0, "")
    assert out.startswith(f"{verdicts}: 0 verdicts recorded (batch ")  # all 18 known
    code, out, err = invoke(*judge_args(SHOP_RUNS, server.openai_base_url, tmp_path / "out"))
    assert (code, err) == (0, "")
    assert json.loads(out)["verdicts"] == 18
    assert verdicts.read_bytes() == ended


MALFORMED = [
    (5, b'{"run_id": "x"}\n', "rubric_id: required field is missing"),
    (18, b'{"run_id": "x", \n', "malformed JSON: EOF while parsing a value at line 2 column 0"),
    # Whole JSON without its newline is no torn line: a rerun used to drop it unsaid.
    (18, b'{"run_id": "x"}', "rubric_id: required field is missing"),
]


def test_a_malformed_line_is_the_same_error_for_every_command(
    server: FakeLLMServer, tmp_path: Path
) -> None:
    verdicts = judged(server, tmp_path / "out")
    good = lines(verdicts)
    for number, bad, problem in MALFORMED:
        content = [*good]
        content[number - 1] = bad
        verdicts.write_bytes(b"".join(content))
        error = f"judgekit: error: {verdicts}:{number}: {problem}"
        assert calibrate(tmp_path, verdicts)[::2] == (2, error + "\n")
        assert invoke("store", "import", verdicts)[::2] == (2, error + "\n")
        code, _, err = invoke(*judge_args(SHOP_RUNS, server.openai_base_url, tmp_path / "out"))
        assert (code, err) == (
            2,
            f"{error}; this is an earlier judge's output, which a rerun resumes: move it away "
            "or pass another --out\n",
        )
        assert verdicts.read_bytes() == b"".join(content)
