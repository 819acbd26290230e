"""Files of records — runs, results (grades) or verdicts — told apart by their first record,
and read whole to check them before any of it is recorded (``judgekit store import``)."""

from __future__ import annotations

from pathlib import Path
from typing import Final, Literal

from judgekit._util.jsonl import iter_json_lines, iter_models
from judgekit.errors import DataError
from judgekit.formats.grade import Grade
from judgekit.formats.run import Run, RunIdLines
from judgekit.formats.verdict import Verdict, load_verdicts
from judgekit.formats.verdict_scores import ScaleCheck

RecordKind = Literal["runs", "results", "verdicts"]
RECORD_KINDS: Final[tuple[RecordKind, ...]] = ("runs", "results", "verdicts")


def detect_kind(path: Path) -> RecordKind:
    """Runs, results or verdicts, told from the first record's fields."""
    for line, record in iter_json_lines(path):
        if not isinstance(record, dict):
            raise DataError("expected a JSON object", path=path, line=line)
        # "passed" first: a grade also has "tool_calls" (a count), a run never has "passed";
        # a verdict has a run_id too, a run never a rubric_id.
        if "passed" in record:
            return "results"
        if "rubric_id" in record and "status" in record:
            return "verdicts"
        if "run_id" in record:
            return "runs"
        raise DataError(
            "not runs (no run_id), results (no passed) or verdicts (no rubric_id and "
            "status); pass --kind runs|results|verdicts",
            path=path,
            line=line,
        )
    raise DataError("no records: nothing to import", path=path)


def check_records(path: Path, kind: RecordKind, *, scales: ScaleCheck | None = None) -> None:
    """Read the whole file as ``kind``, raising the first problem as a one-line
    :class:`DataError`.

    A run id seen twice in a runs or results file is refused, and so is a verdict seen twice
    for the same run, rubric version and judge model (the store would keep one of them
    silently). A scored verdict's score is checked against its rubric's scale when
    ``scales`` knows the rubric version, else only for being a score on some scale.
    """
    if kind == "verdicts":
        checks = _VerdictChecks(path, scales if scales is not None else ScaleCheck())
        records = len(load_verdicts(path, check=checks))
    else:
        run_ids = RunIdLines(path)
        records = 0
        model: type[Run | Grade] = Run if kind == "runs" else Grade
        for line, record in iter_models(path, model):
            records += 1
            run_ids.add(record.run_id, line)
    if records == 0:
        raise DataError("no records: nothing to import", path=path)


class _VerdictChecks:
    """Checks each verdict of a file as it is read: one verdict per (run, rubric, rubric
    version, model), and its score on its rubric's scale."""

    def __init__(self, path: Path, scales: ScaleCheck) -> None:
        self.path = path
        self.scales = scales
        self.first_line: dict[tuple[str, str, str, str], int] = {}

    def check(self, verdict: Verdict, *, path: str | Path | None, line: int | None) -> None:
        assert line is not None  # a verdict read from a file has its line
        self._add(verdict, line)
        self.scales.check(verdict, path=path, line=line)

    def _add(self, verdict: Verdict, line: int) -> None:
        key = (verdict.run_id, verdict.rubric_id, verdict.rubric_version, verdict.model)
        first = self.first_line.setdefault(key, line)
        if first != line:
            raise DataError(
                f"duplicate verdict on run {verdict.run_id!r} by {verdict.model} under "
                f"{verdict.rubric_id} version {verdict.rubric_version} (first at line {first}); "
                "each run has one verdict per rubric version and judge model",
                path=self.path,
                line=line,
                field="run_id",
            )
