"""Evaluate a run file in bounded memory: chunks of whole queries through the bulk kernels, means combined exactly.

* :func:`evaluate_file` -- ``(qids, per-query values, means)`` as :func:`metrics.bulk.evaluate_files` returns them
  (qids in trec_eval's order, sorted), for a run of any length: memory follows the chunk size, not the run.
* :func:`stream_run` -- the same, with the run tag, trec_eval's relstring and whether the run had to be grouped.
* :func:`stream_subtopic_run` -- :func:`stream_run` against subtopic qrels (the diversity measures): each chunk is
  scored with its own queries' rows of the :class:`~metrics.bulk.SubtopicMatrix`, as
  :func:`metrics.bulk.evaluate_subtopic_run` scores a whole run.

A run whose queries are contiguous (every run trec_eval writes, and nearly every run file) is read once: a reader
thread parses the next chunk (pyarrow and numpy release the GIL) while the kernels score this one. Per-query
values are kept (a few numbers per query) and the means are summed over them in sorted-qid order, as the
in-memory path sums them, so the ``all`` line is the same to the last bit.

A query that comes back after another query is noticed on the way; the run is then read again and grouped out of
core (:mod:`metrics.stream.buckets`): every line goes to one of a bounded number of temporary files by a hash of
its qid, and each file is evaluated as a chunk. That costs a second read of the run and writing it once to disk.
"""

from __future__ import annotations

import concurrent.futures
import os
import queue
import tempfile
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa

from .. import bulk
from ..conventions import Conventions
from ..engine import aggregate_columns, as_measures, complete_all_line, make_conventions
from ..io.trec import (
    QrelsTable,
    RunTable,
    Source,
    TrecFormatError,
    from_numpy,
    read_qrels,
    read_run,
)
from ..names import Measure
from .buckets import give_back_memory, grouped_tables
from .chunks import DEFAULT_CHUNK_BYTES, Stopped, open_run, parse_chunk, query_chunks

#: Whether the next chunks are parsed on other threads while this one is scored (``stream_run``'s default).
OVERLAP = True
#: Threads parsing chunks when they overlap the scoring: on two cores, parsing (about two thirds of the CPU time)
#: then keeps both busy.
PARSERS = 2


@dataclass(frozen=True)
class StreamedRun:
    """The evaluation of a streamed run.

    qids: the evaluated queries in trec_eval's order (sorted ids); values: each measure's per-query values in that
    order; means: the ``all`` values (num_* summed, the rest averaged, in that order); runid: the tag of the last
    line; relevance_strings: trec_eval's relstring of each query when asked for; grouped: whether the run's queries
    were not contiguous, so it was grouped out of core; missing: the judged queries absent from the run (sorted),
    scored under ``missing_queries="zero"`` (as ``missing_ranking`` says) and left out otherwise.
    """

    qids: list[str]
    values: dict[str, np.ndarray]
    means: dict[str, float]
    runid: str
    relevance_strings: list[str] | None
    grouped: bool
    missing: tuple[str, ...] = ()


def evaluate_file(
    qrels: QrelsTable | Source,
    run_path: str | os.PathLike,
    measures: str | Iterable[str | Measure],
    conventions: Conventions | None = None,
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    trec_eval: str | None = None,
) -> tuple[list[str], dict[str, np.ndarray], dict[str, float]]:
    """(query ids, per-query values per measure, the ``all`` values) of a run file (plain or gzip) of any size.

    The values equal :func:`metrics.bulk.evaluate_files`' (queries here in sorted order) for every convention;
    ``chunk_bytes`` of text are parsed and scored at a time. ``trec_eval``: a build (``"9.0.8"``, ``"10.0"``)
    whose conventions replace ``conventions``' where the builds differ.
    """
    result = stream_run(qrels, run_path, measures, conventions, chunk_bytes=chunk_bytes, trec_eval=trec_eval)
    return result.qids, result.values, result.means


def stream_run(
    qrels: QrelsTable | Source,
    run_path: str | os.PathLike,
    measures: str | Iterable[str | Measure],
    conventions: Conventions | None = None,
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    relstring_length: int | None = None,
    overlap: bool | None = None,
    name: str | None = None,
    stop: threading.Event | None = None,
    relstring_cleared: bool = False,
    trec_eval: str | None = None,
) -> StreamedRun:
    """:func:`evaluate_file` with the run tag and, with ``relstring_length``, each query's relstring
    (``relstring_cleared``: trec_eval's plain ``relstring``, which trec_eval 10 empties for a -c placeholder).

    ``overlap=False`` parses and scores on one thread (the same values, for measuring what the overlap gains);
    ``None`` follows :data:`OVERLAP`. Once ``stop`` is set (Ctrl-C during several runs), :class:`Stopped` is
    raised within a read step (4 MiB) or a bucket, and the temporary files are removed.
    """
    _check_chunk_bytes(chunk_bytes)
    conv = make_conventions(conventions, trec_eval=trec_eval)
    table = qrels if isinstance(qrels, QrelsTable) else read_qrels(qrels)
    scorer = _ChunkScorer(table, as_measures(measures), conv, relstring_length, relstring_cleared)
    return _stream(scorer, run_path, chunk_bytes, OVERLAP if overlap is None else overlap,
                   name or Path(run_path).name, stop)


def stream_subtopic_run(
    matrix: bulk.SubtopicMatrix,
    run_path: str | os.PathLike,
    measures: str | Iterable[str | Measure],
    conventions: Conventions | None = None,
    *,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    overlap: bool | None = None,
    name: str | None = None,
    stop: threading.Event | None = None,
) -> StreamedRun:
    """:func:`stream_run` against subtopic qrels (:func:`metrics.bulk.subtopic_matrix`): the values of
    :func:`metrics.bulk.evaluate_subtopic_run` on the whole run, to the bit, in memory that follows the chunk.
    ``relevance_strings`` is None (ndeval has no relstring)."""
    _check_chunk_bytes(chunk_bytes)
    scorer = _SubtopicChunkScorer(matrix, as_measures(measures), make_conventions(conventions))
    # Reading the subtopic qrels and building the matrix freed about as much as they keep; returned before the chunks
    # come, the 7M-line benchmark peaks at 327 MB instead of 387 MB.
    give_back_memory()
    return _stream(scorer, run_path, chunk_bytes, OVERLAP if overlap is None else overlap,
                   name or Path(run_path).name, stop)


def _check_chunk_bytes(chunk_bytes: object) -> None:
    if isinstance(chunk_bytes, bool) or not isinstance(chunk_bytes, int) or chunk_bytes < 1:
        raise ValueError(f"Argument `chunk_bytes` has to be a positive integer, but got {chunk_bytes!r}")


def _stream(scorer: _ChunkScorer, run_path, chunk_bytes: int, overlap: bool, label: str,
            stop: threading.Event | None) -> StreamedRun:
    try:
        return _score_run(scorer, run_path, chunk_bytes, overlap, label, stop)
    except MemoryError:
        # numpy's and pyarrow's allocation failures alike: one line, not a traceback through the kernels.
        raise TrecFormatError(
            f"{label}: out of memory while evaluating it in chunks: the largest query of a run (and a bucket of a "
            f"run whose queries are not contiguous) is held in memory whole; give the process more memory, or "
            f"split the run's largest queries") from None


def _score_run(scorer: _ChunkScorer, run_path, chunk_bytes: int, overlap: bool, label: str,
               stop: threading.Event | None) -> StreamedRun:
    reader = _Reader(run_path, label, chunk_bytes, overlap, stop)
    try:
        grouped = not scorer.score_contiguous(reader)
    finally:
        reader.close()
    if grouped:
        scorer.reset()
        give_back_memory()  # the first pass's chunks: freed, not yet returned
        with tempfile.TemporaryDirectory(prefix="metrics-stream-") as directory:
            for run in grouped_tables(run_path, label, chunk_bytes, Path(directory), stop):
                if stop is not None and stop.is_set():
                    raise Stopped(label)
                scorer.score(run)
    if not scorer.seen:
        read_run(Path(run_path), name=label)  # says why there is no data line (empty, comments only)
        raise TrecFormatError(f"{label}: no data line")
    return scorer.result(grouped)


class _ChunkScorer:
    """Scores chunks of whole queries against the qrels and keeps each query's values."""

    def __init__(self, qrels: QrelsTable, measures: list[Measure], conventions: Conventions,
                 relstring_length: int | None, relstring_cleared: bool = False):
        self.qrels, self.measures, self.conventions = qrels, measures, conventions
        self.relstring_length = relstring_length
        self.relstring_cleared = relstring_cleared  # plain relstring: trec_eval 10 clears a -c placeholder's
        # Chunks are scored without -c; the judged queries the run lacks are added at the end.
        self.chunk_conventions = conventions.replace(missing_queries="skip")
        codes, self.qrels_qids = bulk._query_codes(qrels)
        self.qrels_order = np.argsort(codes, kind="stable")
        self.qrels_bounds = np.concatenate([[0], np.cumsum(np.bincount(codes, minlength=len(self.qrels_qids)))])
        self.reset()

    def reset(self) -> None:
        self.seen: set[str] = set()
        self.qids: list[str] = []
        self.columns: list[dict[str, np.ndarray]] = []
        self.strings: list[str] = []
        self.runid = ""

    def score_contiguous(self, tables: Iterable[RunTable | None]) -> bool:
        """Score every chunk; False (and stop) at the first query met again in a later chunk (inside a chunk, the
        bulk path takes lines in any order)."""
        for run in tables:
            if run is None:
                continue
            if not self.seen.isdisjoint(run.qid_values.to_pylist()):
                return False
            self.score(run)
        return True

    def score(self, run: RunTable) -> None:
        qids = run.qid_values.to_pylist()
        self.seen.update(qids)
        self.runid = run.runid
        qrels = self.qrels_of(run.qid_values)
        self._score(qrels, run, self.chunk_conventions)

    def _score(self, qrels: QrelsTable, run: RunTable, conventions: Conventions) -> None:
        if self.relstring_length is not None:
            self.strings.extend(bulk.relevance_strings_of_run(qrels, run, conventions, self.relstring_length,
                                                              clear_placeholders=self.relstring_cleared))
        qids, values, _ = bulk.evaluate_prepared(bulk.prepare_run(qrels, run, self.measures or ["num_q"], conventions))
        self.qids.extend(qids)
        self.columns.append(values)

    def qrels_of(self, qids: pa.Array) -> QrelsTable:
        """The qrels lines of the given queries (by query, in file order within each)."""
        codes = bulk._index_in(qids, self.qrels_qids)
        codes = codes[codes >= 0]
        starts, ends = self.qrels_bounds[codes], self.qrels_bounds[codes + 1]
        lengths = ends - starts
        # Every line of each query: its start repeated, plus its position inside the query.
        positions = (np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
                     + np.arange(lengths.sum()))
        rows = self.qrels_order[positions.astype(np.int64)]
        take = from_numpy(rows.astype(np.int64))
        return QrelsTable(self.qrels.qid.take(take), self.qrels.docno.take(take), self.qrels.grade[rows],
                          self.qrels.name)

    def result(self, grouped: bool) -> StreamedRun:
        missing = [qid for qid in self.qrels_qids.to_pylist() if qid not in self.seen]
        if self.conventions.missing_queries == "zero":
            if missing:
                empty = RunTable(pa.array([], pa.string()), pa.array([], pa.string()), np.zeros(0), self.runid)
                self._score(self.qrels_of(pa.array(missing, pa.string())), empty, self.conventions)
        keys = [measure.key for measure in self.measures]
        values = {key: np.concatenate([column[key] for column in self.columns]) if self.columns else np.zeros(0)
                  for key in (keys or ["num_q"])}
        # trec_eval's order: queries sorted by id; the means are summed in it, as bulk.evaluate_prepared sums them.
        order = np.asarray(sorted(range(len(self.qids)), key=self.qids.__getitem__), dtype=np.int64)
        values = {key: column[order] for key, column in values.items()}
        strings = [self.strings[i] for i in order] if self.relstring_length is not None else None
        qids = [self.qids[i] for i in order]
        means = aggregate_columns({key: values[key] for key in keys})
        means.update(complete_all_line(self.measures, self.conventions, self.qrels.grade))
        return StreamedRun(qids, {key: values[key] for key in keys}, means, self.runid, strings, grouped,
                           tuple(sorted(missing)))


class _SubtopicChunkScorer(_ChunkScorer):
    """:class:`_ChunkScorer` against subtopic qrels: each chunk is scored with its queries' rows of the matrix."""

    def __init__(self, matrix: bulk.SubtopicMatrix, measures: list[Measure], conventions: Conventions):
        self.matrix = matrix
        super().__init__(matrix.documents, measures, conventions, None)

    def qrels_of(self, qids: pa.Array) -> bulk.SubtopicMatrix:  # type: ignore[override]
        """The matrix of the given queries that have subtopic judgments, in the qrels' order."""
        codes = bulk._index_in(qids, self.qrels_qids)
        return self.matrix.of_queries(np.sort(codes[codes >= 0]))

    def _score(self, matrix: bulk.SubtopicMatrix, run: RunTable, conventions: Conventions) -> None:  # type: ignore[override]
        if matrix.starts.shape[0] == 1:
            return  # no query of this chunk is judged: none is evaluated
        qids, values = bulk.evaluate_subtopic_run(matrix, run, self.measures or as_measures("num_q"), conventions)
        self.qids.extend(qids)
        self.columns.append(values)


class _Reader:
    """The run's chunks, parsed. With ``overlap``, a thread cuts the text into chunks and ``PARSERS`` threads parse
    them (pyarrow and numpy release the GIL), at most ``PARSERS`` chunks ahead of the one being scored; tables and
    errors come out in file order."""

    def __init__(self, path, label: str, chunk_bytes: int, overlap: bool, stop: threading.Event | None = None):
        self.label, self.path = label, path
        self.texts = query_chunks(open_run(path, label, stop), chunk_bytes)
        self.thread = None
        if overlap:
            self.pool = concurrent.futures.ThreadPoolExecutor(PARSERS, thread_name_prefix="metrics-stream-parse")
            self.queue: queue.Queue = queue.Queue(maxsize=PARSERS)
            self.stop = threading.Event()
            self.thread = threading.Thread(target=self._produce, name="metrics-stream-chunks", daemon=True)
            self.thread.start()

    def __iter__(self) -> Iterator[RunTable | None]:
        if self.thread is None:
            yield from (parse_chunk(chunk, self.label, path=self.path) for chunk in self.texts)
            return
        while True:
            kind, item = self.queue.get()
            if kind == "end":
                return
            if kind == "error":
                raise item
            yield item.result()

    def _produce(self) -> None:
        try:
            for chunk in self.texts:
                future = self.pool.submit(parse_chunk, chunk, self.label, path=self.path)
                del chunk  # held by the parse only, not while the next chunk is read
                if not self._put(("chunk", future)):
                    return
            self._put(("end", None))
        except BaseException as error:  # noqa: BLE001 -- handed to the consumer, which raises it
            self._put(("error", error))

    def _put(self, item) -> bool:
        while not self.stop.is_set():
            try:
                self.queue.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def close(self) -> None:
        if self.thread is not None:
            self.stop.set()
            self.thread.join()
            self.pool.shutdown(wait=True, cancel_futures=True)
        self.texts.close()


__all__ = ["DEFAULT_CHUNK_BYTES", "Stopped", "StreamedRun", "evaluate_file", "stream_run", "stream_subtopic_run"]
