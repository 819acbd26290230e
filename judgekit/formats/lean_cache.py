"""Values of runs.jsonl lines decoded once per distinct JSON text, for the lean reader.

The runs of one task mostly start from the same world, often end in the same one and repeat
the same tool arguments: :class:`LeanCache` keeps what their texts decode to, so a file of
runs decodes each distinct state and each distinct set of arguments once. Each distinct
state gets a serial number that no other text gets while the cache lives (numbers are not
reused when the cache starts again), which lets a grader remember its result for a pair of
states (:mod:`judgekit.graders.memo`).

The decoded values are shared by every run that holds their text: never change them.
Memory stays bounded: past its limits a table starts again.
"""

from __future__ import annotations

from typing import Any, Final

import msgspec

State = dict[str, Any] | None

_STATE_DECODER: Final = msgspec.json.Decoder(State)
_ARGS_DECODER: Final = msgspec.json.Decoder(dict[str, Any])
_MAX_STATES: Final = 256  # distinct states kept ...
_MAX_STATE_BYTES: Final = 16 * 1024 * 1024  # ... and their texts' total size
_MAX_ARGS: Final = 8192  # distinct argument texts kept (their size is bounded by the line's)


class LeanCache:
    """Decoded states and tool arguments by their JSON text, shared across lines."""

    def __init__(self) -> None:
        self._states: dict[bytes, tuple[int, State]] = {}
        self._state_bytes = 0
        self._serial = 0
        self._args: dict[bytes, dict[str, Any]] = {}

    def state(self, text: bytes) -> tuple[int, State]:
        """The state ``text`` holds, and its serial number; raises msgspec.DecodeError when
        it is not a JSON object or null."""
        found = self._states.get(text)
        if found is None:
            decoded = _STATE_DECODER.decode(text)
            if len(self._states) >= _MAX_STATES or self._state_bytes > _MAX_STATE_BYTES:
                self._states.clear()
                self._state_bytes = 0
            self._serial += 1
            found = self._states[text] = (self._serial, decoded)
            self._state_bytes += len(text)
        return found

    def args(self, text: bytes) -> dict[str, Any]:
        """The arguments ``text`` holds; raises msgspec.DecodeError when it is not a JSON
        object."""
        found = self._args.get(text)
        if found is None:
            found = _ARGS_DECODER.decode(text)
            if len(self._args) >= _MAX_ARGS:
                self._args.clear()
            self._args[text] = found
        return found
