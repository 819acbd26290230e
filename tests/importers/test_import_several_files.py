"""`judgekit import NAME FILE...`: logs written by the real inspect_ai (zstd-compressed, as it
writes them by default; one whose solver raises; one holding only its failed header), several
files and folders of them into one runs file, compared with inspect_ai's own reader."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from judgekit.cli.main import main
from judgekit.formats.run import Run, load_runs
from judgekit.importers.inspect_log import import_inspect
from judgekit.importers.zip_members import ZSTD
from tests.conftest import REPO
from tests.importers.test_inspect_import import ANSWER, _write_log

OPENAI_EXAMPLE = REPO / "examples" / "transcripts" / "shop_openai.jsonl"
FAILURE = "the tool server is down"
COUNTS = "imported 2 runs with 4 tool calls (2 tool errors, 0 with invalid arguments)"


def _failed_log(log_dir: Path) -> Path:
    """An eval whose solver raises: inspect logs each sample with its error."""
    inspect_ai = pytest.importorskip("inspect_ai", reason="inspect_ai writes the logs under test")
    from inspect_ai.dataset import Sample
    from inspect_ai.model import get_model
    from inspect_ai.solver import Generate, Solver, TaskState, solver

    @solver
    def broken() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            raise RuntimeError(FAILURE)

        return solve

    task = inspect_ai.Task(
        dataset=[Sample(input="hi", target="x", id="a")], solver=[broken()], name="broken"
    )
    logs = inspect_ai.eval(
        task, model=get_model("mockllm/model"), log_dir=str(log_dir), display="none"
    )
    assert logs[0].status == "error"
    return Path(logs[0].location)


def _sample_view(sample: Any) -> dict[str, Any]:
    """What a run must hold, read from inspect_ai's own model of the sample."""
    results = {m.tool_call_id: m for m in sample.messages if m.role == "tool"}
    calls = [
        (call.function, call.arguments, results[call.id].text, results[call.id].error)
        for m in sample.messages
        if m.role == "assistant"
        for call in m.tool_calls or []
    ]
    return {
        "calls": [
            (n, a, json.loads(t) if t.startswith("{") else t, e and e.message)
            for n, a, t, e in calls
        ],
        "answer": sample.output.completion,
        "input_tokens": sum(u.input_tokens for u in sample.model_usage.values()),
        "output_tokens": sum(u.output_tokens for u in sample.model_usage.values()),
    }


def _run_view(run: Run) -> dict[str, Any]:
    assert run.usage is not None
    return {
        "calls": [(c.name, c.args, c.result, c.error) for c in run.tool_calls],
        "answer": run.final_answer,
        "input_tokens": run.usage.input_tokens,
        "output_tokens": run.usage.output_tokens,
    }


@pytest.fixture(scope="module")
def eval_log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _write_log(tmp_path_factory.mktemp("zstd"), "eval")


_READ_ALONE = """
import json, sys, zipfile
from judgekit.importers.inspect_log import import_inspect
try:
    runs = [run.model_dump(mode="json") for run in import_inspect(sys.argv[1])]
except Exception as exc:
    runs = str(exc)
print(json.dumps({"patched": hasattr(zipfile, "ZIP_ZSTANDARD"), "runs": runs}))
"""


def _read_alone(log: Path) -> Any:
    """The log imported by a Python that never loaded inspect_ai (which patches zstd into
    zipfile when imported), as zipfile is before 3.14: the runs, or the error's text."""
    done = subprocess.run(
        [sys.executable, "-c", _READ_ALONE, str(log)],
        cwd=REPO, env={**os.environ, "PYTHONPATH": str(REPO)}, capture_output=True, text=True,
        check=True, timeout=120,
    )  # fmt: skip
    found = json.loads(done.stdout)
    assert found["patched"] == (sys.version_info >= (3, 14))
    return found["runs"]


def test_inspect_writes_zstd_and_judgekit_inflates_it_without_zipfiles_support(
    eval_log: Path,
) -> None:
    """Python before 3.14 has no zstd in zipfile: the members are inflated with zstandard,
    and the runs agree with inspect's own reader."""
    from inspect_ai.log import read_eval_log

    with zipfile.ZipFile(eval_log) as archive:
        assert {info.compress_type for info in archive.infolist()} == {ZSTD}
    runs = [Run.model_validate(run) for run in _read_alone(eval_log)]
    samples = read_eval_log(str(eval_log)).samples
    assert samples is not None
    assert [run.run_id for run in runs] == [f"weather/{s.id}/{s.epoch}" for s in samples]
    assert [_run_view(run) for run in runs] == [_sample_view(s) for s in samples]
    assert runs[0].final_answer == ANSWER


def _zero_crc(data: bytearray, name: bytes) -> None:
    """Set the CRC-32 a zip states for member ``name`` (central directory and local header)
    to 0, its bytes left as they are."""
    end = data.rindex(b"PK\x05\x06")
    count, _, at = struct.unpack("<HII", data[end + 10 : end + 20])
    for _ in range(count):
        name_length, extra_length, comment_length = struct.unpack("<HHH", data[at + 28 : at + 34])
        (local,) = struct.unpack("<I", data[at + 42 : at + 46])
        if data[at + 46 : at + 46 + name_length] == name:
            data[at + 16 : at + 20] = data[local + 14 : local + 18] = bytes(4)
        at += 46 + name_length + extra_length + comment_length


def test_a_zstd_member_whose_bytes_fail_their_crc_is_refused(
    eval_log: Path, tmp_path: Path
) -> None:
    data = bytearray(eval_log.read_bytes())
    _zero_crc(data, b"header.json")
    damaged = tmp_path / "damaged.eval"
    damaged.write_bytes(bytes(data))
    with zipfile.ZipFile(damaged) as archive:
        assert archive.getinfo("header.json").CRC == 0
    assert _read_alone(damaged) == (
        f"{damaged}: header.json: cannot read it from the zip: its bytes do not match its CRC"
    )


def test_a_failed_eval_imports_its_samples_with_their_errors(tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    log = _failed_log(tmp_path / "logs")
    (run,) = import_inspect(log)
    samples = read_eval_log(str(log)).samples
    assert samples is not None and samples[0].error is not None
    assert (run.run_id, run.stop_reason) == ("broken/a/1", "error")
    assert run.metadata["error"] == samples[0].error.message == f"RuntimeError('{FAILURE}')"


@pytest.mark.parametrize("log_format", ["eval", "json"])
def test_a_failed_log_without_samples_says_the_eval_failed(tmp_path: Path, log_format: str) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    header = read_eval_log(str(_failed_log(tmp_path / "logs")), header_only=True)
    assert header.samples is None
    path = tmp_path / f"header.{log_format}"
    write_eval_log(header, str(path), format=log_format)  # type: ignore[arg-type]
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "inspect", str(path), "-o", str(runs)])
    assert (result.exit_code, result.output) == (
        2,
        f"judgekit: error: {path}: samples: the eval failed (RuntimeError('{FAILURE}')) before "
        "any sample was logged: nothing to import\n",
    )
    assert not runs.exists()


def test_several_logs_and_a_folder_make_one_runs_file(eval_log: Path, tmp_path: Path) -> None:
    from inspect_ai.log import read_eval_log

    folder = tmp_path / "logs"
    folder.mkdir()
    first, second = folder / "a.eval", folder / "b.eval"
    shutil.copy(eval_log, first)
    shutil.copy(eval_log, second)
    (folder / "notes.txt").write_text("not a log\n")
    (folder / "listing.json").write_text('{"files": []}\n')
    (folder / "older").mkdir()
    shutil.copy(eval_log, folder / "older" / "c.eval")  # subfolders are not read
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(main, ["import", "inspect", str(folder), "-o", str(runs)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{first}: {COUNTS}\n"
        f"{second}: {COUNTS}\n"
        f"{folder}: skipped 2 files of other kinds: listing.json, notes.txt\n"
        "imported 4 runs with 8 tool calls (4 tool errors, 0 with invalid arguments) from "
        f"2 files to {runs}\n"
        f"judgekit: warning: {second}: run id 'weather/paris/1' is taken by an earlier run of "
        "this import; renamed 'weather/paris/1#2' (each run id must appear once)\n"
        f"judgekit: warning: {second}: run id 'weather/paris/2' is taken by an earlier run of "
        "this import; renamed 'weather/paris/2#2' (each run id must appear once)\n"
    )
    written = list(load_runs(runs))
    assert [run.run_id for run in written] == [
        "weather/paris/1", "weather/paris/2", "weather/paris/1#2", "weather/paris/2#2"
    ]  # fmt: skip
    assert written[2].metadata["original_run_id"] == "weather/paris/1"
    samples = read_eval_log(str(eval_log)).samples
    assert samples is not None
    assert [_run_view(run) for run in written] == [_sample_view(s) for s in samples] * 2

    named = CliRunner().invoke(main, ["import", "inspect", str(first), str(second)])
    assert named.exit_code == 0, named.output
    assert [json.loads(line)["run_id"] for line in named.stdout.splitlines()] == [
        run.run_id for run in written
    ]


def test_an_output_that_is_one_of_the_inputs_is_refused(eval_log: Path, tmp_path: Path) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    shutil.copy(eval_log, folder / "a.eval")
    json_log = _write_log(tmp_path / "json", "json")
    inside = folder / "b.json"
    shutil.copy(json_log, inside)
    before = inside.read_bytes()
    result = CliRunner().invoke(main, ["import", "inspect", str(folder), "-o", str(inside)])
    assert (result.exit_code, result.output) == (
        2,
        f"judgekit: error: cannot write {inside}: it is {inside}, which this command reads "
        "(name another output file)\n",
    )
    assert inside.read_bytes() == before


def test_a_folder_without_files_of_the_kind_and_a_file_named_twice_are_refused(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "logs"
    folder.mkdir()
    (folder / "notes.txt").write_text("not a log\n")
    result = CliRunner().invoke(main, ["import", "inspect", str(folder)])
    assert (result.exit_code, result.output) == (
        2,
        f"judgekit: error: {folder}: this folder holds no file for `judgekit import inspect` "
        "(1 file of other kinds)\n",
    )
    twice = CliRunner().invoke(main, ["import", "openai", str(OPENAI_EXAMPLE), str(OPENAI_EXAMPLE)])
    assert (twice.exit_code, twice.output) == (
        2,
        f"judgekit: error: {OPENAI_EXAMPLE}: this file is named twice (also as "
        f"{OPENAI_EXAMPLE}); read it once\n",
    )


def test_every_importer_takes_several_files(tmp_path: Path) -> None:
    copy = tmp_path / "shop_openai_again.jsonl"
    shutil.copy(OPENAI_EXAMPLE, copy)
    runs = tmp_path / "runs.jsonl"
    result = CliRunner().invoke(
        main, ["import", "openai", str(OPENAI_EXAMPLE), str(copy), "-o", str(runs)]
    )
    assert result.exit_code == 0, result.output
    counts = "imported 3 runs with 7 tool calls (1 tool errors, 0 with invalid arguments)"
    assert result.output.splitlines()[:3] == [
        f"{OPENAI_EXAMPLE}: {counts}",
        f"{copy}: {counts}",
        f"imported 6 runs with 14 tool calls (2 tool errors, 0 with invalid arguments) from "
        f"2 files to {runs}",
    ]
    ids = [run.run_id for run in load_runs(runs)]
    assert len(ids) == len(set(ids)) == 6
