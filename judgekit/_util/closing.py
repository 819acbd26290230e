"""Objects that hold a file or connection and close it at the end of a ``with`` block."""

from __future__ import annotations

from typing import Self


class ClosesOnExit:
    """``with thing:`` returns the thing and calls its ``close()`` on the way out, whether
    the block ended normally or by an exception (which then goes on)."""

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
