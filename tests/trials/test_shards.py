"""Sharded runs: the partition, the shards' folders read as one run, the shared store batch."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from judgekit import load_tasks
from judgekit.cli import main
from judgekit.errors import ConfigError, DataError
from judgekit.formats.grade import Grade, load_results
from judgekit.formats.shard import Shard, parse_shard
from judgekit.store import open_store
from judgekit.trials.shards import shard_group, shard_pairs
from tests.conftest import REPO
from tests.store.conftest import postgres_database

SHOP = REPO / "tasks" / "shop.yaml"
TRIALS = 5


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def run_args(out: Path, *extra: str) -> list[str | Path]:
    return [
        "run",
        "--tasks",
        SHOP,
        "--agent",
        "examples.shop:agent",
        "--trials",
        str(TRIALS),
        "--out",
        out,
        "--json",
        *extra,
    ]


def sharded(tmp_path: Path, *store: str) -> Path:
    """The shop suite run as four shards into ``tmp_path/shards/<i>``."""
    for i in range(1, 5):
        code, _, stderr = invoke(
            *run_args(tmp_path / "shards" / str(i), "--shard", f"{i}/4", *store)
        )
        assert code == 0, stderr
    return tmp_path / "shards"


def interrupted(folder: Path, *, keep: int) -> None:
    """Leave ``folder`` as a shard interrupted after ``keep`` trials leaves it: its files cut
    to those trials, its shard.json without the digests a finished shard records."""
    for name in ("runs.jsonl", "results.jsonl"):
        lines = (folder / name).read_text(encoding="utf-8").splitlines(keepends=True)
        (folder / name).write_text("".join(lines[:keep]), encoding="utf-8")
    manifest = json.loads((folder / "shard.json").read_text(encoding="utf-8"))
    manifest |= {"runs_sha256": None, "results_sha256": None}
    (folder / "shard.json").write_text(json.dumps(manifest), encoding="utf-8")


def resealed(folder: Path) -> None:
    """Record in ``folder``'s shard.json the digests of its files as they are now, as a
    shard written that way would: for the checks that hold beyond the digests."""
    manifest = json.loads((folder / "shard.json").read_text(encoding="utf-8"))
    for name in ("runs", "results"):
        data = (folder / f"{name}.jsonl").read_bytes()
        manifest[f"{name}_sha256"] = hashlib.sha256(data).hexdigest()
    (folder / "shard.json").write_text(json.dumps(manifest), encoding="utf-8")


def rows(grades: list[Grade]) -> list[dict[str, object]]:
    return sorted((g.model_dump() for g in grades), key=lambda row: str(row["run_id"]))


def test_every_pair_is_in_exactly_one_shard_and_the_shards_differ_by_at_most_one() -> None:
    tasks = load_tasks(SHOP)
    everything = sorted((t.id, n) for t, n in shard_pairs(tasks, TRIALS, None))
    assert len(everything) == 20
    for count in range(1, 8):
        parts = [
            [(t.id, n) for t, n in shard_pairs(tasks, TRIALS, Shard(i, count))]
            for i in range(1, count + 1)
        ]
        assert sorted(pair for part in parts for pair in part) == everything
        sizes = [len(part) for part in parts]
        assert max(sizes) - min(sizes) <= 1, (count, sizes)


def test_round_robin_over_the_pairs_sorted_by_suite_task_and_trial() -> None:
    # Sorted: cancel_shipped 1-5, refund_and_notify 1-5, refund_full 1-5, refuse_overrefund
    # 1-5; shard 1 of 4 takes positions 0, 4, 8, 12, 16, in the suite's own order.
    first = shard_pairs(load_tasks(SHOP), TRIALS, Shard(1, 4))
    assert [(t.id, n) for t, n in first] == [
        ("refund_full", 3),
        ("cancel_shipped", 1),
        ("cancel_shipped", 5),
        ("refuse_overrefund", 2),
        ("refund_and_notify", 4),
    ]


@pytest.mark.parametrize("text", ["0/4", "5/4", "1/0", "a/b", "2", "-1/4"])
def test_a_malformed_shard_says_what_is_valid(text: str) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_shard(text)
    assert str(raised.value) == (f"--shard must be I/N with 1 <= I <= N (e.g. 2/4), got {text!r}")
    assert parse_shard(" 2 / 4 ") == Shard(2, 4)


def test_a_folder_of_shards_reads_as_the_unsharded_run_on_sqlite(tmp_path: Path) -> None:
    store = f"sqlite:///{tmp_path / 'store.sqlite'}"
    env = {"JUDGEKIT_DB": store, "JUDGEKIT_SHARD_GROUP": "nightly-7", "GITHUB_RUN_ID": ""}
    code, _, _ = invoke(*run_args(tmp_path / "whole"), env=env)
    assert code == 0
    batch_ids = set()
    for i in range(1, 5):
        if i == 4:  # three shards of four: the batch is not the whole run yet
            code, _, stderr = invoke(
                "gate", "--baseline", tmp_path / "whole", "--candidate", "batch:2", env=env
            )
            assert (code, stderr.strip()) == (
                2,
                "judgekit: error: batch:2 is batch 2, the 4 shards of group 'nightly-7', with "
                "15 of their 20 runs graded: a shard is missing or unfinished (gate the "
                "shards' folders to see which)",
            )
        code, stdout, stderr = invoke(
            *run_args(tmp_path / "shards" / str(i), "--shard", f"{i}/4"), env=env
        )
        assert code == 0, stderr
        assert json.loads(stdout)["runs"] == 5
        batch_ids.add(json.loads(stdout)["store"]["batch_id"])
    assert batch_ids == {2}
    code, gate_batch, _ = invoke(
        "gate", "--baseline", tmp_path / "whole", "--candidate", "batch:2", env=env
    )
    assert code == 0
    assert "all runs           0.65 13/20  0.65 13/20" in gate_batch
    whole = list(load_results(tmp_path / "whole"))
    combined = list(load_results(tmp_path / "shards"))
    assert rows(combined) == rows(whole)
    manifest = json.loads((tmp_path / "shards" / "3" / "shard.json").read_text())
    assert {k: manifest[k] for k in ("shard", "of", "group", "trials", "pairs")} == {
        "shard": 3,
        "of": 4,
        "group": "nightly-7",
        "trials": 5,
        "pairs": 5,
    }
    with open_store(store) as opened:
        shards_batch = opened.find_batch(manifest["batch_key"])
        assert shards_batch is not None
        batches = opened.batches()
        assert len(batches) == 2  # one for the four shards, one for the whole run
        (whole_batch,) = [b for b in batches if b.id != shards_batch.id]
        assert rows(opened.grades(shards_batch.id)) == rows(opened.grades(whole_batch.id))
        assert opened.count("runs") == 40
        assert shards_batch.tags == {"shard_group": "nightly-7", "shards": "4", "shard_runs": "20"}
    code, gate_shards, _ = invoke(
        "gate", "--baseline", tmp_path / "whole", "--candidate", tmp_path / "shards", env=env
    )
    assert code == 0
    assert "all runs           0.65 13/20  0.65 13/20" in gate_shards


def test_a_missing_a_repeated_or_an_unfinished_shard_is_refused(tmp_path: Path) -> None:
    shards = sharded(tmp_path, "--no-store")
    whole = tmp_path / "whole"
    shutil.copytree(shards / "1", whole)
    (whole / "shard.json").unlink()  # a baseline of its own, no longer a shard

    def gate_error() -> str:
        code, _, stderr = invoke("gate", "--baseline", whole, "--candidate", shards)
        assert code == 2
        return stderr.strip()

    shutil.copytree(shards / "2", shards / "2-again")
    assert gate_error() == (
        f"judgekit: error: {shards}: shard 2/4 twice: in {shards / '2'} and in {shards / '2-again'}; "
        "keep one"
    )
    shutil.rmtree(shards / "2-again")
    shutil.move(shards / "3", tmp_path / "3")
    assert gate_error() == (
        f"judgekit: error: {shards}: missing shard 3/4 of this run: run `judgekit run --shard I/4` for "
        "each and put its --out folder here"
    )
    shutil.move(tmp_path / "3", shards / "3")
    interrupted(shards / "4", keep=3)
    assert gate_error() == (
        f"judgekit: error: {shards / '4' / 'shard.json'}: shard 4/4 is unfinished (its files "
        "have no digests yet): complete it with `judgekit run --resume --shard 4/4`"
    )


def test_a_run_id_in_two_shards_is_refused(tmp_path: Path) -> None:
    shards = sharded(tmp_path, "--no-store")
    first = (shards / "1" / "results.jsonl").read_text().splitlines(keepends=True)[0]
    second = shards / "2" / "results.jsonl"
    second.write_text(first + "".join(second.read_text().splitlines(keepends=True)[1:]))
    resealed(shards / "2")
    with pytest.raises(DataError) as raised:
        list(load_results(shards))
    assert str(raised.value) == (
        f"{second}:1: run_id: duplicate run id 'shop/refund_full/3' (first in "
        f"{shards / '1' / 'results.jsonl'} at line 1); each run id must appear once across "
        "the shards"
    )


def test_a_shard_resumes_only_as_itself(tmp_path: Path) -> None:
    out = tmp_path / "shards" / "2"
    code, _, _ = invoke(*run_args(out, "--shard", "2/4", "--no-store"))
    assert code == 0
    runs = out / "runs.jsonl"
    runs.write_text("".join(runs.read_text().splitlines(keepends=True)[:2]))
    code, _, stderr = invoke(*run_args(out, "--shard", "3/4", "--no-store", "--resume"))
    assert (code, stderr.strip()) == (
        2,
        f"judgekit: error: {out / 'shard.json'} is shard 2/4 (5 trials, no group); cannot resume "
        "it as shard 3/4 (5 trials, no group)",
    )
    code, _, stderr = invoke(*run_args(out, "--no-store", "--resume"))
    assert (code, stderr.strip()) == (
        2,
        f"judgekit: error: {out} holds shard 2/4 of a run: resume it with --shard",
    )
    code, stdout, _ = invoke(*run_args(out, "--shard", "2/4", "--no-store", "--resume"))
    assert (code, json.loads(stdout)["runs"]) == (0, 5)
    assert len((out / "results.jsonl").read_text().splitlines()) == 5


def test_a_shard_recorded_in_the_store_needs_a_group(tmp_path: Path) -> None:
    code, _, stderr = invoke(
        *run_args(tmp_path / "out", "--shard", "1/4"),
        env={"JUDGEKIT_SHARD_GROUP": "", "GITHUB_RUN_ID": ""},
    )
    assert (code, stderr.strip()) == (
        2,
        "judgekit: error: --shard 1/4 records in the store, where the shards meet by a group id: pass "
        "--shard-group ID (the same on every shard) or set $JUDGEKIT_SHARD_GROUP (on GitHub "
        "Actions the workflow run id is used), or pass --no-store",
    )
    assert not (tmp_path / "out").exists()


def test_a_malformed_shard_file_names_the_file_and_field(tmp_path: Path) -> None:
    shards = sharded(tmp_path, "--no-store")
    (shards / "2" / "shard.json").write_text('{"shard": 2, "of": "four"}')
    with pytest.raises(DataError) as raised:
        list(load_results(shards))
    assert str(raised.value).startswith(f"{shards / '2' / 'shard.json'}: of: ")
    assert str(raised.value).endswith("(a shard.json as `judgekit run --shard I/N` writes it)")


def test_four_shards_as_four_processes_on_postgresql_equal_the_unsharded_run(
    tmp_path: Path,
) -> None:
    with postgres_database() as url:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "JUDGEKIT_"))}
        env |= {
            "JUDGEKIT_DB": url,
            "JUDGEKIT_HOME": str(tmp_path / "home"),
            "JUDGEKIT_GIT_SHA": "0" * 40,
            "JUDGEKIT_BRANCH": "main",
        }
        command = [sys.executable, "-m", "judgekit", *map(str, run_args(tmp_path / "whole"))]
        subprocess.run(command, cwd=REPO, env=env, check=True, capture_output=True)
        shards = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "judgekit",
                    *map(str, run_args(tmp_path / "shards" / str(i))),
                    "--shard",
                    f"{i}/4",
                    "--shard-group",
                    "ci-1234",
                ],
                cwd=REPO,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            for i in range(1, 5)
        ]
        reports = []
        for process in shards:
            stdout, stderr = process.communicate(timeout=300)
            assert process.returncode == 0, stderr.decode()
            reports.append(json.loads(stdout))
        batch_ids = {report["store"]["batch_id"] for report in reports}
        assert len(batch_ids) == 1  # the four shards met in one batch
        with open_store(url) as store:
            (whole,) = [b.id for b in store.batches() if b.id not in batch_ids]
            (shared,) = batch_ids
            whole_grades, shard_grades = store.grades(whole), store.grades(shared)
            assert rows(shard_grades) == rows(whole_grades)
            assert len(whole_grades) == 20 and store.count("runs") == 40
        per_task = Counter(g.task_id for g in shard_grades if g.passed)
        assert per_task == Counter(g.task_id for g in whole_grades if g.passed)
        assert sorted(per_task.items()) == [
            ("cancel_shipped", 5),
            ("refund_and_notify", 2),
            ("refund_full", 3),
            ("refuse_overrefund", 3),
        ]


def test_the_group_is_the_option_then_the_variable_then_github_s_run_id(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("JUDGEKIT_SHARD_GROUP", raising=False)
    monkeypatch.delenv("GITHUB_RUN_ID", raising=False)
    assert shard_group(None) is None
    monkeypatch.setenv("GITHUB_RUN_ID", "9876543210")
    monkeypatch.setenv("GITHUB_RUN_ATTEMPT", "2")  # a re-run job joins the first attempt's
    assert shard_group(None) == "github-9876543210"
    monkeypatch.setenv("JUDGEKIT_SHARD_GROUP", "nightly-7")
    assert shard_group(None) == "nightly-7"
    assert shard_group("mine") == "mine"


def test_a_shard_regraded_in_place_still_combines(tmp_path: Path) -> None:
    shards = sharded(tmp_path, "--no-store")
    before = rows(list(load_results(shards)))
    (shards / "2" / "results.jsonl").unlink()
    code, _, stderr = invoke(
        "grade", shards / "2" / "runs.jsonl", "--tasks", SHOP, "--out", shards / "2", "--no-store"
    )
    assert code == 0, stderr
    assert rows(list(load_results(shards))) == before
