"""The bulk path: from qrels and run tables to a :class:`~metrics.model.RankingBatch` without per-document Python.

:func:`batch_for_run` is the vectorised twin of ``rankings_for_run`` followed by ``RankingBatch.from_rankings``
and gives identical batches:

* queries: those of the run that have judgments (any qrels line, even only negative grades), in order of first
  appearance in the run; with ``missing_queries="zero"`` (trec_eval -c) judged queries absent from the run
  follow as empty rankings, in order of first appearance in the qrels;
* order inside a query: score descending, ties by ``tie_order`` -- ``trec_eval``: doc id descending in byte
  order; ``docid_ascending``; ``as_given``: file order;
* ``depth`` (trec_eval -M) keeps the top ``depth`` documents after sorting; ``unjudged="removed"`` (trec_eval
  -J) then drops documents without a grade >= 0;
* a grade >= 0 is a judgment; a negative grade means "in the pool but unjudged".

Ties are broken by doc id only inside groups of equal scores, so strings are compared for those rows alone.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .conventions import Conventions
from .model import NO_JUDGMENT, RankingBatch
from .names import Measure
from .trec_io import QrelsTable, RunTable, Source, docno_keys, read_qrels, read_run, value_codes


def batch_for_run(
    qrels: QrelsTable, run: RunTable, conventions: Conventions | None = None
) -> tuple[list[str], RankingBatch]:
    """The evaluated query ids and their batch (one row per query), as the dict path builds them."""
    conv = conventions if conventions is not None else Conventions()
    run_codes, run_qids = value_codes(run.qid)
    qrels_codes, qrels_qids = value_codes(qrels.qid)

    # Batch row of each run query (-1 when the query has no judgments), in order of first appearance.
    judged_query = pc.is_in(run_qids, value_set=qrels_qids).to_numpy(zero_copy_only=False)
    row_of_run_query = np.where(judged_query, np.cumsum(judged_query) - 1, -1).astype(np.int32)
    qids = pc.filter(run_qids, judged_query).to_pylist()
    if conv.missing_queries == "zero":
        absent = ~pc.is_in(qrels_qids, value_set=run_qids).to_numpy(zero_copy_only=False)
        qids.extend(pc.filter(qrels_qids, absent).to_pylist())
    n_rows = len(qids)
    where = pc.index_in(qrels_qids, value_set=pa.array(qids, type=pa.string()))
    row_of_qrels_query = pc.fill_null(where, -1).to_numpy().astype(np.int32)
    qrels_rows = row_of_qrels_query[qrels_codes]
    judged_grades = _judged_grade_matrix(qrels_rows, qrels.grade, n_rows)

    # Run lines of evaluated queries and each one's grade (NO_JUDGMENT when unjudged).
    rows = row_of_run_query[run_codes]
    del run_codes
    scores, docno, keys = run.score, run.docno, run.docno_key
    if keys is None:
        keys, exact = docno_keys(docno)
    else:
        exact = run.docno_key_exact
    evaluated = rows >= 0
    if not evaluated.all():
        rows, scores, keys = rows[evaluated], scores[evaluated], keys[evaluated]
        docno = pc.filter(docno, pa.array(evaluated))
    del evaluated
    grades = _grades(qrels, qrels_rows, rows, docno)
    rows, grades = _in_ranking_order(rows, scores, docno, keys, exact, conv.tie_order, grades)
    del scores, keys, docno
    position = _position_in_group(rows)
    if conv.depth is not None:
        inside = position < conv.depth
        if not inside.all():
            rows, grades, position = rows[inside], grades[inside], position[inside]
        del inside
    judged = grades >= 0
    if conv.unjudged == "removed":
        rows, grades, judged = rows[judged], grades[judged], judged[judged]
        position = _position_in_group(rows)

    lengths = np.bincount(rows, minlength=n_rows).astype(np.int64)
    width = max(1, int(lengths.max(initial=0)))
    flat = rows.astype(np.int64) * width + position
    del rows, position
    grade_matrix = np.zeros((n_rows, width))
    grade_matrix.ravel()[flat] = np.maximum(grades, 0)
    judged_matrix = np.zeros((n_rows, width), dtype=bool)
    judged_matrix.ravel()[flat] = judged
    return qids, RankingBatch(grade_matrix, judged_matrix, lengths, judged_grades)


def _judged_grade_matrix(rows: np.ndarray, grades: np.ndarray, n_rows: int) -> np.ndarray:
    """(n_rows, m): each evaluated query's grades >= 0 sorted descending, padded with NO_JUDGMENT."""
    use = (rows >= 0) & (grades >= 0)
    rows, grades = rows[use], grades[use]
    order = np.lexsort((-grades, rows))
    rows, grades = rows[order], grades[order]
    counts = np.bincount(rows, minlength=n_rows)
    width = max(1, int(counts.max(initial=0)))
    matrix = np.full((n_rows, width), float(NO_JUDGMENT))
    matrix[rows, _position_in_group(rows)] = grades
    return matrix


def _grades(qrels: QrelsTable, qrels_rows: np.ndarray, rows: np.ndarray, docno: pa.Array) -> np.ndarray:
    """The qrels grade of each run line's (query, document) as float64, NO_JUDGMENT where there is none."""
    grades = np.full(rows.shape[0], float(NO_JUDGMENT))
    usable = qrels_rows >= 0
    if not usable.any() or rows.shape[0] == 0:
        return grades
    qrels_docno = qrels.docno.filter(pa.array(usable))
    qrels_rows = qrels_rows[usable]
    qrels_grade = qrels.grade[usable]
    # Most run documents are judged for no query at all: find the few candidates by doc id alone first.
    candidate = pc.is_in(docno, value_set=pc.unique(qrels_docno))
    candidates = np.flatnonzero(np.asarray(candidate))
    if candidates.shape[0] == 0:
        return grades
    # Filtering keeps the chunks (take would first concatenate all of them).
    candidate_docno = pc.filter(docno, candidate)
    if isinstance(candidate_docno, pa.ChunkedArray):
        candidate_docno = candidate_docno.combine_chunks()
    run_keys = _pair_keys(rows[candidates], candidate_docno)
    where = pc.index_in(run_keys, value_set=_pair_keys(qrels_rows, qrels_docno))
    found = pc.is_valid(where).to_numpy(zero_copy_only=False)
    positions = pc.fill_null(where, 0).to_numpy().astype(np.int64)
    grades[candidates[found]] = qrels_grade[positions[found]]
    return grades


def _pair_keys(rows: np.ndarray, docno: pa.Array) -> pa.Array:
    return pc.binary_join_element_wise(pa.array(rows.astype(str)), docno, "\x00")


def _in_ranking_order(rows: np.ndarray, scores: np.ndarray, docno, keys: np.ndarray, exact: bool,
                      tie_order: str, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` and ``grades`` sorted by batch row, then score descending, then the tie order."""
    n = rows.shape[0]
    if n == 0:
        return rows, grades
    same_row = rows[1:] == rows[:-1]
    # Run files are usually written grouped by query and by score already; then no full sort is needed.
    if bool((rows[1:] >= rows[:-1]).all() and (~same_row | (scores[1:] <= scores[:-1])).all()):
        order = None
        tied_with_next = same_row
        tied_with_next &= scores[1:] == scores[:-1]
    else:
        del same_row
        order = np.lexsort((-scores, rows))
        rows, grades, scores = rows[order], grades[order], scores[order]
        tied_with_next = (rows[1:] == rows[:-1]) & (scores[1:] == scores[:-1])
    if tie_order == "as_given" or not tied_with_next.any():
        return rows, grades
    in_tie = np.zeros(n, dtype=bool)
    in_tie[:-1] |= tied_with_next
    in_tie[1:] |= tied_with_next
    tied = np.flatnonzero(in_tie)
    # A tie group starts where a tied element is not tied with its predecessor.
    starts = np.ones(tied.shape[0], dtype=bool)
    starts[1:] = ~tied_with_next[tied[1:] - 1]
    del tied_with_next
    group = np.cumsum(starts, dtype=np.int64)
    source = tied if order is None else order[tied]  # line numbers (in the run as read) of the tied documents
    descending = tie_order == "trec_eval"
    if exact:
        # Packed big-endian keys compare as the strings do in byte order.
        tie_keys = keys[source]
        within = np.lexsort((~tie_keys if descending else tie_keys, group))
    else:
        line_order = np.argsort(source, kind="stable")
        in_file_order = np.zeros(n, dtype=bool)
        in_file_order[source] = True
        tied_docno = pc.filter(docno, pa.array(in_file_order))  # the tied docnos, in line order
        tied_docno = tied_docno.combine_chunks() if isinstance(tied_docno, pa.ChunkedArray) else tied_docno
        position_in_filtered = np.empty(source.shape[0], dtype=np.int64)
        position_in_filtered[line_order] = np.arange(source.shape[0])
        table = pa.table({"group": group, "docno": tied_docno.take(pa.array(position_in_filtered))})
        direction = "descending" if descending else "ascending"
        within = pc.sort_indices(table, sort_keys=[("group", "ascending"), ("docno", direction)]).to_numpy()
    # Permuting inside tie groups leaves each element's row unchanged.
    grades[tied] = grades[tied[within]]
    return rows, grades


def _position_in_group(rows: np.ndarray) -> np.ndarray:
    """0-based index of each element within its run of equal, consecutive ``rows`` values."""
    n = rows.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.ones(n, dtype=bool)
    starts[1:] = rows[1:] != rows[:-1]
    start_index = np.flatnonzero(starts)
    return np.arange(n) - np.repeat(start_index, np.diff(np.append(start_index, n)))


def evaluate_files(
    qrels_source: Source,
    run_source: Source,
    measures: str | Iterable[str | Measure],
    conventions: Conventions | None = None,
) -> tuple[list[str], dict[str, np.ndarray], dict[str, float]]:
    """Read, evaluate and aggregate in one go: (query ids, per-query values per measure, the ``all`` values).

    Counts (num_*) are summed and everything else is averaged over the evaluated queries, as trec_eval does.
    """
    from .evaluate import _as_measures, evaluate_batch, is_count

    conv = conventions if conventions is not None else Conventions()
    parsed = _as_measures(measures)
    qrels = read_qrels(qrels_source)
    run = read_run(run_source)
    # Measures written with judged_only (ir_measures) may need the other -J setting than the conventions.
    groups: dict[str, list[Measure]] = {}
    for measure in parsed:
        unjudged = conv.unjudged if measure.judged_only is None else ("removed" if measure.judged_only else "nonrelevant")
        groups.setdefault(unjudged, []).append(measure)
    results: dict[str, np.ndarray] = {}
    qids: list[str] = []
    for index, (unjudged, group) in enumerate(groups.items()):
        qids, batch = batch_for_run(qrels, run, conv.replace(unjudged=unjudged))
        if index == len(groups) - 1:
            del run, qrels
        results.update(evaluate_batch(batch, group, conv))
        del batch
    values = {measure.key: results[measure.key] for measure in parsed}
    means: dict[str, float] = {}
    for key, column in values.items():
        # Sequential summation, as trec_eval accumulates, keeps the mean bit-identical to its own.
        total = float(np.cumsum(column)[-1]) if column.size else 0.0
        means[key] = total if is_count(key) else (total / column.size if column.size else 0.0)
    return qids, values, means


__all__ = ["batch_for_run", "evaluate_files"]
