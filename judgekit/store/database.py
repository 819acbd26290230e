"""Opening the store's database: SQLite (the default, a file in ``JUDGEKIT_HOME``) or
PostgreSQL (``JUDGEKIT_DB``), migrated on open.
"""

from __future__ import annotations

import os
from typing import Final

from sqlalchemy import URL, make_url
from sqlalchemy.exc import ArgumentError

from judgekit._util.home import judgekit_home, judgekit_home_path
from judgekit.errors import StoreError
from judgekit.store.engine import SUPPORTED_BACKENDS, create_store_engine, store_errors
from judgekit.store.migrations import apply_migrations
from judgekit.store.store import Store

DB_ENV: Final = "JUDGEKIT_DB"
STORE_FILE: Final = "judgekit.sqlite"  # the home store's, in JUDGEKIT_HOME


def home_store_url() -> URL:
    """The SQLite store in :func:`judgekit._util.home.judgekit_home`, whatever ``$JUDGEKIT_DB`` says.

    Built, not parsed: a folder name with "?" or "#" must not read as URL syntax.
    """
    return URL.create("sqlite", database=str(judgekit_home() / STORE_FILE))


def configured_store_url() -> URL:
    """The URL :func:`open_store` opens by default: ``$JUDGEKIT_DB``, else the home store."""
    raw = os.environ.get(DB_ENV)
    return _parse_url(raw, DB_ENV) if raw else home_store_url()


def store_file(url: URL | None = None) -> str | None:
    """The SQLite file of the store at ``url`` (default: :func:`configured_store_url`), for
    a command to refuse writing its output over it; None for a server or an in-memory one."""
    if url is None and not os.environ.get(DB_ENV):  # the home store: its folder not made here
        return str(judgekit_home_path() / STORE_FILE)
    url = configured_store_url() if url is None else url
    database = url.database or ""
    if url.get_backend_name() != "sqlite" or database in ("", ":memory:"):
        return None
    return database


def masked_url(url: URL) -> str:
    """``url`` with any password masked, as :attr:`Store.url` shows it."""
    return url.render_as_string(hide_password=True)


def existing_store(url: URL) -> Store | None:
    """The store at ``url`` if it is there to read, else None, creating nothing: an SQLite
    file that exists (never an in-memory one), or a database server that answers."""
    if url.get_backend_name() == "sqlite":
        database = url.database or ""
        if database in ("", ":memory:") or not os.path.isfile(database):
            return None
    try:
        return open_store(url)
    except StoreError:
        return None


def open_store(url: str | URL | None = None) -> Store:
    """Open (creating and migrating if needed) the store at ``url``.

    ``url`` defaults to ``$JUDGEKIT_DB``, else :func:`home_store_url`. ``sqlite://`` is an
    in-memory store for quick tests (one per thread).
    """
    if isinstance(url, URL):
        parsed = url
    elif raw := url or os.environ.get(DB_ENV):
        parsed = _parse_url(raw, "the store URL" if url else DB_ENV)
    else:
        parsed = home_store_url()
    engine = create_store_engine(parsed)
    try:
        with store_errors(parsed):
            apply_migrations(engine)
    except BaseException:
        engine.dispose()
        raise
    return Store(engine)


def _parse_url(raw: str, source: str) -> URL:
    try:
        url = make_url(raw)
    except (ArgumentError, ValueError):
        # The text is not echoed: an unparseable URL may still contain a password.
        raise StoreError(
            f"{source} is not a database URL; expected sqlite:///path/to/judgekit.sqlite "
            "or postgresql+psycopg://user@host/dbname"
        ) from None
    if url.get_backend_name() not in SUPPORTED_BACKENDS:
        raise StoreError(
            f"{url.render_as_string(hide_password=True)}: the store supports "
            f"{' and '.join(SUPPORTED_BACKENDS)}, not {url.get_backend_name()}"
        )
    return url
