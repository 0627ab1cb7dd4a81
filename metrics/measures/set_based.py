"""Measures that count relevant documents in a prefix of the ranking: P@k, recall@k, Success@k, R-precision.

Notation: rel_r is 1 when the document at rank r has grade >= ℓ (the relevance level), R is the number of judged
documents with grade >= ℓ, and |L| is the number of documents retrieved.
"""

from __future__ import annotations

import numpy as np

from .context import Context, ratio


def precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""P@k = \frac{1}{k}\sum_{r=1}^{k} rel_r; with precision_short_list='retrieved' divide by min(k, |L|)."""
    hits = ctx.at(ctx.cum_relevant, cutoffs)
    k = np.broadcast_to(cutoffs.astype(np.float64), hits.shape)
    if ctx.conventions.precision_short_list == "retrieved":
        k = np.minimum(k, ctx.batch.lengths[:, None])
    return ratio(hits.astype(np.float64), k)


def recall(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""R@k = \frac{1}{R}\sum_{r=1}^{k} rel_r, and 0 when R = 0."""
    return ratio(ctx.at(ctx.cum_relevant, cutoffs).astype(np.float64), ctx.num_relevant[:, None])


def success(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""Success@k = 1 if some rel_r = 1 with r \le k, else 0."""
    return (ctx.at(ctx.cum_relevant, cutoffs) > 0).astype(np.float64)


def r_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""R-prec = \frac{1}{R}\sum_{r=1}^{R} rel_r: precision at rank R, and 0 when R = 0."""
    hits = ctx.cum_relevant[np.arange(ctx.batch.size), np.clip(ctx.num_relevant, 1, ctx.batch.width) - 1]
    return ratio(hits.astype(np.float64), ctx.num_relevant)[:, None]
