"""The probe results file (``rubrics/<id>.probes.json``), written by ``judgekit probe`` and
read by the promotion policy's ``max_flip_rate`` criteria.

One JSON object: ``{"rubric_id": ..., "probes": [result, ...]}``, oldest first; each result
names the rubric version and bias it measured, the rate (the flip rate; for ``self`` the
difference of false-pass rates, own model − other models), its interval, how many runs it
was measured on and when. A new probe is appended and the file rewritten atomically, so a
reader never sees half a file. The criterion uses the latest probe of the current version.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.input_paths import read_bytes
from judgekit._util.jsonl import parse_json, validation_error_to_data_error
from judgekit.errors import DataError

__all__ = [
    "BIASES",
    "Bias",
    "ProbeResult",
    "ProbesFile",
    "add_probe",
    "latest_probe",
    "load_probes",
    "probes_path",
]

Bias = Literal["verbosity", "position", "self"]
BIASES: tuple[Bias, ...] = ("verbosity", "position", "self")


class ProbeResult(BaseModel):
    """One probe of one rubric version for one bias."""

    model_config = ConfigDict(extra="allow")

    bias: Bias
    rubric_version: str
    model: str
    rate: float | None  # None when undefined (no run compared)
    ci: tuple[float | None, float | None]
    confidence: float = Field(gt=0, lt=1)
    n: int = Field(ge=0)  # runs the rate was measured on
    at: str  # ISO 8601, to the second
    details: dict[str, Any] = Field(default_factory=dict)


class ProbesFile(BaseModel):
    """Every probe run on a rubric, oldest first."""

    model_config = ConfigDict(extra="forbid")

    rubric_id: str
    probes: list[ProbeResult] = Field(default_factory=list)


def probes_path(rubric_id: str, rubrics_dir: Path) -> Path:
    """``rubrics/<id>.probes.json``, beside the rubric and its promotion record."""
    return rubrics_dir / f"{rubric_id}.probes.json"


def load_probes(path: Path) -> ProbesFile | None:
    """The probes in ``path``; None when there is no such file. A malformed file is a
    :class:`DataError` naming it and the field (``probes.0.ci``)."""
    if not path.exists():
        return None
    data = read_bytes(path)
    try:
        raw = parse_json(data)
    except ValueError as exc:
        raise DataError(f"not a readable probes file: {exc}", path=path) from None
    try:
        return ProbesFile.model_validate(raw)
    except ValidationError as exc:
        raise validation_error_to_data_error(exc, path=path, line=None) from None


def add_probe(path: Path, rubric_id: str, result: ProbeResult) -> ProbesFile:
    """Append ``result`` to the file (created when missing), rewritten atomically."""
    probes = load_probes(path) or ProbesFile(rubric_id=rubric_id)
    if probes.rubric_id != rubric_id:
        raise DataError(
            f"holds the probes of {probes.rubric_id}, not {rubric_id}", path=path, field="rubric_id"
        )
    probes.probes.append(result)
    with atomic_writer(path) as fh:
        fh.write(json.dumps(probes.model_dump(mode="json"), indent=2, ensure_ascii=False) + "\n")
    return probes


def latest_probe(probes: ProbesFile | None, *, version: str, bias: Bias) -> ProbeResult | None:
    """The latest probe of ``bias`` on rubric version ``version`` (None when never probed)."""
    if probes is None:
        return None
    matching = [p for p in probes.probes if p.bias == bias and p.rubric_version == version]
    return matching[-1] if matching else None
