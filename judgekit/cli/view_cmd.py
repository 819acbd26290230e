"""``judgekit view``: runs, verdicts and labels in the browser, and labelling there."""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from pathlib import Path

import click

from judgekit._util.terminal_text import visible
from judgekit.cli.options import suites_option


@click.command("view")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--rubric",
    "rubric_refs",
    multiple=True,
    help="A rubric file, an id in rubrics/, or a folder of rubrics (repeatable; default: "
    "the project folder's rubrics/).",
)
@click.option(
    "--labels-dir",
    type=click.Path(file_okay=False, path_type=Path),
    help="Folder of <rubric_id>.jsonl label files (default: the project folder's labels/).",
)
@click.option(
    "--verdicts",
    multiple=True,
    type=click.Path(path_type=Path),
    help="A verdicts file or a folder of them (repeatable; default: each run folder's "
    "verdicts.jsonl and the project folder's verdicts/, else the store).",
)
@suites_option("Task suites, to show a task's input when a run does not record it.")
@click.option(
    "--port", default=0, show_default=True, type=click.IntRange(0, 65535), help="0: a free port."
)
@click.option("--no-browser", is_flag=True, help="Print the address; do not open a browser.")
@click.option(
    "--url-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the address (with its token; readable by you only) here once serving, "
    "removed on exit, for scripts.",
)
def view_command(
    paths: tuple[Path, ...],
    rubric_refs: tuple[str, ...],
    labels_dir: Path | None,
    verdicts: tuple[Path, ...],
    tasks_path: Path | None,
    port: int,
    no_browser: bool,
    url_file: Path | None,
) -> None:
    """Look at runs, verdicts and labels in the browser, and label runs there.

    PATHS are runs files or folders (default: here): a folder holding runs.jsonl, or whose
    subfolders do (a project, such as the demo's). The first folder's rubrics/, labels/
    and verdicts/ are used unless an option names others.

    The server listens on 127.0.0.1 only, and answers only the browser that opened the
    address it prints (a random token, then a cookie). Labelling there follows the
    terminal's rules: blind to the judge, one key a label, the same labels and split files.
    A held-out test label is shown beside the judge's verdict only when asked, which spends
    it. Ctrl-C stops the server.

    \b
    Example:
      judgekit view judgekit-demo
    """
    from judgekit._util.url_file import check_url_file, written_url_file
    from judgekit.view import URL_LINE, find_sources, load_view_data, serve

    if url_file is not None:
        check_url_file(url_file, URL_LINE, "a view")

    sources = find_sources(
        paths,
        rubric_refs=rubric_refs,
        labels_dir=labels_dir,
        verdicts=verdicts,
        tasks_path=tasks_path,
    )
    data = load_view_data(sources)
    for gone in data.left_out:
        file, earlier = (visible(str(path), one_line=True) for path in (gone.file, gone.earlier))
        click.echo(
            f"judgekit: warning: {file}: {gone.count} runs not shown, their ids are those "
            f"of {earlier}'s runs",
            err=True,
        )
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    with serve(data, port=port) as running:
        click.echo(
            f"judgekit view: {len(data.runs)} runs, {len(data.rubrics)} rubrics; open "
            f"{running.url}\n(Ctrl-C stops it)",
        )
        if not no_browser:
            import webbrowser

            webbrowser.open(running.url)
        with (
            written_url_file(url_file, running.url),
            contextlib.suppress(KeyboardInterrupt),  # Ctrl-C: stop as SIGTERM does
        ):
            sys.stdout.flush()  # what it printed is there before a script reads the file
            running.wait(stop)
    click.echo("judgekit view: stopped", err=True)
