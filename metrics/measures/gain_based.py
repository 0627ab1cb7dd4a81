"""Measures over graded gains: nDCG."""

from __future__ import annotations

import numpy as np

from .context import Context, ratio


def ndcg(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""nDCG@k = DCG@k / IDCG@k with DCG@k = \sum_{r=1}^{k} gain_r / \log_2(r+1); 0 when IDCG@k = 0 (1 with
    empty_ideal='one')."""
    deepest = int(cutoffs.max()) if (cutoffs > 0).all() else 0
    ideal = ctx.at(ctx.cum_ideal_dcg, cutoffs)
    values = ratio(ctx.at(ctx.cum_dcg_through(deepest), cutoffs), ideal)
    if ctx.conventions.empty_ideal == "one":
        values[ideal <= 0] = 1.0
    return values


def dcg(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""DCG@k = \sum_{r=1}^{k} gain_r / \log_2(r+1), unnormalised (ranx's dcg; dcg_burges with gain 2^g - 1)."""
    deepest = int(cutoffs.max()) if (cutoffs > 0).all() else 0
    return ctx.at(ctx.cum_dcg_through(deepest), cutoffs)


def _padded(matrix: np.ndarray, width: int) -> np.ndarray:
    """The first ``width`` columns of ``matrix``, zero-padded on the right when it is narrower."""
    if matrix.shape[1] >= width:
        return matrix[:, :width]
    return np.concatenate([matrix, np.zeros((matrix.shape[0], width - matrix.shape[1]))], axis=1)


def _cumulative_at(cumulative: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """cumulative[i, ranks[i] - 1] (the last column past the end, 0 at rank 0) for each row i."""
    column = np.clip(ranks, 1, cumulative.shape[1]) - 1
    values = np.take_along_axis(cumulative, column.reshape(cumulative.shape[0], -1), axis=1).reshape(ranks.shape)
    return np.where(ranks > 0, values, 0.0)


def ndcg_over_relevant(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""ndcg_rel = \frac{1}{R_g}\sum_{i=1}^{R_g} nDCG@r_i: nDCG at the rank r_i of each document with positive gain (the
    last rank for those not retrieved), R_g the documents with positive gain."""
    positive = ctx.gains > 0
    ideal = ctx.cum_ideal_dcg
    ideal_at_rank = _padded(ideal, ctx.batch.width)
    if ideal.shape[1] < ctx.batch.width:  # past the judged documents the ideal DCG stays at its total
        ideal_at_rank[:, ideal.shape[1]:] = ideal[:, -1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(positive, ctx.cum_dcg / ideal_at_rank, 0.0)
    summed = np.cumsum(terms, axis=1)[:, -1]  # in rank order, as trec_eval adds them
    num_positive = (ctx.ideal_gains > 0).sum(axis=1)
    missed = (num_positive - positive.sum(axis=1)).astype(np.float64)
    total_dcg = ctx.cum_dcg[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        summed = summed + np.where(missed != 0, missed * total_dcg / ideal[:, -1], 0.0)
    return np.where(summed > 0, ratio(summed, num_positive), 0.0)[:, None]


def r_ndcg(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""Rndcg = mean of nDCG@b over the ranks b where the ideal gain drops to a lower level (and at |L| when the ranking
    runs past the ideal); 0 when R = 0."""
    ideal = ctx.ideal_gains
    num_positive = (ideal > 0).sum(axis=1)
    extended = np.concatenate([ideal, np.zeros((ideal.shape[0], 1))], axis=1)
    b = np.arange(1, extended.shape[1])
    boundary = (extended[:, 1:] != extended[:, :-1]) & (extended[:, :-1] > 0)
    lengths = ctx.batch.lengths
    dcg_at = _cumulative_at(ctx.cum_dcg, np.minimum(b[None, :], lengths[:, None]))
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(boundary, dcg_at / ctx.cum_ideal_dcg, 0.0)
    summed = np.cumsum(terms, axis=1)[:, -1]
    count = boundary.sum(axis=1)
    # trec_eval adds nDCG at |L| when the ranking runs more than one rank past the ideal gains.
    past = (lengths > num_positive + 1) & (num_positive > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        summed = summed + np.where(past, ctx.cum_dcg[:, -1] / _cumulative_at(ctx.cum_ideal_dcg, num_positive), 0.0)
    count = count + past
    value = ratio(summed, count)
    return np.where(ctx.num_relevant > 0, value, 0.0)[:, None]


def g_measure(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""G = \frac{1}{\sum_i g^*_i}\sum_{r} \frac{g_r}{\log_2(2 + C_r - \sum_{s \le r} g_s)}, C_r = \sum_{s \le r}
    \max(g^*_s, 1) with g^* the ideal gains (Sakai)."""
    width = ctx.batch.width
    ideal = _padded(ctx.ideal_gains, width)
    cost = np.cumsum(np.where(ideal >= 1.0, ideal, 1.0), axis=1)
    gains = ctx.gains
    gained = np.cumsum(gains, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(gains != 0, gains / np.log2(2 + cost - gained), 0.0)
    summed = np.cumsum(terms, axis=1)[:, -1]
    ideal_total = np.cumsum(np.where(ctx.ideal_gains > 0, ctx.ideal_gains, 0.0), axis=1)[:, -1]
    return ratio(summed, ideal_total)[:, None]


def _persistence_powers(p: float, width: int) -> np.ndarray:
    """1, p, p^2, ... p^width by repeated multiplication, as trec_eval computes them."""
    return np.cumprod(np.concatenate([[1.0], np.full(width, p)]))


def rank_biased_precision(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (0.9,)) -> np.ndarray:
    r"""RBP(p) = (1 - p)\sum_{r=1}^{|L|} g_r p^{r-1}, gains scaled to [0, 1] by the query's largest grade when it
    exceeds 1 (Moffat & Zobel; trec_eval's p = 0.9)."""
    p = params[0]
    gains = ctx.gains
    best_grade = np.maximum(ctx.batch.judged_grades[:, :1], 0)
    top = ctx.gain_of(best_grade) if ctx.gain_map is None else gains.max(axis=1, keepdims=True)
    scaled = np.where(top > 1, gains / np.where(top > 1, top, 1.0), gains)
    powers = _persistence_powers(p, ctx.batch.width)[:-1]
    summed = np.cumsum(np.where(scaled != 0, scaled * powers, 0.0), axis=1)[:, -1]
    return ((1.0 - p) * summed)[:, None]


def rank_biased_precision_residual(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (0.9,)) -> np.ndarray:
    r"""rbp_resid(p) = p^{|L|} + (1 - p)\sum_{r\ unjudged} p^{r-1}: how much RBP could still grow if every unjudged and
    unseen document were relevant; 0 with no unjudged document."""
    p = params[0]
    powers = _persistence_powers(p, ctx.batch.width)
    summed = np.cumsum(np.where(ctx.unjudged, powers[:-1], 0.0), axis=1)[:, -1]
    residual = powers[ctx.batch.lengths] + (1 - p) * summed
    return np.where(ctx.unjudged.any(axis=1), residual, 0.0)[:, None]


def expected_reciprocal_rank(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (4.0,)) -> np.ndarray:
    r"""ERR@k = \sum_{r=1}^{k} \frac{1}{r} R_r \prod_{i<r} (1 - R_i), R_r = (2^{g_r} - 1) / 2^{g_{max}}, g_{max} = 4
    (gdeval; Chapelle et al. 2009)."""
    grades = np.where(ctx.batch.judged, np.maximum(ctx.batch.grades, 0.0), 0.0)
    stop = (np.exp2(grades) - 1) / np.exp2(params[0])
    # The chance the user reaches rank r: every document above failed to satisfy.
    reach = np.cumprod(np.concatenate([np.ones((ctx.batch.size, 1)), 1 - stop[:, :-1]], axis=1), axis=1)
    return ctx.at(np.cumsum(stop * reach / ctx.ranks, axis=1), cutoffs)
