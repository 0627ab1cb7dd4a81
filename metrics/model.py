"""The data model: qrels, runs, ordered rankings, and the padded batch every kernel reads.

qrels are ``{qid: {doc: grade}}`` with integer grades. As in trec_eval, a grade >= 0 is a judgment and a
negative grade marks a document that is in the pool but unjudged. A run is ``{qid: {doc: score}}``. A single
query may also be an explicit ranking: a sequence of doc ids in rank order (what the app's editor holds).

A :class:`RankingBatch` holds many rankings at once, already ordered and cut: the grade at every rank, whether
that document is judged, each ranking's length, and every judged grade of its query (for R and the ideal DCG).
Ties are resolved before a batch exists, so kernels never see scores.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .conventions import NonpositiveScores, ScorePrecision, TieOrder

Qrels = Mapping[str, Mapping[str, int]]
Run = Mapping[str, Mapping[str, float]]
#: Subtopic (intent) judgments, as NIST's ndeval reads them (``qid subtopic docno grade``): ``{qid: {doc: {subtopic:
#: grade}}}``.
SubtopicQrels = Mapping[str, Mapping[str, Mapping[str, int]]]

#: Pads the judged-grade matrix; any negative value works because judged grades are >= 0.
NO_JUDGMENT = -1


class InputError(ValueError):
    """Bad input data: names what is wrong and where."""


def short_repr(value: object, limit: int = 60) -> str:
    """repr of a user's value for a message, cut to ``limit`` characters (containers by their type and size)."""
    if isinstance(value, (list, tuple, dict, set)):
        return f"a {type(value).__name__} of {len(value)} items"
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 4] + "..." + text[-1]


def order_documents(
    scores: Mapping[str, float], tie_order: TieOrder = "trec_eval", *, qid: str = "",
    score_precision: ScorePrecision = "float32",
) -> list[str]:
    """Doc ids by score descending; equal scores are ordered by ``tie_order`` (:func:`in_ranking_order` for one
    query).

    ``trec_eval`` breaks ties by doc id descending in byte order (Python compares ``str`` by code point, which is
    UTF-8 byte order), ``docid_ascending`` the other way, ``as_given`` keeps the mapping's insertion order, and
    ``ranx`` orders them as numba's quicksort of the scores in insertion order leaves them (ranx's ``Run``), and
    ``ranx_resorted`` as that quicksort leaves them when run again on its own output (``make_comparable=True``).
    With ``score_precision="float32"`` (trec_eval 9 and pytrec_eval) scores are compared after rounding to 32-bit
    floats, so 0.1 and 0.1 + 1e-9 tie; ``float64`` compares them as given (trec_eval 10).
    """
    docs = list(scores)
    for doc in docs:
        if not _is_finite_number(scores[doc]):
            where = f"query {qid!r}, " if qid else ""
            raise InputError(f"{where}document {doc!r}: score must be a finite number, got {short_repr(scores[doc])}")
    _check_tie_order(tie_order)
    compared = compared_scores(np.fromiter((_as_double(scores[doc]) for doc in docs), dtype=np.float64,
                                           count=len(docs)), score_precision)

    def doc_codes(lines: np.ndarray) -> np.ndarray:
        tied = [docs[line] for line in lines.tolist()]
        code_of = {doc: code for code, doc in enumerate(sorted(tied))}  # doc ids are distinct within a query
        return np.fromiter((code_of[doc] for doc in tied), dtype=np.int64, count=len(tied))

    (order,) = in_ranking_order(np.zeros(len(docs), dtype=np.int64), compared, tie_order, ties_by_keys(doc_codes),
                                np.arange(len(docs)))
    return [docs[i] for i in order.tolist()]


#: Sorts tied lines by doc id: ``(lines, group, descending)`` -> the permutation that orders ``lines`` (numbered as
#: in the input) by doc id in byte order, descending or not, inside each run of equal ``group`` ids.
TieSorter = Callable[[np.ndarray, np.ndarray, bool], np.ndarray]


def ties_by_keys(keys_of: Callable[[np.ndarray], np.ndarray]) -> TieSorter:
    """A :data:`TieSorter` from ``keys_of(lines)``: integers that sort as those lines' doc ids do in byte order."""

    def sort(lines: np.ndarray, group: np.ndarray, descending: bool) -> np.ndarray:
        keys = keys_of(lines)
        return _sort_within_groups(~keys if descending else keys, group)

    return sort


def in_ranking_order(
    groups: np.ndarray, scores: np.ndarray, tie_order: TieOrder, sort_ties: TieSorter,
    *columns: np.ndarray, overwrite: bool = False,
) -> tuple[np.ndarray, ...]:
    """``columns`` (arrays with one value per line) permuted into trec_eval's ranking order: by ``groups``
    ascending (the query of each line), then ``scores`` descending, then equal scores by ``tie_order``: doc id
    descending in byte order (``trec_eval``), ascending (``docid_ascending``), the input order (``as_given``), or
    as numba's quicksort of each group's scores in input order leaves them (``ranx``: :func:`numba_quicksort`;
    ``ranx_resorted``: that quicksort twice).

    The one tie sort of the project: the explorer's lists, the bulk path and the convention finder all go through
    it. ``scores`` are compared as given (round them with :func:`compared_scores` first). ``sort_ties`` orders
    the tied lines by doc id (:func:`ties_by_keys` makes one from integer keys; the bulk path sorts long string ids
    with Arrow); it is called once, and only for the lines that tie, so its cost follows the ties. Input already in
    order (as run files usually are) is not sorted again; with ``overwrite`` its columns are then reordered in place
    (no copy).
    """
    _check_tie_order(tie_order)
    n = groups.shape[0]
    if n == 0:
        return columns
    given_columns = columns
    same_group = groups[1:] == groups[:-1]
    if bool((groups[1:] >= groups[:-1]).all() and (~same_group | (scores[1:] <= scores[:-1])).all()):
        order = None
        tied_with_next = same_group
        tied_with_next &= scores[1:] == scores[:-1]
    else:
        del same_group
        order = np.lexsort((-scores, groups))  # stable: equal scores keep the input order (as_given)
        columns = tuple(column[order] for column in columns)
        sorted_groups, sorted_scores = groups[order], scores[order]
        tied_with_next = (sorted_groups[1:] == sorted_groups[:-1]) & (sorted_scores[1:] == sorted_scores[:-1])
        del sorted_groups, sorted_scores
    if tie_order == "as_given" or not tied_with_next.any():
        return columns
    if tie_order in ("ranx", "ranx_resorted"):
        passes = 1 if tie_order == "ranx" else 2
        return _numba_quicksort_order(groups, scores, order, tied_with_next, given_columns, passes)
    in_tie = np.zeros(n, dtype=bool)
    in_tie[:-1] |= tied_with_next
    in_tie[1:] |= tied_with_next
    tied = np.flatnonzero(in_tie)
    # A tie group starts where a tied element is not tied with its predecessor.
    starts = np.ones(tied.shape[0], dtype=bool)
    starts[1:] = ~tied_with_next[tied[1:] - 1]
    del tied_with_next
    group = np.cumsum(starts, dtype=np.int64)
    within = sort_ties(tied if order is None else order[tied], group, tie_order == "trec_eval")
    permuted = []
    for given, column in zip(given_columns, columns):
        if given is groups:  # equal inside every tie: already in its final order
            permuted.append(column)
            continue
        if order is None and not overwrite:
            column = column.copy()  # the caller's array stays as it was
        column[tied] = column[tied[within]]
        permuted.append(column)
    return tuple(permuted)


def _check_tie_order(tie_order: str) -> None:
    if tie_order not in ("trec_eval", "as_given", "docid_ascending", "ranx", "ranx_resorted"):
        raise ValueError(f"Argument `tie_order` has to be 'trec_eval', 'as_given', 'docid_ascending', 'ranx' or "
                         f"'ranx_resorted', got {tie_order!r}")


#: numba's quicksort leaves partitions of fewer than this many elements to its (stable) insertion sort.
_NUMBA_SMALL_QUICKSORT = 16


def _numba_quicksort_order(groups: np.ndarray, scores: np.ndarray, order: np.ndarray | None,
                           tied_with_next: np.ndarray, columns: tuple[np.ndarray, ...],
                           passes: int = 1) -> tuple[np.ndarray, ...]:
    """``columns`` in ranx's ranking order: each group's lines in input order sorted as ranx's ``Run`` sorts a
    query (``np.argsort`` of the negated scores, compiled by numba: :func:`numba_quicksort`), ``passes`` times
    (``evaluate(..., make_comparable=True)`` sorts the sorted run once more). ``order`` is the stable sort by
    (group, score descending), None where the input is in that order; ``tied_with_next`` marks the positions of
    that order tied with the next. Only groups of 16 lines or more with a tie can differ from it."""
    n = groups.shape[0]
    permutation = np.arange(n) if order is None else order.copy()
    sorted_groups = groups[permutation]
    starts = np.flatnonzero(np.concatenate(([True], sorted_groups[1:] != sorted_groups[:-1])))
    ends = np.append(starts[1:], n)
    tie_counts = np.add.reduceat(np.append(tied_with_next, False).astype(np.int64), starts)
    for start, end, ties in zip(starts.tolist(), ends.tolist(), tie_counts.tolist()):
        if end - start < _NUMBA_SMALL_QUICKSORT or not ties:
            continue
        lines = np.sort(permutation[start:end])  # the group's lines in input order
        for _ in range(passes):
            lines = lines[numba_quicksort((-scores[lines]).tolist())]
        permutation[start:end] = lines
    return tuple(column[permutation] for column in columns)


def numba_quicksort(keys: Sequence[float]) -> list[int]:
    """The permutation numba's ``np.argsort`` (``kind="quicksort"``, numba/misc/quicksort.py) returns for ``keys``:
    a quicksort with the median of the first, middle and last keys as pivot, partitions of fewer than 16 keys
    left to an insertion sort. Not stable beyond 15 keys, but the same for the same keys in the same order.

    A transcription of ``run_quicksort1`` and its ``partition`` and ``insertion_sort``, step for step (the order
    in which partitions are taken from the stack cannot change the result: they are disjoint).
    """
    A = keys
    R = list(range(len(A)))
    stack = [(0, len(A) - 1)] if len(A) >= 2 else []
    while stack:
        low, high = stack.pop()
        while high - low >= _NUMBA_SMALL_QUICKSORT - 1:
            mid = (low + high) >> 1
            # median of three {low, middle, high}
            if A[R[mid]] < A[R[low]]:
                R[low], R[mid] = R[mid], R[low]
            if A[R[high]] < A[R[mid]]:
                R[high], R[mid] = R[mid], R[high]
            if A[R[mid]] < A[R[low]]:
                R[low], R[mid] = R[mid], R[low]
            pivot = A[R[mid]]
            R[high], R[mid] = R[mid], R[high]  # the pivot waits at the end
            i, j = low, high - 1
            while True:
                while i < high and A[R[i]] < pivot:
                    i += 1
                while j >= low and pivot < A[R[j]]:
                    j -= 1
                if i >= j:
                    break
                R[i], R[j] = R[j], R[i]
                i += 1
                j -= 1
            R[i], R[high] = R[high], R[i]
            if high - i > i - low:  # the larger side waits on the stack
                if high > i:
                    stack.append((i + 1, high))
                high = i - 1
            else:
                if i > low:
                    stack.append((low, i - 1))
                low = i + 1
        for i in range(low + 1, high + 1):  # insertion sort of R[low:high + 1], stable
            k = R[i]
            v = A[k]
            j = i
            while j > low and v < A[R[j - 1]]:
                R[j] = R[j - 1]
                j -= 1
            R[j] = k
    return R


def _sort_within_groups(values: np.ndarray, group: np.ndarray) -> np.ndarray:
    """Permutation sorting ``values`` ascending inside each run of equal, sorted ``group`` ids.

    Tie groups are mostly pairs, so an odd-even transposition sort (one vectorised compare-and-swap pass per
    element of the largest group) beats a full lexsort; large groups use the lexsort.
    """
    largest = int(np.bincount(group).max(initial=0)) if group.shape[0] else 0
    if largest > 16:
        return np.lexsort((values, group))
    values = values.copy()
    permutation = np.arange(values.shape[0])
    for step in range(largest):
        left = np.arange(step % 2, values.shape[0] - 1, 2)
        left = left[(group[left] == group[left + 1]) & (values[left] > values[left + 1])]
        right = left + 1
        values[left], values[right] = values[right], values[left].copy()
        permutation[left], permutation[right] = permutation[right], permutation[left].copy()
    return permutation


def _as_double(score: float) -> float:
    try:
        return float(score)
    except OverflowError:  # an int beyond the double range: atof reads it as an infinity
        return math.copysign(math.inf, score)


def compared_scores(scores: np.ndarray, score_precision: ScorePrecision = "float32") -> np.ndarray:
    """The scores as the ranking compares them: rounded to float32 (trec_eval 9, pytrec_eval) or as float64.

    trec_eval 9 reads a score with ``atof`` into a C ``float``: a double rounded to nearest, and beyond the float
    range an infinity. The result is float64 again (exactly representable), so callers compare it as usual.
    """
    if score_precision == "float64":
        return np.asarray(scores, dtype=np.float64)
    if score_precision != "float32":
        raise ValueError(f"Argument `score_precision` has to be 'float32' or 'float64', got {score_precision!r}")
    with np.errstate(over="ignore"):
        return np.asarray(scores, dtype=np.float64).astype(np.float32).astype(np.float64)


def _is_finite_number(value: object) -> bool:
    if not isinstance(value, (int, float, np.integer, np.floating)) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int beyond a double's range
        return False


def check_unique(ranking: Sequence[str], *, qid: str = "") -> None:
    """Raise InputError naming the first document that appears twice in one ranking."""
    if len(set(ranking)) == len(ranking):
        return
    seen: set[str] = set()
    for rank, doc in enumerate(ranking, start=1):
        if doc in seen:
            where = f"query {qid!r}: " if qid else ""
            raise InputError(f"{where}document {doc!r} appears twice in the ranking (again at rank {rank})")
        seen.add(doc)


#: trec_eval reads a grade into a C long: the range of grades every reader and the API accept.
MIN_GRADE, MAX_GRADE = -(2**63), 2**63 - 1


def check_grades(judgments: Mapping[str, int], *, qid: str = "", where: str = "") -> None:
    """Raise InputError for judgments that are not a mapping, or a grade that is not an integer (NaN, text, 1.5)
    or lies outside trec_eval's range (a 64-bit integer). Messages start with ``where``, else the query."""
    prefix = where or (f"query {qid!r}" if qid else "")
    if not isinstance(judgments, Mapping):
        raise InputError(f"{prefix}{': ' if prefix else ''}judgments have to map document ids to integer grades "
                         f"({{doc: grade}}), got {type(judgments).__name__}")
    where = f"{prefix}, " if prefix else ""
    for doc, grade in judgments.items():
        ok = isinstance(grade, (int, np.integer)) and not isinstance(grade, bool)
        if not ok and isinstance(grade, (float, np.floating)) and float(grade).is_integer():
            ok = True
        if not ok:
            raise InputError(f"{where}document {doc!r}: grade must be an integer, got {short_repr(grade)}")
        if not MIN_GRADE <= grade <= MAX_GRADE:
            raise InputError(f"{where}document {doc!r}: grade {grade!r} is out of range; grades are whole numbers "
                             f"from -2^63 to 2^63-1, as trec_eval reads them")


@dataclass(frozen=True, slots=True)
class RankingBatch:
    """Many ordered rankings as padded matrices; row i is one ranking.

    grades:  (n, width) float64, the judged grade at each rank; where unjudged, -1 for a document in the qrels with
        a negative grade (in the pool but unjudged, which trec_eval's infAP tells apart) and 0 for one outside
        the qrels or past the end.
    judged:  (n, width) bool, the document at that rank has a grade >= 0.
    lengths: (n,) int64, the number of retrieved documents in each ranking.
    judged_grades: (n, m) float64, every grade >= 0 of the query's judgments, sorted descending and padded
        with NO_JUDGMENT; R, the number of judged non-relevant and the ideal DCG all derive from it.
    tied_with_previous: (n, width) bool or None, the document at that rank has the same score as the one above
        it; only kept when a convention needs it (``tied_gains="averaged"``), None meaning "no ties known".
    subtopics: :class:`SubtopicRows` or None, the judgments per subtopic of the ranked documents, for the diversity
        measures; None: each query's judgments are its one subtopic (as ir_measures' pyndeval provider reads qrels
        without subtopics).
    """

    grades: np.ndarray
    judged: np.ndarray
    lengths: np.ndarray
    judged_grades: np.ndarray
    tied_with_previous: np.ndarray | None = None
    subtopics: SubtopicRows | None = None

    @property
    def size(self) -> int:
        return int(self.lengths.shape[0])

    @property
    def width(self) -> int:
        return int(self.grades.shape[1])

    def rows(self, index: np.ndarray | Sequence[int]) -> RankingBatch:
        """The batch made of the given rows (repeats allowed)."""
        index = np.asarray(index, dtype=np.int64)
        tied = None if self.tied_with_previous is None else self.tied_with_previous[index]
        subtopics = None if self.subtopics is None else self.subtopics.rows(index)
        return RankingBatch(self.grades[index], self.judged[index], self.lengths[index], self.judged_grades[index],
                            tied, subtopics)

    def reordered(self, row: int, positions: np.ndarray) -> RankingBatch:
        """Rankings made from row ``row``: output rank j of ranking i holds the document at ``positions[i, j]``.

        A position of -1 leaves that rank empty; each ranking's length is its number of non-negative positions,
        and those must come first. This is how swaps, moves and removals become one batch.
        """
        positions = np.asarray(positions, dtype=np.int64)
        if positions.ndim != 2:
            raise ValueError("Argument `positions` has to be a 2-d array of source ranks")
        present = positions >= 0
        safe = np.where(present, positions, 0)
        grades = np.where(present, self.grades[row][safe], 0.0)
        judged = present & self.judged[row][safe]
        lengths = present.sum(axis=1)
        judged_grades = np.broadcast_to(self.judged_grades[row], (positions.shape[0], self.judged_grades.shape[1]))
        subtopics = None if self.subtopics is None else self.subtopics.reordered(row, positions)
        return RankingBatch(grades, judged, lengths.astype(np.int64), judged_grades, subtopics=subtopics)

    @classmethod
    def from_rankings(
        cls,
        rankings: Sequence[Sequence[str]],
        judgments: Sequence[Mapping[str, int]],
        *,
        depth: int | None = None,
        judged_only: bool = False,
        scores: Sequence[Sequence[float]] | None = None,
        subtopics: Sequence[Mapping[str, Mapping[str, int]]] | None = None,
        nonpositive_scores: NonpositiveScores = "retrieved",
    ) -> RankingBatch:
        """Build a batch from ordered doc-id lists and each query's judgments.

        ``depth`` keeps the top documents only (trec_eval -M), applied before ``judged_only`` drops unjudged ones
        (trec_eval -J), as trec_eval does. ``scores`` (each ranking's scores in rank order, as compared) fill
        ``tied_with_previous``, for the conventions that treat tied documents alike, and with
        ``nonpositive_scores="not_relevant"`` clear the grades of the documents scored <= 0
        (:func:`nonpositive_not_relevant`). ``subtopics`` (each query's ``{doc: {subtopic: grade}}``) fill
        ``subtopics``, for the diversity measures.
        """
        clear_nonpositive = scores is not None and nonpositive_scores == "not_relevant"
        if len(rankings) != len(judgments):
            raise ValueError(f"got {len(rankings)} rankings but {len(judgments)} judgment sets")
        rows_grades: list[list[float]] = []
        rows_judged: list[list[bool]] = []
        rows_scores: list[list[float]] = []
        kept: list[list[str]] = []
        for i, (ranking, qrel) in enumerate(zip(rankings, judgments)):
            if depth is not None:
                ranking = ranking[:depth]
            row_grades: list[float] = []
            row_judged: list[bool] = []
            row_scores: list[float] = []
            row_docs: list[str] = []
            for j, doc in enumerate(ranking):
                grade = qrel.get(doc)
                is_judged = grade is not None and grade >= 0
                if judged_only and not is_judged:
                    continue
                if subtopics is not None:
                    row_docs.append(doc)
                row_grades.append(float(grade) if is_judged else -1.0 if grade is not None else 0.0)
                row_judged.append(is_judged)
                if scores is not None:
                    row_scores.append(scores[i][j])
            if clear_nonpositive and row_scores:
                row_grades = nonpositive_not_relevant(np.asarray(row_grades), np.asarray(row_scores)).tolist()
            rows_grades.append(row_grades)
            rows_judged.append(row_judged)
            rows_scores.append(row_scores)
            kept.append(row_docs)
        lengths = np.fromiter((len(r) for r in rows_grades), dtype=np.int64, count=len(rows_grades))
        width = max(1, int(lengths.max(initial=0)))
        grades = np.zeros((len(rows_grades), width))
        judged = np.zeros((len(rows_grades), width), dtype=bool)
        tied = np.zeros((len(rows_grades), width), dtype=bool) if scores is not None else None
        for i, (row_grades, row_judged) in enumerate(zip(rows_grades, rows_judged)):
            grades[i, : len(row_grades)] = row_grades
            judged[i, : len(row_judged)] = row_judged
            if tied is not None and len(rows_scores[i]) > 1:
                row = np.asarray(rows_scores[i], dtype=np.float64)
                tied[i, 1: len(row)] = row[1:] == row[:-1]
        rows = None if subtopics is None else SubtopicRows.from_rankings(kept, subtopics)
        return cls(grades, judged, lengths, judged_grade_matrix(judgments), tied, rows)


def nonpositive_not_relevant(grades: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """``grades`` (of documents, one per score) with every judgment of a document scored <= 0 read as grade 0:
    ``nonpositive_scores="not_relevant"``, torchmetrics' ``torch.where(preds > 0, target, 0)`` (1.7.4 and
    later). The document keeps its rank and stays judged; a grade < 0 (unjudged, or outside the qrels) is kept.
    ``scores`` are as compared (:func:`compared_scores`: a double that rounds to 0 as a float32 is 0). Every
    batch builder that reads scores (the dict path, the bulk path, the convention finder) applies it here."""
    return np.where((scores > 0) | (grades < 0), grades, 0.0)


def is_subtopic_number(subtopic: str) -> bool:
    """Whether a subtopic id is a number (ASCII digits), which ndeval orders by its value."""
    return subtopic.isascii() and subtopic.isdigit()


def subtopic_number_order(subtopic: str) -> tuple[int, str, str]:
    """The sort key of a number subtopic id: its value, then the id ((int(id), id), without int()'s digit limit)."""
    digits = subtopic.lstrip("0")
    return len(digits), digits, subtopic


@dataclass(frozen=True, slots=True)
class SubtopicJudgments:
    """One query's judgments per subtopic, as ndeval holds them: its judged documents in doc id order (byte order,
    ascending: ndeval's greedy ideal ranking breaks ties by it) and the (document, subtopic) pairs that have a line.

    docs: the judged doc ids, sorted; subtopics: the subtopic ids, by number as ndeval numbers them (in order of
    first appearance when some id is not a number): the gains of a rank are added in this order;
    pair_starts: (len(docs) + 1,) document i's pairs are ``pair_starts[i]:pair_starts[i + 1]``;
    pair_subtopic, pair_grade: (pairs,) int64, each pair's subtopic (an index into ``subtopics``, ascending within a
    document) and grade. Memory follows the lines, never documents x subtopics.
    """

    docs: tuple[str, ...]
    subtopics: tuple[str, ...]
    pair_starts: np.ndarray
    pair_subtopic: np.ndarray
    pair_grade: np.ndarray

    @classmethod
    def from_mapping(cls, judgments: Mapping[str, Mapping[str, int]]) -> SubtopicJudgments:
        docs = tuple(sorted(judgments))
        subtopics = tuple(dict.fromkeys(subtopic for doc in judgments for subtopic in judgments[doc]))
        if all(is_subtopic_number(subtopic) for subtopic in subtopics):
            subtopics = tuple(sorted(subtopics, key=subtopic_number_order))  # ndeval's order
        index = {subtopic: j for j, subtopic in enumerate(subtopics)}
        pairs = [sorted((index[subtopic], grade) for subtopic, grade in judgments[doc].items()) for doc in docs]
        counts = np.fromiter(map(len, pairs), dtype=np.int64, count=len(docs))
        flat = [pair for doc_pairs in pairs for pair in doc_pairs]
        pair_starts = np.zeros(len(docs) + 1, dtype=np.int64)
        pair_starts[1:] = np.cumsum(counts)
        pair_subtopic = np.fromiter((j for j, _ in flat), dtype=np.int64, count=len(flat))
        pair_grade = np.fromiter((grade for _, grade in flat), dtype=np.int64, count=len(flat))
        return cls(docs, subtopics, pair_starts, pair_subtopic, pair_grade)


@dataclass(frozen=True, slots=True)
class SubtopicRows:
    """The subtopic judgments of a batch, every query's in one sparse table of (document, subtopic) pairs.

    pair_starts: (judged documents + 1,) the pairs of judged document i are ``pair_starts[i]:pair_starts[i + 1]``,
        each query's :class:`SubtopicJudgments` one block of documents; query q's documents start at ``starts[q]``
        (``starts`` has one entry more than there are queries).
    pair_subtopic, pair_grade: (pairs,) int64, each pair's subtopic (numbered within its query in ndeval's order,
        ascending within a document) and its grade; a pair without a line is absent.
    query_of_row: (n,) the query of each batch row; rows that share a judgments object share its block.
    judged_row: (n, width) the judged document at each rank (an index of ``pair_starts``), -1 where its query does
        not judge it.
    """

    pair_starts: np.ndarray
    pair_subtopic: np.ndarray
    pair_grade: np.ndarray
    starts: np.ndarray
    query_of_row: np.ndarray
    judged_row: np.ndarray

    @classmethod
    def from_rankings(cls, rankings: Sequence[Sequence[str]],
                      judgments: Sequence[Mapping[str, Mapping[str, int]]]) -> SubtopicRows:
        """Rows for rankings (doc ids in rank order, as the batch keeps them) and each one's ``{doc: {subtopic:
        grade}}``."""
        built: dict[int, int] = {}
        queries: list[SubtopicJudgments] = []
        positions: list[dict[str, int]] = []
        query_of_row = np.zeros(len(rankings), dtype=np.int64)
        for i, judgment in enumerate(judgments):
            if id(judgment) not in built:
                built[id(judgment)] = len(queries)
                queries.append(SubtopicJudgments.from_mapping(judgment))
                positions.append({doc: row for row, doc in enumerate(queries[-1].docs)})
            query_of_row[i] = built[id(judgment)]
        starts = np.cumsum([0] + [len(query.docs) for query in queries]).astype(np.int64)
        first_pair = np.cumsum([0] + [int(query.pair_starts[-1]) for query in queries]).astype(np.int64)
        pair_starts = np.concatenate([query.pair_starts[:-1] + first_pair[q] for q, query in enumerate(queries)]
                                     + [first_pair[-1:]])
        empty = np.zeros(0, dtype=np.int64)
        pair_subtopic = np.concatenate([empty] + [query.pair_subtopic for query in queries])
        pair_grade = np.concatenate([empty] + [query.pair_grade for query in queries])
        judged_row = np.full((len(rankings), max(1, max((len(r) for r in rankings), default=0))), -1, dtype=np.int64)
        for i, ranking in enumerate(rankings):
            q = int(query_of_row[i])
            position, start = positions[q], int(starts[q])
            judged_row[i, : len(ranking)] = [start + position[doc] if doc in position else -1 for doc in ranking]
        return cls(pair_starts, pair_subtopic, pair_grade, starts, query_of_row, judged_row)

    def rows(self, index: np.ndarray) -> SubtopicRows:
        return SubtopicRows(self.pair_starts, self.pair_subtopic, self.pair_grade, self.starts,
                            self.query_of_row[index], self.judged_row[index])

    def reordered(self, row: int, positions: np.ndarray) -> SubtopicRows:
        judged_row = np.where(positions >= 0, self.judged_row[row][np.where(positions >= 0, positions, 0)], -1)
        return SubtopicRows(self.pair_starts, self.pair_subtopic, self.pair_grade, self.starts,
                            np.full(positions.shape[0], self.query_of_row[row]), judged_row)


def judged_grade_matrix(judgments: Sequence[Mapping[str, int]]) -> np.ndarray:
    """(n, m) matrix of each query's grades >= 0, sorted descending, padded with NO_JUDGMENT."""
    lists = [sorted((g for g in qrel.values() if g >= 0), reverse=True) for qrel in judgments]
    width = max(1, max((len(grades) for grades in lists), default=0))
    matrix = np.full((len(lists), width), float(NO_JUDGMENT))
    for i, grades in enumerate(lists):
        matrix[i, : len(grades)] = grades
    return matrix


def rankings_for_run(
    qrels: Qrels, run: Run, tie_order: TieOrder = "trec_eval", *, include_missing: bool = False,
    score_precision: ScorePrecision = "float32", placeholder: str | None = None,
) -> tuple[list[str], list[list[str]]]:
    """The evaluated query ids (in run order, trec_eval's rule) and each one's ordered ranking.

    Queries without judgments are not evaluated, as in trec_eval. With ``include_missing`` (trec_eval -c), judged
    queries absent from the run follow as empty rankings, or as the one document ``placeholder`` (trec_eval 10's).
    """
    qids: list[str] = []
    rankings: list[list[str]] = []
    for qid, scores in run.items():
        if not qrels.get(qid):  # no judgment line, as trec_eval (and pytrec_eval) see it
            continue
        ranking = order_documents(scores, tie_order, qid=qid, score_precision=score_precision)
        qids.append(qid)
        rankings.append(ranking)
    if include_missing:
        for qid, judgments in qrels.items():
            if judgments and qid not in run:
                qids.append(qid)
                rankings.append([placeholder] if placeholder is not None else [])
    return qids, rankings


def iter_sorted_qids(qids: Iterable[str]) -> list[str]:
    """Query ids in trec_eval's output order (byte order of the id string)."""
    return sorted(qids)
