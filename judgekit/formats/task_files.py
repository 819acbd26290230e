"""Loading the task suites a user names, where a path the system refuses is one line."""

from __future__ import annotations

import os
from pathlib import Path

from judgekit._util.input_paths import is_dir, reading
from judgekit.formats.task import TaskSet, load_tasks


def load_task_files(path: str | Path, *, resolve_code: bool = True) -> TaskSet:
    """:func:`~judgekit.formats.task.load_tasks`, where a file or folder the system refuses
    (a symbolic link that loops, a suite nobody may read, a folder that cannot be listed)
    is a :class:`~judgekit.errors.DataError` naming it and the system's reason, rather
    than "no such file" or a traceback. An absent path keeps load_tasks' own message.
    ``resolve_code=False`` imports nothing the suites name (see load_tasks).

    >>> load_task_files("tasks/shop.yaml").get("refund_full").id  # doctest: +SKIP
    'refund_full'
    """
    if is_dir(path):  # a loop or a path that cannot be searched raises here
        with reading(path):
            os.listdir(path)  # a folder that cannot be listed would look empty
    with reading(path):
        return load_tasks(path, resolve_code=resolve_code)
