"""A folder of shards is gated, graded and reported as the whole run only when it proves it is:
each ``shard.json`` records the suite's sha256, its tasks, the run's pairs and, once the shard
finished, the sha256 of its runs and results files. A shard run on a stale suite (one task
fewer, the same count, trials and group), a ``shard.json`` whose pairs were edited with the
runs cut to match, a runs file cut beside whole results, a runs or results file beside the
shard folders, an unfinished shard and a shard.json an older judgekit wrote (no digests) are
each one line, exit 2, from ``gate``, ``grade`` and ``report`` alike, with nothing written and
the shards left as they were; the untouched shards, and a shard interrupted then resumed,
still read as the whole run.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from judgekit.cli import main
from judgekit.formats.task import Task
from judgekit.trials.world import World
from tests.conftest import REPO

SHOP = REPO / "tasks" / "shop.yaml"
GATE_ALL_RUNS = "all runs           0.65 13/20  0.65 13/20"
_CALLS = [0]  # the interrupting agent's calls so far
STOP_AT = 3  # the call during which the interrupting agent's process gets Ctrl-C


def interrupting_agent(task: Task, world: World) -> str:
    """The shop's agent, whose process is interrupted (SIGINT, Ctrl-C) during its third
    trial: the trials before it finished, that one and the rest did not."""
    from examples.shop import agent

    _CALLS[0] += 1
    if _CALLS[0] == STOP_AT:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(1)  # the main thread is interrupted while this trial is in flight
    return agent(task, world)


def invoke(*args: str | Path, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def run(
    out: Path, *extra: str | Path, tasks: Path = SHOP, agent: str = "examples.shop:agent"
) -> int:
    code, _, _ = invoke(
        "run", "--tasks", tasks, "--agent", agent, "--trials", "5", "--out", out,
        "--no-store", "--json", *extra,
    )  # fmt: skip
    return code


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop suite run whole (``whole/``), as four shards (``shards/1`` … ``4``), and
    shard 4/4 run on a stale copy of the suite, a task fewer (``stale/4``)."""
    root = tmp_path_factory.mktemp("made")
    assert run(root / "whole") == 0
    for i in range(1, 5):
        assert run(root / "shards" / str(i), "--shard", f"{i}/4") == 0
    suite = yaml.safe_load(SHOP.read_text(encoding="utf-8"))
    # The last task in the partition's order: the stale shard's pairs are all pairs of the
    # real shard 4/4, so no run id repeats and only the suite tells it apart.
    suite["tasks"] = [task for task in suite["tasks"] if task["id"] != "refuse_overrefund"]
    (root / "stale.yaml").write_text(yaml.safe_dump(suite), encoding="utf-8")
    assert run(root / "stale" / "4", "--shard", "4/4", tasks=root / "stale.yaml") == 0
    return root


@pytest.fixture
def shards(made: Path, tmp_path: Path) -> Path:
    """A fresh copy of the four shard folders, for a test to damage."""
    return Path(shutil.copytree(made / "shards", tmp_path / "shards"))


def contents(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def refused_everywhere(shards: Path, made: Path, tmp_path: Path) -> str:
    """The one line ``gate``, ``grade`` and ``report`` each refuse ``shards`` with (exit 2,
    nothing on stdout, no file written, the shards as they were), checked to be one line."""
    before = contents(shards)
    out = tmp_path / "out"
    env = {"JUDGEKIT_DB": f"sqlite:///{tmp_path / 'store.sqlite'}"}
    commands = [
        ("gate", "--baseline", made / "whole", "--candidate", shards),
        ("grade", shards, "--tasks", SHOP, "--out", out, "--no-store"),
        ("report", "--results", shards, "-o", out / "report.html"),
    ]
    lines = set()
    for command in commands:
        code, stdout, stderr = invoke(*command, env=env)
        assert (code, stdout) == (2, ""), command
        assert stderr.count("\n") == 1 and stderr.startswith("judgekit: error: "), stderr
        lines.add(stderr.removeprefix("judgekit: error: ").removesuffix("\n"))
    assert not out.exists()
    assert contents(shards) == before
    (line,) = lines
    return line


def manifest_of(folder: Path) -> dict[str, object]:
    loaded: dict[str, object] = json.loads((folder / "shard.json").read_text(encoding="utf-8"))
    return loaded


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def cut(path: Path, keep: int) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    path.write_text("".join(lines[:keep]), encoding="utf-8")


def test_a_finished_shard_records_its_suite_counts_and_files(made: Path) -> None:
    folder = made / "shards" / "2"
    manifest = manifest_of(folder)
    suite = manifest["suite_sha256"]
    assert manifest == {
        "shard": 2,
        "of": 4,
        "group": None,
        "trials": 5,
        "pairs": 5,
        "batch_key": None,
        "tasks": 4,
        "run_pairs": 20,
        "suite_sha256": suite,
        "graded_sha256": suite,
        "runs_sha256": sha256(folder / "runs.jsonl"),
        "results_sha256": sha256(folder / "results.jsonl"),
    }
    assert {manifest_of(made / "shards" / str(i))["suite_sha256"] for i in range(1, 5)} == {suite}
    assert manifest_of(made / "stale" / "4")["suite_sha256"] != suite


def test_the_untouched_shards_still_gate_grade_and_report_as_the_whole_run(
    made: Path, tmp_path: Path
) -> None:
    env = {"JUDGEKIT_DB": f"sqlite:///{tmp_path / 'store.sqlite'}"}
    code, stdout, _ = invoke("gate", "--baseline", made / "whole", "--candidate", made / "shards")
    assert code == 0 and GATE_ALL_RUNS in stdout
    code, stdout, _ = invoke(
        "grade", made / "shards", "--tasks", SHOP, "--out", tmp_path / "all", "--no-store"
    )
    assert code == 0 and "suite: 13/20 runs passed" in stdout
    whole = made / "whole" / "results.jsonl"
    assert (tmp_path / "all" / "results.jsonl").read_bytes() == whole.read_bytes()
    code, stdout, _ = invoke(
        "report", "--results", made / "shards", "-o", tmp_path / "r.html", env=env
    )
    assert code == 0 and stdout.startswith(f"wrote {tmp_path / 'r.html'}: 20 runs, ")


def test_a_shard_run_on_a_stale_suite_is_refused(shards: Path, made: Path, tmp_path: Path) -> None:
    shutil.rmtree(shards / "4")
    shutil.copytree(made / "stale" / "4", shards / "4")
    stale, current = manifest_of(shards / "4"), manifest_of(shards / "1")
    assert (stale["tasks"], stale["pairs"], stale["run_pairs"]) == (3, 3, 15)
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{shards / '4' / 'shard.json'}: shard 4/4 was run on another suite than shard 1/4 "
        f"({shards / '1' / 'shard.json'}): 3 tasks against 4, suite sha256 "
        f"{str(stale['suite_sha256'])[:12]}… against {str(current['suite_sha256'])[:12]}…; "
        "rerun the stale shards on one suite"
    )


def test_edited_pairs_with_the_runs_cut_to_match_are_refused(
    shards: Path, made: Path, tmp_path: Path
) -> None:
    folder = shards / "2"
    edited = manifest_of(folder) | {"pairs": 4}
    for name in ("runs.jsonl", "results.jsonl"):
        cut(folder / name, 4)
        edited[f"{name.removesuffix('.jsonl')}_sha256"] = sha256(folder / name)
    (folder / "shard.json").write_text(json.dumps(edited), encoding="utf-8")
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{folder / 'shard.json'}: pairs: shard 2/4 says it owes 4 pairs, but its share of the "
        "run's 20 (4 tasks × 5 trials) is 5: this shard.json was edited; rerun the shard"
    )


def test_an_edited_count_of_the_run_s_pairs_is_refused(
    shards: Path, made: Path, tmp_path: Path
) -> None:
    folder = shards / "3"
    edited = manifest_of(folder) | {"run_pairs": 16, "pairs": 4}
    (folder / "shard.json").write_text(json.dumps(edited), encoding="utf-8")
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{folder / 'shard.json'}: run_pairs: shard 3/4 says its run has 16 pairs, but 4 tasks "
        "× 5 trials are 20: this shard.json was edited; rerun the shard"
    )


def test_a_runs_file_cut_beside_whole_results_is_refused(
    shards: Path, made: Path, tmp_path: Path
) -> None:
    runs = shards / "3" / "runs.jsonl"
    cut(runs, 2)
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{runs}: not the runs.jsonl shard 3/4 finished with (its sha256 is not the one its "
        "shard.json holds): it was cut or edited since; rerun the shard"
    )


def test_an_edited_results_file_is_refused(shards: Path, made: Path, tmp_path: Path) -> None:
    results = shards / "1" / "results.jsonl"
    lines = results.read_text(encoding="utf-8").splitlines(keepends=True)
    assert json.loads(lines[0])["passed"] is True
    lines[0] = lines[0].replace('"passed":true', '"passed":false', 1)  # its verdict, the first
    results.write_text("".join(lines), encoding="utf-8")
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{results}: not the results.jsonl shard 1/4 finished with (its sha256 is not the one "
        f"its shard.json holds): it was cut or edited since; regrade it in place (`judgekit "
        f"grade {shards / '1' / 'runs.jsonl'} --tasks … --out {shards / '1'}`) or rerun the shard"
    )


@pytest.mark.parametrize("name", ["runs.jsonl", "results.jsonl"])
def test_a_run_file_beside_the_shard_folders_is_refused(
    shards: Path, made: Path, tmp_path: Path, name: str
) -> None:
    # A results.jsonl there used to be read instead of the shards; a runs.jsonl, ignored.
    shutil.copy(made / "whole" / name, shards / name)
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{shards / name}: a {name} beside the shard folders of a run is part of no shard: "
        f"move it out of {shards}, or give it by its own path"
    )


def test_a_shard_json_an_older_judgekit_wrote_is_refused(
    shards: Path, made: Path, tmp_path: Path
) -> None:
    folder = shards / "2"
    older = {
        key: value
        for key, value in manifest_of(folder).items()
        if key in ("shard", "of", "group", "trials", "pairs", "batch_key")
    }
    (folder / "shard.json").write_text(json.dumps(older), encoding="utf-8")
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{folder / 'shard.json'}: shard 2/4 was written by an older judgekit, without the "
        "digests of its suite and files that prove it whole: rerun it with `judgekit run "
        "--shard 2/4` into an empty --out"
    )


def test_an_interrupted_shard_is_refused_until_resumed_and_then_verifies(
    shards: Path, made: Path, tmp_path: Path
) -> None:
    folder = shards / "2"
    shutil.rmtree(folder)
    _CALLS[0] = 0
    agent = "tests.hostile.test_shards:interrupting_agent"
    assert run(folder, "--shard", "2/4", agent=agent) == 130
    assert len((folder / "runs.jsonl").read_text(encoding="utf-8").splitlines()) == STOP_AT - 1
    assert manifest_of(folder)["runs_sha256"] is None
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{folder / 'shard.json'}: shard 2/4 is unfinished (its files have no digests yet): "
        "complete it with `judgekit run --resume --shard 2/4`"
    )
    assert run(folder, "--shard", "2/4", "--resume") == 0
    results = (folder / "results.jsonl").read_bytes()
    assert results == (made / "shards" / "2" / "results.jsonl").read_bytes()
    assert manifest_of(folder)["runs_sha256"] == sha256(folder / "runs.jsonl")
    assert manifest_of(folder)["results_sha256"] == hashlib.sha256(results).hexdigest()
    code, stdout, _ = invoke("gate", "--baseline", made / "whole", "--candidate", shards)
    assert code == 0 and GATE_ALL_RUNS in stdout


def test_a_shard_resumes_only_on_its_own_suite(made: Path, tmp_path: Path) -> None:
    folder = Path(shutil.copytree(made / "shards" / "4", tmp_path / "4"))
    before = contents(folder)
    kept, stale = manifest_of(folder), manifest_of(made / "stale" / "4")
    code, _, stderr = invoke(
        "run", "--tasks", made / "stale.yaml", "--agent", "examples.shop:agent", "--trials",
        "5", "--out", folder, "--no-store", "--shard", "4/4", "--resume",
    )  # fmt: skip
    assert (code, stderr.strip()) == (
        2,
        f"judgekit: error: {folder / 'shard.json'} is shard 4/4 (5 trials, no group) of another "
        f"suite (4 tasks, sha256 {str(kept['suite_sha256'])[:12]}…; this one: 3 tasks, "
        f"{str(stale['suite_sha256'])[:12]}…): cannot resume it on this suite; rerun the shard "
        "into an empty --out",
    )
    assert contents(folder) == before


def test_a_shard_regraded_in_place_records_its_results_and_suite(
    shards: Path, made: Path, tmp_path: Path
) -> None:
    suite = yaml.safe_load(SHOP.read_text(encoding="utf-8"))
    suite["tasks"][0]["expect_state"] = {"orders.A100.refunded": 39}  # refund_full now fails
    edited = tmp_path / "edited.yaml"
    edited.write_text(yaml.safe_dump(suite), encoding="utf-8")
    folder = shards / "1"
    code, _, stderr = invoke(
        "grade", folder / "runs.jsonl", "--tasks", edited, "--out", folder, "--no-store"
    )
    assert code == 0, stderr
    manifest = manifest_of(folder)
    assert manifest["results_sha256"] == sha256(folder / "results.jsonl")
    assert manifest["graded_sha256"] != manifest["suite_sha256"]
    first = manifest_of(shards / "2")
    assert refused_everywhere(shards, made, tmp_path) == (
        f"{shards / '2' / 'shard.json'}: shard 2/4's results were graded with another suite "
        f"than shard 1/4's ({folder / 'shard.json'}): suite sha256 "
        f"{str(first['graded_sha256'])[:12]}… against {str(manifest['graded_sha256'])[:12]}…; "
        "regrade every shard in place with one suite"
    )
    for i in range(2, 5):
        runs = shards / str(i) / "runs.jsonl"
        code, _, _ = invoke("grade", runs, "--tasks", edited, "--out", runs.parent, "--no-store")
        assert code == 0
    code, stdout, _ = invoke("gate", "--baseline", made / "whole", "--candidate", shards)
    assert code == 0  # the edited suite fails refund_full in every shard, read as one run
    assert "refund_full          0.60 3/5    0.00 0/5" in stdout
    assert "all runs           0.65 13/20  0.50 10/20" in stdout


def test_only_a_shard_s_own_runs_are_graded_into_its_folder(shards: Path, made: Path) -> None:
    before = contents(shards)
    code, stdout, stderr = invoke(
        "grade", made / "whole" / "runs.jsonl", "--tasks", SHOP, "--out", shards / "2",
        "--no-store",
    )  # fmt: skip
    assert (code, stdout, stderr) == (
        2,
        "",
        f"judgekit: error: --out {shards / '2'} is the folder of shard 2/4 "
        f"({shards / '2' / 'shard.json'}): grade only its own runs.jsonl into it, or choose "
        "another --out\n",
    )
    code, stdout, stderr = invoke("grade", shards, "--tasks", SHOP, "--out", shards, "--no-store")
    assert (code, stdout, stderr) == (
        2,
        "",
        f"judgekit: error: --out {shards} is the folder of shards graded: its results would "
        "sit beside the shards and be part of none; choose another --out\n",
    )
    cut(shards / "3" / "runs.jsonl", 2)
    before = contents(shards)
    code, _, stderr = invoke(
        "grade", shards / "3" / "runs.jsonl", "--tasks", SHOP, "--out", shards / "3", "--no-store"
    )
    assert (code, stderr) == (
        2,
        f"judgekit: error: {shards / '3' / 'runs.jsonl'}: not the runs.jsonl shard 3/4 "
        "finished with (its sha256 is not the one its shard.json holds): it was cut or edited "
        "since; rerun the shard\n",
    )
    assert contents(shards) == before


@pytest.mark.parametrize("given", ["folder", "file"])
def test_one_shard_s_results_are_never_read_as_the_whole_run(
    made: Path, tmp_path: Path, given: str
) -> None:
    folder = made / "shards" / "3"
    results = folder / "results.jsonl"
    reference = folder if given == "folder" else results
    env = {"JUDGEKIT_DB": f"sqlite:///{tmp_path / 'store.sqlite'}"}
    for command in (
        ("gate", "--baseline", made / "whole", "--candidate", reference),
        ("report", "--results", reference, "-o", tmp_path / "report.html"),
    ):
        code, stdout, stderr = invoke(*command, env=env)
        assert (code, stdout, stderr) == (
            2,
            "",
            f"judgekit: error: {results}: the results of shard 3/4 alone, a part of its run: "
            "give the folder that holds all 4 shards' folders\n",
        )
    assert not (tmp_path / "report.html").exists()


def test_a_shard_on_a_stale_suite_records_apart_in_the_store(made: Path, tmp_path: Path) -> None:
    # The stale shard first: its batch used to be the one the others joined, saying the run
    # had its 15 pairs, so 18 runs graded passed as the whole run.
    env = {
        "JUDGEKIT_DB": f"sqlite:///{tmp_path / 'store.sqlite'}",
        "JUDGEKIT_SHARD_GROUP": "nightly-8",
        "GITHUB_RUN_ID": "",
    }
    batches = []
    for i, tasks in ((4, made / "stale.yaml"), (1, SHOP), (2, SHOP), (3, SHOP)):
        code, stdout, _ = invoke(
            "run", "--tasks", tasks, "--agent", "examples.shop:agent", "--trials", "5",
            "--out", tmp_path / str(i), "--shard", f"{i}/4", "--json", env=env,
        )  # fmt: skip
        assert code == 0
        batches.append(json.loads(stdout)["store"]["batch_id"])
    assert batches == [1, 2, 2, 2]
    for batch, graded, expected in ((1, 3, 15), (2, 15, 20)):
        code, stdout, stderr = invoke(
            "gate", "--baseline", made / "whole", "--candidate", f"batch:{batch}", env=env
        )
        assert (code, stdout, stderr) == (
            2,
            "",
            f"judgekit: error: batch:{batch} is batch {batch}, the 4 shards of group "
            f"'nightly-8', with {graded} of their {expected} runs graded: a shard is missing "
            "or unfinished (gate the shards' folders to see which)\n",
        )


def test_a_shard_is_never_saved_as_a_baseline(tmp_path: Path) -> None:
    code, stdout, stderr = invoke(
        "run", "--tasks", SHOP, "--agent", "examples.shop:agent", "--trials", "5", "--out",
        tmp_path / "2", "--no-store", "--shard", "2/4", "--save-baseline", tmp_path / "b.jsonl",
    )  # fmt: skip
    assert (code, stdout, stderr) == (
        2,
        "",
        "judgekit: error: --save-baseline saves a whole run's results, and a shard is a part: "
        "gate the folder of all the shards' --out folders as the baseline instead\n",
    )
    assert list(tmp_path.iterdir()) == []
