"""Grading a folder of shard folders: exactly the unsharded run, or refused as gate refuses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.errors import DataError
from judgekit.graders.grade_file import grade_file
from tests.conftest import REPO
from tests.trials.test_shards import interrupted, resealed

SHOP = REPO / "tasks" / "shop.yaml"


def invoke(*args: str | Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args])
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def run(out: Path, *extra: str) -> None:
    code, _, stderr = invoke(
        "run", "--tasks", SHOP, "--agent", "examples.shop:agent", "--trials", "5",
        "--out", out, "--no-store", *extra,
    )  # fmt: skip
    assert code == 0, stderr


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop suite run whole (``whole/``) and as four shards (``shards/1`` … ``4``)."""
    root = tmp_path_factory.mktemp("sharded")
    run(root / "whole")
    for i in range(1, 5):
        run(root / "shards" / str(i), "--shard", f"{i}/4")
    return root


@pytest.fixture
def shards(made: Path, tmp_path: Path) -> Path:
    """A fresh copy of the four shard folders, for a test to damage."""
    return Path(shutil.copytree(made / "shards", tmp_path / "shards"))


def grade_cli(runs: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    code, stdout, stderr = invoke(
        "grade", runs, "--tasks", SHOP, "--out", out, "--no-store", "--reasons", *extra
    )
    return code, stdout.replace(str(out), "OUT"), stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_shards_grade_exactly_as_the_unsharded_file(
    made: Path, tmp_path: Path, jobs: str
) -> None:
    whole = grade_cli(made / "whole" / "runs.jsonl", tmp_path / "whole")
    combined = grade_cli(made / "shards", tmp_path / "combined", "--jobs", jobs)
    assert combined == whole
    assert "suite: 13/20 runs passed" in whole[1]
    for name in ("results.jsonl", "results.csv"):
        assert (tmp_path / "combined" / name).read_bytes() == (
            tmp_path / "whole" / name
        ).read_bytes()


def test_the_summary_is_that_of_the_unsharded_file(made: Path) -> None:
    whole = grade_file(made / "whole" / "runs.jsonl", SHOP, out_dir=None)
    combined = grade_file(made / "shards", SHOP, out_dir=None)
    assert combined.as_dict(k=3) == whole.as_dict(k=3)


def _refusal(shards: Path, tmp_path: Path) -> str:
    code, stdout, stderr = grade_cli(shards, tmp_path / "out")
    assert (code, stdout) == (2, "")
    assert not (tmp_path / "out" / "results.jsonl").exists()
    with pytest.raises(DataError) as raised:
        grade_file(shards, SHOP, out_dir=None)
    assert stderr == f"judgekit: error: {raised.value}\n"
    return str(raised.value)


def test_a_missing_shard_is_refused(shards: Path, tmp_path: Path) -> None:
    shutil.rmtree(shards / "3")
    assert _refusal(shards, tmp_path) == (
        f"{shards}: missing shard 3/4 of this run: run `judgekit run --shard I/4` for each "
        "and put its --out folder here"
    )


def test_a_shard_present_twice_is_refused(shards: Path, tmp_path: Path) -> None:
    shutil.copytree(shards / "2", shards / "2-again")
    assert _refusal(shards, tmp_path) == (
        f"{shards}: shard 2/4 twice: in {shards / '2'} and in {shards / '2-again'}; keep one"
    )


def test_an_unfinished_shard_is_refused(shards: Path, tmp_path: Path) -> None:
    interrupted(shards / "4", keep=3)
    assert _refusal(shards, tmp_path) == (
        f"{shards / '4' / 'shard.json'}: shard 4/4 is unfinished (its files have no digests "
        "yet): complete it with `judgekit run --resume --shard 4/4`"
    )


def test_a_run_id_in_two_shards_is_refused(shards: Path, tmp_path: Path) -> None:
    first = (shards / "1" / "runs.jsonl").read_text(encoding="utf-8").splitlines(True)[0]
    second = shards / "2" / "runs.jsonl"
    second.write_text(first + "".join(second.read_text(encoding="utf-8").splitlines(True)[1:]))
    resealed(shards / "2")
    assert _refusal(shards, tmp_path) == (
        f"{second}:1: run_id: duplicate run id 'shop/refund_full/3' (first in "
        f"{shards / '1' / 'runs.jsonl'} at line 1); each run id must appear once across "
        "the shards"
    )


def test_a_bad_line_in_a_shard_names_its_file_and_line(shards: Path, tmp_path: Path) -> None:
    runs = shards / "3" / "runs.jsonl"
    lines = runs.read_text(encoding="utf-8").splitlines(keepends=True)
    runs.write_text("".join([*lines[:2], "{oops\n", *lines[2:]]))
    resealed(shards / "3")
    assert _refusal(shards, tmp_path).startswith(f"{runs}:3: malformed JSON")


def test_a_folder_without_shards_is_refused(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert _refusal(tmp_path / "empty", tmp_path) == (
        f"{tmp_path / 'empty'}: no shard folders here: give a runs file, or a folder of the "
        "--out folders of `judgekit run --shard I/N`"
    )


def test_shards_run_without_the_store_are_graded_without_it(made: Path, tmp_path: Path) -> None:
    code, stdout, stderr = invoke("grade", made / "shards", "--tasks", SHOP, "--out", tmp_path)
    assert (code, stdout) == (2, "")
    assert stderr == (
        f"judgekit: error: the shards in {made / 'shards'} were run with --no-store (shard "
        "1/4's shard.json names no store batch): grade them with --no-store\n"
    )
    assert not (tmp_path / "results.jsonl").exists()
