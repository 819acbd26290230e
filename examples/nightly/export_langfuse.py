"""Export the last day's Langfuse observations for `judgekit import langfuse`.

Reads LANGFUSE_PUBLIC_KEY, LANGFUSE_SECRET_KEY and LANGFUSE_HOST from the environment (the
langfuse SDK's own variables) and writes one page of the observations API a line, as the
SDK returns it (`.json()`), which `judgekit import langfuse FILE` reads as it is:

    python examples/nightly/export_langfuse.py --hours 24 -o traces.jsonl
"""

from __future__ import annotations

import argparse
from datetime import UTC, datetime, timedelta
from pathlib import Path

# The fields judgekit reads: the observation, its times, input and output, model and usage.
FIELDS = "core,basic,time,io,metadata,model,usage,trace_context"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hours", type=float, default=24, help="How far back (default 24).")
    parser.add_argument("-o", "--output", type=Path, required=True, help="The JSONL file.")
    args = parser.parse_args()

    from langfuse import Langfuse  # pip install langfuse

    client = Langfuse()
    since = datetime.now(UTC) - timedelta(hours=args.hours)
    pages, cursor = [], None
    while True:
        page = client.api.observations.get_many(
            fields=FIELDS, from_start_time=since, limit=1000, cursor=cursor
        )
        pages.append(page.json())
        cursor = page.meta.cursor
        if cursor is None:
            break
    args.output.write_text("".join(page + "\n" for page in pages), encoding="utf-8")
    print(f"wrote {len(pages)} pages of observations since {since:%Y-%m-%d %H:%M} UTC")


if __name__ == "__main__":
    main()
