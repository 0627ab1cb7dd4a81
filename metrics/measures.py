"""Measure kernels and the measure registry.

Every kernel is one vectorised function over a :class:`~metrics.model.RankingBatch`. It receives a
:class:`Context` (the batch, the conventions, and cached intermediates such as cumulative relevance) and an
array of cut-offs, and returns an ``(n, len(cutoffs))`` array of per-ranking values. A cut-off of 0 means "the
whole ranking". Measures without a cut-off return one column. Averaging over queries is left to the caller.

Notation: for ranking i, rel_r is 1 when the document at rank r has grade >= ℓ (the relevance level), R is the
number of judged documents with grade >= ℓ, and |L| is the number of documents retrieved.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np

from .conventions import Conventions
from .model import RankingBatch

Kernel = Callable[["Context", np.ndarray], np.ndarray]


class Context:
    """A batch under one set of conventions, with the intermediates that several kernels share."""

    def __init__(self, batch: RankingBatch, conventions: Conventions, gain_map: Mapping[int, float] | None = None):
        self.batch = batch
        self.conventions = conventions
        self.gain_map = dict(gain_map) if gain_map else None
        self.level = conventions.relevance_level

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
        return (self.batch.judged_grades >= self.level).sum(axis=1)

    @cached_property
    def num_judged_nonrelevant(self) -> np.ndarray:
        judged = self.batch.judged_grades
        return ((judged >= 0) & (judged < self.level)).sum(axis=1)

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
        return (grades >= self.level).astype(np.float64)

    @cached_property
    def gains(self) -> np.ndarray:
        return np.where(self.batch.judged, self.gain_of(self.batch.grades), 0.0)

    @cached_property
    def discounts(self) -> np.ndarray:
        return np.log2(self.ranks + 1.0)

    @cached_property
    def cum_dcg(self) -> np.ndarray:
        # gain / log2(r + 1), accumulated in rank order, exactly as trec_eval sums it.
        return np.cumsum(self.gains / self.discounts, axis=1)

    def cum_dcg_through(self, rank: int) -> np.ndarray:
        """``cum_dcg`` for the first ``rank`` ranks only: nDCG@10 of a 1000-document run needs 1% of the work."""
        if rank <= 0 or rank >= self.batch.width:
            return self.cum_dcg
        judged = self.batch.judged[:, :rank]
        gains = np.where(judged, self.gain_of(self.batch.grades[:, :rank]), 0.0)
        return np.cumsum(gains / self.discounts[:rank], axis=1)

    @cached_property
    def cum_ideal_dcg(self) -> np.ndarray:
        shared = False
        if self.conventions.ideal_from == "retrieved":
            source = self.gains
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
        discounts = np.log2(np.arange(2, ideal.shape[1] + 2, dtype=np.float64))
        cumulative = np.cumsum(ideal / discounts, axis=1)
        return np.broadcast_to(cumulative, (self.batch.size, cumulative.shape[1])) if shared else cumulative


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


def _ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (trec_eval's rule for an empty denominator)."""
    denominator = np.broadcast_to(denominator, numerator.shape)
    out = np.zeros(numerator.shape, dtype=np.float64)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


# ---- kernels -------------------------------------------------------------------------------------


def precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""P@k = \frac{1}{k}\sum_{r=1}^{k} rel_r; with precision_short_list='retrieved' divide by min(k, |L|)."""
    hits = ctx.at(ctx.cum_relevant, cutoffs)
    k = np.broadcast_to(cutoffs.astype(np.float64), hits.shape)
    if ctx.conventions.precision_short_list == "retrieved":
        k = np.minimum(k, ctx.batch.lengths[:, None])
    return _ratio(hits.astype(np.float64), k)


def recall(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""R@k = \frac{1}{R}\sum_{r=1}^{k} rel_r, and 0 when R = 0."""
    return _ratio(ctx.at(ctx.cum_relevant, cutoffs).astype(np.float64), ctx.num_relevant[:, None])


def success(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""Success@k = 1 if some rel_r = 1 with r \le k, else 0."""
    return (ctx.at(ctx.cum_relevant, cutoffs) > 0).astype(np.float64)


def reciprocal_rank(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""RR@k = 1 / r^* where r^* is the rank of the first relevant document, and 0 if r^* > k or none is found."""
    found = ctx.relevant.any(axis=1)
    first_rank = np.where(found, ctx.relevant.argmax(axis=1) + 1, 0)
    limit = np.where(cutoffs <= 0, np.iinfo(np.int64).max, cutoffs)[None, :]
    hit = found[:, None] & (first_rank[:, None] <= limit)
    return np.where(hit, 1.0 / np.maximum(first_rank, 1)[:, None], 0.0)


def average_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""AP@k = \frac{1}{D}\sum_{r \le k,\ rel_r = 1} P@r, with D = R (trec_eval), min(R, k), or the relevant in the top k."""
    rows, ranks, nth = ctx.relevant_positions
    if rows.shape[0] * cutoffs.shape[0] > ctx.relevant.size:
        # Many cut-offs over many relevant documents (a curve over k): one cumulative pass over the matrix.
        precision = np.where(ctx.relevant, ctx.cum_relevant / ctx.ranks, 0.0)
        summed = ctx.at(np.cumsum(precision, axis=1), cutoffs)
        found = ctx.at(ctx.cum_relevant, cutoffs)
    else:
        # Few relevant documents (a large run): work on them alone.
        precision_at_rank = nth / ranks
        summed = np.empty((ctx.batch.size, cutoffs.shape[0]))
        found = np.empty_like(summed)
        for j, cutoff in enumerate(cutoffs):
            inside = ranks <= cutoff if cutoff > 0 else slice(None)
            # bincount adds the weights in rank order, as trec_eval accumulates them.
            summed[:, j] = np.bincount(rows[inside], weights=precision_at_rank[inside], minlength=ctx.batch.size)
            found[:, j] = np.bincount(rows[inside], minlength=ctx.batch.size)
    rule = ctx.conventions.ap_denominator
    if rule == "R":
        denominator = np.broadcast_to(ctx.num_relevant[:, None], summed.shape)
    elif rule == "min_R_k":
        k = np.where(cutoffs <= 0, np.iinfo(np.int64).max, cutoffs)[None, :]
        denominator = np.minimum(ctx.num_relevant[:, None], k)
    else:
        denominator = found
    return _ratio(summed, denominator.astype(np.float64))


def ndcg(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""nDCG@k = DCG@k / IDCG@k with DCG@k = \sum_{r=1}^{k} gain_r / \log_2(r+1); 0 when IDCG@k = 0."""
    deepest = int(cutoffs.max()) if (cutoffs > 0).all() else 0
    return _ratio(ctx.at(ctx.cum_dcg_through(deepest), cutoffs), ctx.at(ctx.cum_ideal_dcg, cutoffs))


def r_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""R-prec = \frac{1}{R}\sum_{r=1}^{R} rel_r: precision at rank R, and 0 when R = 0."""
    hits = ctx.cum_relevant[np.arange(ctx.batch.size), np.clip(ctx.num_relevant, 1, ctx.batch.width) - 1]
    return _ratio(hits.astype(np.float64), ctx.num_relevant)[:, None]


def bpref(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""bpref = \frac{1}{R}\sum_{rel_r=1} \left(1 - \frac{\min(n_r, R)}{\min(N, R)}\right), n_r the judged non-relevant above r, N all judged non-relevant."""
    rows, ranks, _ = ctx.relevant_positions
    width = ctx.batch.width
    # Judged non-relevant documents above each relevant one, counted on the flat (row-major) positions.
    nonrelevant = np.flatnonzero(ctx.batch.judged & (ctx.batch.grades < ctx.level))
    here = rows * width + ranks - 1
    above = np.searchsorted(nonrelevant, here) - np.searchsorted(nonrelevant, rows * width)
    R = ctx.num_relevant[rows]
    cap = np.minimum(ctx.num_judged_nonrelevant[rows], R).astype(np.float64)
    penalty = np.minimum(above, R) / np.where(cap > 0, cap, 1.0)
    terms = np.where(above > 0, 1.0 - penalty, 1.0)
    # Summed in rank order, as trec_eval accumulates it.
    summed = np.bincount(rows, weights=terms, minlength=ctx.batch.size)
    return _ratio(summed, ctx.num_relevant)[:, None]


def num_ret(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """Number of documents retrieved (after -M and -J)."""
    return ctx.batch.lengths.astype(np.float64)[:, None]


def num_rel(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """R, the number of relevant documents judged for the query."""
    return ctx.num_relevant.astype(np.float64)[:, None]


def num_rel_ret(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """Number of relevant documents retrieved."""
    return ctx.cum_relevant[:, -1].astype(np.float64)[:, None]


def num_q(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """Number of queries: 1 per query, summed over queries."""
    return np.ones((ctx.batch.size, 1))


# ---- registry ------------------------------------------------------------------------------------

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True, slots=True)
class MeasureInfo:
    """A registered measure: its names in both notations, documentation, and kernel."""

    name: str  # trec_eval's name, e.g. "ndcg_cut"
    ir_name: str  # ir_measures' name, e.g. "nDCG"
    pretty_name: str
    short_desc: str
    rewards: str  # one sentence on what the measure rewards
    kernel: Kernel
    cutoff: Literal["none", "required", "optional"] = "none"
    default_cutoffs: tuple[int, ...] = ()
    aggregate: Literal["mean", "sum"] = "mean"
    trec_eval: bool = True  # defined by trec_eval (so checked against pytrec_eval)
    conventions: tuple[str, ...] = field(default=())  # the conventions (beyond ties/unjudged) that change it

    @property
    def formula(self) -> str:
        """The LaTeX formula, the first line of the kernel's docstring."""
        return (self.kernel.__doc__ or "").strip().splitlines()[0]


MEASURES: dict[str, MeasureInfo] = {
    info.name: info
    for info in (
        MeasureInfo("P", "P", "Precision@k", "Fraction of the top k that is relevant.",
                    "Filling the top k with relevant documents, whatever their order inside it.",
                    precision, "required", TREC_CUTOFFS, conventions=("relevance_level", "precision_short_list")),
        MeasureInfo("recall", "R", "Recall@k", "Fraction of all relevant documents found in the top k.",
                    "Finding every relevant document somewhere in the top k: what a RAG retriever needs.",
                    recall, "required", TREC_CUTOFFS, conventions=("relevance_level",)),
        MeasureInfo("success", "Success", "Success@k", "1 if any relevant document is in the top k, else 0.",
                    "Having at least one relevant document in the top k; nothing else counts.",
                    success, "required", (1, 5, 10), conventions=("relevance_level",)),
        MeasureInfo("recip_rank", "RR", "Reciprocal rank", "1 / rank of the first relevant document.",
                    "Putting the first relevant document as high as possible; later ones do not count.",
                    reciprocal_rank, conventions=("relevance_level",)),
        MeasureInfo("recip_rank_cut", "RR", "Reciprocal rank@k", "1 / rank of the first relevant document, 0 if it is below k (MRR@10 of MS MARCO).",
                    "Putting the first relevant document in the top k, the higher the better.",
                    reciprocal_rank, "required", (10,), trec_eval=False, conventions=("relevance_level",)),
        MeasureInfo("map", "AP", "Average precision", "Mean of the precision at each relevant document's rank, over all R relevant.",
                    "Ranking every relevant document early; each one found lifts it, each one missed costs.",
                    average_precision, conventions=("relevance_level",)),
        MeasureInfo("map_cut", "AP", "Average precision@k", "Average precision counting only the top k.",
                    "Ranking relevant documents early within the top k.",
                    average_precision, "required", TREC_CUTOFFS, conventions=("relevance_level", "ap_denominator")),
        MeasureInfo("ndcg", "nDCG", "nDCG", "Discounted cumulative gain of the whole ranking over the ideal's.",
                    "Putting the most relevant documents first, with graded credit that fades with rank.",
                    ndcg, conventions=("gain", "ideal_from")),
        MeasureInfo("ndcg_cut", "nDCG", "nDCG@k", "nDCG with both rankings cut at k.",
                    "Putting the most relevant documents first within the top k, with graded credit.",
                    ndcg, "required", TREC_CUTOFFS, conventions=("gain", "ideal_from")),
        MeasureInfo("Rprec", "Rprec", "R-precision", "Precision at rank R, the number of relevant documents.",
                    "Finding the relevant documents within the first R ranks.",
                    r_precision, conventions=("relevance_level",)),
        MeasureInfo("bpref", "Bpref", "bpref", "How often judged relevant documents precede judged non-relevant ones.",
                    "Ranking judged relevant above judged non-relevant documents; unjudged ones are ignored.",
                    bpref, conventions=("relevance_level",)),
        MeasureInfo("num_ret", "NumRet", "Retrieved", "Number of documents retrieved.", "Nothing: it is a count.",
                    num_ret, aggregate="sum"),
        MeasureInfo("num_rel", "NumRel", "Relevant", "Number of relevant documents judged (R).", "Nothing: it is a count.",
                    num_rel, aggregate="sum", conventions=("relevance_level",)),
        MeasureInfo("num_rel_ret", "NumRelRet", "Relevant retrieved", "Number of relevant documents retrieved.",
                    "Nothing: it is a count.", num_rel_ret, aggregate="sum", conventions=("relevance_level",)),
        MeasureInfo("num_q", "NumQ", "Queries", "Number of queries evaluated.", "Nothing: it is a count.",
                    num_q, aggregate="sum"),
    )
}

#: trec_eval's default ("official") measures that this engine computes, in trec_eval's output order.
TREC_DEFAULT_MEASURES = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P")
