"""Many runs against one qrels: the qrels read and checked once, every run evaluated on its own, in parallel.

One mechanism serves ``python -m metrics QRELS RUN RUN...`` (a trec_eval block per run), ``python -m
metrics.compare`` and :func:`evaluate_runs` (one table). :func:`evaluate_each` yields each run's values in the order
the runs were given; at most ``workers`` runs are read and evaluated at a time, so at most ``workers`` runs are in
memory at once (a finished run keeps only its per-query values). Workers are threads sharing the one parsed qrels:
the readers (pyarrow) and the kernels (numpy) release the GIL for most of their time (bench/README.md has the
measurement against a process pool).

The values of each run are those of evaluating it alone (the same code: :func:`metrics.cli.evaluate_run_path`, so
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
from typing import TYPE_CHECKING, Union

import numpy as np

from .conventions import Conventions
from .model import InputError
from .names import Measure

if TYPE_CHECKING:  # pyarrow and pandas load when first used: `import metrics` stays light
    import pandas as pd

    from .io.trec import QrelsTable, RunTable

#: A run as :func:`evaluate_runs` takes it: a TREC or Parquet file path ('-' is standard input), a pandas DataFrame
#: or pyarrow Table (:mod:`metrics.io.frames`), a RunTable, or {qid: {doc: score}}.
RunSource = Union[str, Path, "RunTable", Mapping]

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


def evaluate_each(qrels: QrelsTable, runs: Sequence[tuple[str, RunSource]], measures: Sequence[Measure],
                  conventions: Conventions, *, relstring: tuple[str, int] | None = None,
                  workers: int | None = None) -> Iterator[RunValues]:
    """Each run's :class:`RunValues`, in the order given. ``qrels`` is read and checked already
    (:func:`metrics.cli.check_grade_limit`). A run that cannot be read or evaluated raises its error when its turn
    comes: the runs before it have been yielded whole; of the runs after it, none is started, and those already
    started (at most ``workers - 1``) are told to stop and dropped. An interrupted or abandoned iteration (Ctrl-C)
    does the same and returns without waiting: a streamed run stops within a read step, removing its temporary
    files, and a run read whole finishes its reading in the background."""
    from .cli import evaluate_run, evaluate_run_path

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
            qids, values, runid = evaluate_run(qrels, _as_run_table(source, name), measures, conventions,
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
    import pandas as pd

    from .engine import as_measures, make_conventions, nothing_to_evaluate

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
    named = _named_runs(runs)
    check_run_paths([str(source) for source in runs.values() if isinstance(source, (str, Path))])
    qrels_table = _as_qrels_table(qrels, parsed, conv)
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
                     conventions: Conventions, *, workers: int | None = None) -> dict[str, dict[str, dict[str, float]]]:
    """``{measure key: {run: {qid: value}}}``: what a comparison of runs needs (``python -m metrics.compare``)."""
    if len(runs) > MAX_RUNS:
        raise InputError(f"{len(runs)} runs: at most {MAX_RUNS} per call")
    named = _named_runs(runs)
    check_run_paths([str(source) for source in runs.values() if isinstance(source, (str, Path))])
    table = _as_qrels_table(qrels, measures, conventions)
    values: dict[str, dict[str, dict[str, float]]] = {m.key: {} for m in measures}
    for result in evaluate_each(table, named, measures, conventions, workers=workers):
        for measure in measures:
            values[measure.key][result.name] = dict(zip(result.qids, result.values[measure.key].tolist()))
    return values


def _named_runs(runs: Mapping[object, RunSource]) -> list[tuple[str, RunSource]]:
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
    from .cli import ALL_NUM_REL
    from .engine import aggregate_columns

    keys = [m.key for m in measures]
    per_query = [m.key for m in measures if m.name != "num_q" and m.info.per_query]
    columns = {key: np.asarray(result.values[key], dtype=np.float64) for key in per_query}
    for i, qid in enumerate(result.qids):
        for key in per_query:
            yield qid, key, float(columns[key][i])
    means = aggregate_columns({key: result.values[key] for key in keys})
    if ALL_NUM_REL in result.values and "num_rel" in means:
        means["num_rel"] = result.values[ALL_NUM_REL]  # trec_eval's -c quirk, as the command line prints it
    for key in keys:
        yield "all", key, float(means[key])


def _as_qrels_table(qrels: object, measures: Sequence[Measure], conv: Conventions) -> QrelsTable:
    from .cli import read_checked_qrels
    from .engine import grade_limit
    from .io.frames import as_qrels_table, is_frame
    from .io.trec import QrelsTable

    if isinstance(qrels, (str, Path)):
        check_run_paths([str(qrels)])  # the same one line for a qrels file that cannot be opened
        return read_checked_qrels(str(qrels), measures, conv)
    if not (isinstance(qrels, (Mapping, QrelsTable)) or is_frame(qrels)):
        raise InputError(f"Argument `qrels` has to be a file path, a DataFrame, a QrelsTable or a dict {{qid: {{doc: "
                         f"grade}}}}, got {type(qrels).__name__}")
    table = as_qrels_table(qrels)
    limit = grade_limit(measures, conv)
    if limit is not None and (table.grade > limit[0]).any():
        row = int(np.flatnonzero(table.grade > limit[0])[0])
        raise InputError(f"qrels, query {table.qid[row].as_py()!r}, document {table.docno[row].as_py()!r}: grade "
                         f"{int(table.grade[row])} {limit[1]}")
    return table


def _as_run_table(source: RunSource, name: str) -> RunTable:
    from .cli import read_run_path
    from .io.frames import as_run_table, is_frame
    from .io.trec import RunTable

    if isinstance(source, (str, Path)):
        return read_run_path(str(source))  # TREC or Parquet; '-' is standard input
    if isinstance(source, (RunTable, Mapping)) or is_frame(source):
        return as_run_table(source, f"run {name!r}")  # the checks of metrics.evaluate and metrics.io.frames
    raise InputError(f"run {name!r}: has to be a file path, a DataFrame, a metrics.io.trec.RunTable or a dict "
                     f"{{qid: {{doc: score}}}}, got {type(source).__name__}")


__all__ = ["MAX_RUNS", "RunSource", "RunValues", "check_run_paths", "default_workers", "evaluate_each",
           "evaluate_runs", "per_query_values", "result_rows"]
