"""A run whose queries are not contiguous, grouped out of core: lines hashed by qid into a bounded number of
temporary Arrow files, each then read back as a table of whole queries.

Each line keeps its place in the file within its bucket (buckets are appended chunk by chunk), so ties kept in
file order stay in file order. A (qid, docno) repeated anywhere is refused naming the first line that repeats an
earlier one, as the in-memory reader names it: the buckets only say that a repeat exists, and a second pass over
the file, keeping only the queries of those buckets, finds the lines.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa
from pyarrow import ipc

from ..io import trec as trec_io
from ..io.compressed import is_gzip
from ..io.trec import RunTable, TrecFormatError, from_numpy
from .chunks import _READ_STEP, open_run, parse_chunk, query_chunks

#: At most this many temporary files (open at once while the run is written out).
MAX_BUCKETS = 256

_SCHEMA = pa.schema([("qid", pa.string()), ("docno", pa.string()), ("score", pa.float64())])


def give_back_memory() -> None:
    """Hand the memory freed so far back to the system (pyarrow's pool, and glibc's heaps where there is glibc), as
    dask.distributed's workers do: a bucket is read whole, and without this it comes on top of the freed but kept
    memory of the chunks before it (about 200 MB on a run of one 4M-line query)."""
    pa.default_memory_pool().release_unused()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)


def _glibc():
    try:
        libc = ctypes.CDLL("libc.so.6")
        return libc if hasattr(libc, "malloc_trim") else None
    except (OSError, AttributeError):
        return None


_LIBC = _glibc() if sys.platform.startswith("linux") else None


def bucket_count(path: str | os.PathLike, chunk_bytes: int) -> int:
    """About one chunk of text per bucket: the file's size (four times it for gzip) over the chunk size."""
    size = Path(path).stat().st_size
    with open(path, "rb") as file:
        if is_gzip(file.read(2)):
            size *= 4
    return int(min(MAX_BUCKETS, max(1, -(-size // max(chunk_bytes, _READ_STEP)))))


def grouped_tables(path: str | os.PathLike, label: str, chunk_bytes: int, directory: Path,
                   stop: threading.Event | None = None) -> Iterator[RunTable]:
    """Tables of whole queries covering the run, one per bucket; the last one's ``runid`` is the run's tag.
    ``stop``: see :func:`~metrics.stream.chunks.open_run`."""
    count = bucket_count(path, chunk_bytes)
    writers: dict[int, ipc.RecordBatchStreamWriter] = {}
    runid = ""
    try:
        for chunk in query_chunks(open_run(path, label, stop), chunk_bytes):
            run = parse_chunk(chunk, label, check_pairs=False, path=path)
            if run is None:
                continue
            runid = run.runid
            bucket_of_query = (trec_io.docno_keys(run.qid_values, hashed=True)[0] % np.uint64(count)).astype(np.int64)
            bucket = bucket_of_query[run.qid_code]
            sizes = np.bincount(bucket, minlength=count)
            if np.count_nonzero(sizes) == 1:
                # One bucket takes the whole chunk (a long query, say): written as it is, without a copy.
                pieces = {int(bucket[0]): (run.qid, run.docno, from_numpy(run.score))}
            else:
                order = np.argsort(bucket, kind="stable")
                pieces, start = {}, 0
                for index in np.flatnonzero(sizes).tolist():
                    rows = from_numpy(order[start:start + sizes[index]])
                    start += sizes[index]
                    pieces[index] = (run.qid.take(rows), run.docno.take(rows), from_numpy(run.score).take(rows))
            del run
            for index, columns in pieces.items():
                if index not in writers:
                    writers[index] = ipc.new_stream(str(directory / f"bucket-{index}.arrow"), _SCHEMA)
                writers[index].write_table(pa.table(list(columns), schema=_SCHEMA))
            del pieces, columns
    finally:
        for writer in writers.values():
            writer.close()
    repeated: list[int] = []
    for index in sorted(writers):
        give_back_memory()  # what the last chunk or bucket freed, before this bucket is read whole
        file = directory / f"bucket-{index}.arrow"
        with ipc.open_stream(str(file)) as reader:
            table = reader.read_all()
        file.unlink()
        # The columns stay in the pieces they were written in (the bulk path takes them so): the bucket is held
        # once, not copied into one array.
        qid, docno = table.column("qid"), table.column("docno")
        score = trec_io.to_numpy(table.column("score"))
        del table
        codes, values = trec_io.value_codes(qid)
        keys, exact, maybe_repeated = trec_io._check_unique_pairs(codes, docno)
        if maybe_repeated and len(set(zip(qid.to_pylist(), docno.to_pylist()))) < len(qid):
            repeated.append(index)  # keys alone may collide: the strings decide, within this one bucket
            continue
        if not repeated:
            yield RunTable(qid, docno, score, runid, label, keys, exact, codes, values)
    if repeated:
        _raise_first_repeat(path, label, chunk_bytes, count, set(repeated), stop)


def _raise_first_repeat(path, label: str, chunk_bytes: int, count: int, buckets: set[int],
                        stop: threading.Event | None = None) -> None:
    """Raise naming the first line that repeats an earlier (qid, docno), among the queries of ``buckets``."""
    seen: dict[tuple[bytes, bytes], int] = {}
    for chunk in query_chunks(open_run(path, label, stop), chunk_bytes):
        run = parse_chunk(chunk, label, check_pairs=False)
        if run is None:
            continue
        bucket_of_query = trec_io.docno_keys(run.qid_values, hashed=True)[0] % np.uint64(count)
        wanted = {qid.encode("utf-8") for qid, bucket in zip(run.qid_values.to_pylist(), bucket_of_query.tolist())
                  if bucket in buckets}
        for number, fields in trec_io._data_lines(chunk.text, label, chunk.first_line):
            if fields[0] not in wanted:
                continue
            pair = (fields[0], fields[2])
            if pair in seen:
                raise TrecFormatError(
                    f"{label} line {number}: document {pair[1].decode('utf-8')!r} of query "
                    f"{pair[0].decode('utf-8')!r} already appears on line {seen[pair]}; keep one line per (qid, docno)")
            seen[pair] = number
    raise TrecFormatError(f"{label}: a (qid, docno) appears on two lines; keep one line per (qid, docno)")
