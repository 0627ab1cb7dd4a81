"""Many runs against one qrels: the qrels read and checked once, every run evaluated on its own, in parallel.

One mechanism serves ``python -m metrics QRELS RUN RUN...`` (a trec_eval block per run), ``python -m
metrics.compare`` and :func:`evaluate_runs` (one table). :func:`evaluate_each` yields each run's values in the order
the runs were given; at most ``workers`` runs are read and evaluated at a time, so at most ``workers`` runs are in
memory at once (a finished run keeps only its per-query values). Workers are threads sharing the one parsed qrels:
the readers (pyarrow) and the kernels (numpy) release the GIL for most of their time (bench/README.md has the
measurement against a process pool).

The values of each run are those of evaluating it alone (the same code: :func:`evaluate_run_path`, so
a run file large enough streams in chunks of whole queries, :mod:`metrics.stream`), and the means are summed in
trec_eval's order, so the table and the blocks equal one call per run to the last bit.
"""

from __future__ import annotations

import os
import threading
from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from . import bulk, stream
from .conventions import Conventions
from .engine import (
    aggregate_columns,
    as_measures,
    check_grade_range,
    grade_limit,
    make_conventions,
    nothing_to_evaluate,
)
from .io.compressed import is_gzip
from .io.frames import as_qrels_table, as_run_table, is_frame, is_parquet
from .io.read import read_checked_qrels, read_run_path
from .io.trec import QrelsTable, RunTable, read_subtopic_table
from .measures import DIVERSITY_NAMES
from .model import InputError
from .names import Measure, parse_measures
from .optional import require

if TYPE_CHECKING:  # pandas is optional (the app's extra): loaded when evaluate_runs builds its table
    import pandas as pd

#: A run as :func:`evaluate_runs` takes it: a TREC or Parquet file path ('-' is standard input), a pandas DataFrame
#: or pyarrow Table (:mod:`metrics.io.frames`), a RunTable, or {qid: {doc: score}}.
RunSource = str | Path | RunTable | Mapping

#: Runs in one :func:`evaluate_runs` table (it holds every run's per-query values). The command line streams its
#: blocks and takes any number of runs.
MAX_RUNS = 1000

STDIN = "-"


@dataclass(frozen=True)
class RunValues:
    """One run's result: its name as given, the evaluated qids in trec_eval's order (sorted), per-query values
    per key in that order (lists for relstring), and the run's tag (the last line's, as trec_eval's runid)."""

    name: str
    qids: list[str]
    values: dict[str, object]
    runid: str

    @property
    def missing(self) -> tuple[str, ...]:
        """The judged queries absent from the run (sorted): left out of its means, or scored 0 with -c."""
        return tuple(self.values.get(MISSING_QUERIES, ()))


def default_workers(runs: int) -> int:
    """One worker per core, never more than the runs."""
    return max(1, min(os.cpu_count() or 1, runs))


def check_run_paths(paths: Sequence[str]) -> None:
    """Refuse, before anything is evaluated, what would fail late: standard input twice, a file that cannot be
    opened. A file given twice is evaluated twice (as two trec_eval calls would)."""
    if sum(path == STDIN for path in paths) > 1:
        raise InputError("RUN '-' (standard input) is given more than once: it can be read only once; "
                         "save it to a file and name that file")
    for path in paths:
        if path == STDIN:
            continue
        if os.path.isdir(path):
            raise InputError(f"cannot read {path}: it is a directory, not a file")
        try:
            with open(path, "rb"):
                pass
        except FileNotFoundError:
            raise InputError(f"cannot read {path}: no such file") from None
        except OSError as error:
            raise InputError(f"cannot read {path}: {error.strerror or error}") from None


# ---- one run, as the command line evaluates it ----------------------------------------------------------


def evaluate_run_files(qrels_path: str, run_path: str, measures: Sequence[Measure], conventions: Conventions, *,
                   relstring: tuple[str, int] | None = None):
    """Read both files and evaluate the run as ``python -m metrics QRELS RUN`` does: ``(qids, {key: per-query
    values}, run tag)``, qids in trec_eval's order.

    Uses the columnar readers and the bulk path, so a run of millions of lines never becomes Python dicts. With
    ``relstring`` (output name, length), ``values`` also holds each query's string of grades under that name.
    With ``missing_queries="zero"`` (trec_eval -c), ``values`` holds ``ALL_NUM_REL``: the all-line of num_rel
    as trec_eval prints it there (qrels lines with grade > 0, whatever -l says).
    """
    qrels = read_checked_qrels(qrels_path, measures, conventions)
    return evaluate_run_path(qrels, run_path, measures, conventions, relstring=relstring)


def evaluate_run_path(qrels, run_path: str, measures: Sequence[Measure], conventions: Conventions, *,
                      relstring: tuple[str, int] | None = None, stop=None):
    """:func:`evaluate_run_files` with the qrels read and checked already: a large run file streams, others are read
    whole (every run of ``python -m metrics QRELS RUN RUN...`` goes through here). ``stop``: a threading.Event
    that ends a streamed run early (:func:`metrics.stream.stream_run`)."""
    if _streams(run_path):
        return _evaluate_streamed(qrels, Path(run_path), measures, conventions, relstring, stop)
    # The table goes straight into the call (no name holds it here), so evaluate_run can release it before the kernels.
    return evaluate_run(qrels, read_run_path(run_path), measures, conventions, relstring=relstring)


def evaluate_run(qrels, run, measures: Sequence[Measure], conventions: Conventions, *,
                 relstring: tuple[str, int] | None = None):
    """:func:`evaluate_run_files` for tables already read (``qrels`` checked by :func:`read_checked_qrels`); the run
    table is released before the kernels run once the caller drops its own reference."""
    runid = run.runid
    extra: dict[str, object] = {MISSING_QUERIES: missing_from(qrels, run.qids)}
    if conventions.missing_queries == "zero":
        # trec_eval's -c sums every qrels line with rel > 0 for num_rel's all-line, whatever -l says.
        extra[ALL_NUM_REL] = float(np.count_nonzero(qrels.grade > 0))
    if relstring is not None:
        extra[relstring[0]] = bulk.relevance_strings_of_run(qrels, run, conventions, relstring[1],
                                                            clear_placeholders=relstring[0] == "relstring")
    # A selection of only runid still needs the list of evaluated queries.
    prepared = bulk.prepare_run(qrels, run, list(measures) or ["num_q"], conventions)
    del run  # hundreds of MB for a large run, not needed by the kernels
    qids, values, _ = bulk.evaluate_prepared(prepared)
    order = np.asarray(sorted(range(len(qids)), key=lambda i: str(qids[i])), dtype=np.int64)
    values = {key: column[order] for key, column in values.items()}
    for key, column in extra.items():
        values[key] = [column[i] for i in order] if isinstance(column, list) else column
    qids = [str(qids[i]) for i in order]
    if conventions.missing_queries == "zero":
        _mark_not_printed(values, qids, extra[MISSING_QUERIES], conventions)
    return qids, values, runid


def _mark_not_printed(values: dict, qids: list[str], absent: Sequence[str], conventions: Conventions) -> None:
    """``values[NOT_PRINTED]``: the rows -c added that trec_eval 9.0.8 counts in the means without printing
    (``missing_ranking="empty"``; trec_eval 10 scores its placeholder and prints it like any other query)."""
    if conventions.missing_ranking == "empty" and absent:
        missing = set(absent)
        values[NOT_PRINTED] = np.array([qid in missing for qid in qids], dtype=bool)


#: The key of trec_eval's -c all-line of num_rel in evaluate_run_files' values.
ALL_NUM_REL = "num_rel (all, -c)"
#: The key of the judged queries absent from the run (a sorted tuple) in evaluate_run_files' values: a comparison
#: of runs names them, since they change which queries the runs can be compared on.
MISSING_QUERIES = "judged queries not in the run"


def uses_subtopics(measures: Sequence[Measure]) -> bool:
    """Whether ``measures`` hold a diversity measure, whose qrels are ndeval's subtopic qrels."""
    return any(measure.name in DIVERSITY_NAMES for measure in measures)


def evaluate_subtopic_files(qrels_path: str, run_path: str, measures: Sequence[Measure], conventions: Conventions):
    """:func:`evaluate_run_files` with the qrels read as NIST's ndeval reads them, ``qid subtopic docno grade``
    (:func:`metrics.io.trec.read_subtopic_table`), for the diversity measures; every other measure sees each
    document's largest grade. ``(qids, {key: per-query values}, run tag)``, qids in trec_eval's order; both files go
    through the columnar readers and the bulk path (:func:`metrics.bulk.subtopic_matrix`,
    :func:`metrics.bulk.evaluate_subtopic_run`), and a run file large enough streams in chunks of whole queries
    (:func:`metrics.stream.stream_subtopic_run`), with the same values."""
    if qrels_path == "-":
        raise InputError("the subtopic qrels have to be a file, not '-'")
    matrix = bulk.subtopic_matrix(read_subtopic_table(Path(qrels_path)))
    documents = matrix.documents

    def where(row: int) -> str:
        return f"query {documents.qid[row].as_py()!r}, document {documents.docno[row].as_py()!r}"

    check_grade_range(documents.grade, grade_limit(measures, conventions), where)
    measures = list(measures) or parse_measures("num_q")
    if _streams(run_path):
        streamed = stream.stream_subtopic_run(matrix, Path(run_path), measures, conventions)
        qids, values, runid, missing = streamed.qids, dict(streamed.values), streamed.runid, streamed.missing
    else:
        run = read_run_path(run_path)
        run_qids, values = bulk.evaluate_subtopic_run(matrix, run, measures, conventions)
        order = np.asarray(sorted(range(len(run_qids)), key=lambda i: run_qids[i]), dtype=np.int64)
        values = {measure.key: values[measure.key][order] for measure in measures}
        qids, runid = [run_qids[i] for i in order], run.runid
        missing = tuple(sorted(set(documents.qid_values.to_pylist()) - set(run.qids)))
    values[MISSING_QUERIES] = missing
    if conventions.missing_queries == "zero":
        values[ALL_NUM_REL] = float(np.count_nonzero(documents.grade > 0))
    return qids, values, runid


def missing_from(qrels: QrelsTable, run_qids: Sequence[str]) -> tuple[str, ...]:
    """The judged queries of ``qrels`` that are not among ``run_qids``, sorted (trec_eval's order)."""
    answered = set(run_qids)
    return tuple(sorted(qid for qid in qrels.qids if qid not in answered))


#: The key, in evaluate_run_files' values, of the rows -c added that the command line does not print per query
#: (trec_eval 9.0.8 only counts them in the means).
NOT_PRINTED = "not printed (-c, trec_eval 9.0.8)"

#: Run files (plain or gzip) at least this large are evaluated in chunks of whole queries (:mod:`metrics.stream`).
STREAM_FROM_BYTES = 64 << 20


def _streams(run_path: str) -> bool:
    """Whether the run is a TREC file (plain or gzip) large enough to stream; standard input and Parquet are not."""
    path = Path(run_path)
    try:
        if run_path == "-" or not path.is_file() or is_parquet(path):
            return False
        with open(path, "rb") as file:
            # Text size: a gzipped run expands 3 to 8 times (the benchmark's 3.7), so count it as four times larger.
            expansion = 4 if is_gzip(file.read(2)) else 1
        return path.stat().st_size * expansion >= STREAM_FROM_BYTES
    except OSError:
        return False  # the in-memory reader names the problem


def _evaluate_streamed(qrels, run_path: Path, measures: Sequence[Measure], conventions: Conventions,
                       relstring: tuple[str, int] | None, stop=None):
    """:func:`evaluate_run_files` in bounded memory: the run in chunks of whole queries, the same values and lines."""
    result = stream.stream_run(qrels, run_path, list(measures) or ["num_q"], conventions,
                        relstring_length=relstring[1] if relstring is not None else None, stop=stop,
                        relstring_cleared=relstring is not None and relstring[0] == "relstring")
    values: dict[str, object] = dict(result.values)
    values[MISSING_QUERIES] = result.missing
    if conventions.missing_queries == "zero":
        values[ALL_NUM_REL] = float(np.count_nonzero(qrels.grade > 0))
        _mark_not_printed(values, result.qids, result.missing, conventions)
    if relstring is not None:
        values[relstring[0]] = result.relevance_strings
    return result.qids, values, result.runid


def evaluate_each(qrels: QrelsTable, runs: Sequence[tuple[str, RunSource]], measures: Sequence[Measure],
                  conventions: Conventions, *, relstring: tuple[str, int] | None = None,
                  workers: int | None = None) -> Iterator[RunValues]:
    """Each run's :class:`RunValues`, in the order given. ``qrels`` is read and checked already
    (:func:`metrics.io.read.check_grade_limit`). A run that cannot be read or evaluated raises its error when its turn
    comes: the runs before it have been yielded whole; of the runs after it, none is started, and those already
    started (at most ``workers - 1``) are told to stop and dropped. An interrupted or abandoned iteration (Ctrl-C)
    does the same and returns without waiting: a streamed run stops within a read step, removing its temporary
    files, and a run read whole finishes its reading in the background."""
    if workers is None:
        workers = default_workers(len(runs))
    elif isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise InputError(f"Argument `workers` has to be a positive integer (runs evaluated at once), got {workers!r}")

    stop = threading.Event()

    def one(name: str, source: RunSource) -> RunValues:
        if isinstance(source, (str, Path)):  # as the command line evaluates one file: a large one streams
            qids, values, runid = evaluate_run_path(qrels, str(source), measures, conventions, relstring=relstring,
                                                    stop=stop)
        else:
            qids, values, runid = evaluate_run(qrels, run_table_of(source, name), measures, conventions,
                                               relstring=relstring)
        return RunValues(name, qids, values, runid)

    if workers == 1:
        for name, source in runs:
            yield one(name, source)
        return
    pending: deque[Future] = deque()
    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="metrics-run")
    try:
        for name, source in runs:
            if len(pending) == workers:  # at most `workers` runs read or being evaluated at once
                yield _result(pending.popleft())
            pending.append(pool.submit(one, name, source))
        while pending:
            yield _result(pending.popleft())
    finally:
        # Every run yielded, or an error, Ctrl-C or an abandoned iteration: start nothing more, tell the running
        # ones to stop, and do not wait for them (the executor's `with` would wait for each to finish).
        stop.set()
        pool.shutdown(wait=False, cancel_futures=True)


def _result(future: Future) -> RunValues:
    """The run's values, waited for in short steps: Ctrl-C's signal may land on a worker thread, and the main
    thread only raises KeyboardInterrupt once its wait returns."""
    while not future.done():
        wait([future], timeout=0.1)
    return future.result()


def evaluate_runs(
    qrels: str | Path | QrelsTable | Mapping,
    runs: Mapping[str, RunSource],
    measures: str | Sequence[str | Measure],
    *,
    relevance_level: int | None = None,
    judged_docs_only: bool | None = None,
    conventions: Conventions | None = None,
    workers: int | None = None,
    **convention_changes: object,
) -> pd.DataFrame:
    """Every run against one qrels, as one long table: columns ``run, qid, measure, value``.

    ``qrels`` is a qrels file path, a DataFrame, a :class:`~metrics.io.trec.QrelsTable` or ``{qid: {doc: grade}}``;
    ``runs`` maps a name to a run file path (TREC or Parquet; '-' reads standard input, once), a DataFrame (the
    columns of :mod:`metrics.io.frames`), a :class:`~metrics.io.trec.RunTable` or ``{qid: {doc: score}}``.
    Measures and conventions are those of :func:`metrics.evaluate`. For each run, in the order
    of ``runs``, the rows are the numbers ``trec_eval -q`` prints for it alone: each evaluated query (in trec_eval's
    order) with every per-query measure, then the ``all`` rows (means; counts summed; ``gm_map`` and ``gm_bpref``
    only there). This is PyTerrier's ``Experiment(perquery=True)`` shape (``name, qid, measure, value``) with the
    means added as qid ``all``; ``table.pivot_table(index="run", columns="measure", values="value")`` on the ``all``
    rows gives its wide means table. ``workers`` runs (default: one per core) are read and evaluated at once, in
    threads; ``workers=1`` holds one run in memory at a time. At most :data:`MAX_RUNS` runs per call.
    """
    pd = require("pandas", needed_by="metrics.evaluate_runs")
    conv = make_conventions(conventions, relevance_level=relevance_level, judged_docs_only=judged_docs_only,
                            **convention_changes)
    parsed = as_measures(measures)
    if not isinstance(runs, Mapping):
        raise InputError(f"Argument `runs` has to be a dict {{name: run}} (run: a file path, a RunTable or "
                         f"{{qid: {{doc: score}}}}), got {type(runs).__name__}")
    if not runs:
        raise InputError("Argument `runs` has to name at least one run")
    if len(runs) > MAX_RUNS:
        raise InputError(f"{len(runs)} runs: at most {MAX_RUNS} per call (the table holds every run's values); "
                         "split them over several calls, or use the command line, which streams any number")
    named = named_runs(runs)
    check_run_paths([str(source) for source in runs.values() if isinstance(source, (str, Path))])
    qrels_table = checked_qrels_table(qrels, parsed, conv)
    columns: dict[str, list] = {"run": [], "qid": [], "measure": [], "value": []}
    for result in evaluate_each(qrels_table, named, parsed, conv, workers=workers):
        if not result.qids:
            raise InputError(nothing_to_evaluate(f"run {result.name!r}", "the qrels"))
        for qid, measure, value in result_rows(result, parsed):
            columns["run"].append(result.name)
            columns["qid"].append(qid)
            columns["measure"].append(measure)
            columns["value"].append(value)
    return pd.DataFrame({"run": pd.Series(columns["run"], dtype=object), "qid": pd.Series(columns["qid"], dtype=object),
                         "measure": pd.Series(columns["measure"], dtype=object),
                         "value": np.asarray(columns["value"], dtype=np.float64)})


def per_query_values(qrels: object, runs: Mapping[str, RunSource], measures: Sequence[Measure],
                     conventions: Conventions, *, workers: int | None = None
                     ) -> tuple[dict[str, dict[str, dict[str, float]]], dict[str, tuple[str, ...]]]:
    """``{measure key: {run: {qid: value}}}`` and ``{run: judged queries absent from it}``: what a comparison of runs
    needs (``python -m metrics.compare``). With ``missing_queries="zero"`` the absent queries are among the values
    (scored as empty rankings); otherwise they are not."""
    if len(runs) > MAX_RUNS:
        raise InputError(f"{len(runs)} runs: at most {MAX_RUNS} per call")
    named = named_runs(runs)
    check_run_paths([str(source) for source in runs.values() if isinstance(source, (str, Path))])
    table = checked_qrels_table(qrels, measures, conventions)
    values: dict[str, dict[str, dict[str, float]]] = {m.key: {} for m in measures}
    missing: dict[str, tuple[str, ...]] = {}
    for result in evaluate_each(table, named, measures, conventions, workers=workers):
        for measure in measures:
            values[measure.key][result.name] = dict(zip(result.qids, result.values[measure.key].tolist()))
        missing[result.name] = result.missing
    return values, missing


def named_runs(runs: Mapping[object, RunSource]) -> list[tuple[str, RunSource]]:
    """``(name as text, run)`` pairs; two names that are the same text (``1`` and ``'1'``) are refused, since their
    rows could not be told apart."""
    seen: dict[str, object] = {}
    for name in runs:
        text = str(name)
        if text in seen:
            raise InputError(f"runs {seen[text]!r} and {name!r} are both named {text!r} in the table; give each run "
                             "its own name")
        seen[text] = name
    return [(str(name), source) for name, source in runs.items()]


def result_rows(result: RunValues, measures: Sequence[Measure]) -> Iterator[tuple[str, str, float]]:
    """``(qid, measure key, value)`` of one run: what ``trec_eval -q`` prints (per query, then ``all``)."""
    keys = [m.key for m in measures]
    per_query = [m.key for m in measures if m.name != "num_q" and m.info.per_query]
    columns = {key: np.asarray(result.values[key], dtype=np.float64) for key in per_query}
    not_printed = result.values.get(NOT_PRINTED)
    for i, qid in enumerate(result.qids):
        if not_printed is not None and not_printed[i]:
            continue
        for key in per_query:
            yield qid, key, float(columns[key][i])
    means = aggregate_columns({key: result.values[key] for key in keys})
    if ALL_NUM_REL in result.values and "num_rel" in means:
        means["num_rel"] = result.values[ALL_NUM_REL]  # trec_eval's -c quirk, as the command line prints it
    for key in keys:
        yield "all", key, float(means[key])


def checked_qrels_table(qrels: object, measures: Sequence[Measure], conv: Conventions) -> QrelsTable:
    """The judgments as one table (a path is read, a frame or dict converted), their grades checked against what
    ``measures`` under ``conv`` accept; every error is one line."""
    if isinstance(qrels, (str, Path)):
        check_run_paths([str(qrels)])  # the same one line for a qrels file that cannot be opened
        return read_checked_qrels(str(qrels), measures, conv)
    if not (isinstance(qrels, (Mapping, QrelsTable)) or is_frame(qrels)):
        raise InputError(f"Argument `qrels` has to be a file path, a DataFrame, a QrelsTable or a dict {{qid: {{doc: "
                         f"grade}}}}, got {type(qrels).__name__}")
    table = as_qrels_table(qrels)
    check_grade_range(table.grade, grade_limit(measures, conv),
                      lambda row: f"qrels, query {table.qid[row].as_py()!r}, document {table.docno[row].as_py()!r}")
    return table


def run_table_of(source: RunSource, name: str) -> RunTable:
    """One run as a table (a TREC or Parquet path read, a frame or dict converted), its errors naming ``name``."""
    if isinstance(source, (str, Path)):
        return read_run_path(str(source))  # TREC or Parquet; '-' is standard input
    if isinstance(source, (RunTable, Mapping)) or is_frame(source):
        return as_run_table(source, f"run {name!r}")  # the checks of metrics.evaluate and metrics.io.frames
    raise InputError(f"run {name!r}: has to be a file path, a DataFrame, a metrics.io.trec.RunTable or a dict "
                     f"{{qid: {{doc: score}}}}, got {type(source).__name__}")


__all__ = ["ALL_NUM_REL", "MAX_RUNS", "MISSING_QUERIES", "NOT_PRINTED", "STREAM_FROM_BYTES", "RunSource", "RunValues",
           "check_run_paths", "checked_qrels_table", "default_workers", "evaluate_each", "evaluate_run",
           "evaluate_run_files", "evaluate_run_path", "evaluate_runs", "missing_from", "named_runs",
           "per_query_values", "result_rows", "run_table_of"]
