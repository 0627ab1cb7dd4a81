"""Measures of where the relevant documents sit: reciprocal rank, average precision, bpref."""

from __future__ import annotations

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
    return ratio(summed, denominator.astype(np.float64))


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
    return ratio(summed, ctx.num_relevant)[:, None]
