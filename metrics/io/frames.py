"""DataFrames and Arrow tables in: pandas DataFrames and pyarrow Tables as qrels and runs, column by column.

The shapes the ecosystem uses are recognised by their column names:

* runs: ``qid, docno, score`` (PyTerrier; a ``rank`` column is ignored, as trec_eval ignores ranks, and so is the
  ``docid`` of PyTerrier's results, Terrier's internal number, when ``docno`` is there),
  ``query_id, doc_id, score`` (ir_measures), ``q_id, doc_id, score`` (ranx's ``Run.from_df`` defaults);
* qrels: ``qid, docno, label`` (PyTerrier), ``query_id, doc_id, relevance`` (ir_measures), ``q_id, doc_id, score``
  (ranx's ``Qrels.from_df`` defaults).

Other columns are ignored. The columns go straight into :class:`~metrics.io.trec.QrelsTable` and
:class:`~metrics.io.trec.RunTable` (arrow string arrays and numpy arrays) and through the bulk path: no Python
object is made per row. The checks are the readers': ids follow :mod:`metrics.ids` (text or integers, no nulls,
non-empty, no control characters; integer ids are read as their decimal text), scores are finite numbers, grades
are whole numbers (``1.0`` is 1, ``1.5`` is refused), and a (qid, docno) pair appears once. Each refusal is one
:class:`~metrics.InputError` naming the input, the column, the row (counted from 0, as ``frame.iloc``) and the fix.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..engine import check_qrels, check_run
from ..ids import check_id
from ..model import MAX_GRADE, MIN_GRADE, InputError, short_repr
from ..model import _is_finite_number as _finite
from ..optional import require
from .trec import QrelsTable, RunTable, _check_unique_pairs, to_numpy, value_codes

#: Accepted names of each column, in the order they are looked for.
QID_COLUMNS = ("qid", "query_id", "q_id")
DOCNO_COLUMNS = ("docno", "doc_id", "docid")
SCORE_COLUMNS = ("score",)
LABEL_COLUMNS = ("label", "relevance", "rel", "score")  # ranx's Qrels.from_df calls the grade "score"


def is_frame(value: object) -> bool:
    """Whether ``value`` is a pandas DataFrame or a pyarrow Table or RecordBatch (pandas is never imported)."""
    if isinstance(value, (pa.Table, pa.RecordBatch)):
        return True
    kind = type(value)
    return kind.__name__ == "DataFrame" and kind.__module__.split(".")[0] == "pandas"


def run_table(frame: object, name: str = "run", *, rows_named: bool = True) -> RunTable:
    """A :class:`RunTable` from a run frame (``qid, docno, score`` or ir_measures' or ranx's names).

    ``rows_named=False`` names the query and document in messages instead of the row (rows of a shuffled
    partition mean nothing to the user).
    """
    table = _arrow(frame, name, "scores")
    qid_name, docno_name = _column(table, QID_COLUMNS, name, "query ids"), _column(table, DOCNO_COLUMNS, name,
                                                                                    "document ids")
    score_name = _column(table, SCORE_COLUMNS, name, "scores")
    qid = _ids(table, qid_name, name, "query id")
    docno = _ids(table, docno_name, name, "document id")
    where = _Where(name, qid, docno, rows_named)
    score = _scores(table.column(score_name), score_name, where)
    codes = value_codes(qid)
    keys, exact = _unique_pairs(codes[0], docno, where, "document")
    runid = name
    for tag in ("tag", "run", "name"):
        if tag in table.column_names and table.num_rows and (pa.types.is_string(table.column(tag).type)
                                                              or pa.types.is_large_string(table.column(tag).type)):
            runid = table.column(tag)[-1].as_py() or name
            break
    return RunTable(qid, docno, score, runid, name, keys, exact, *codes)


def qrels_table(frame: object, name: str = "qrels", *, rows_named: bool = True) -> QrelsTable:
    """A :class:`QrelsTable` from a qrels frame (``qid, docno, label`` or ir_measures' or ranx's names)."""
    table = _arrow(frame, name, "grades")
    qid_name, docno_name = _column(table, QID_COLUMNS, name, "query ids"), _column(table, DOCNO_COLUMNS, name,
                                                                                    "document ids")
    label_name = _column(table, LABEL_COLUMNS, name, "grades")
    qid = _ids(table, qid_name, name, "query id")
    docno = _ids(table, docno_name, name, "document id")
    where = _Where(name, qid, docno, rows_named)
    grade = _grades(table.column(label_name), label_name, where)
    codes = value_codes(qid)
    keys, exact = _unique_pairs(codes[0], docno, where, "judgment")
    return QrelsTable(qid, docno, grade, name, keys, exact, *codes)


def qrels_from_mapping(qrels: Mapping, name: str = "qrels") -> QrelsTable:
    """A :class:`QrelsTable` from pytrec_eval's ``{qid: {docno: grade}}`` (checked as :func:`metrics.evaluate`
    checks it), to evaluate it against a frame."""
    check_qrels(qrels, name)
    qids = [qid for qid, docs in qrels.items() for _ in docs]
    docnos = [doc for docs in qrels.values() for doc in docs]
    grades = np.array([int(grade) for docs in qrels.values() for grade in docs.values()], dtype=np.int64)
    return qrels_table(pa.table({"qid": pa.array(qids, pa.string()), "docno": pa.array(docnos, pa.string()),
                                 "label": grades}), name)


def run_from_mapping(run: Mapping, name: str = "run") -> RunTable:
    """A :class:`RunTable` from pytrec_eval's ``{qid: {docno: score}}``, to evaluate it against a frame."""
    check_run(run, name)
    qids = [qid for qid, docs in run.items() for _ in docs]
    docnos = [doc for docs in run.values() for doc in docs]
    try:
        scores = np.array([float(score) for docs in run.values() for score in docs.values()], dtype=np.float64)
    except (TypeError, ValueError):
        scores = np.array([np.nan])  # the check below names the query and document
    if scores.shape[0] != len(qids) or not np.isfinite(scores).all():
        for qid, docs in run.items():
            for doc, score in docs.items():
                if not _is_finite_number(score):
                    raise InputError(f"{name}, query {qid!r}: the score of {doc!r} has to be a finite number, got "
                                     f"{short_repr(score)}")
    return run_table(pa.table({"qid": pa.array(qids, pa.string()), "docno": pa.array(docnos, pa.string()),
                               "score": scores}), name)


def per_query_frame(qids: list[str], values: Mapping[str, np.ndarray]):
    """A pandas DataFrame ``qid, <measure>...`` with the queries in trec_eval's order (sorted ids)."""
    pd = require("pandas", needed_by="metrics.io.frames (per-query DataFrames)")
    order = np.asarray(sorted(range(len(qids)), key=qids.__getitem__), dtype=np.int64)
    columns = {"qid": pd.Series([qids[i] for i in order], dtype=str)}
    columns.update({key: np.asarray(column, dtype=np.float64)[order] for key, column in values.items()})
    return pd.DataFrame(columns)


def as_qrels_table(qrels: object, name: str = "qrels") -> QrelsTable:
    """A frame, a pytrec_eval dict or a QrelsTable as a :class:`QrelsTable`."""
    if isinstance(qrels, QrelsTable):
        return qrels
    if isinstance(qrels, Mapping):
        return qrels_from_mapping(qrels, name)
    if is_frame(qrels):
        return qrels_table(qrels, name)
    raise InputError(f"Argument `{name}` has to be a pandas DataFrame, a pyarrow Table or a dict {{qid: {{doc: "
                     f"grade}}}}, got {type(qrels).__name__}")


def as_run_table(run: object, name: str = "run") -> RunTable:
    """A frame, a pytrec_eval dict or a RunTable as a :class:`RunTable`."""
    if isinstance(run, RunTable):
        return run
    if isinstance(run, Mapping):
        return run_from_mapping(run, name)
    if is_frame(run):
        return run_table(run, name)
    raise InputError(f"Argument `{name}` has to be a pandas DataFrame, a pyarrow Table or a dict {{qid: {{doc: "
                     f"score}}}}, got {type(run).__name__}")


# ---- Parquet files ---------------------------------------------------------------------------------

#: A Parquet file's columns may take this many times its size in memory once decoded (past PARQUET_ALWAYS): run
#: files take 2 to 10 times; a file that takes more is refused before it is decoded whole, as a gzip bomb is.
PARQUET_MAX_RATIO = 100
PARQUET_ALWAYS = 64 << 20
#: Row groups are read together, up to this many rows or _PARQUET_GROUPS groups at a time: a file of 100,000
#: one-row groups is 98 reads, not 100,000 (33 s and 995 MB, read one by one and concatenated).
_PARQUET_BATCH = 1 << 20
_PARQUET_GROUPS = 1024


def is_parquet(path: str | os.PathLike) -> bool:
    """Whether the file at ``path`` is Parquet: ``PAR1`` at both ends and a footer Parquet can read. A TREC file
    whose first qid and last tag are ``PAR1`` has the magic at both ends too, but no footer, and stays TREC. Only a
    file on disk can be: a pipe or a device is never opened here, so that its reader gets every byte."""
    try:
        if not Path(path).is_file():  # a pipe (<(zcat run.gz)) read here would lose its first bytes to the reader
            return False
        with open(path, "rb") as file:
            if file.read(4) != b"PAR1":
                return False
            file.seek(-4, os.SEEK_END)
            if file.read(4) != b"PAR1":
                return False
    except (OSError, ValueError):
        return False
    try:
        pq.read_metadata(path)
    except (pa.ArrowException, OSError, ValueError):
        return False
    return True


def read_parquet_qrels(path: str | os.PathLike) -> QrelsTable:
    """A qrels Parquet file (the columns of :func:`qrels_table`) as a :class:`QrelsTable`."""
    name = Path(path).name
    return qrels_table(_read_parquet(path, name, (QID_COLUMNS, DOCNO_COLUMNS, LABEL_COLUMNS)), name)


def read_parquet_run(path: str | os.PathLike) -> RunTable:
    """A run Parquet file (the columns of :func:`run_table`) as a :class:`RunTable`."""
    name = Path(path).name
    return run_table(_read_parquet(path, name, (QID_COLUMNS, DOCNO_COLUMNS, SCORE_COLUMNS, ("tag", "run", "name"))),
                     name)


def read_parquet_run_rows(path: str | os.PathLike) -> tuple[pa.Array, pa.Array, np.ndarray, list[int | None]]:
    """A run Parquet file's rows as written, for a reader that must see every row (``python -m metrics.check
    --lint``): (qid, docno, score, rank). Read with the same cap, and the ids checked, as :func:`read_parquet_run`
    does, but a repeated (qid, docno) is kept and a score may be NaN or infinite (a null is NaN); the ``rank``
    column's whole numbers, or None for each row when the file has none."""
    name = Path(path).name
    table = _read_parquet(path, name, (QID_COLUMNS, DOCNO_COLUMNS, SCORE_COLUMNS, ("rank",)))
    qid = _ids(table, _column(table, QID_COLUMNS, name, "query ids"), name, "query id")
    docno = _ids(table, _column(table, DOCNO_COLUMNS, name, "document ids"), name, "document id")
    score_name = _column(table, SCORE_COLUMNS, name, "scores")
    values = _single(table.column(score_name))
    if not (pa.types.is_integer(values.type) or pa.types.is_floating(values.type)
            or pa.types.is_decimal(values.type)):
        raise InputError(f"{name}, column {score_name!r}: scores have to be numbers, got {values.type}; convert the "
                         "column to floats")
    score = to_numpy(pc.fill_null(pc.cast(values, pa.float64(), safe=False), math.nan)).astype(np.float64)
    ranks: list[int | None] = [None] * len(table)
    if "rank" in table.column_names:
        rank = _single(table.column("rank"))
        if pa.types.is_integer(rank.type):
            ranks = rank.to_pylist()
    return qid, docno, score, ranks


def _read_parquet(path: str | os.PathLike, name: str, wanted: tuple[tuple[str, ...], ...]) -> pa.Table:
    """The wanted columns, refused once their decoded size passes ``PARQUET_MAX_RATIO`` x the file (at least
    ``PARQUET_ALWAYS``).

    The decoded size counts every column with its dictionary expanded, and is known before it is decoded: the
    footer's sizes are checked first (each column chunk's uncompressed bytes, and at least its rows x the width of
    one value); then the row groups are read a batch at a time (:func:`_row_group_batches`) with their text
    columns kept as dictionaries, each batch's expanded size added to a running total from the dictionary's value
    lengths, and only within the cap decoded."""
    size = os.path.getsize(path)
    limit = decoded_cap(size)
    refusal = _too_large_decoded(name, size, "file")
    try:
        file = pq.ParquetFile(path)
        present = file.schema_arrow.names
        columns = list(dict.fromkeys(column for names in wanted for column in names if column in present))
        metadata = file.metadata
        if _stored_size(metadata, columns) > limit:
            raise refusal
        texts = [column for column in columns if _is_text(file.schema_arrow.field(column).type)]
        if texts:  # text columns come out as dictionaries: the size of their expansion is known before it happens
            file = pq.ParquetFile(path, read_dictionary=texts, metadata=metadata)  # the footer parsed once
        tables, decoded = [], 0
        for groups in _row_group_batches(metadata):
            # One chunk per column (dictionaries unified): the expansion is measured in one pass, not per group.
            table = file.read_row_groups(groups, columns=columns, use_threads=False).combine_chunks()
            decoded += _expanded_size(table)
            if decoded > limit:
                raise refusal
            tables.append(_decoded(table))
        if tables:
            return _with_columns(pa.concat_tables(tables), present)
        return _with_columns(file.schema_arrow.empty_table().select(columns), present)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError) as error:
        raise InputError(f"{name}: cannot be read as Parquet ({_first_line(error)}); give a Parquet file with the "
                         "columns qid, docno and score (run) or label (qrels), or a TREC file") from None


def _row_group_batches(metadata) -> list[list[int]]:
    """The file's row groups in consecutive batches of at most ``_PARQUET_BATCH`` rows (a larger group alone) and
    ``_PARQUET_GROUPS`` groups."""
    batches: list[list[int]] = []
    batch: list[int] = []
    rows = 0
    for group in range(metadata.num_row_groups):
        count = metadata.row_group(group).num_rows
        if batch and (rows + count > _PARQUET_BATCH or len(batch) == _PARQUET_GROUPS):
            batches.append(batch)
            batch, rows = [], 0
        batch.append(group)
        rows += count
    return batches + [batch] if batch else batches


def decoded_cap(size: int) -> int:
    """The bytes columns stored in ``size`` bytes (a Parquet file, an arrow table's own buffers) may take once
    their dictionaries are expanded: ``PARQUET_MAX_RATIO`` times, at least ``PARQUET_ALWAYS``."""
    return max(PARQUET_ALWAYS, PARQUET_MAX_RATIO * size)


def _too_large_decoded(name: str, size: int, what: str) -> InputError:
    """The refusal of columns past :func:`decoded_cap` once decoded; ``what``: "file" or "table"."""
    advice = ("write it with fewer repeated values, or as TREC text" if what == "file" else
              "give it with fewer repeated values, or evaluate it as TREC text")
    return InputError(f"{name}: its columns take more than {PARQUET_MAX_RATIO} times the {what}'s size "
                      f"({_file_size(size)}) once decoded, past the cap of {decoded_cap(size) / 2**20:,.0f} MiB "
                      f"({PARQUET_MAX_RATIO} x the {what}, at least {PARQUET_ALWAYS >> 20} MiB); a run or qrels "
                      f"{what} does not, so the {what} is refused ({advice})")


def _file_size(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 // 10 else f"{size:,} bytes"


#: Bytes per value of each Parquet physical type once decoded (text: its 4-byte offset, the bytes counted apart).
_VALUE_WIDTH = {"BOOLEAN": 1, "INT32": 4, "FLOAT": 4, "BYTE_ARRAY": 4, "INT64": 8, "DOUBLE": 8, "INT96": 12}


def _stored_size(metadata, columns: Sequence[str]) -> int:
    """The footer's lower bound on the decoded size of ``columns``: each column chunk's uncompressed bytes, and at
    least its values x the width of one (a file of a billion run-length-encoded rows is a few bytes)."""
    wanted, total = set(columns), 0
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            chunk = row_group.column(index)
            if chunk.path_in_schema.split(".")[0] in wanted:
                width = _VALUE_WIDTH.get(chunk.physical_type, 8)
                total += max(chunk.total_uncompressed_size, chunk.num_values * width)
    return total


def _is_text(kind: pa.DataType) -> bool:
    return (pa.types.is_string(kind) or pa.types.is_large_string(kind) or pa.types.is_binary(kind)
            or pa.types.is_large_binary(kind))


def _expanded_size(table: pa.Table) -> int:
    """The bytes ``table`` takes with every dictionary expanded, counted without expanding: a dictionary's value
    lengths taken at its indices, plus one offset per row."""
    total = 0
    for column in table.columns:
        for chunk in column.chunks:
            if not pa.types.is_dictionary(chunk.type):
                total += chunk.nbytes
            elif _is_text(chunk.dictionary.type):
                lengths = pc.binary_length(chunk.dictionary)
                total += (pc.sum(pc.take(lengths, chunk.indices)).as_py() or 0) + 4 * len(chunk)
            else:
                total += chunk.dictionary.type.bit_width // 8 * len(chunk)
    return total


def _decoded(table: pa.Table) -> pa.Table:
    """``table`` with its dictionary columns expanded (once :func:`_expanded_size` said that fits)."""
    for index, column in enumerate(table.columns):
        if pa.types.is_dictionary(column.type):
            table = table.set_column(index, table.field(index).name, pc.cast(column, column.type.value_type))
    return table


# ---- columns ---------------------------------------------------------------------------------------


class _Where:
    """How messages name a row: by its number, or by its query and document."""

    def __init__(self, name: str, qid: pa.Array, docno: pa.Array, rows_named: bool):
        self.name, self.qid, self.docno, self.rows_named = name, qid, docno, rows_named

    def __call__(self, row: int, column: str) -> str:
        if self.rows_named:
            return f"{self.name} row {row}, column {column!r}"
        return (f"{self.name}, query {self.qid[row].as_py()!r}, document {self.docno[row].as_py()!r}, "
                f"column {column!r}")


def _arrow(frame: object, name: str, values: str = "") -> pa.Table:
    if isinstance(frame, pa.Table):
        return frame
    if isinstance(frame, pa.RecordBatch):
        return pa.Table.from_batches([frame])
    if not is_frame(frame):
        raise InputError(f"Argument `{name}` has to be a pandas DataFrame or a pyarrow Table, got "
                         f"{type(frame).__name__}")
    columns = [str(column) for column in frame.columns]  # type: ignore[attr-defined]
    if len(set(columns)) != len(columns):
        repeated = next(column for column in columns if columns.count(column) > 1)
        raise InputError(f"{name}: column {repeated!r} appears twice; give each column one name")
    wanted = set(QID_COLUMNS + DOCNO_COLUMNS + SCORE_COLUMNS + LABEL_COLUMNS + ("tag", "run", "name"))
    arrays, names = [], []
    for label in frame.columns:  # type: ignore[attr-defined]
        if str(label) not in wanted:
            continue
        series = frame[label]  # type: ignore[index]
        if getattr(getattr(series, "dtype", None), "kind", "") == "c":
            raise InputError(f"{name}, column {str(label)!r}: has complex numbers ({series.dtype}); give scores and "
                             "grades as real numbers")
        try:
            arrays.append(pa.Array.from_pandas(series.array if hasattr(series, "array") else series))
        except OverflowError:  # a Python int beyond 64 bits in an object column
            raise InputError(_beyond_64_bits(series, name, str(label), values)) from None
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError, TypeError, ValueError) as error:
            raise InputError(f"{name}, column {str(label)!r}: cannot be read as one type ({_first_line(error)}); "
                             "give ids as text and scores or grades as numbers") from None
        names.append(str(label))
    table = pa.Table.from_arrays(arrays, names=names) if arrays else pa.table({})
    return _with_columns(table, columns)


#: Schema metadata holding every column of the file or frame (only the wanted ones are read), for messages.
_ALL_COLUMNS = b"metrics.columns"


def _with_columns(table: pa.Table, columns: Sequence[str]) -> pa.Table:
    return table.replace_schema_metadata({**(table.schema.metadata or {}), _ALL_COLUMNS: json.dumps(list(columns))})


def _all_columns(table: pa.Table) -> list[str]:
    """Every column the user gave: the file's or frame's, not only those read."""
    stored = (table.schema.metadata or {}).get(_ALL_COLUMNS)
    return json.loads(stored) if stored is not None else table.column_names


def _beyond_64_bits(series, name: str, column: str, values: str) -> str:
    """The message for the first whole number of ``series`` no 64-bit integer holds, named as :class:`_Where` does."""
    row, value = next((row, value) for row, value in enumerate(series)
                      if isinstance(value, (int, np.integer)) and not MIN_GRADE <= value <= 2**64 - 1)
    where = f"{name} row {row}, column {column!r}"
    if column in LABEL_COLUMNS[:-1] or (values == "grades" and column in LABEL_COLUMNS):
        return (f"{where}: grade {value} is out of range; grades are whole numbers from -2^63 to 2^63-1, as trec_eval "
                "reads them")
    if column in SCORE_COLUMNS:
        return f"{where}: score {value} does not fit in 64 bits; give scores as floats"
    return f"{where}: {value} does not fit in 64 bits; give ids as text"


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _column(table: pa.Table, candidates: tuple[str, ...], name: str, what: str) -> str:
    present = [column for column in candidates if column in table.column_names]
    if what == "grades":  # a qrels frame may hold a 'score' beside its 'label' (ranx's name): the first name wins
        found = present[:1]
    elif what == "document ids" and "docno" in present:  # PyTerrier's results: docid is Terrier's internal id
        found = ["docno"]
    else:
        found = present
    if not found:
        every = _all_columns(table)
        grades = [column for column in LABEL_COLUMNS[:-1] if column in every]
        swapped = f"; it has {grades[0]!r}: are qrels and run swapped? (the order is qrels, run)" \
            if what == "scores" and grades else ""
        raise InputError(f"{name}: no column of {what}; name it {' or '.join(repr(c) for c in candidates)} "
                         f"(columns: {', '.join(every) or 'none'}){swapped}")
    if len(found) > 1:
        raise InputError(f"{name}: both {found[0]!r} and {found[1]!r} hold {what}; keep or rename one of them")
    return found[0]


def _single(values: pa.ChunkedArray | pa.Array) -> pa.Array:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _ids(table: pa.Table, column: str, name: str, what: str) -> pa.Array:
    """The column as one arrow string array, every value a legal id (see :mod:`metrics.ids`)."""
    values = _single(table.column(column))
    if pa.types.is_dictionary(values.type):  # pandas categoricals, arrow dictionaries
        # A table handed in holds dictionaries the Parquet reader's cap never saw (a frame of dd.read_parquet, a
        # table of pq.read_table): their expansion is measured first and held to the same cap, against the
        # table's own bytes as a file's are against the file's.
        stored = table.nbytes
        if _expanded_size(table.select([column])) > decoded_cap(stored):
            raise _too_large_decoded(name, stored, "table")
        values = values.dictionary_decode()
    if pa.types.is_integer(values.type):
        values = pc.cast(values, pa.string())  # 7 is the qid "7", as a TREC file would write it
    elif pa.types.is_large_string(values.type) or pa.types.is_string_view(values.type):
        try:
            values = pc.cast(values, pa.string())
        except pa.ArrowInvalid:
            raise InputError(f"{name}, column {column!r}: more than 2 GiB of ids; split the input") from None
    elif not pa.types.is_string(values.type) and not pa.types.is_null(values.type):
        raise InputError(f"{name}, column {column!r}: {what}s have to be text or integers, got {values.type}; "
                         "convert the column to strings")
    if not pa.types.is_string(values.type):  # a column of nulls only
        values = pa.nulls(len(values), pa.string())
    if values.null_count:
        row = _first_true(pc.is_null(values))
        raise InputError(f"{name} row {row}, column {column!r}: the {what} is missing (null or NaN); every row "
                         f"needs one")
    row = _first_bad_id(values)
    if row is not None:
        check_id(values[row].as_py(), what, where=f"{name} row {row}, column {column!r}")
    return values


def _first_bad_id(values: pa.Array) -> int | None:
    """The first row holding an empty id or a control character (a byte below 0x20), or None: one numpy pass over
    the string bytes (UTF-8 never uses those bytes inside another character)."""
    n = len(values)
    if n == 0:
        return None
    offsets = np.frombuffer(values.buffers()[1], dtype=np.int32)[values.offset:values.offset + n + 1]
    data = values.buffers()[2]
    text = np.frombuffer(data, dtype=np.uint8)[offsets[0]:offsets[-1]] if data is not None else np.zeros(0, np.uint8)
    empty = np.flatnonzero(offsets[1:] == offsets[:-1])
    control = np.flatnonzero(text < 0x20)
    rows = []
    if empty.size:
        rows.append(int(empty[0]))
    if control.size:
        rows.append(int(np.searchsorted(offsets, control[0] + offsets[0], side="right")) - 1)
    return min(rows) if rows else None


def _first_true(mask: pa.Array) -> int:
    return int(pc.index(mask, True).as_py())


def _scores(column: pa.ChunkedArray, column_name: str, where: _Where) -> np.ndarray:
    values = _single(column)
    if not (pa.types.is_integer(values.type) or pa.types.is_floating(values.type)
            or pa.types.is_decimal(values.type)):
        raise InputError(f"{where.name}, column {column_name!r}: scores have to be numbers, got {values.type}; "
                         "convert the column to floats")
    # Integers beyond 2^53 become the nearest double, as trec_eval's atof reads the same digits (uint64's maximum
    # is 1.8e19): an unsafe cast, since the safe one refuses to round.
    values = pc.cast(values, pa.float64(), safe=False)
    bad = pc.invert(pc.fill_null(pc.is_finite(values), False))
    if pc.any(bad).as_py():
        row = _first_true(bad)
        shown = values[row].as_py()
        raise InputError(f"{where(row, column_name)}: the score is {'missing (null)' if shown is None else shown}; "
                         "scores have to be finite numbers (drop the row or give it a score)")
    return to_numpy(values).astype(np.float64, copy=False)


def _grades(column: pa.ChunkedArray, column_name: str, where: _Where) -> np.ndarray:
    values = _single(column)
    if pa.types.is_integer(values.type) and values.null_count == 0:
        if pa.types.is_uint64(values.type) and len(values) and pc.max(values).as_py() > MAX_GRADE:
            row = _first_true(pc.greater(values, pa.scalar(MAX_GRADE, pa.uint64())))
            raise InputError(f"{where(row, column_name)}: grade {values[row].as_py()} is out of range; grades are "
                             "whole numbers from -2^63 to 2^63-1, as trec_eval reads them")
        return to_numpy(pc.cast(values, pa.int64())).astype(np.int64, copy=False)
    if not (pa.types.is_integer(values.type) or pa.types.is_floating(values.type)):
        raise InputError(f"{where.name}, column {column_name!r}: grades have to be whole numbers, got {values.type}; "
                         "convert the column to integers")
    as_float = pc.cast(values, pa.float64())
    whole = pc.fill_null(pc.and_(pc.is_finite(as_float), pc.equal(pc.floor(as_float), as_float)), False)
    in_range = pc.and_(pc.greater_equal(as_float, float(MIN_GRADE)), pc.less(as_float, float(MAX_GRADE)))
    bad = pc.invert(pc.and_(whole, pc.fill_null(in_range, False)))
    if pc.any(bad).as_py():
        row = _first_true(bad)
        shown = values[row].as_py()
        if shown is None or shown != shown:
            problem = "missing (null or NaN)"
        elif not np.isfinite(shown) or float(shown).is_integer():
            problem = f"{shown}, out of range"
        else:
            problem = repr(shown)
        raise InputError(f"{where(row, column_name)}: the grade is {problem}; grades have to be whole numbers "
                         "(e.g. 0, 1, 2; negative: in the pool but unjudged)")
    return to_numpy(pc.cast(as_float, pa.int64())).astype(np.int64, copy=False)


def _unique_pairs(codes: np.ndarray, docno: pa.Array, where: _Where, what: str) -> tuple[np.ndarray, bool]:
    """The docno keys (see :func:`metrics.io.trec.docno_keys`); raises naming the first repeated (qid, docno)."""
    keys, exact, maybe_repeated = _check_unique_pairs(codes, docno)
    if maybe_repeated:
        _raise_duplicate(codes, keys, docno, where, what)
    return keys, exact


def _raise_duplicate(codes: np.ndarray, keys: np.ndarray, docno: pa.Array, where: _Where, what: str) -> None:
    """Raise naming both rows of the first repeated pair; return if hash collisions were all there was."""
    with np.errstate(over="ignore"):
        pair = codes.astype(np.uint64) * np.uint64(0x165667B19E3779F9) + keys
    order = np.argsort(pair, kind="stable")
    same = pair[order][1:] == pair[order][:-1]
    candidates = np.zeros(pair.shape[0], dtype=bool)
    candidates[order[1:][same]] = True
    candidates[order[:-1][same]] = True
    rows = np.flatnonzero(candidates)  # few: the repeated pairs and key collisions, in row order
    seen: dict[tuple[int, str], int] = {}
    docs = docno.take(pa.array(rows)).to_pylist()
    for row, code, doc in zip(rows.tolist(), codes[rows].tolist(), docs):
        if (code, doc) in seen:
            first = seen[(code, doc)]
            if where.rows_named:
                raise InputError(f"{where.name} row {row}: {what} {doc!r} of query {where.qid[row].as_py()!r} "
                                 f"already appears in row {first}; keep one row per (qid, docno)")
            raise InputError(f"{where.name}: {what} {doc!r} of query {where.qid[row].as_py()!r} appears twice; keep "
                             "one row per (qid, docno)")
        seen[(code, doc)] = row


def _is_finite_number(value: object) -> bool:
    return _finite(value)


__all__ = ["DOCNO_COLUMNS", "LABEL_COLUMNS", "PARQUET_MAX_RATIO", "QID_COLUMNS", "SCORE_COLUMNS",
           "as_qrels_table", "decoded_cap", "as_run_table", "is_frame", "is_parquet", "per_query_frame",
           "qrels_table", "read_parquet_qrels", "read_parquet_run", "read_parquet_run_rows", "run_table"]
