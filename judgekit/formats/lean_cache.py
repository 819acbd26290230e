"""States of runs.jsonl lines decoded once per distinct JSON text, for the lean reader.

The runs of one task mostly start from the same world and often end in the same one:
:class:`LeanCache` keeps what their texts decode to, so a file of runs decodes each
distinct state once. Each state read gets a serial number that no other text gets while the
process lives (numbers are never reused), which lets a grader remember its result for a pair
of states (:mod:`judgekit.graders.memo`).

Initial and final states are kept apart, each table consulted only while it pays
(:class:`judgekit._util.hit_rate.HitRate`): a file whose final states never repeat decodes
each one as it comes, under a number of its own. The decoded values are shared by every run
that holds their text: never change them. Memory stays bounded: past its limits a table
starts again.
"""

from __future__ import annotations

import itertools
from typing import Any, Final

import msgspec

from judgekit._util.hit_rate import HitRate

State = dict[str, Any] | None

_STATE_DECODER: Final = msgspec.json.Decoder(State)
_MAX_STATES: Final = 128  # distinct states kept in a table ...
_MAX_STATE_BYTES: Final = 8 * 1024 * 1024  # ... and their texts' total size


class LeanCache:
    """Decoded initial and final states by their JSON text, shared across lines."""

    def __init__(self) -> None:
        self.initial = _StateTable()
        self.final = _StateTable()


# One count for every cache of the process: runs read through two caches never share a
# number for two texts.
_SERIALS: Final = itertools.count(1)


class _StateTable:
    def __init__(self) -> None:
        self._states: dict[bytes, tuple[int, State]] = {}
        self._size = 0
        self._rate = HitRate()

    def read(self, text: msgspec.Raw | bytes) -> tuple[int, State]:
        """The state ``text`` holds, and its serial number; raises msgspec.DecodeError when
        it is not a JSON object or null."""
        if not self._rate.worth_a_look():
            return next(_SERIALS), _STATE_DECODER.decode(text)
        key = bytes(text)
        found = self._states.get(key)
        self._rate.looked(found is not None)
        if found is None:
            decoded = _STATE_DECODER.decode(key)
            if len(self._states) >= _MAX_STATES or self._size > _MAX_STATE_BYTES:
                self._states.clear()
                self._size = 0
            found = self._states[key] = (next(_SERIALS), decoded)
            self._size += len(key)
        return found
