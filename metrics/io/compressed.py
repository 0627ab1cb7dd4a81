"""gzip input, for every reader: how a gzip stream is recognised, and the limits its decompression keeps to.

A file, bytes or a stream is gzip when it starts with gzip's magic bytes, whatever its name. Decompression is
bounded: the text may expand to :data:`GZIP_MAX_RATIO` times the compressed bytes read so far (any ratio for the
first :data:`GZIP_ALWAYS` bytes), so a bomb is refused after about that much output, before the whole file is
inflated; the TREC readers (:mod:`metrics.io.trec`, :mod:`metrics.stream`) also check that the first
:data:`GZIP_HEAD` bytes hold TREC lines.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator

#: The first two bytes of every gzip stream (RFC 1952).
GZIP_MAGIC = b"\x1f\x8b"

#: gzip input may expand to this many times the compressed bytes read so far. TREC files expand 3 to 8 times (the
#: 7M-line benchmark run 3.7 times, trec_eval's test files 4 to 7); one repeated line or newlines, 500 to 1,000
#: times. The check runs on every slice, so a bomb is refused after about GZIP_ALWAYS of output.
GZIP_MAX_RATIO = 100
#: Whatever the ratio, this much decompressed text is accepted (small files expand oddly).
GZIP_ALWAYS = 16 << 20
#: The decompressed head that must hold a TREC line, checked as soon as it has arrived.
GZIP_HEAD = 1 << 20
#: Decompressed bytes produced per step.
GZIP_STEP = 1 << 22


def is_gzip(head: bytes | bytearray | memoryview) -> bool:
    """Whether data starting with ``head`` (at least its first two bytes) is gzip."""
    return bytes(head[:2]) == GZIP_MAGIC


def gunzipped_head(data: bytes, size: int) -> bytes | None:
    """At most ``size`` decompressed bytes from the start of gzip ``data`` (a truncated stream is fine), or None
    when ``data`` is not a readable gzip stream; only the first 64 KiB of ``data`` are read."""
    try:
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(data[: 1 << 16], size)
    except zlib.error:
        return None


class Counted:
    """A binary stream that counts the bytes read from it (the compressed size of a stream of unknown length)."""

    def __init__(self, stream):
        self.stream, self.count = stream, 0

    def read(self, size: int = -1) -> bytes:
        data = self.stream.read(size)
        self.count += len(data)
        return data


class Prefixed:
    """A binary stream whose first bytes were already read (to look for gzip's magic)."""

    def __init__(self, head: bytes, stream):
        self.head, self.stream = head, stream

    def read(self, size: int = -1) -> bytes:
        if not self.head:
            return self.stream.read(size)
        head, self.head = self.head, b""
        if size is None or size < 0:
            return head + self.stream.read()
        return head + self.stream.read(max(0, size - len(head)))

    def fileno(self) -> int:
        """The wrapped stream's descriptor (whether it is a file on disk decides its size cap)."""
        return self.stream.fileno()


def expands_too_much(decompressed: int, compressed: int) -> bool:
    """Whether ``decompressed`` bytes out of ``compressed`` read pass the expansion limit."""
    return decompressed > max(GZIP_ALWAYS, GZIP_MAX_RATIO * compressed)


def gunzipped_slices(data: bytes, limit: int | None = None) -> Iterator[tuple[bytes, int]]:
    """The first gzip member of in-memory ``data``, decompressed in slices of at most :data:`GZIP_STEP` bytes: yields
    each slice with the compressed bytes read so far, so that the caller checks its limits (:func:`expands_too_much`,
    a size cap) before the next slice is made. With ``limit``, stops once more than ``limit`` bytes were yielded
    (never decompressing much past it). Raises ``zlib.error`` for a corrupt stream, ``EOFError`` for a truncated one.
    """
    stream = zlib.decompressobj(16 + zlib.MAX_WBITS)
    pending, size = data, 0
    while not stream.eof:
        step = GZIP_STEP if limit is None else max(1, min(GZIP_STEP, limit + 1 - size))  # 0: no bound
        piece = stream.decompress(pending, step)
        pending = stream.unconsumed_tail
        if not piece:
            if stream.eof:
                return
            # No output and no end of stream: the input ran out (or zlib reads no further, never seen).
            raise EOFError("the gzip stream is truncated")
        size += len(piece)
        yield piece, len(data) - len(pending) - len(stream.unused_data)
        if limit is not None and size > limit:
            return


__all__ = ["GZIP_ALWAYS", "GZIP_HEAD", "GZIP_MAGIC", "GZIP_MAX_RATIO", "GZIP_STEP", "Counted", "Prefixed",
           "expands_too_much", "gunzipped_head", "gunzipped_slices", "is_gzip"]
