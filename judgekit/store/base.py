"""What every part of :class:`judgekit.store.Store` stands on: the engine, the database's URL
for messages, and its dialect."""

from __future__ import annotations

from sqlalchemy import Engine


class StoreBase:
    """The engine a store reads and writes through."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        # The batches this store object created, oldest first: what a failed recording
        # may have left empty (:meth:`StoreBatches.remove_empty_batches`).
        self._created_batches: list[int] = []

    @property
    def engine(self) -> Engine:
        """The SQLAlchemy engine, for the store's own query modules (:mod:`.queries`)."""
        return self._engine

    @property
    def url(self) -> str:
        """The database URL with any password masked, for messages and logs."""
        return self._engine.url.render_as_string(hide_password=True)

    @property
    def _dialect(self) -> str:
        return self._engine.dialect.name
