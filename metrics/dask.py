"""Evaluation on a Dask cluster: the frame path of :mod:`metrics.io.frames` applied to whole queries, partition by
partition, with the means combined exactly.

::

    from distributed import Client
    client = Client("scheduler-address:8786")  # or Client() for a local cluster
    per_query, means = metrics.dask.evaluate(qrels, run, ["map", "nDCG@10"])

How it works: each input partition is checked and its columns normalised (ids as text, scores as float64, grades
as int64 and within the measures' limit; a bad row is named by its partition and row) and each row tagged with that
position; qrels and run rows are then shuffled together by query id, so every partition holds whole queries with
their judgments, put back in input order; ``map_partitions`` runs the bulk path's kernels
on each partition (so trec_eval -c counts a judged query absent from the run where its judgments are); the
per-query values come back to the client (one row per query) and are summed in sorted-qid order, trec_eval's
order, so the means equal the single-machine path's to the last bit.

Nothing in a task reads a local file: the tasks get the partitions Dask gives them, so the same call runs on a
LocalCluster, Kubernetes or Slurm (dask-jobqueue), provided the workers have this package installed
(``pip install ".[dask]"``). The readers below take any path or URL Dask's own readers take.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa

from .bulk import evaluate_tables
from .conventions import Conventions
from .engine import (
    aggregate_columns,
    as_measures,
    check_grade_range,
    grade_limit,
    make_conventions,
    nothing_to_evaluate,
)
from .frames import FrameEvaluation
from .io.frames import (
    DOCNO_COLUMNS,
    LABEL_COLUMNS,
    QID_COLUMNS,
    SCORE_COLUMNS,
    _all_columns,
    _arrow,
    _column,
    _grades,
    _ids,
    _scores,
    _unique_pairs,
    _Where,
    per_query_frame,
)
from .io.trec import QrelsTable, RunTable, TrecFormatError, _no_data_lines, read_qrels, read_run, to_numpy, value_codes
from .model import InputError, short_repr
from .names import Measure
from .optional import require

# The module is about Dask: importing it without the [dask] extra is the one line naming the extra.
dask = require("dask", needed_by="metrics.dask")
dd = require("dask.dataframe", needed_by="metrics.dask")
read_bytes = require("dask.bytes", needed_by="metrics.dask").read_bytes
parse_bytes = require("dask.utils", needed_by="metrics.dask").parse_bytes
pd = require("pandas", needed_by="metrics.dask")

#: The columns every partition holds after normalising: qrels rows have is_qrels True and score 0, run rows label 0;
#: part and row are the row's input partition and its row there, so a query's rows regain their input order.
_NORMAL = ("qid", "docno", "score", "label", "is_qrels", "part", "row")


def read_trec_run(paths, *, blocksize: str | int | None = "64MiB") -> dd.DataFrame:
    """A TREC run (``qid Q0 docno rank score tag``) as a Dask DataFrame ``qid, docno, score``, one partition per
    block of about ``blocksize`` bytes (cut at line ends; gzip files are one block each). ``paths``: a path, a glob,
    a list, or any URL Dask reads (s3://, gs://, hdfs://). Each block is read in its task by
    :func:`metrics.io.trec.read_run`, with trec_eval's rules and one error naming the file, the block and the line
    (counted from the block's start)."""
    return _read_blocks(paths, blocksize, "run")


def read_trec_qrels(paths, *, blocksize: str | int | None = "64MiB") -> dd.DataFrame:
    """TREC qrels (``qid iter docno label``) as a Dask DataFrame ``qid, docno, label``; see :func:`read_trec_run`."""
    return _read_blocks(paths, blocksize, "qrels")


#: The smallest block read_trec_* cut a file into: each block is a task, and a block of a few bytes holds no line.
MIN_BLOCKSIZE = 128
#: The most blocks one read_trec_* call makes (each is a task the scheduler tracks).
MAX_BLOCKS = 100_000


def _read_blocks(paths, blocksize, kind: str) -> dd.DataFrame:
    if blocksize is not None:
        try:
            size = parse_bytes(blocksize) if isinstance(blocksize, str) else blocksize
        except (ValueError, TypeError):
            size = None
        if isinstance(size, bool) or not isinstance(size, int) or size < MIN_BLOCKSIZE:
            raise InputError(f"Argument `blocksize` has to be at least {MIN_BLOCKSIZE} bytes (e.g. '64MiB') or None, "
                             f"got {short_repr(blocksize)}")
    names = [paths] if isinstance(paths, (str, bytes)) or not hasattr(paths, "__iter__") else list(paths)
    if any(str(name).endswith(".gz") for name in names):
        blocksize = None  # a gzip stream cannot be cut at a line end without decompressing it
    _, blocks, files = read_bytes([str(name) for name in names] if len(names) > 1 else str(names[0]),
                                  delimiter=b"\n", blocksize=blocksize, sample=False, include_path=True)
    count = sum(len(file_blocks) for file_blocks in blocks)
    if count > MAX_BLOCKS:
        raise InputError(f"Argument `blocksize` {short_repr(blocksize)} cuts the input into {count:,} blocks; the "
                         f"limit is {MAX_BLOCKS:,}: give a larger blocksize (e.g. '64MiB')")
    labels = [str(file).rsplit('/', 1)[-1] for file in files]
    whole = sum(len(file_blocks) for file_blocks in blocks) == 1  # one block: the file's own rules apply
    parts = [dask.delayed(_parse_block)(block, label if whole else f"{label} (block {number})", kind, whole)
             for label, file_blocks in zip(labels, blocks) for number, block in enumerate(file_blocks)]
    if not parts:
        raise TrecFormatError(_no_data_lines(", ".join(labels), kind, "is empty"))
    return dd.from_delayed(parts, meta=_block_frame(kind), verify_meta=False)


def _block_frame(kind: str, table=None) -> pd.DataFrame:
    strings = pd.ArrowDtype(pa.string())
    empty = pa.array([], pa.string())
    value = "score" if kind == "run" else "label"
    values = getattr(table, "score" if kind == "run" else "grade") if table is not None else \
        np.zeros(0, dtype=np.float64 if kind == "run" else np.int64)
    return pd.DataFrame({"qid": pd.array(table.qid if table is not None else empty, dtype=strings),
                         "docno": pd.array(table.docno if table is not None else empty, dtype=strings),
                         value: values})


def _parse_block(block: bytes, name: str, kind: str, whole: bool) -> pd.DataFrame:
    """One block's rows; a block of comments and blank lines is an empty piece of a longer file."""
    if not whole and not _has_data_line(block):
        return _block_frame(kind)
    return _block_frame(kind, (read_run if kind == "run" else read_qrels)(block, name=name))


def _has_data_line(block: bytes) -> bool:
    """Whether a line of the block is neither blank nor a comment (a data block answers at its first line)."""
    start = 0
    while start < len(block):
        end = block.find(b"\n", start)
        end = len(block) if end < 0 else end
        line = block[start:end].strip()
        if line and not line.startswith(b"#"):
            return True
        start = end + 1
    return False


def evaluate(
    qrels, run, measures: str | Iterable[str | Measure], *, npartitions: int | None = None,
    shuffle_method: str | None = None,
    relevance_level: int | None = None, judged_docs_only: bool | None = None,
    conventions: Conventions | None = None, **convention_changes: object,
) -> FrameEvaluation:
    """Per-query values and means of a run on the current Dask client (or Dask's default scheduler).

    ``qrels`` and ``run`` are Dask DataFrames (or pandas DataFrames / pyarrow Tables, for a small qrels) in the
    columns of :mod:`metrics.io.frames` (PyTerrier's ``qid, docno, score`` and ``qid, docno, label``, ir_measures'
    or ranx's names). Same arguments as :func:`metrics.evaluate`; ``npartitions`` is the number of partitions
    queries are shuffled into (default: the run's), ``shuffle_method`` Dask's (``"p2p"``, ``"tasks"``; default:
    Dask's choice, p2p on a distributed cluster; tasks was 1.7x faster on two local workers, bench/README.md).
    Returns ``(per_query, means)`` as :func:`metrics.frames.evaluate_frames` does: a pandas DataFrame with one row
    per query, sorted by qid, and the ``all`` values; both equal the single-machine path's to the last bit.
    """
    conv = make_conventions(conventions, relevance_level=relevance_level, judged_docs_only=judged_docs_only,
                            **convention_changes)
    parsed = as_measures(measures)
    run_frame, qrels_frame = _as_dask(run, "run"), _as_dask(qrels, "qrels")
    if npartitions is not None and (isinstance(npartitions, bool) or not isinstance(npartitions, int)
                                    or npartitions < 1):
        raise InputError(f"Argument `npartitions` has to be a positive integer or None, got {npartitions!r}")
    parts = npartitions or max(run_frame.npartitions, 1)
    normal = dd.concat([_normalised(run_frame, "run"), _normalised(qrels_frame, "qrels", grade_limit(parsed, conv))])
    by_query = normal.shuffle(on="qid", npartitions=parts, shuffle_method=shuffle_method)
    keys = [measure.key for measure in parsed]
    meta = pd.DataFrame({"qid": pd.Series([], dtype=object), **{key: pd.Series([], dtype=np.float64)
                                                                 for key in keys},
                         _POSITIVE: pd.Series([], dtype=np.int64)})
    try:
        per_query = by_query.map_partitions(_evaluate_partition, parsed, conv, meta=meta).compute()
    except ValueError as error:
        if isinstance(error, InputError) or "do not match the columns in the provided metadata" not in str(error):
            raise
        # Dask's own check: a partition of the user's frame lacks a column its meta lists (e.g. the scores).
        missing = str(error).partition("Missing:")[2].strip() or "some"
        raise InputError(f"a partition of the qrels or run frame lacks the column(s) {missing} its Dask meta "
                         "lists; every partition needs the frame's columns") from None
    qids = per_query["qid"].tolist()
    if not qids:
        raise InputError(nothing_to_evaluate("the run", "the qrels"))
    if len(set(qids)) != len(qids):  # every query whole in one partition: a repeat would mean a split query
        raise RuntimeError("a query was evaluated in two partitions; the shuffle did not keep queries whole")
    result = per_query_frame(qids, {key: per_query[key].to_numpy(dtype=np.float64) for key in keys})
    # Summed in sorted-qid order (trec_eval's), as the single-machine path sums them: the same bits.
    means = aggregate_columns({key: result[key].to_numpy(dtype=np.float64) for key in keys})
    if conv.missing_queries == "zero" and "num_rel" in means:
        # -c's num_rel all-line counts every qrels line with a grade > 0 (engine.complete_num_rel); each query is
        # whole in one partition, so each line is counted once
        means["num_rel"] = float(per_query[_POSITIVE].sum())
    return FrameEvaluation(result, means)


#: The column of each partition's result counting a query's qrels lines with a grade > 0 (for -c's num_rel).
_POSITIVE = "qrels lines with a grade > 0"


def _as_dask(frame, name: str) -> dd.DataFrame:
    if isinstance(frame, dd.DataFrame):
        return frame
    if isinstance(frame, (pa.Table, pa.RecordBatch)):
        frame = _arrow(frame, name).to_pandas()
    if isinstance(frame, pd.DataFrame):
        return dd.from_pandas(frame, npartitions=1, sort=False)
    raise InputError(f"Argument `{name}` has to be a Dask DataFrame (or a pandas DataFrame or pyarrow Table), got "
                     f"{type(frame).__name__}")


def _normalised(frame: dd.DataFrame, kind: str, limit=None) -> dd.DataFrame:
    """Each partition checked and reduced to the columns of _NORMAL; the column names are found once, here."""
    columns = [str(column) for column in frame.columns]
    probe = pa.table({column: pa.array([], pa.null()) for column in dict.fromkeys(columns)})
    qid = _column(probe, QID_COLUMNS, kind, "query ids")
    docno = _column(probe, DOCNO_COLUMNS, kind, "document ids")
    value = _column(probe, SCORE_COLUMNS if kind == "run" else LABEL_COLUMNS, kind,
                    "scores" if kind == "run" else "grades")
    return frame[[qid, docno, value]].map_partitions(_normalise_partition, kind, qid, docno, value, limit,
                                                       meta=_normal_frame(0), align_dataframes=False)


def _normal_frame(rows: int, qid=None, docno=None, score=None, label=None, is_qrels: bool = False,
                  part: int = 0) -> pd.DataFrame:
    strings = pd.ArrowDtype(pa.string())
    return pd.DataFrame({
        "qid": pd.array(qid if qid is not None else pa.array([], pa.string()), dtype=strings),
        "docno": pd.array(docno if docno is not None else pa.array([], pa.string()), dtype=strings),
        "score": score if score is not None else np.zeros(rows),
        "label": label if label is not None else np.zeros(rows, dtype=np.int64),
        "is_qrels": np.full(rows, is_qrels),
        "part": np.full(rows, part, dtype=np.int64),
        "row": np.arange(rows, dtype=np.int64),
    })


def _normalise_partition(part: pd.DataFrame, kind: str, qid: str, docno: str, value: str, limit=None,
                         partition_info=None) -> pd.DataFrame:
    number = partition_info["number"] if partition_info else 0
    name = f"{kind} (partition {number})"
    table = _arrow(part, name)
    missing = [column for column in (qid, docno, value) if column not in table.column_names]
    if missing:  # the frame's columns (its meta) promised them; a partition computed otherwise may not have them
        raise InputError(f"{name}: no column {missing[0]!r}, which the Dask frame's columns list (the partition has "
                         f"{', '.join(map(repr, _all_columns(table))) or 'no column'}); every partition needs the "
                         "frame's columns")
    qids, docnos = _ids(table, qid, name, "query id"), _ids(table, docno, name, "document id")
    where = _Where(name, qids, docnos, True)
    rows = len(qids)
    if kind == "run":
        return _normal_frame(rows, qids, docnos, score=_scores(table.column(value), value, where), part=number)
    grades = _grades(table.column(value), value, where)
    # Checked here, where the row is the user's row (see evaluate_tables_checked).
    check_grade_range(grades, limit, lambda row: f"{name} row {row}")
    return _normal_frame(rows, qids, docnos, label=grades, is_qrels=True, part=number)


def _evaluate_partition(part: pd.DataFrame, measures: list[Measure], conv: Conventions) -> pd.DataFrame:
    """The per-query values of the whole queries of one partition (unsorted; the client sorts)."""
    # The shuffle gathers a query's rows in no set order: the input order is restored (tie_order="as_given").
    part = part.iloc[np.lexsort((part["row"].to_numpy(), part["part"].to_numpy()))]
    is_qrels = part["is_qrels"].to_numpy(dtype=bool)
    tables = {}
    for kind, rows in (("qrels", is_qrels), ("run", ~is_qrels)):
        chosen = part[rows]
        columns = {"qid": _arrow_column(chosen["qid"]), "docno": _arrow_column(chosen["docno"])}
        if kind == "run":
            columns["score"] = chosen["score"].to_numpy(dtype=np.float64)
        else:
            columns["label"] = chosen["label"].to_numpy(dtype=np.int64)
        tables[kind] = pa.table(columns)
    # Ids, scores and grades (and the grade limit) were checked before the shuffle; a (qid, docno) pair repeated
    # across input partitions meets its twin only here.
    qrels = _checked_table(tables["qrels"], "qrels")
    run = _checked_table(tables["run"], "run")
    qids, values, _ = evaluate_tables(qrels, run, measures, conv)
    positive = part[is_qrels & (part["label"].to_numpy() > 0)].groupby("qid").size()
    return pd.DataFrame({"qid": pd.Series(qids, dtype=object),
                         **{measure.key: np.asarray(values[measure.key], dtype=np.float64) for measure in measures},
                         _POSITIVE: np.array([int(positive.get(qid, 0)) for qid in qids], dtype=np.int64)})


def _checked_table(table: pa.Table, kind: str) -> QrelsTable | RunTable:
    qid, docno = table.column("qid").combine_chunks(), table.column("docno").combine_chunks()
    codes = value_codes(qid)
    keys, exact = _unique_pairs(codes[0], docno, _Where(kind, qid, docno, False),
                                "document" if kind == "run" else "judgment")
    if kind == "run":
        return RunTable(qid, docno, to_numpy(table.column("score")), "run", kind, keys, exact, *codes)
    return QrelsTable(qid, docno, to_numpy(table.column("label")), kind, keys, exact, *codes)


def _arrow_column(series: pd.Series) -> pa.Array:
    array = pa.array(series.array) if not isinstance(series.dtype, pd.ArrowDtype) else series.array._pa_array
    array = array.combine_chunks() if isinstance(array, pa.ChunkedArray) else array
    # The shuffle may hand back large_string, or null for an empty partition; the bulk path compares string arrays.
    return array if array.type == pa.string() else array.cast(pa.string())


__all__ = ["evaluate", "read_trec_qrels", "read_trec_run"]
