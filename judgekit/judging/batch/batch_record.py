"""Where a submitted batch is remembered: ``JUDGEKIT_HOME/batches/<hash>.json``.

The hash names the exact set of requests (and the provider and endpoint they go to), so
rerunning an interrupted ``judgekit judge --batch`` finds the batch it submitted and polls it
instead of paying for a second one. The record is removed once the batch's answers are in
the cache; a batch that expired is removed too, so the rerun sends only what it left.

The intent is recorded before the batch is submitted — a unique tag the batch carries, and
the time — and the batch's id once the provider answers. A process killed between the two
(the provider accepted the batch, its answer never arrived) leaves the intent alone: the
rerun looks the batch up by its tag before it submits again, so it cannot pay twice.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.home import judgekit_home
from judgekit._util.input_paths import read_text
from judgekit.errors import DataError

__all__ = ["BATCHES_FOLDER", "BatchIntent", "BatchRecord"]

BATCHES_FOLDER = "batches"
_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


@dataclass(frozen=True)
class BatchIntent:
    """A batch about to be submitted: the tag it carries and when (seconds since the epoch)."""

    tag: str
    at: float


class BatchRecord:
    """The record of the batch for one set of requests; it may not exist yet."""

    def __init__(self, provider: str, endpoint: str, custom_ids: Iterable[str]) -> None:
        canonical = json.dumps([provider, endpoint, sorted(custom_ids)], separators=(",", ":"))
        digest = hashlib.sha256(canonical.encode()).hexdigest()[:32]
        self.path = judgekit_home() / BATCHES_FOLDER / f"{digest}.json"

    def batch_id(self) -> str | None:
        """The id of the batch submitted for these requests, or None when there is none."""
        data = self._read()
        if data is None or self._intent(data) is not None:
            return None
        return str(data["batch_id"])

    def intent(self) -> BatchIntent | None:
        """The intent of a submission whose batch id never arrived, or None."""
        data = self._read()
        return None if data is None else self._intent(data)

    def _read(self) -> dict[str, object] | None:
        if not self.path.exists():
            return None
        text = read_text(self.path)
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise DataError(
                f'not JSON ({exc}); a batch record is {{"batch_id": "...", ...}}: delete '
                "the file to submit the batch again",
                path=self.path,
            ) from None
        if not isinstance(data, dict) or not (
            _text(data.get("batch_id")) or self._intent(data) is not None
        ):
            raise DataError(
                "a batch record needs a non-empty string batch_id: delete the file to submit "
                "the batch again",
                path=self.path,
                field="batch_id",
            )
        return data

    @staticmethod
    def _intent(data: dict[str, object]) -> BatchIntent | None:
        tag, at = data.get("tag"), data.get("intended_at")
        if data.get("batch_id") is not None or not _text(tag) or not isinstance(at, str):
            return None
        try:
            seconds = calendar.timegm(time.strptime(at, _TIME_FORMAT))
        except ValueError:
            return None
        return BatchIntent(str(tag), seconds)

    def save_intent(self, provider: str, requests: int) -> BatchIntent:
        """Record, before submitting, that a batch tagged so is about to be."""
        intent = BatchIntent(uuid.uuid4().hex, time.time())
        self._write(
            {
                "batch_id": None,
                "tag": intent.tag,
                "intended_at": time.strftime(_TIME_FORMAT, time.gmtime(intent.at)),
                "provider": provider,
                "requests": requests,
            }
        )
        return intent

    def save(self, batch_id: str, provider: str, requests: int) -> None:
        self._write(
            {
                "batch_id": batch_id,
                "provider": provider,
                "requests": requests,
                "submitted_at": time.strftime(_TIME_FORMAT, time.gmtime()),
            }
        )

    def _write(self, record: dict[str, object]) -> None:
        with atomic_writer(self.path) as fh:
            fh.write(json.dumps(record, indent=2) + "\n")

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value)
