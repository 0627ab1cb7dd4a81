"""The bulk path: from qrels and run tables to a :class:`~metrics.model.RankingBatch` without per-document Python.

:func:`batch_for_run` is the vectorised twin of ``rankings_for_run`` followed by ``RankingBatch.from_rankings``
and gives identical batches:

* queries: those of the run that have judgments (any qrels line, even only negative grades), in order of first
  appearance in the run; with ``missing_queries="zero"`` (trec_eval -c) judged queries absent from the run
  follow as empty rankings (``missing_ranking="placeholder"``: trec_eval 10's one-document placeholder), in order
  of first appearance in the qrels;
* order inside a query: score descending, ties by ``tie_order`` -- ``trec_eval``: doc id descending in byte
  order; ``docid_ascending``; ``as_given``: file order; scores are compared as ``score_precision`` says (float32
  by default, as trec_eval 9 reads them with ``atof`` into a C float);
* with ``nonpositive_scores="not_relevant"`` (torchmetrics) a judged document scored <= 0 reads grade 0;
* ``depth`` (trec_eval -M) keeps the top ``depth`` documents after sorting; ``unjudged="removed"`` (trec_eval
  -J) then drops documents without a grade >= 0;
* a grade >= 0 is a judgment; a negative grade means "in the pool but unjudged".

Ties are broken by doc id only inside groups of equal scores, so strings are compared for those rows alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from .conventions import PLACEHOLDER_DOCNO, Conventions
from .engine import (
    aggregate_columns,
    as_measures,
    check_grade_range,
    clear_placeholder_rows,
    clear_unscored_rows,
    complete_all_line,
    evaluate_batch,
    grade_limit,
    group_by,
    judged_only,
    make_conventions,
)
from .io.frames import as_qrels_table, as_run_table
from .io.trec import (
    QrelsTable,
    RunTable,
    Source,
    SubtopicQrelsTable,
    docno_keys,
    from_numpy,
    read_qrels,
    read_run,
    to_numpy,
    value_codes,
)
from .measures import relevance_strings
from .model import (
    NO_JUDGMENT,
    RankingBatch,
    SubtopicRows,
    in_ranking_order,
    is_subtopic_number,
    nonpositive_not_relevant,
    subtopic_number_order,
    ties_by_keys,
)
from .names import Measure


def batch_for_run(
    qrels: QrelsTable, run: RunTable, conventions: Conventions | None = None
) -> tuple[list[str], RankingBatch]:
    """The evaluated query ids and their batch (one row per query), as the dict path builds them.

    One padded batch: its size is queries x the longest ranking. :func:`batches_for_run` keeps memory
    proportional to the number of lines whatever the lengths.
    """
    ranked = _ranked_lines(qrels, run, conventions)
    return ranked.qids, ranked.batch(None)


@dataclass(frozen=True)
class SubtopicMatrix:
    """Subtopic qrels as the diversity kernels read them, built from the columns (no Python per line): every
    query's :class:`~metrics.model.SubtopicJudgments` as one block of documents of one sparse table of
    (document, subtopic) pairs, memory following the lines (never documents x subtopics).

    documents: one row per judged (query, document), a query's documents in doc id order (byte order, ndeval's),
        queries in order of first appearance; its grade is the document's largest over its subtopics.
    pair_starts: (documents + 1,) document i's pairs are ``pair_starts[i]:pair_starts[i + 1]``;
    pair_subtopic, pair_grade: (lines,) each pair's subtopic, numbered within its query by number (in order of
        first appearance when one is not a number, documents taken in file order), ascending within a document, and
        its grade.
    starts: the first document row of each query, and one past the last.
    """

    documents: QrelsTable
    pair_starts: np.ndarray
    pair_subtopic: np.ndarray
    pair_grade: np.ndarray
    starts: np.ndarray

    def of_queries(self, queries: np.ndarray) -> SubtopicMatrix:
        """The matrix of the given queries alone (indices into ``documents.qid_values``, ascending): their blocks of
        documents, numbered as in the whole matrix, so every kernel sees each query as it does here."""
        lengths = self.starts[queries + 1] - self.starts[queries]
        starts = np.zeros(queries.shape[0] + 1, dtype=np.int64)
        starts[1:] = np.cumsum(lengths)
        # Every row of each query: its first row repeated, plus the row's place inside the query.
        rows = np.repeat(self.starts[queries] - starts[:-1], lengths) + np.arange(int(starts[-1]))
        counts = self.pair_starts[rows + 1] - self.pair_starts[rows]
        pair_starts = np.zeros(rows.shape[0] + 1, dtype=np.int64)
        pair_starts[1:] = np.cumsum(counts)
        pairs = np.repeat(self.pair_starts[rows] - pair_starts[:-1], counts) + np.arange(int(pair_starts[-1]))
        take = from_numpy(rows)
        documents = self.documents
        documents = QrelsTable(documents.qid.take(take), documents.docno.take(take), documents.grade[rows],
                               documents.name, qid_code=np.repeat(np.arange(queries.shape[0], dtype=np.int32), lengths),
                               qid_values=documents.qid_values.take(from_numpy(queries.astype(np.int64))))
        return SubtopicMatrix(documents, pair_starts, self.pair_subtopic[pairs], self.pair_grade[pairs], starts)


def subtopic_matrix(table: SubtopicQrelsTable) -> SubtopicMatrix:
    """The :class:`SubtopicMatrix` of subtopic qrels read by :func:`metrics.io.trec.read_subtopic_table`."""
    codes, qid_values = _query_codes(table)
    docno, subtopic = _single(table.docno), _single(table.subtopic)
    n, n_queries = len(table), len(qid_values)
    # Lines by query, then doc id; the sort is stable, so each document's lines stay in file order.
    # (pa.table of a dict would import pandas, as would pc.match_substring_regex.)
    order = to_numpy(pc.sort_indices(pa.Table.from_arrays([from_numpy(codes), docno], names=["query", "docno"]),
                                     sort_keys=[("query", "ascending"), ("docno", "ascending")]))
    sorted_codes, sorted_docno = codes[order], docno.take(from_numpy(order))
    new_document = np.ones(n, dtype=bool)
    if n > 1:
        new_document[1:] = (sorted_codes[1:] != sorted_codes[:-1]) | to_numpy(
            pc.not_equal(sorted_docno.slice(1), sorted_docno.slice(0, n - 1)))
    document_of_line = np.empty(n, dtype=np.int64)
    document_of_line[order] = np.cumsum(new_document) - 1
    first = np.flatnonzero(new_document)  # each document's first line, in sorted order
    document_query = sorted_codes[first]
    starts = np.zeros(n_queries + 1, dtype=np.int64)
    starts[1:] = np.cumsum(np.bincount(document_query, minlength=n_queries))

    # Each query's subtopic columns: (query, subtopic) pairs, numbered by ndeval's order within the query.
    subtopic_codes, subtopic_values = value_codes(subtopic)
    stride = max(1, len(subtopic_values))
    pairs, pair_of_line = np.unique(codes.astype(np.int64) * stride + subtopic_codes, return_inverse=True)
    pair_query, pair_subtopic = pairs // stride, pairs % stride
    # The distinct subtopic ids are few: each one's place among the numbers, in ndeval's order.
    ids = subtopic_values.to_pylist()
    numbered = np.array([is_subtopic_number(text) for text in ids], dtype=bool)
    number_rank = np.zeros(len(ids), dtype=np.int64)
    by_value = sorted(np.flatnonzero(numbered).tolist(), key=lambda i: subtopic_number_order(ids[i]))
    number_rank[by_value] = np.arange(len(by_value))
    by_number = np.ones(n_queries, dtype=bool)
    by_number[pair_query[~numbered[pair_subtopic]]] = False  # a query with a subtopic id that is not a number
    place = number_rank[pair_subtopic]
    if not by_number.all():
        # ndeval's order there is first appearance as {doc: {subtopic: grade}} lists them: documents in order of
        # first appearance, each document's lines in file order.
        lines = np.flatnonzero(~by_number[codes])
        listed = lines[np.lexsort((lines, order[first][document_of_line[lines]]))]
        seen, at = np.unique(pair_of_line[listed], return_index=True)
        place[seen] = at
    ranked = np.lexsort((place, pair_query))
    column_of_pair = np.empty(pairs.shape[0], dtype=np.int64)
    column_of_pair[ranked] = np.arange(pairs.shape[0]) - np.searchsorted(pair_query[ranked], pair_query[ranked])
    # The pairs by document, then subtopic: (query, subtopic, docno) is one line at most, so no two lines tie.
    column_of_line = column_of_pair[pair_of_line]
    by_pair = np.lexsort((column_of_line, document_of_line))
    pair_starts = np.zeros(first.shape[0] + 1, dtype=np.int64)
    pair_starts[1:] = np.cumsum(np.bincount(document_of_line, minlength=first.shape[0]))
    pair_grade = np.asarray(table.grade, dtype=np.int64)[by_pair]
    best = np.maximum.reduceat(pair_grade, pair_starts[:-1]) if n else np.zeros(0, dtype=np.int64)
    documents = QrelsTable(pc.take(qid_values, from_numpy(document_query)), sorted_docno.take(from_numpy(first)),
                           best, table.name, qid_code=document_query.astype(np.int32), qid_values=qid_values)
    return SubtopicMatrix(documents, pair_starts, column_of_line[by_pair], pair_grade, starts)


def subtopic_batch(
    subtopic_qrels: SubtopicMatrix | SubtopicQrelsTable, run: RunTable, conventions: Conventions | None = None
) -> tuple[list[str], RankingBatch]:
    """:func:`batch_for_run` for subtopic qrels (a :class:`SubtopicMatrix`, or the table
    :func:`metrics.io.trec.read_subtopic_table` reads): the batch carries the subtopic judgments, and each
    document's grade is its largest over its subtopics (what the other measures see), as ``metrics.evaluate`` gives.

    The run is ordered once, through the same columnar join and sort, with each judged document's row in the
    subtopic matrix standing for its grade.
    """
    conv = conventions if conventions is not None else Conventions()
    matrix = subtopic_qrels if isinstance(subtopic_qrels, SubtopicMatrix) else subtopic_matrix(subtopic_qrels)
    documents = matrix.documents
    best = documents.grade
    table = QrelsTable(documents.qid, documents.docno, np.where(best >= 0, np.arange(best.shape[0]), -1),
                       documents.name, qid_code=documents.qid_code, qid_values=documents.qid_values)
    qids, batch = batch_for_run(table, run, conv)
    judged = batch.judged
    at = np.where(judged, batch.grades, 0).astype(np.int64)
    flat = np.where(judged, best[at], batch.grades).astype(np.float64)
    # Queries are few; pa.array of a list would import pandas.
    query_of = {qid: q for q, qid in enumerate(documents.qid_values.to_pylist())}
    query_of_row = np.array([query_of[qid] for qid in qids], dtype=np.int64)
    # Each query's grades >= 0, descending, padded with NO_JUDGMENT.
    use = best >= 0
    query, grade = documents.qid_code[use], best[use]
    counts = np.bincount(query, minlength=matrix.starts.shape[0] - 1)
    present = np.arange(max(1, int(counts.max(initial=0)))) < counts[:, None]
    judged_grades = np.full(present.shape, float(NO_JUDGMENT))
    judged_grades[present] = grade[np.lexsort((-grade, query))]
    rows_of = SubtopicRows(matrix.pair_starts, matrix.pair_subtopic, matrix.pair_grade, matrix.starts, query_of_row,
                           np.where(judged, at, -1))
    return qids, RankingBatch(flat, judged, batch.lengths, judged_grades[query_of_row], batch.tied_with_previous,
                              rows_of)


def evaluate_subtopic_run(
    matrix: SubtopicMatrix, run: RunTable, measures: Sequence[Measure], conventions: Conventions
) -> tuple[list[str], dict[str, np.ndarray]]:
    """The evaluated query ids (in :func:`batch_for_run`'s order) and each measure's values against subtopic qrels:
    the measures scored on the condensed list (-J, ``judged_only``) get a batch of their own, and trec_eval 10's
    -c placeholder rows are cleared as :func:`metrics.engine.clear_placeholder_rows` says."""
    values: dict[str, np.ndarray] = {}
    qids: list[str] = []
    for condensed, group in group_by(measures, lambda m: judged_only(m, conventions)).items():
        conv = conventions.replace(unjudged="removed") if condensed else conventions
        qids, batch = subtopic_batch(matrix, run, conv)
        values.update(evaluate_batch(batch, group, conventions))
    if conventions.missing_ranking == "placeholder" and conventions.missing_queries == "zero":
        answered = set(run.qids)
        clear_placeholder_rows(values, measures, np.flatnonzero([qid not in answered for qid in qids]))
    return qids, values


def batches_for_run(
    qrels: QrelsTable, run: RunTable, conventions: Conventions | None = None
) -> tuple[list[str], list[tuple[np.ndarray | None, RankingBatch]]]:
    """The evaluated query ids and batches covering them: ``(rows, batch)`` pairs, ``rows`` the query index of each
    batch row (``None``: every query, in order).

    One batch when padding every ranking to the longest costs at most about twice the lines (a run of equal-depth
    rankings); otherwise queries are grouped by the power of two above their ranking length and judgment count, so
    each ranking is padded to less than twice its own size. A run with 2,000 one-document queries and one
    1,000,000-document query then takes a few MB of batches instead of 2,001 x 1,000,000 cells.
    """
    ranked = _ranked_lines(qrels, run, conventions)
    return ranked.qids, [(rows, ranked.batch(rows)) for rows in ranked.row_groups()]


#: The grade of a run line whose document is not in the qrels (a negative qrels grade is a real value).
_NOT_IN_QRELS = -np.inf

#: Padding one batch may cost this many cells beyond twice the lines and judgments before queries are grouped.
_PADDING_SLACK = 1 << 20


@dataclass(frozen=True)
class _RankedLines:
    """Every evaluated run line in batch order (query row, then rank) and every judgment >= 0 (row, grade desc)."""

    qids: list[str]
    rows: np.ndarray  # batch row of each ranked line, ascending
    grades: np.ndarray  # its qrels grade (_NOT_IN_QRELS where the document is not in the qrels)
    judged: np.ndarray  # grade >= 0
    lengths: np.ndarray  # ranking length of each row
    judgment_rows: np.ndarray  # batch row of each judgment >= 0, ascending
    judgment_grades: np.ndarray  # its grade, descending within a row
    judgment_counts: np.ndarray  # judgments >= 0 of each row
    tied_with_previous: np.ndarray | None = None  # same row and score as the line above (tied_gains="averaged")

    def row_groups(self) -> list[np.ndarray | None]:
        """Query rows of each batch to build: all at once (``None``) when padding is cheap, else by size class."""
        n = self.lengths.shape[0]
        width = int(self.lengths.max(initial=0))
        judged_width = int(self.judgment_counts.max(initial=0))
        cells = self.lengths.sum() + self.judgment_counts.sum() + 2 * n
        if n * (max(1, width) + max(1, judged_width)) <= 2 * cells + _PADDING_SLACK:
            return [None]
        # The power of two at or above each size: padding stays below twice each row's own size.
        size_class = (_ceil_log2(self.lengths) << 8) | _ceil_log2(self.judgment_counts)
        classes, group = np.unique(size_class, return_inverse=True)
        order = np.argsort(group, kind="stable")
        return np.split(order, np.cumsum(np.bincount(group, minlength=classes.shape[0]))[:-1])

    def batch(self, rows: np.ndarray | None) -> RankingBatch:
        """The padded batch of the given query rows (ascending), or of every query."""
        if rows is None:
            lines, judgments, lengths, counts = None, None, self.lengths, self.judgment_counts
        else:
            member = np.zeros(self.lengths.shape[0], dtype=bool)
            member[rows] = True
            lines, judgments = member[self.rows], member[self.judgment_rows]
            lengths, counts = self.lengths[rows], self.judgment_counts[rows]
        grades = self.grades if lines is None else self.grades[lines]
        judged = self.judged if lines is None else self.judged[lines]
        judgment_grades = self.judgment_grades if judgments is None else self.judgment_grades[judgments]
        # Rows are sorted and each ranking fills ranks 1..length, so a row-major boolean mask takes the values in order.
        filled = np.arange(max(1, int(lengths.max(initial=0)))) < lengths[:, None]
        grade_matrix = np.zeros(filled.shape)
        # A negative qrels grade (in the pool, unjudged) stays -1; a document outside the qrels becomes 0.
        grade_matrix[filled] = np.where(grades >= 0, grades, np.where(grades == _NOT_IN_QRELS, 0.0, -1.0))
        judged_matrix = np.zeros(filled.shape, dtype=bool)
        judged_matrix[filled] = judged
        tied_matrix = None
        if self.tied_with_previous is not None:
            tied_matrix = np.zeros(filled.shape, dtype=bool)
            tied_matrix[filled] = self.tied_with_previous if lines is None else self.tied_with_previous[lines]
        del filled
        present = np.arange(max(1, int(counts.max(initial=0)))) < counts[:, None]
        judged_grades = np.full(present.shape, float(NO_JUDGMENT))
        judged_grades[present] = judgment_grades
        return RankingBatch(grade_matrix, judged_matrix, lengths, judged_grades, tied_matrix)


def _ceil_log2(sizes: np.ndarray) -> np.ndarray:
    """The smallest e with 2^e >= size (0 for sizes 0 and 1)."""
    return np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)


def with_placeholders(qrels: QrelsTable, run: RunTable, conventions: Conventions) -> tuple[RunTable, list[str]]:
    """The run with trec_eval 10's -c placeholder line (:data:`~metrics.conventions.PLACEHOLDER_DOCNO`, score 1)
    added for each judged query it lacks, and those queries, in qrels order; the run and ``[]`` unless
    ``missing_queries="zero"`` and ``missing_ranking="placeholder"``."""
    if conventions.missing_queries != "zero" or conventions.missing_ranking != "placeholder":
        return run, []
    _, run_qids = _query_codes(run)
    _, qrels_qids = _query_codes(qrels)
    absent = pc.filter(qrels_qids, pc.invert(pc.is_in(qrels_qids, value_set=run_qids))).to_pylist()
    if not absent:
        return run, []
    qid, docno = _single(run.qid), _single(run.docno)
    table = RunTable(pa.concat_arrays([qid, pa.array(absent, type=qid.type)]),
                     pa.concat_arrays([docno, pa.array([PLACEHOLDER_DOCNO] * len(absent), type=docno.type)]),
                     np.concatenate([run.score, np.ones(len(absent))]), run.runid, run.name)
    return table, absent


def _ranked_lines(qrels: QrelsTable, run: RunTable, conventions: Conventions | None) -> _RankedLines:
    conv = conventions if conventions is not None else Conventions()
    run, _ = with_placeholders(qrels, run, conv)
    run_codes, run_qids = _query_codes(run)
    qrels_codes, qrels_qids = _query_codes(qrels)

    # Batch row of each run query (-1 when the query has no judgments), in order of first appearance.
    judged_query = to_numpy(pc.is_in(run_qids, value_set=qrels_qids))
    row_of_run_query = np.where(judged_query, np.cumsum(judged_query) - 1, -1).astype(np.int32)
    evaluated_qids = pc.filter(run_qids, from_numpy(judged_query))
    if conv.missing_queries == "zero":
        absent = ~to_numpy(pc.is_in(qrels_qids, value_set=run_qids))
        evaluated_qids = pa.concat_arrays([evaluated_qids, pc.filter(qrels_qids, from_numpy(absent))])
    qids = evaluated_qids.to_pylist()
    n_rows = len(qids)
    row_of_qrels_query = _index_in(qrels_qids, evaluated_qids).astype(np.int32)
    qrels_rows = row_of_qrels_query[qrels_codes]
    judgment_rows, judgment_grades = _sorted_judgments(qrels_rows, qrels.grade)

    # Run lines of evaluated queries and each one's grade (_NOT_IN_QRELS when not judged for the query).
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
        docno = pc.filter(docno, from_numpy(evaluated))
    del evaluated
    if conv.score_precision == "float32":
        with np.errstate(over="ignore"):  # beyond the float range atof's double becomes an infinity, as here
            scores = scores.astype(np.float32)
    grades = _grades(qrels, qrels_rows, rows, docno, keys, exact)
    if conv.nonpositive_scores == "not_relevant":  # per line, before the sort: each grade travels with its line
        grades = nonpositive_not_relevant(grades, scores)
    ranked_scores = None
    if conv.tied_gains == "averaged":
        # The scores in ranking order (a permutation inside a tie group leaves them unchanged), to find the ties.
        _, ranked_scores = _in_ranking_order(rows, scores, docno, keys, exact, "as_given", scores.astype(np.float64))
    rows, grades = _in_ranking_order(rows, scores, docno, keys, exact, conv.tie_order, grades)
    del scores, keys, docno
    if conv.depth is not None:
        inside = _position_in_group(rows) < conv.depth
        if not inside.all():
            rows, grades = rows[inside], grades[inside]
            ranked_scores = None if ranked_scores is None else ranked_scores[inside]
        del inside
    judged = grades >= 0
    if conv.unjudged == "removed":
        ranked_scores = None if ranked_scores is None else ranked_scores[judged]
        rows, grades, judged = rows[judged], grades[judged], judged[judged]
    tied = None
    if ranked_scores is not None:
        tied = np.zeros(rows.shape[0], dtype=bool)
        tied[1:] = (rows[1:] == rows[:-1]) & (ranked_scores[1:] == ranked_scores[:-1])
    lengths = np.bincount(rows, minlength=n_rows).astype(np.int64)
    counts = np.bincount(judgment_rows, minlength=n_rows).astype(np.int64)
    return _RankedLines(qids, rows, grades, judged, lengths, judgment_rows, judgment_grades, counts, tied)


def _query_codes(table: QrelsTable | RunTable) -> tuple[np.ndarray, pa.Array]:
    """Each line's query code and the distinct query ids: kept by the reader, or computed."""
    if table.qid_code is not None and table.qid_values is not None:
        return table.qid_code, table.qid_values
    return value_codes(table.qid)


def _sorted_judgments(rows: np.ndarray, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The batch row and grade of every judgment >= 0 of an evaluated query, by row, grades descending."""
    use = (rows >= 0) & (grades >= 0)
    rows, grades = rows[use], grades[use]
    order = np.lexsort((-grades, rows))
    return rows[order], grades[order].astype(np.float64)


def _grades(qrels: QrelsTable, qrels_rows: np.ndarray, rows: np.ndarray, docno, run_keys: np.ndarray,
            run_keys_exact: bool) -> np.ndarray:
    """The qrels grade of each run line's (query, document) as float64, _NOT_IN_QRELS where there is none."""
    grades = np.full(rows.shape[0], _NOT_IN_QRELS)
    usable = qrels_rows >= 0
    if not usable.any() or rows.shape[0] == 0:
        return grades
    qrels_docno = _single(pc.filter(qrels.docno, from_numpy(usable)))
    qrels_rows = qrels_rows[usable]
    qrels_grade = qrels.grade[usable]
    # Most run documents are judged for no query at all: find the few candidates by doc id alone first.
    candidate = _maybe_judged(run_keys, run_keys_exact, qrels_docno)
    candidates = np.flatnonzero(candidate)
    if candidates.shape[0] == 0:
        return grades
    candidate_docno = _single(pc.filter(docno, from_numpy(candidate)))  # filter keeps chunks; take joins them
    candidate_rows = rows[candidates]
    # Join on a 64-bit hash of (batch row, docno), then confirm every match on the strings themselves.
    run_pairs = _pair_hash(candidate_rows, docno_keys(candidate_docno, hashed=True)[0])
    qrels_pairs = _pair_hash(qrels_rows, docno_keys(qrels_docno, hashed=True)[0])
    by_pair = np.argsort(qrels_pairs)
    sorted_pairs = qrels_pairs[by_pair]
    slot = np.minimum(np.searchsorted(sorted_pairs, run_pairs), sorted_pairs.shape[0] - 1)
    hit = sorted_pairs[slot] == run_pairs
    match = by_pair[slot[hit]]
    confirmed = (candidate_rows[hit] == qrels_rows[match]).all() and bool(
        to_numpy(pc.equal(candidate_docno.take(from_numpy(np.flatnonzero(hit))), qrels_docno.take(from_numpy(match)))
                 ).all()) and not (sorted_pairs[1:] == sorted_pairs[:-1]).any()
    if confirmed:
        grades[candidates[hit]] = qrels_grade[match]
        return grades
    # A hash collision (about 2^-64 per pair): join exactly, in Python.
    lookup = {(int(row), doc): int(grade) for row, doc, grade in
              zip(qrels_rows.tolist(), qrels_docno.to_pylist(), qrels_grade.tolist())}
    for index, row, doc in zip(candidates.tolist(), candidate_rows.tolist(), candidate_docno.to_pylist()):
        grades[index] = lookup.get((row, doc), _NOT_IN_QRELS)
    return grades


def _maybe_judged(run_keys: np.ndarray, exact: bool, qrels_docno: pa.Array) -> np.ndarray:
    """True for every run line whose docno may be judged for some query (a superset; never a false False).

    A bit table indexed by the top bits of the multiplied docno key: one multiply, shift and lookup per line,
    instead of hashing every docno string again.
    """
    qrels_keys, _ = docno_keys(qrels_docno, packed=exact, hashed=not exact)
    bits = int(np.clip(np.ceil(np.log2(max(1, qrels_keys.shape[0]) * 64)), 16, 26))
    shift, multiplier = np.uint64(64 - bits), np.uint64(0x9E3779B97F4A7C15)
    table = np.zeros(1 << bits, dtype=bool)
    maybe = np.empty(run_keys.shape[0], dtype=bool)
    with np.errstate(over="ignore"):
        table[(qrels_keys * multiplier) >> shift] = True
        # In slices small enough to reuse freed heap memory rather than map fresh pages for each temporary.
        for start in range(0, run_keys.shape[0], 1 << 20):
            slots = run_keys[start:start + (1 << 20)] * multiplier
            np.right_shift(slots, shift, out=slots)
            maybe[start:start + (1 << 20)] = table[slots]
    return maybe


def _pair_hash(rows: np.ndarray, keys: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):
        return keys * np.uint64(0xC2B2AE3D27D4EB4F) + rows.astype(np.uint64) * np.uint64(0x165667B19E3779F9)


def _index_in(values: pa.Array, value_set: pa.Array) -> np.ndarray:
    """Position of each value in ``value_set``, -1 where absent."""
    where = pc.index_in(values, value_set=value_set)
    return np.where(to_numpy(pc.is_valid(where)), to_numpy(where), -1)


def _single(values) -> pa.Array:
    return values.combine_chunks() if isinstance(values, pa.ChunkedArray) else values


def _in_ranking_order(rows: np.ndarray, scores: np.ndarray, docno, keys: np.ndarray, exact: bool,
                      tie_order: str, grades: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` and ``grades`` sorted by batch row, then score descending, then the tie order
    (:func:`metrics.model.in_ranking_order`)."""

    def by_docno(lines: np.ndarray, group: np.ndarray, descending: bool) -> np.ndarray:
        # Arrow compares strings byte by byte; sorting by (tie group, docno) compares only ids that tie.
        table = pa.Table.from_arrays([from_numpy(group), _single(docno.take(from_numpy(lines)))],
                                     names=["group", "docno"])
        direction = "descending" if descending else "ascending"
        return to_numpy(pc.sort_indices(table, sort_keys=[("group", "ascending"), ("docno", direction)]))

    # Packed big-endian keys compare as the strings do in byte order.
    sort_ties = ties_by_keys(keys.__getitem__) if exact else by_docno
    return in_ranking_order(rows, scores, tie_order, sort_ties, rows, grades, overwrite=True)


def _position_in_group(rows: np.ndarray) -> np.ndarray:
    """0-based index of each element within its group of equal ``rows`` values (``rows`` sorted)."""
    n = rows.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    group_start = np.searchsorted(rows, np.arange(int(rows[-1]) + 1))
    return np.arange(n) - group_start[rows]


@dataclass(frozen=True)
class PreparedRun:
    """A run's batches, ready for the kernels: for each unjudged-document rule the measures need, the batches of
    :func:`batches_for_run` (each with the query rows it covers) and the measures scored on them."""

    qids: list[str]
    groups: list[tuple[list[tuple[np.ndarray | None, RankingBatch]], list[Measure]]]
    measures: list[Measure]
    conventions: Conventions
    placeholders: tuple[str, ...] = ()  # queries scored through trec_eval 10's -c placeholder
    all_line: dict[str, float] | None = None  # -c's num_rel all-line (engine.complete_all_line)
    unscored: tuple[str, ...] = ()  # queries -c adds that trec_eval 9.0.8 does not score (engine.clear_unscored_rows)


def prepare_run(
    qrels: QrelsTable, run: RunTable, measures: str | Iterable[str | Measure], conventions: Conventions | None = None
) -> PreparedRun:
    """Build the batches; afterwards the tables are no longer needed (the CLI drops them before evaluating).

    Measures that score the condensed list (``-J`` or an ir_measures ``judged_only``) get their own batches.
    """
    conv = conventions if conventions is not None else Conventions()
    parsed = as_measures(measures)
    by_rule: dict[bool, list[Measure]] = {}
    for measure in parsed:
        by_rule.setdefault(judged_only(measure, conv), []).append(measure)
    qids: list[str] = []
    groups = []
    for removed, group in by_rule.items():
        qids, batches = batches_for_run(qrels, run, conv.replace(unjudged="removed" if removed else "nonrelevant"))
        groups.append((batches, group))
    unscored: tuple[str, ...] = ()
    if conv.missing_queries == "zero" and conv.missing_ranking == "empty":
        answered = set(run.qids)
        unscored = tuple(qid for qid in qrels.qids if qid not in answered)
    return PreparedRun(qids, groups, parsed, conv, tuple(with_placeholders(qrels, run, conv)[1]),
                       complete_all_line(parsed, conv, qrels.grade), unscored)


def evaluate_prepared(prepared: PreparedRun) -> tuple[list[str], dict[str, np.ndarray], dict[str, float]]:
    """(query ids, per-query values per measure, the ``all`` values: num_* summed, the rest averaged)."""
    results: dict[str, np.ndarray] = {}
    for batches, group in prepared.groups:
        for rows, batch in batches:
            values = evaluate_batch(batch, group, prepared.conventions)
            if rows is None:
                results.update(values)
                continue
            for key, column in values.items():
                results.setdefault(key, np.zeros(len(prepared.qids)))[rows] = column
    values = {measure.key: results[measure.key] for measure in prepared.measures}
    if prepared.placeholders:
        placeholder = set(prepared.placeholders)
        clear_placeholder_rows(values, prepared.measures,
                               np.flatnonzero([qid in placeholder for qid in prepared.qids]))
    if prepared.unscored:
        unscored = set(prepared.unscored)
        clear_unscored_rows(values, prepared.measures, np.flatnonzero([qid in unscored for qid in prepared.qids]))
    # The means are summed in trec_eval's query order (sorted ids), so they are its 'all' line to the last bit.
    order = np.asarray(sorted(range(len(prepared.qids)), key=prepared.qids.__getitem__), dtype=np.int64)
    means = aggregate_columns({key: column[order] for key, column in values.items()})
    return prepared.qids, values, means | (prepared.all_line or {})


def relevance_strings_of_run(qrels: QrelsTable, run: RunTable, conventions: Conventions, length: int, *,
                             clear_placeholders: bool = False) -> list[str]:
    """trec_eval's relstring of each evaluated query (the grades of its top ``length`` documents), in the order of
    :func:`batches_for_run`'s query ids. ``clear_placeholders``: the plain ``relstring``, which trec_eval 10 empties
    for a -c placeholder query (``relstring.3`` keeps the placeholder's ``'-'``)."""
    qids, groups = batches_for_run(qrels, run, conventions)
    strings: list = []
    for rows, batch in groups:
        text = relevance_strings(batch, length)
        strings.extend(text) if rows is None else strings.extend(zip(rows.tolist(), text))
    if groups and groups[0][0] is not None:
        strings = [text for _, text in sorted(strings)]
    if clear_placeholders:
        placeholders = set(with_placeholders(qrels, run, conventions)[1])
        strings = ["" if qid in placeholders else text for qid, text in zip(qids, strings)]
    return strings


def evaluate_tables(
    qrels: QrelsTable,
    run: RunTable,
    measures: str | Iterable[str | Measure],
    conventions: Conventions | None = None,
    *,
    trec_eval: str | None = None,
) -> tuple[list[str], dict[str, np.ndarray], dict[str, float]]:
    """(query ids, per-query values per measure, the ``all`` values) for parsed files, or for pandas DataFrames
    and pyarrow Tables in the columns of :mod:`metrics.io.frames` (read column by column). ``trec_eval``: a build
    (``"9.0.8"``, ``"10.0"``) whose conventions replace ``conventions``' where the builds differ."""
    if not isinstance(qrels, QrelsTable) or not isinstance(run, RunTable):
        qrels, run = as_qrels_table(qrels), as_run_table(run)
    if trec_eval is not None:
        conventions = make_conventions(conventions, trec_eval=trec_eval)
    return evaluate_prepared(prepare_run(qrels, run, measures, conventions))


def evaluate_tables_checked(qrels: QrelsTable, run: RunTable, measures, conv: Conventions):
    """The bulk path (:func:`evaluate_tables`) after refusing, with its row, a grade the measures
    cannot score (see :func:`metrics.evaluate.grade_limit`)."""
    parsed = as_measures(measures)
    check_grade_range(qrels.grade, grade_limit(parsed, conv), lambda row: f"{qrels.name} row {row}")
    return evaluate_tables(qrels, run, parsed, conv)


def evaluate_files(
    qrels_source: Source,
    run_source: Source,
    measures: str | Iterable[str | Measure],
    conventions: Conventions | None = None,
    *,
    trec_eval: str | None = None,
) -> tuple[list[str], dict[str, np.ndarray], dict[str, float]]:
    """Read qrels and a run, then :func:`evaluate_tables` (``trec_eval`` as there); the tables are released before
    the kernels run."""
    if trec_eval is not None:
        conventions = make_conventions(conventions, trec_eval=trec_eval)
    return evaluate_prepared(prepare_run(read_qrels(qrels_source), read_run(run_source), measures, conventions))


__all__ = ["PreparedRun", "SubtopicMatrix", "batch_for_run", "batches_for_run", "evaluate_files", "evaluate_prepared",
           "evaluate_subtopic_run", "evaluate_tables", "evaluate_tables_checked", "prepare_run",
           "relevance_strings_of_run", "subtopic_batch", "subtopic_matrix", "with_placeholders"]
