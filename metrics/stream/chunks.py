"""A run file read in chunks of whole queries, each parsed into a :class:`~metrics.io.trec.RunTable`.

The text arrives in blocks (a plain file read as is, a gzip file inflated in slices under the same caps as
:func:`metrics.io.trec.read_run`). A chunk ends at the last line of a query: the lines of the block's last query
are carried into the next chunk, so a query of a contiguous run never splits. Each chunk goes through the
readers' own fast path (pyarrow), and the line-by-line reader when that refuses it, with the chunk's first line
number, so every message names the line of the whole file.
"""

from __future__ import annotations

import gzip
import os
import threading
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..io import trec as trec_io
from ..io.compressed import GZIP_HEAD, GZIP_MAX_RATIO, Counted, expands_too_much, is_gzip
from ..io.trec import RunTable, TrecFormatError

#: Bytes of text per chunk by default: about 110,000 lines of an MS MARCO-like run, about 130 MB of peak memory for
#: a whole evaluation of it (chunks four times as large took the same CPU time and 3-4 times the memory).
DEFAULT_CHUNK_BYTES = 4 << 20

_READ_STEP = 1 << 22  # gzip is inflated this much at a time, and its caps checked after each step


@dataclass
class Chunk:
    """Whole lines of the run: the text, the number of its first line in the file, whether it is the last, and
    where its text starts in the run's text (decompressed). :func:`parse_chunk` given the run's path empties
    ``text`` once it is parsed."""

    text: bytes | bytearray
    first_line: int
    last: bool
    offset: int = 0


class Stopped(Exception):
    """The caller set the ``stop`` event (Ctrl-C while several runs are evaluated): the reading ends here."""


def open_run(path: str | os.PathLike, label: str, stop: threading.Event | None = None) -> Iterator[bytes]:
    """The run's text in blocks of about ``_READ_STEP`` bytes: gzip inflated (refused past ``GZIP_MAX_RATIO``
    times the compressed bytes, or when its first megabyte is not TREC text), a UTF-8 byte-order mark dropped.
    Raises :class:`Stopped` before a block once ``stop`` is set."""
    path = Path(path)
    if path.is_dir():
        raise TrecFormatError(f"{label}: is a directory ({path}); give the path of a run file")
    if not path.is_file():
        raise TrecFormatError(f"{label}: no such file ({path}); give the path of a run file")
    with trec_io._open(path, label) as file:
        compressed = is_gzip(file.read(2))
        file.seek(0)
        blocks = _gunzip_blocks(file, label) if compressed else iter(lambda: file.read(_READ_STEP), b"")
        first = True
        for block in blocks:
            if stop is not None and stop.is_set():
                raise Stopped(label)
            if first and block.startswith(trec_io._BOM):
                block = block[len(trec_io._BOM):]
            first = False
            yield block


def _gunzip_blocks(file, label: str) -> Iterator[bytes]:
    counted = Counted(file)
    size = 0
    head = b""
    try:
        with gzip.GzipFile(fileobj=counted, mode="rb") as stream:
            while True:
                block = stream.read(_READ_STEP)
                if not block:
                    break
                size += len(block)
                if expands_too_much(size, counted.count):
                    raise TrecFormatError(
                        f"{label}: expands more than {GZIP_MAX_RATIO} times in decompression "
                        f"({counted.count / 1e6:.1f} MB read gave over {size / 1e6:.0f} MB), the expansion limit for "
                        f"gzip input; TREC files expand 3 to 8 times, so this is not one. If it is, decompress it "
                        f"(gunzip) and give the plain file")
                if len(head) < GZIP_HEAD:
                    head += block[:GZIP_HEAD - len(head)]
                    if len(head) >= GZIP_HEAD:
                        trec_io._check_head(head, label, "run")
                yield block
    except (OSError, EOFError, zlib.error) as error:
        raise TrecFormatError(f"{label}: looks like gzip but cannot be decompressed ({error}); "
                              f"re-create it with gzip or give the plain text file") from None


def query_chunks(blocks: Iterator[bytes], chunk_bytes: int) -> Iterator[Chunk]:
    """Chunks of whole lines, each at least ``chunk_bytes`` long (but the last), ending with a query's last line.

    The cut is found on the bytes: the lines at the end that start with the last line's qid stay for the next
    chunk. A line that defeats that test (indented, say) only makes the cut early; the caller notices a query
    that reappears and groups the run out of core instead.
    """
    pending = bytearray()
    first_line, offset = 1, 0
    wanted = chunk_bytes
    searched, searched_qid = 0, None  # pending[:searched] holds only lines of query searched_qid (and comments)
    while True:
        while len(pending) < wanted:
            block = next(blocks, None)
            if block is None:
                if pending:
                    yield Chunk(pending, first_line, True, offset)
                return
            pending += block
        line_end = pending.rfind(b"\n") + 1
        qid = _last_qid(pending, line_end) if line_end else None
        cut = _last_query_start(pending, line_end, qid, searched) if line_end else 0
        if cut == 0 and searched and qid != searched_qid:
            cut = searched  # the last query starts right after the lines already searched
        if cut == 0:
            # One query (or one line) fills the whole chunk so far: read on until it ends. Only the new lines are
            # searched next time, and the text grows one chunk at a time, so a query of many chunks costs one
            # pass over its bytes and about one copy of them (not twice its size read ahead).
            searched, searched_qid = line_end, qid
            wanted = len(pending) + chunk_bytes
            continue
        # The chunk is ``pending`` itself, cut short (no copy of a long query); the few lines after the cut start
        # the next one.
        text, pending = pending, pending[cut:]
        del text[cut:]
        lines, size = text.count(b"\n"), len(text)
        yield Chunk(text, first_line, False, offset)
        del text  # the consumer holds the chunk while it is parsed: no second reference here
        first_line, offset = first_line + lines, offset + size
        wanted, searched, searched_qid = chunk_bytes, 0, None


def _last_query_start(text: bytearray, end: int, qid: bytes | None, floor: int = 0) -> int:
    """The offset of the first of the lines, at the end of ``text[:end]``, that belong to the last line's query
    (comment and blank lines among them go with them); 0 when every line does. ``qid`` is the last line's
    (:func:`_last_qid`); ``text[:floor]`` (whole lines) is known to belong to that query already and is not searched
    again."""
    data = np.frombuffer(text, dtype=np.uint8, count=end)
    if qid is None:
        return end
    pattern = np.frombuffer(qid, dtype=np.uint8)
    width = pattern.shape[0] + 1
    window_end, step = end, 1 << 16
    while window_end > floor:
        window_start = max(floor, window_end - step)
        starts = np.flatnonzero(data[window_start:window_end - 1] == 10) + window_start + 1
        if window_start == floor:
            starts = np.concatenate([[floor], starts])
        starts = starts[starts + width <= end]
        if starts.shape[0]:
            heads = data[starts[:, None] + np.arange(width)]
            ours = (heads[:, :-1] == pattern).all(axis=1) & ((heads[:, -1] == 32) | (heads[:, -1] == 9))
            neutral = (heads[:, 0] == 35) | (heads[:, 0] == 10) | (heads[:, 0] == 13)
            others = np.flatnonzero(~ours & ~neutral)
            if others.shape[0]:
                other = int(starts[others[-1]])
                return text.find(b"\n", other, end) + 1
        window_end = window_start
        step *= 4
    return 0


def _last_qid(text: bytearray, end: int) -> bytes | None:
    """The first field of the last data line of ``text[:end]``."""
    position = end
    while position > 0:
        position = _past_last_visible(text, position)  # blank lines are skipped at once, not one by one
        if position == 0:
            return None
        start = text.rfind(b"\n", 0, position - 1) + 1
        fields = bytes(text[start:position]).split(None, 1)
        if fields and not fields[0].startswith(b"#"):
            return fields[0]
        position = start
    return None


#: The bytes ``split()`` treats as white space (what a blank line holds).
_SPACE = np.frombuffer(b" \t\n\r\x0b\x0c", dtype=np.uint8)


def _past_last_visible(text: bytearray, end: int) -> int:
    """The offset just past the last byte of ``text[:end]`` that is not white space, 0 when there is none; the
    search goes back in growing windows, so trailing blank lines cost one vectorised pass over them."""
    data = np.frombuffer(text, dtype=np.uint8, count=end)
    window_end, step = end, 1 << 12
    while window_end > 0:
        window_start = max(0, window_end - step)
        visible = np.flatnonzero(~np.isin(data[window_start:window_end], _SPACE))
        if visible.shape[0]:
            return window_start + int(visible[-1]) + 1
        window_end = window_start
        step *= 4
    return 0


def parse_chunk(chunk: Chunk, label: str, *, check_pairs: bool = True,
                path: str | os.PathLike | None = None) -> RunTable | None:
    """The chunk's lines as a table with its query codes and doc-id keys, or None when it holds no data line.

    Errors name the line in the whole file; a repeated (qid, docno) inside the chunk is refused as the readers
    refuse it (a contiguous run has each query inside one chunk, so that is every repeat). With the run's
    ``path``, the chunk lets go of its text once parsed, before the pairs are checked (as ``read_run`` lets go of
    the file's text), so a huge query is not held twice; a repeat is then named from the file read again.
    """
    text, size = chunk.text, len(chunk.text)
    if path is not None:
        chunk.text = b""
    try:
        columns = trec_io._fast_parse(text, label, "run")
    except TrecFormatError:
        return None  # only comments and blank lines: fine inside a file (an empty file is refused by the caller)
    if columns is None:
        columns = trec_io._slow_parse(bytes(text), label, "run", chunk.first_line)
    if path is not None:
        del text
    qid, docno, score, tag = columns  # pyarrow's pieces, kept as they are (as read_run keeps them): no second copy
    del columns
    codes, values = trec_io.value_codes(qid)
    if not check_pairs:
        return RunTable(qid, docno, np.asarray(score, dtype=np.float64), tag, label, None, False, codes, values)
    keys, exact, maybe_repeated = trec_io._check_unique_pairs(codes, docno)
    if maybe_repeated:
        text = _read_range(path, label, chunk.offset, size) if path is not None else bytes(text)
        trec_io._raise_duplicate(text, label, "run", chunk.first_line)
    return RunTable(qid, docno, np.asarray(score, dtype=np.float64), tag, label, keys, exact, codes, values)



def _read_range(path: str | os.PathLike, label: str, offset: int, size: int) -> bytes:
    """``size`` bytes of the run's text (decompressed) from ``offset``: a chunk's text, read again."""
    parts, position = [], 0
    for block in open_run(path, label):
        end = position + len(block)
        if end > offset:
            parts.append(block[max(0, offset - position):offset + size - position])
        position = end
        if position >= offset + size:
            break
    return b"".join(parts)
