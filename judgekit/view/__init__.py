"""``judgekit view``: a local web app over runs, results, verdicts, labels and splits —
transcripts beside their grades, verdicts and labels, the judge's disagreements, and
labelling in the browser under the terminal's rules.

::

    sources = find_sources([Path("judgekit-demo")])
    with serve(load_view_data(sources)) as running:
        print(running.url)
"""

from __future__ import annotations

from judgekit.view.data import ViewData, load_view_data
from judgekit.view.server import URL_LINE, RunningView, serve
from judgekit.view.sources import ViewSources, find_sources

__all__ = [
    "URL_LINE",
    "RunningView",
    "ViewData",
    "ViewSources",
    "find_sources",
    "load_view_data",
    "serve",
]
