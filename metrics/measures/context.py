"""The context every kernel reads: a batch under one set of conventions, with shared intermediates.

Intermediates (cumulative relevance, gains, cumulative DCG, the ideal DCG) are computed once per context and
shared by every kernel evaluated on it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from functools import cached_property
from typing import Any

import numpy as np

from ..conventions import Conventions
from ..model import RankingBatch

Kernel = Callable[["Context", np.ndarray], np.ndarray]

class Context:
    """A batch under one set of conventions, with the intermediates that several kernels share."""

    def __init__(self, batch: RankingBatch, conventions: Conventions, gain_map: Mapping[int, float] | None = None):
        self.batch = batch
        self.conventions = conventions
        self.gain_map = dict(gain_map) if gain_map else None
        self.level = conventions.relevance_level
        self._shared: dict = {}

    def shared(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per context and ``key``: intermediates a family of kernels shares under its own
        parameters (the diversity measures' novelty gains for one alpha)."""
        if key not in self._shared:
            self._shared[key] = compute()
        return self._shared[key]

    # ---- relevance ---------------------------------------------------------------------------
    @cached_property
    def relevant(self) -> np.ndarray:
        return self.batch.judged & (self.batch.grades >= self.level)

    @cached_property
    def cum_relevant(self) -> np.ndarray:
        return np.cumsum(self.relevant, axis=1, dtype=np.int64)

    @cached_property
    def relevant_positions(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every relevant document in row-major order: its row, its rank, and how many relevant documents of its
        row are at or above it. Relevant documents are few, so kernels that only look at them stay cheap."""
        flat = np.flatnonzero(self.relevant)
        rows, columns = np.divmod(flat, self.batch.width)
        nth = np.arange(1, flat.shape[0] + 1) - np.searchsorted(rows, rows, side="left")
        return rows, columns + 1, nth

    @cached_property
    def num_relevant(self) -> np.ndarray:
        """R: judged documents with grade >= the relevance level, retrieved or not."""
        return self.per_judgments(lambda judged: (judged >= self.level).sum(axis=1))

    @cached_property
    def num_judged_nonrelevant(self) -> np.ndarray:
        return self.per_judgments(lambda judged: ((judged >= 0) & (judged < self.level)).sum(axis=1))

    def per_judgments(self, count: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``count`` (a function of the (n, m) judged grades giving one value per row) of every row. A batch whose
        rows share one query's judgments as a stride-0 view (RankingBatch.reordered, the disagreement lab) is
        counted once, not n x m cells."""
        judged = self.batch.judged_grades
        if judged.shape[0] > 1 and judged.strides[0] == 0:
            return np.repeat(count(judged[:1]), judged.shape[0])
        return count(judged)

    @cached_property
    def retrieved(self) -> np.ndarray:
        """(n, w) True at the ranks each ranking fills (rank <= |L|)."""
        return np.arange(self.batch.width) < self.batch.lengths[:, None]

    @cached_property
    def judged_nonrelevant(self) -> np.ndarray:
        return self.batch.judged & (self.batch.grades < self.level)

    @cached_property
    def unjudged(self) -> np.ndarray:
        """Retrieved documents without a grade >= 0: outside the qrels, or in them with a negative grade."""
        return self.retrieved & ~self.batch.judged

    @cached_property
    def pooled_unjudged(self) -> np.ndarray:
        """Retrieved documents in the qrels with a negative grade (in the pool, unjudged; trec_eval's infAP)."""
        return self.unjudged & (self.batch.grades < 0)

    @cached_property
    def num_retrieved_relevant(self) -> np.ndarray:
        return self.cum_relevant[:, -1]

    @cached_property
    def ranks(self) -> np.ndarray:
        return np.arange(1, self.batch.width + 1, dtype=np.float64)

    def at(self, cumulative: np.ndarray, cutoffs: np.ndarray) -> np.ndarray:
        """Columns of a cumulative (n, w) matrix at each cut-off (0 = whole ranking): (n, len(cutoffs))."""
        width = cumulative.shape[1]
        columns = np.where((cutoffs <= 0) | (cutoffs > width), width, cutoffs) - 1
        return cumulative[:, columns]

    # ---- gains -------------------------------------------------------------------------------
    def gain_of(self, grades: np.ndarray) -> np.ndarray:
        """Gain of judged grades (>= 0) under the gain convention or an explicit trec_eval gain map."""
        if self.gain_map is not None:
            gains = grades.astype(np.float64, copy=True)
            for level, gain in self.gain_map.items():
                gains[grades == level] = gain
            return gains
        kind = self.conventions.gain
        if kind == "linear":
            return grades.astype(np.float64, copy=False)
        if kind == "exponential":
            return np.exp2(grades) - 1.0
        if kind == "thresholded":
            return np.where(grades >= self.level, grades, 0.0).astype(np.float64)
        return (grades >= self.level).astype(np.float64)

    @cached_property
    def own_gains(self) -> np.ndarray:
        """Each ranked document's own gain (0 when unjudged)."""
        return np.where(self.batch.judged, self.gain_of(self.batch.grades), 0.0)

    @cached_property
    def gains(self) -> np.ndarray:
        """The gain DCG credits at each rank: the document's own, or with ``tied_gains="averaged"`` the mean gain
        of its group of equally scored documents (scikit-learn's ndcg_score), whatever their order."""
        tied = self.batch.tied_with_previous
        if self.conventions.tied_gains != "averaged" or tied is None or not tied.any():
            return self.own_gains
        group = np.cumsum(~tied.ravel()) - 1  # rank 1 of every row opens a group, so groups never span rows
        sums = np.bincount(group, weights=self.own_gains.ravel())
        sizes = np.bincount(group)
        return (sums / sizes)[group].reshape(tied.shape)

    @cached_property
    def discounts(self) -> np.ndarray:
        return rank_discounts(self.batch.width, self.conventions.discount)

    @cached_property
    def cum_dcg(self) -> np.ndarray:
        # gain / log2(r + 1), accumulated in rank order, exactly as trec_eval sums it.
        return np.cumsum(self.gains / self.discounts, axis=1)

    def cum_dcg_through(self, rank: int) -> np.ndarray:
        """``cum_dcg`` for the first ``rank`` ranks only: nDCG@10 of a 1000-document run needs 1% of the work."""
        if rank <= 0 or rank >= self.batch.width:
            return self.cum_dcg
        if self.gains is not self.own_gains:  # averaged over tie groups, which may reach below `rank`
            return np.cumsum(self.gains[:, :rank] / self.discounts[:rank], axis=1)
        judged = self.batch.judged[:, :rank]
        gains = np.where(judged, self.gain_of(self.batch.grades[:, :rank]), 0.0)
        return np.cumsum(gains / self.discounts[:rank], axis=1)

    @cached_property
    def ideal_gains(self) -> np.ndarray:
        """(n, m) the ideal ranking's gains, best first, then zeros (the ideal DCG's numerators)."""
        return self._ideal[0]

    @cached_property
    def cum_ideal_dcg(self) -> np.ndarray:
        return self._ideal[1]

    @cached_property
    def _ideal(self) -> tuple[np.ndarray, np.ndarray]:
        shared = False
        if self.conventions.ideal_from == "retrieved":
            source = self.own_gains  # the ideal sorts the documents' own gains, tied or not
        else:
            judged = self.batch.judged_grades
            # A what-if batch (RankingBatch.reordered) shares one query's judgments across all rows as a
            # stride-0 view: sort them once instead of once per row.
            shared = judged.shape[0] > 1 and judged.strides[0] == 0
            if shared:
                judged = judged[:1]
            source = np.where(judged >= 0, self.gain_of(np.maximum(judged, 0)), 0.0)
        if self.gain_map is not None and self.conventions.ideal_from == "judgments":
            # trec_eval's own order of the ideal gains (see trec_eval_ideal_gains), not a plain sort.
            ideal = np.array([trec_eval_ideal_gains(self.gain_map, row, judged.shape[1]) for row in judged])
        else:
            ideal = -np.sort(-np.where(source > 0, source, 0.0), axis=1)
        discounts = rank_discounts(ideal.shape[1], self.conventions.discount)
        cumulative = np.cumsum(ideal / discounts, axis=1)
        if shared:
            shape = (self.batch.size, cumulative.shape[1])
            return np.broadcast_to(ideal, shape), np.broadcast_to(cumulative, shape)
        return ideal, cumulative


def rank_discounts(width: int, rule: str = "log2") -> np.ndarray:
    """The divisor of the gain at ranks 1..width: log2(r + 1) (trec_eval), or Järvelin and Kekäläinen's
    max(1, log_b(r)) with b = 2 (``jk_b2``) or 10 (``jk_b10``): no discount before rank b."""
    ranks = np.arange(1, width + 1, dtype=np.float64)
    if rule == "log2":
        return np.log2(ranks + 1.0)
    base = 2.0 if rule == "jk_b2" else 10.0
    return np.where(ranks < base, 1.0, np.log(ranks) / np.log(base))


def trec_eval_ideal_gains(gain_map: Mapping[int, float], judged_grades: np.ndarray, width: int) -> np.ndarray:
    """The ideal gains trec_eval's ``ndcg`` uses with gain parameters (``ndcg.1=3,2=9``), quirks included.

    trec_eval lists the parameters in the order given, then every other grade 0..max with gain = grade, sorts that
    list with glibc's merge sort and the comparator ``(int)(gain1 - gain2)``, and walks it from the top while the
    gain is positive. The integer comparator treats gains less than 1 apart as equal, so such levels keep their
    listed order and a smaller gain can come first; this reproduces that exactly. ``gain_map`` must keep the order
    in which the parameters were written.
    """
    grades = judged_grades[judged_grades >= 0].astype(np.int64)
    counts = np.bincount(grades) if grades.size else np.zeros(0, dtype=np.int64)
    levels = [[level, float(gain), int(counts[level]) if 0 <= level < counts.size else 0]
              for level, gain in gain_map.items()]
    listed = {level for level, _, _ in levels}
    levels += [[level, float(level), int(counts[level])] for level in range(counts.size) if level not in listed]
    ideal: list[float] = []
    ordered = _glibc_merge_sort(levels, lambda a, b: int(a[1] - b[1]))
    if ordered and ordered[-1][1] > 0:
        for _, gain, count in reversed(ordered):
            if count == 0:
                continue
            if gain <= 0:
                break
            ideal.extend([gain] * count)
    row = np.zeros(width)
    row[: min(len(ideal), width)] = ideal[:width]
    return row


def _glibc_merge_sort(items: list, compare) -> list:
    """glibc's qsort for small arrays (msort_with_tmp): split n/2, sort halves, merge taking the left on <= 0."""
    if len(items) <= 1:
        return list(items)
    half = len(items) // 2
    left, right = _glibc_merge_sort(items[:half], compare), _glibc_merge_sort(items[half:], compare)
    merged = []
    while left and right:
        merged.append(left.pop(0) if compare(left[0], right[0]) <= 0 else right.pop(0))
    return merged + left + right


def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval's rule for an empty denominator)."""
    denominator = np.broadcast_to(denominator, numerator.shape)
    out = np.zeros(numerator.shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out
