"""Measures of where the relevant documents sit: reciprocal rank, average precision, bpref."""

from __future__ import annotations

import math

import numpy as np

from .context import Context, ratio


def reciprocal_rank(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""RR@k = 1 / r^* where r^* is the rank of the first relevant document, and 0 if r^* > k or none is found."""
    found = ctx.relevant.any(axis=1)
    first_rank = np.where(found, ctx.relevant.argmax(axis=1) + 1, 0)
    limit = np.where(cutoffs <= 0, np.iinfo(np.int64).max, cutoffs)[None, :]
    hit = found[:, None] & (first_rank[:, None] <= limit)
    return np.where(hit, 1.0 / np.maximum(first_rank, 1)[:, None], 0.0)


def average_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""AP@k = \frac{1}{D}\sum_{r \le k,\ rel_r = 1} P@r, with D = R (trec_eval), min(R, k), the relevant in the
    top k, or min(relevant retrieved, k); 0 without a relevant document (1 with empty_ideal='one')."""
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
    k = np.where(cutoffs <= 0, np.iinfo(np.int64).max, cutoffs)[None, :]
    # R: the relevant documents of the ideal ranking, from the judgments or, for the last two rules, the ranking.
    ideal_relevant = ctx.num_relevant if rule in ("R", "min_R_k") else ctx.num_retrieved_relevant
    if rule == "R":
        denominator = np.broadcast_to(ctx.num_relevant[:, None], summed.shape)
    elif rule == "min_R_k":
        denominator = np.minimum(ctx.num_relevant[:, None], k)
    elif rule == "retrieved_relevant":
        denominator = found
    else:  # min_retrieved_relevant_k: LightGBM's and XGBoost's map@k
        denominator = np.minimum(ctx.num_retrieved_relevant[:, None], k)
    values = ratio(summed, denominator.astype(np.float64))
    if ctx.conventions.empty_ideal == "one":
        values[ideal_relevant == 0] = 1.0
    return values


def bpref(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""bpref = \frac{1}{R}\sum_{rel_r=1} \left(1 - \frac{\min(n_r, R)}{\min(N, R)}\right), n_r the judged non-relevant
    above r, N all judged non-relevant."""
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
    return ratio(summed, ctx.num_relevant)[:, None]


def _lround(values: np.ndarray) -> np.ndarray:
    """C's lround: halves round away from zero (numpy rounds them to even)."""
    floor = np.floor(values)
    return np.where(values - floor >= 0.5, floor + 1, floor).astype(np.int64)


def relevant_for_recall(levels: float | np.ndarray, num_relevant: np.ndarray, rule: str) -> np.ndarray:
    """The number of relevant documents c that recall level x asks for: ``plus_0.9`` (long)(x R + 0.9), as trec_eval
    9.0.8 truncates, or ``round`` lround(x R), trec_eval 10's (see the ``recall_cutoff`` convention)."""
    product = levels * num_relevant
    if rule == "round":
        return _lround(product)
    return np.floor(product + 0.9).astype(np.int64)  # x R + 0.9 >= 0, so C's truncation is the floor


def interpolated_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""iprec_at_recall@x = \max_{r \ge r_c} P@r, r_c the rank of the c-th relevant document, c = (long)(x R + 0.9)
    (trec_eval 9.0.8) or lround(x R) (10); 0 when fewer than c are found."""
    rows, ranks, _ = ctx.relevant_positions
    precision = np.where(ctx.relevant, ctx.cum_relevant / ctx.ranks, 0.0)
    # Interpolation: the best precision at or below each rank.
    best_below = np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]
    found = ctx.num_retrieved_relevant
    start = np.searchsorted(rows, np.arange(ctx.batch.size))
    out = np.zeros((ctx.batch.size, cutoffs.shape[0]))
    for j, level in enumerate(cutoffs):
        c = relevant_for_recall(level, ctx.num_relevant, ctx.conventions.recall_cutoff)
        reached = (c <= found) & (found > 0)
        index = start + np.clip(c, 1, None) - 1
        at_rank = ranks[np.where(reached, index, 0)] if ranks.shape[0] else np.ones_like(c)
        value = best_below[np.arange(ctx.batch.size), np.where(reached, at_rank - 1, 0)]
        out[:, j] = np.where(reached, value, 0.0)
    return out


def eleven_point_average(ctx: Context, cutoffs: np.ndarray,
                         params: tuple[float, ...] = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
                         ) -> np.ndarray:
    r"""11pt_avg = \frac{1}{|X|}\sum_{x \in X} iprec\_at\_recall@x over the recall levels X (default 0, 0.1, ..., 1)."""
    levels = interpolated_precision(ctx, np.asarray(params, dtype=np.float64))
    total = np.zeros(ctx.batch.size)
    for j in reversed(range(levels.shape[1])):  # trec_eval adds the highest level first
        total += levels[:, j]
    return (total / len(params))[:, None]


def inferred_average_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""infAP = \frac{1}{R}\sum_{rel_r=1} \left(\frac{1}{r} +
    \frac{r-1}{r}\cdot\frac{|d_{<r}|}{r-1}\cdot\frac{rel_{<r}+\epsilon}{rel_{<r}+nonrel_{<r}+2\epsilon}\right), |d_{<r}|
    the pooled documents above r (Yilmaz & Aslam); 1 for a relevant first document."""
    rows, ranks, nth = ctx.relevant_positions
    nonrelevant_above = np.cumsum(ctx.judged_nonrelevant, axis=1)[rows, ranks - 1]
    unjudged_above = np.cumsum(ctx.pooled_unjudged, axis=1)[rows, ranks - 1]
    j = (ranks - 1).astype(np.float64)
    before = nth - 1
    epsilon = 0.00001
    pooled_above = (before + nonrelevant_above + unjudged_above).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * (pooled_above / j) * (
            (before + epsilon) / ((before + nonrelevant_above) + 2 * epsilon))
    terms = np.where(ranks == 1, 1.0, term)
    summed = np.bincount(rows, weights=terms, minlength=ctx.batch.size)
    return ratio(summed, ctx.num_relevant)[:, None]


def binary_g(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""binG = \frac{1}{R}\sum_{rel_r=1} 1/\log_2(2 + n_r), n_r the documents above r that are not relevant (Sakai's G
    with binary gain)."""
    rows, ranks, nth = ctx.relevant_positions
    terms = 1.0 / np.log2((3 + (ranks - 1) - nth).astype(np.float64))
    summed = np.bincount(rows, weights=terms, minlength=ctx.batch.size)
    return ratio(summed, ctx.num_relevant)[:, None]


#: trec_eval floors each query's value at this before taking its log for a geometric mean.
MIN_GEOMETRIC_MEAN = 0.00001


def _c_log(values: np.ndarray) -> np.ndarray:
    """log of each value through the C library, as trec_eval takes it (numpy's vectorised log can differ by an ulp)."""
    return np.array([math.log(v) for v in values.ravel().tolist()]).reshape(values.shape)


def log_average_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""gm_map's per-query value \log \max(AP, 10^{-5}) (as trec_eval and pytrec_eval report it); the mean over queries
    is \exp of the mean of these."""
    return _c_log(np.maximum(average_precision(ctx, cutoffs), MIN_GEOMETRIC_MEAN))


def log_bpref(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""gm_bpref's per-query value \log \max(bpref, 10^{-5}); the mean over queries is \exp of the mean of these."""
    return _c_log(np.maximum(bpref(ctx, cutoffs), MIN_GEOMETRIC_MEAN))


def yet_another_average_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""yaap = \log \frac{1 + S}{1 + R - S}, S = \sum_{rel_r = 1} P@r (Robertson's smoothed AP, ECIR 2012: AP's sum
    before dividing by R, so a query with few relevant documents does not swing the mean; 0 when R = 0)."""
    rows, ranks, nth = ctx.relevant_positions
    # bincount adds the precisions in rank order, as trec_eval accumulates them.
    summed = np.bincount(rows, weights=nth / ranks, minlength=ctx.batch.size)
    values = _c_log((1.0 + summed) / (1.0 + ctx.num_relevant - summed))
    return np.repeat(values[:, None], cutoffs.shape[0], axis=1)
