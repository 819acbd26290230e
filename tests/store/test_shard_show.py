"""What `judgekit store info` and `judgekit report` show of a run's shards: four shards of a
Kubernetes Indexed Job recording into one batch, on each backend; one withheld, then all."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import pytest

from judgekit.errors import StoreError
from judgekit.store import Batch, Store, open_store
from judgekit.store.shard_batch import check_all_shards
from judgekit.store.shard_status import ShardStatus, shard_status, stored_run_shards
from tests.store.factories import make_grade, make_run
from tests.trials.test_shards import invoke, run_args

GROUP = "k8s-7f3c"
TAGS = {"shard_group": GROUP, "shards": "4", "shard_runs": "20"}
# A pod of the Job: its engine's variables, the spec's, no CI's; a fixed commit and branch.
POD = {
    "JUDGEKIT_SHARD_COUNT": "4",
    "JUDGEKIT_JOB_UID": "7f3c",
    "JUDGEKIT_SHARD_GROUP": "",
    "GITHUB_RUN_ID": "",
    "JUDGEKIT_BRANCH": "main",
    "JUDGEKIT_GIT_SHA": "0123456789abcdef0123456789abcdef01234567",
}


def run_pod(tmp_path: Path, index: int, url: str, *extra: str) -> None:
    """The pod of ``index`` (from 0): shard index + 1 of 4, into ``tmp_path/shards/<index>``."""
    env = POD | {"JOB_COMPLETION_INDEX": str(index), "JUDGEKIT_DB": url}
    code, _, stderr = invoke(
        *run_args(tmp_path / "shards" / str(index), "--shard-from-env", *extra), env=env
    )
    assert code == 0, stderr


def shard_of_runs(tmp_path: Path) -> dict[str, str]:
    """Each run id of the shards' folders, by the shard whose runs.jsonl holds it."""
    found = {}
    for folder in sorted((tmp_path / "shards").iterdir()):
        for line in (folder / "runs.jsonl").read_text(encoding="utf-8").splitlines():
            found[json.loads(line)["run_id"]] = f"{int(folder.name) + 1}/4"
    return found


def info(url: str, *extra: str) -> str:
    code, out, stderr = invoke("store", "info", *extra, env={"JUDGEKIT_DB": url})
    assert code == 0, stderr
    return out


def report(tmp_path: Path, url: str, *extra: str | Path) -> tuple[str, str]:
    """``judgekit report``'s line and its page."""
    page = tmp_path / "report.html"
    code, out, stderr = invoke("report", "-o", page, *extra, env={"JUDGEKIT_DB": url})
    assert code == 0, stderr
    return out, page.read_text(encoding="utf-8")


def failing_rows(page: str) -> list[list[str]]:
    """The cells of the report's failing runs table, unescaped."""
    table = page.split("<h3>Failing runs</h3>", 1)[1].split("</table>", 1)[0]
    rows = table.split("<tbody>", 1)[1].split("</tr>")[:-1]
    return [
        [html.unescape(cell.removesuffix("</td>")) for cell in row.split("<td>")[1:]]
        for row in rows
    ]


def expected_json(batch: Batch, url: str, **shards: Any) -> dict[str, Any]:
    runs = shards["graded"]
    return {
        "url": url,
        "tables": {
            "batches": 1, "runs": runs, "grades": runs, "verdicts": 0, "calibrations": 0,
            "promotions": 0,
        },
        "latest_batch": batch.as_dict() | {"shards": {"group": GROUP, "shards": 4, **shards}},
    }  # fmt: skip


def test_a_withheld_shard_is_shown_missing_then_the_run_whole(
    store_url: str, tmp_path: Path
) -> None:
    for index in (0, 1, 3):  # the pod of shard 3/4 has not run yet
        run_pod(tmp_path, index, store_url)
    with open_store(store_url) as store:
        (batch,) = store.batches()
        url = store.url  # its password masked
    assert batch.tags == TAGS
    when = batch.created_at.strftime("%Y-%m-%d %H:%M:%S")
    head = [
        f"store         {url}",
        "batches       1",
        "runs          15",
        "grades        15",
        "verdicts      0",
        "calibrations  0",
        "promotions    0",
        f"latest batch  {batch.id} ({when} UTC, source run, branch main, git 0123456789ab)",
    ]
    part = (
        "shards 1/4, 2/4, 4/4 of group 'k8s-7f3c' recorded; 3/4 missing: 15 of 20 runs graded "
        "— incomplete"
    )
    assert info(store_url).splitlines() == [*head, f"              {part}"]
    assert json.loads(info(store_url, "--json")) == expected_json(
        batch, url, recorded=["1/4", "2/4", "4/4"], missing=["3/4"], runs=20, graded=15,
        complete=False,
    )  # fmt: skip
    line, page = report(tmp_path, store_url)
    assert line.startswith(
        f"wrote {tmp_path / 'report.html'}: 15 runs of batch {batch.id} (shards incomplete: "
        "15 of 20 runs graded), "
    )
    assert f'<p class="alert">{html.escape(part)}</p>' in page
    labels = shard_of_runs(tmp_path)
    rows = failing_rows(page)
    assert [row[2] for row in rows] == [labels[row[1]] for row in rows]
    assert {row[2] for row in rows} == {"2/4", "4/4"}  # shard 1/4 failed none of its runs

    run_pod(tmp_path, 2, store_url)
    whole = "all 4 shards of group 'k8s-7f3c' recorded, 20 of 20 runs graded"
    lines = info(store_url).splitlines()
    assert lines[1:3] == ["batches       1", "runs          20"]
    assert lines[-1] == f"              {whole}"
    assert json.loads(info(store_url, "--json")) == expected_json(
        batch, url, recorded=["1/4", "2/4", "3/4", "4/4"], missing=[], runs=20, graded=20,
        complete=True,
    )  # fmt: skip
    line, page = report(tmp_path, store_url)
    assert line.startswith(f"wrote {tmp_path / 'report.html'}: 20 runs of batch {batch.id}, ")
    assert f'<p class="meta">{html.escape(whole)}</p>' in page
    rows = failing_rows(page)
    assert len(rows) == 7 and [row[2] for row in rows] == [
        shard_of_runs(tmp_path)[row[1]] for row in rows
    ]
    assert "3/4" in {row[2] for row in rows}


def test_the_report_of_a_folder_of_shards_shows_each_failing_run_s_shard(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'store.sqlite'}"
    for index in range(4):
        run_pod(tmp_path, index, url, "--no-store")
    line, page = report(tmp_path, url, "--results", tmp_path / "shards")
    assert line.startswith(f"wrote {tmp_path / 'report.html'}: 20 runs, ")
    whole = html.escape("all 4 shards of group 'k8s-7f3c' recorded, 20 of 20 runs graded")
    assert f'<p class="meta">{whole}</p>' in page
    labels = shard_of_runs(tmp_path)
    rows = failing_rows(page)
    assert len(rows) == 7 and [row[2] for row in rows] == [labels[row[1]] for row in rows]


def test_an_unsharded_batch_shows_no_shards(store_url: str) -> None:
    with open_store(store_url) as store:
        store.record_runs([make_run()], store.batch(key="runs:1", tags={"k": "v"}))
        (batch,) = store.batches()
        assert stored_run_shards(store, batch) is None
    assert json.loads(info(store_url, "--json"))["latest_batch"]["shards"] is None
    assert info(store_url).splitlines()[-1].startswith(f"latest batch  {batch.id} (")


def test_the_store_reads_each_run_s_shard_and_counts_the_batch_s_grades(store: Store) -> None:
    batch = store.batch(key="shards:1", tags=TAGS)
    store.record_runs([make_run("shop/a/1"), make_run("shop/a/5")], batch, shard="1/4")
    store.record_runs([make_run("shop/a/2")], batch, shard="2/4")
    store.record_runs([make_run("shop/a/4")], batch, shard="10/12")  # sorted by number
    store.record_grades([make_grade("shop/a/1"), make_grade("shop/a/2")], batch)
    assert store.grade_count(batch) == 2
    (found,) = store.batches()
    shards = stored_run_shards(store, found)
    assert shards is not None
    assert shards.by_run == {
        "shop/a/1": "1/4", "shop/a/5": "1/4", "shop/a/2": "2/4", "shop/a/4": "10/12"
    }  # fmt: skip
    assert shards.status == ShardStatus(GROUP, 4, 20, 2, ("1/4", "2/4", "10/12"))
    assert shards.status.missing == ("3/4", "4/4")
    assert shards.status.describe() == (
        "shards 1/4, 2/4, 10/12 of group 'k8s-7f3c' recorded; 3/4, 4/4 missing: 2 of 20 runs "
        "graded — incomplete"
    )


@pytest.mark.parametrize(
    ("tags", "graded", "labels", "line"),
    [
        (TAGS, 19, ["1/4", "2/4", "3/4", "4/4"],
         "all 4 shards of group 'k8s-7f3c' recorded, 19 of 20 runs graded — incomplete"),
        (TAGS, 0, [None], "no shard of group 'k8s-7f3c' recorded; 1/4, 2/4, 3/4, 4/4 missing: "
         "0 of 20 runs graded — incomplete"),
        (TAGS, 20, None, "the 4 shards of group 'k8s-7f3c': 20 of 20 runs graded"),
        ({"shard_group": "g\x1b[2J"}, 3, ["1/2"], "shards 1/2 of group 'g\\x1b[2J' recorded: 3 runs graded"),
    ],
)  # fmt: skip
def test_each_state_of_a_shared_batch_in_one_line(
    tags: dict[str, str], graded: int, labels: list[str | None] | None, line: str
) -> None:
    status = shard_status(tags, graded, labels)
    assert status is not None and status.describe() == line
    assert shard_status({"k": "v"}, graded, labels) is None


def test_the_gate_s_check_is_the_status_s_completeness() -> None:
    from datetime import UTC, datetime

    batch = Batch(7, datetime.now(UTC), "shards:1", "run", None, None, None, TAGS)
    check_all_shards("batch:7", batch, 20)  # whole: nothing to say
    with pytest.raises(StoreError) as raised:
        check_all_shards("batch:7", batch, 15)
    assert str(raised.value) == (
        "batch:7 is batch 7, the 4 shards of group 'k8s-7f3c', with 15 of their 20 runs "
        "graded: a shard is missing or unfinished (gate the shards' folders to see which)"
    )


def test_a_group_s_name_is_shown_inert(store_url: str, tmp_path: Path) -> None:
    tags = {"shard_group": "<script>\x1b[2J\u202e", "shards": "2", "shard_runs": "2"}
    with open_store(store_url) as store:
        batch = store.batch(key="shards:1", tags=tags)
        store.record_runs([make_run("shop/refund_full/1")], batch, shard="1/2")
        store.record_grades([make_grade("shop/refund_full/1")], batch)
    line = (
        "shards 1/2 of group '<script>\\x1b[2J\\u202e' recorded; 2/2 missing: 1 of 2 runs "
        "graded — incomplete"
    )
    assert info(store_url).splitlines()[-1] == f"              {line}"
    _, page = report(tmp_path, store_url)
    assert f'<p class="alert">{html.escape(line)}</p>' in page
    assert "<script>" not in page and "\x1b" not in page and "\u202e" not in page
