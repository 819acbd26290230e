"""One member of a zip file read within a size bound, deflated or zstd-compressed.

Inspect AI writes its ``.eval`` logs as zips whose members are compressed with Zstandard
(zip method 93). Python's ``zipfile`` reads that method from 3.14 on; before, the member's
compressed bytes are read from the zip and inflated with the ``zstandard`` package (a
runtime dependency for those Pythons), never by patching ``zipfile``. Either way the member
is inflated a piece at a time and refused once it passes the bound, so a zip that lies about
its sizes costs neither the memory nor the time it claims; a member whose bytes do not match
its CRC is refused too.
"""

from __future__ import annotations

import struct
import zipfile
import zlib
from typing import IO, cast

from judgekit._util.number_format import byte_count

__all__ = ["ZSTD", "MemberTooLarge", "UnreadableMember", "read_member"]

ZSTD = 93  # the zip compression method of .eval logs written by recent inspect_ai
_PIECE_BYTES = 2**20  # how much of a member is inflated at a time
_LOCAL_HEADER = struct.Struct("<4s22xHH")  # signature, ..., name length, extra length
_LOCAL_SIGNATURE = b"PK\x03\x04"


class MemberTooLarge(Exception):
    """The member inflates past the bound it was read within."""


class UnreadableMember(Exception):
    """The member cannot be read: its bytes are damaged, or its compression unknown."""


def read_member(archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """The inflated bytes of ``name``; :class:`MemberTooLarge` past ``limit`` bytes (before
    reading, when the zip says so), :class:`UnreadableMember` when they cannot be read."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise MemberTooLarge(f"holds {byte_count(info.file_size)} bytes")
    data: bytes | None
    try:
        if info.compress_type == ZSTD and not hasattr(zipfile, "ZIP_ZSTANDARD"):
            data = _zstd_member(archive, info)
        else:
            with archive.open(name) as stream:
                data = _bounded_read(stream, limit)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
        raise UnreadableMember(str(exc)) from None
    if data is None:
        raise MemberTooLarge("inflates past its stated size")
    return data


def _bounded_read(stream: IO[bytes], limit: int) -> bytes | None:
    """The stream's bytes, read a piece at a time; None once they pass ``limit``."""
    pieces: list[bytes] = []
    size = 0
    while piece := stream.read(_PIECE_BYTES):
        size += len(piece)
        if size > limit:
            return None
        pieces.append(piece)
    return b"".join(pieces)


def _zstd_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> bytes:
    """The member's bytes, inflated no further than the size it states (already within the
    bound), as zipfile reads the methods it knows."""
    try:
        import zstandard
    except ImportError:
        raise UnreadableMember(
            "it is compressed with zstd, which this Python reads with the zstandard package "
            "(`pip install zstandard`)"
        ) from None
    raw = archive.fp
    if raw is None:
        raise UnreadableMember("the zip is closed")
    raw.seek(info.header_offset)
    header = raw.read(_LOCAL_HEADER.size)
    if len(header) < _LOCAL_HEADER.size or header[:4] != _LOCAL_SIGNATURE:
        raise UnreadableMember("its local header is missing")
    _, name_length, extra_length = _LOCAL_HEADER.unpack(header)
    raw.seek(name_length + extra_length, 1)
    compressed = cast(IO[bytes], _Window(raw, info.compress_size))  # zstandard calls only read
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(compressed, read_across_frames=True)
        data = _bounded_read(reader, info.file_size)
    except zstandard.ZstdError as exc:
        raise UnreadableMember(f"damaged zstd data: {exc}") from None
    if data is None:
        raise UnreadableMember(f"it inflates past the {byte_count(info.file_size)} bytes it states")
    if zlib.crc32(data) != info.CRC:
        raise UnreadableMember("its bytes do not match its CRC")
    return data


class _Window:
    """The next ``size`` bytes of a file, as a stream: a member's compressed bytes."""

    def __init__(self, raw: IO[bytes], size: int) -> None:
        self._raw = raw
        self._left = size

    def read(self, size: int = -1) -> bytes:
        wanted = self._left if size < 0 else min(size, self._left)
        data = self._raw.read(wanted)
        self._left -= len(data)
        return data
