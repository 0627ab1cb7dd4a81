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


def relative_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""relative_P@k = \frac{1}{\min(k, R)}\sum_{r=1}^{k} rel_r: P@k against the best possible; 0 when R = 0."""
    hits = ctx.at(ctx.cum_relevant, cutoffs).astype(np.float64)
    best = np.minimum(cutoffs[None, :], ctx.num_relevant[:, None]).astype(np.float64)
    return ratio(hits, best)


def precision_at_r_multiple(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""Rprec_mult@m = P@c with c = \lfloor m R + 0.9 \rfloor, ranks past |L| counted as non-relevant; 0 when c = 0."""
    c = (cutoffs[None, :] * ctx.num_relevant[:, None] + 0.9).astype(np.int64)  # C's (long) cast
    column = np.clip(c, 1, ctx.batch.width) - 1
    hits = np.take_along_axis(ctx.cum_relevant, column, axis=1).astype(np.float64)
    return ratio(np.where(c > 0, hits, 0.0), c.astype(np.float64))


def set_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""set_P = \frac{1}{|L|}\sum_{r=1}^{|L|} rel_r: precision of the whole retrieved set; 0 when nothing
    is retrieved."""
    return ratio(ctx.num_retrieved_relevant.astype(np.float64), ctx.batch.lengths)[:, None]


def set_recall(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""set_recall = \frac{1}{R}\sum_{r=1}^{|L|} rel_r: recall of the whole retrieved set; 0 when R = 0."""
    return ratio(ctx.num_retrieved_relevant.astype(np.float64), ctx.num_relevant)[:, None]


def set_relative_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""set_relative_P = \frac{1}{\min(|L|, R)}\sum_{r=1}^{|L|} rel_r; 0 when |L| = 0 or R = 0."""
    best = np.minimum(ctx.batch.lengths, ctx.num_relevant)
    return ratio(ctx.num_retrieved_relevant.astype(np.float64), best)[:, None]


def set_average_precision(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""set_map = set_P \cdot set_recall = \frac{(\sum rel_r)^2}{|L| R}; 0 when |L| = 0 or R = 0."""
    found = ctx.num_retrieved_relevant.astype(np.float64)
    return ratio(found * found, ctx.batch.lengths.astype(np.float64) * ctx.num_relevant)[:, None]


def set_f(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (1.0,)) -> np.ndarray:
    r"""set_F(\beta) = \frac{(\beta + 1) P R}{\beta P + R} with P = set_P, R = set_recall (trec_eval's \beta,
    default 1); 0 when nothing relevant is found."""
    beta = params[0]
    found = ctx.num_retrieved_relevant.astype(np.float64)
    p = ratio(found, ctx.batch.lengths)
    r = ratio(found, ctx.num_relevant)
    return np.where(found > 0, ratio((beta + 1.0) * p * r, beta * p + r), 0.0)[:, None]


def utility(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (1.0, -1.0, 0.0, 0.0)) -> np.ndarray:
    r"""utility(a, b, c, d) = a \cdot relret + b \cdot nonrelret + c \cdot relmissed + d \cdot nonrelmissed (collection
    size 0, as trec_eval without -N); 0 for an empty ranking."""
    a, b, c, d = params
    found = ctx.num_retrieved_relevant
    retrieved = ctx.batch.lengths
    R = ctx.num_relevant
    value = a * found + b * (retrieved - found) + c * (R - found) + d * (found - retrieved - R)
    # trec_eval -c scores a query missing from the run as 0, whatever the coefficients.
    return np.where(retrieved > 0, value, 0.0)[:, None]


def f_measure(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (1.0,)) -> np.ndarray:
    r"""F_\beta@k = \frac{(1 + \beta^2)\,P@k \cdot R@k}{\beta^2 P@k + R@k} (F1 at \beta = 1; ranx f1, RRE); 0 when
    nothing relevant is in the top k."""
    beta2 = params[0] ** 2
    p = precision(ctx, cutoffs)
    r = recall(ctx, cutoffs)
    return ratio((1 + beta2) * p * r, beta2 * p + r)
