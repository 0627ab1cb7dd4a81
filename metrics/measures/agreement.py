"""How far a ranking agrees with an ideal order: compatibility (rank-biased overlap with the ideal ranking) and
ir_measures' Accuracy (the share of relevant / non-relevant pairs in the right order)."""

from __future__ import annotations

import numpy as np

from .context import Context, ratio


def compatibility(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (0.95, 1.0)) -> np.ndarray:
    r"""Compat(p) = RBO(L, I) / RBO(I, I), RBO(A, B) = \frac{\sum_{d=1}^{D} p^{d-1} |A_{:d} \cap B_{:d}| / d}
    {\sum_{d=1}^{D} p^{d-1}}, I the ideal ranking of the documents with grade > 0 (grade descending, then as
    retrieved), D = \max(|L|, |I|) (Clarke, Vtyurina & Smucker 2020; p = 0.95; normalize=False: RBO(L, I))."""
    p, normalize = params
    batch = ctx.batch
    grades = np.where(ctx.retrieved & batch.judged, batch.grades, 0.0)
    judged = batch.judged_grades
    ideal_length = (judged > 0).sum(axis=1)
    depth = np.maximum(batch.lengths, ideal_length)
    width = int(depth.max()) if depth.size else 0
    # Each relevant retrieved document's place in the ideal: after every document of a higher grade, and after the
    # retrieved documents of its own grade ranked above it (the unretrieved come after those).
    positive = grades > 0
    place = np.zeros(grades.shape, dtype=np.int64)
    for level in np.unique(grades[positive]):  # a few grades: one pass each
        at_level = grades == level
        higher = (judged > level).sum(axis=1)
        place += np.where(at_level, higher[:, None] + np.cumsum(at_level, axis=1), 0)
    ranks = np.arange(1, batch.width + 1)
    # A document is in both prefixes from depth max(rank, ideal place) on.
    joins = np.where(positive, np.maximum(ranks[None, :], place), width + 1)
    counts = np.zeros((batch.size, width + 2))
    np.add.at(counts, (np.repeat(np.arange(batch.size), batch.width), joins.ravel()), 1.0)
    overlap = np.cumsum(counts, axis=1)[:, 1: width + 1]
    depths = np.arange(1, width + 1, dtype=np.float64)
    weights = np.cumprod(np.concatenate([[1.0], np.full(max(width - 1, 0), p)]))
    inside = depths[None, :] <= depth[:, None]
    score = np.cumsum(np.where(inside, weights * overlap / depths, 0.0), axis=1)[:, -1] if width else np.zeros(0)
    normalizer = np.cumsum(np.where(inside, weights, 0.0), axis=1)[:, -1] if width else np.zeros(0)
    value = ratio(score, normalizer)
    if normalize and width:
        best_overlap = np.minimum(depths[None, :], ideal_length[:, None])
        best = ratio(np.cumsum(np.where(inside, weights * best_overlap / depths, 0.0), axis=1)[:, -1], normalizer)
        value = np.where(best > 0, ratio(value, best), value)
    return np.broadcast_to(value[:, None] if width else np.zeros((batch.size, 1)), (batch.size, 1)).copy()


def pairwise_accuracy(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""Accuracy@k = 1 - \frac{\sum_{rel_r = 1,\ r \le k} n_r}{m N}: the share of (relevant, non-relevant) pairs in
    the top k ranked relevant first, n_r the non-relevant above r, m and N the relevant and non-relevant in the top
    k (unjudged count as non-relevant); 0 with no relevant document there, 1 with no non-relevant one
    (ir_measures' accuracy provider leaves the first out of its mean and fails on the second)."""
    rows, ranks, nth = ctx.relevant_positions
    out = np.zeros((ctx.batch.size, cutoffs.shape[0]))
    lengths = ctx.batch.lengths
    for j, cutoff in enumerate(cutoffs):
        k = np.minimum(lengths, cutoff) if cutoff > 0 else lengths
        inside = ranks <= k[rows]
        above = np.bincount(rows[inside], weights=(ranks - nth)[inside], minlength=ctx.batch.size)
        found = np.bincount(rows[inside], minlength=ctx.batch.size).astype(np.float64)
        nonrelevant = k - found
        pairs = found * nonrelevant
        out[:, j] = np.where(found == 0, 0.0, np.where(nonrelevant == 0, 1.0, 1.0 - ratio(above, pairs)))
    return out
