"""Objects that hold a file or connection and close it at the end of a ``with`` block."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Self


class ClosesOnExit(ABC):
    """``with thing:`` returns the thing and calls its ``close()`` on the way out, whether
    the block ended normally or by an exception (which then goes on)."""

    @abstractmethod
    def close(self) -> None:
        """Release what the object holds; called once by ``__exit__``."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
