"""Where a submitted batch is remembered: ``JUDGEKIT_HOME/batches/<hash>.json``.

The hash names the exact set of requests (and the provider and endpoint they go to), so
rerunning an interrupted ``judgekit judge --batch`` finds the batch it submitted and polls it
instead of paying for a second one. The record is removed once the batch's answers are in
the cache; a batch that expired is removed too, so the rerun sends only what it left.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable

from judgekit._util.atomic_files import atomic_writer
from judgekit._util.home import judgekit_home
from judgekit._util.input_paths import read_text
from judgekit.errors import DataError

__all__ = ["BATCHES_FOLDER", "BatchRecord"]

BATCHES_FOLDER = "batches"


class BatchRecord:
    """The record of the batch for one set of requests; it may not exist yet."""

    def __init__(self, provider: str, endpoint: str, custom_ids: Iterable[str]) -> None:
        canonical = json.dumps([provider, endpoint, sorted(custom_ids)], separators=(",", ":"))
        digest = hashlib.sha256(canonical.encode()).hexdigest()[:32]
        self.path = judgekit_home() / BATCHES_FOLDER / f"{digest}.json"

    def batch_id(self) -> str | None:
        """The id of the batch submitted for these requests, or None when there is none."""
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
        batch_id = data.get("batch_id") if isinstance(data, dict) else None
        if not isinstance(batch_id, str) or not batch_id:
            raise DataError(
                "a batch record needs a non-empty string batch_id: delete the file to submit "
                "the batch again",
                path=self.path,
                field="batch_id",
            )
        return batch_id

    def save(self, batch_id: str, provider: str, requests: int) -> None:
        record = {
            "batch_id": batch_id,
            "provider": provider,
            "requests": requests,
            "submitted_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }
        with atomic_writer(self.path) as fh:
            fh.write(json.dumps(record, indent=2) + "\n")

    def remove(self) -> None:
        self.path.unlink(missing_ok=True)
