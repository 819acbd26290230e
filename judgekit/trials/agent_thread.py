"""A reusable daemon thread for running agents under a wall-time cap.

Starting a thread per trial costs more than a fast trial itself, and a thread stuck in a
hung agent can never be stopped, only left behind. So each supervising thread keeps one
daemon worker and reuses it; when an agent overruns its deadline, that worker is abandoned
(it dies with the process, being a daemon) and the next trial gets a new one.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

_local = threading.local()


class _Worker:
    def __init__(self) -> None:
        self.jobs: queue.SimpleQueue[tuple[Callable[[], None], threading.Event]] = (
            queue.SimpleQueue()
        )
        self.thread = threading.Thread(target=self._loop, name="judgekit-agent", daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while True:
            job, done = self.jobs.get()
            try:
                job()
            finally:
                done.set()


def run_with_deadline(job: Callable[[], None], timeout_s: float) -> bool:
    """Run ``job`` on this thread's agent worker; False when it did not finish in time."""
    worker: _Worker | None = getattr(_local, "worker", None)
    if worker is None:
        worker = _local.worker = _Worker()
    done = threading.Event()
    worker.jobs.put((job, done))
    if done.wait(timeout_s):
        return True
    _local.worker = None  # left behind with the hung agent; the next trial starts afresh
    return False
