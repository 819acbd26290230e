"""Whether a process still runs, for telling a killed writer's leftovers from a live one's."""

from __future__ import annotations

import os

__all__ = ["process_is_running"]


def process_is_running(pid: int) -> bool:
    """Whether a process of this id runs on this machine (a pid of another user's counts)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
