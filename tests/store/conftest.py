"""The store's tests run on both backends: a SQLite file and a real PostgreSQL server.

``store_url`` is a fresh, empty database per test: a file in ``tmp_path`` for SQLite; for
PostgreSQL a new database on the server ``JUDGEKIT_TEST_POSTGRES_URL`` names (``.ci/run``
starts one), dropped afterwards. Without that variable the PostgreSQL cases skip, saying why.
"""

from __future__ import annotations

import os
import re
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Final

import pytest
from sqlalchemy import create_engine, make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from judgekit.store import Store, open_store

POSTGRES_ENV: Final = "JUDGEKIT_TEST_POSTGRES_URL"
POSTGRES_SKIP: Final = (
    "PostgreSQL: set JUDGEKIT_TEST_POSTGRES_URL to a server's URL (.ci/run starts one)"
)
BACKENDS: Final = ["sqlite", "postgresql"]


@contextmanager
def postgres_database() -> Iterator[str]:
    """A new, empty database on the test server (its URL, password included); dropped after."""
    raw = os.environ.get(POSTGRES_ENV)
    if not raw:
        pytest.skip(POSTGRES_SKIP)
    server = make_url(raw)
    name = f"judgekit_t_{uuid.uuid4().hex}"
    # CREATE and DROP DATABASE cannot run inside a transaction.
    admin = create_engine(server, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    try:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
        try:
            yield server.set(database=name).render_as_string(hide_password=False)
        finally:
            # FORCE: a connection a failed test left open must not keep the database alive.
            # A backend that is still closing can refuse the first attempt: try again.
            for attempt in range(5):
                try:
                    with admin.connect() as connection:
                        connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
                    break
                except DBAPIError:
                    if attempt == 4:
                        raise
                    time.sleep(0.2 * (attempt + 1))
    finally:
        admin.dispose()


@pytest.fixture(params=BACKENDS, ids=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a new, empty store database on each backend."""
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'store.sqlite'}"
        return
    with postgres_database() as url:
        yield url


@pytest.fixture
def postgres_url() -> Iterator[str]:
    """A new, empty PostgreSQL database only (for what SQLite has no counterpart of)."""
    with postgres_database() as url:
        yield url


@pytest.fixture
def store(store_url: str) -> Iterator[Store]:
    """An open store on ``store_url``."""
    with open_store(store_url) as opened:
        yield opened


def backend(url: str) -> str:
    """``sqlite`` or ``postgresql``."""
    return make_url(url).get_backend_name()


def missing_batch_error(store: Store, table: str, batch_id: int) -> str:
    """A pattern for the whole message of writing a ``table`` row into a batch that does not
    exist, as the store's backend words it."""
    if backend(store.url) == "sqlite":
        reason = "FOREIGN KEY constraint failed"
    else:
        # The verdicts table was built under another name and renamed: its constraint kept
        # the name it was created with.
        reason = (
            f'insert or update on table "{table}" violates foreign key constraint '
            rf'"{table}\w*_batch_id_fkey"\nDETAIL:  Key \(batch_id\)=\({batch_id}\) is not '
            r'present in table "batches"\.'
        )
    return f"{re.escape(store.url)}: {reason}"
