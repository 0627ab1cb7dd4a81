"""Diversity measures of the TREC Web track, as NIST's ndeval computes them (version 4.5, through pyndeval).

Every measure is intent aware: a query has subtopics, and a document is relevant to each subtopic it is judged
relevant to (grade >= the relevance level). Notation: S is the number of subtopics with at least one relevant
document (ndeval's ``actualSubtopics``), c_j(r) the documents above rank r relevant to subtopic j, and the novelty
gain of rank r is g_r = \\sum_{j\\ rel} (1 - \\alpha)^{c_j(r)} (alpha = 0.5 by default).

ndeval's choices, reproduced:

* cut-offs go to rank 20 at most (its ``DEPTH``); NRBP and MAP-IA cover the whole ranking;
* alpha-DCG@k and ERR-IA@k are divided by the "ideal ideal" (every subtopic covered at every rank, S (1-alpha)^(r-1)
  at rank r), except at k = 1, where ndeval's loop does not divide: alpha-DCG@1 and ERR-IA@1 are g_1 itself;
* the ideal ranking of alpha-nDCG, nERR-IA and nNRBP is ndeval's greedy one: at each rank the judged document with
  the largest novelty gain, ties to the larger doc id (byte order); a measure is 0 where the run's alpha-DCG@k is 0;
* a query without a relevant subtopic scores 0 on every measure (ndeval's nNRBP divides 0 by 0 there: NaN);
* without subtopic judgments each query's judgments are its one subtopic (ir_measures' pyndeval provider).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model import InputError
from .context import Context

#: ndeval's DEPTH: the deepest cut-off of alpha-nDCG, ERR-IA, P-IA and strec.
DEPTH = 20
ALPHA = 0.5  # ndeval's default redundancy intolerance
BETA = 0.5  # ndeval's default patience (NRBP)

#: ndeval's discount of rank r (1-based): log(2) / log(r + 1), through the C library's log as ndeval takes it.
_DISCOUNTS = np.array([math.log(2.0) / math.log(rank + 1.0) for rank in range(1, DEPTH + 1)])


@dataclass(frozen=True)
class _Hits:
    """Every (ranked document, subtopic) pair judged relevant, sorted by row, rank and subtopic, with how many
    documents above it were relevant to the same subtopic; and per row S and the relevant documents per subtopic."""

    rows: np.ndarray
    ranks: np.ndarray  # 1-based
    subtopics: np.ndarray
    before: np.ndarray  # c_j(r)
    covered: np.ndarray  # (n,) S, the subtopics with a relevant document
    relevant_per_subtopic: np.ndarray  # (n, subtopics)


def _hits(ctx: Context) -> _Hits:
    return ctx.shared("diversity hits", lambda: _find_hits(ctx))


def _find_hits(ctx: Context) -> _Hits:
    batch, level = ctx.batch, ctx.level
    rows_of = batch.subtopics
    if rows_of is None:  # the qrels are each query's one subtopic
        rows, ranks, _ = ctx.relevant_positions
        subtopics = np.zeros(rows.shape[0], dtype=np.int64)
        per_subtopic = ctx.num_relevant[:, None].astype(np.int64)
    else:
        relevant = rows_of.grades >= level
        per_query = _per_query_counts(relevant, rows_of.starts)
        per_subtopic = per_query[rows_of.query_of_row]
        flat = np.flatnonzero(rows_of.judged_row >= 0)
        position, subtopics = np.nonzero(relevant[rows_of.judged_row.ravel()[flat]])  # by rank, then subtopic
        rows, columns = np.divmod(flat[position], batch.width)
        ranks = columns + 1
    width = max(1, per_subtopic.shape[1])
    group = rows * width + subtopics
    order = np.argsort(group, kind="stable")  # rank order inside each (row, subtopic)
    starts = np.searchsorted(group[order], group[order], side="left")
    before = np.empty(rows.shape[0], dtype=np.int64)
    before[order] = np.arange(rows.shape[0]) - starts
    return _Hits(rows, ranks, subtopics, before, (per_subtopic > 0).sum(axis=1), per_subtopic)


def _per_query_counts(relevant: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """(queries, subtopics) the relevant documents of each query for each subtopic."""
    cumulative = np.concatenate([np.zeros((1, relevant.shape[1]), dtype=np.int64),
                                 np.cumsum(relevant, axis=0, dtype=np.int64)])
    return cumulative[starts[1:]] - cumulative[starts[:-1]]


def _powers(base: float, count: int) -> np.ndarray:
    """1, base, base^2, ... by repeated multiplication, as ndeval decays its gains."""
    return np.cumprod(np.concatenate([[1.0], np.full(max(count - 1, 0), base)]))


def _novelty_gains(hits: _Hits, alpha: float, size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ranks that gain (rows, ranks) and g_r at each: the subtopics' gains added in subtopic order."""
    if hits.rows.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    gains = _powers(1.0 - alpha, int(hits.before.max()) + 1)[hits.before]
    position = hits.rows * (int(hits.ranks.max()) + 1) + hits.ranks
    places, inverse = np.unique(position, return_inverse=True)
    scores = np.bincount(inverse, weights=gains)  # in subtopic order within a rank, as ndeval adds them
    return hits.rows[np.searchsorted(position, places)], hits.ranks[np.searchsorted(position, places)], scores


def _cumulative(rows: np.ndarray, ranks: np.ndarray, scores: np.ndarray, covered: np.ndarray, alpha: float,
                size: int, err: bool) -> np.ndarray:
    """(size, DEPTH) alpha-DCG (or ERR-IA) at ranks 1..20 over the ideal ideal, the first rank left undivided."""
    top = ranks <= DEPTH
    terms = np.zeros((size, DEPTH))
    divisor = np.arange(1, DEPTH + 1, dtype=np.float64)
    if err:
        terms[rows[top], ranks[top] - 1] = scores[top] / divisor[ranks[top] - 1]
    else:
        terms[rows[top], ranks[top] - 1] = scores[top] * _DISCOUNTS[ranks[top] - 1]
    cumulative = np.cumsum(terms, axis=1)
    ideal_ideal = np.zeros((size, DEPTH))
    gain = covered.astype(np.float64)
    for i in range(DEPTH):
        ideal_ideal[:, i] = gain / divisor[i] if err else gain * _DISCOUNTS[i]
        gain = gain * (1.0 - alpha)
    ideal_ideal = np.cumsum(ideal_ideal, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        cumulative[:, 1:] = np.where(covered[:, None] > 0, cumulative[:, 1:] / ideal_ideal[:, 1:], 0.0)
    return cumulative


def _nrbp(rows: np.ndarray, ranks: np.ndarray, scores: np.ndarray, covered: np.ndarray, alpha: float, beta: float,
          size: int) -> np.ndarray:
    decay = _powers(beta, int(ranks.max(initial=1)))
    summed = np.bincount(rows, weights=scores * decay[ranks - 1], minlength=size)  # in rank order
    factor = (1.0 - (1.0 - alpha) * beta) / np.maximum(covered, 1)
    return np.where(covered > 0, summed * factor, 0.0)


# ---- the ideal ranking ----------------------------------------------------------------------------------------


#: Subtopics held as bits of one integer by the greedy ideal; a query with more takes the per-query loop.
_MAX_BITS = 62


def _greedy_ideal(relevant: np.ndarray, starts: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """ndeval's greedy ideal ranking of every query at once: ``(gains, lengths)``, gains (queries, deepest) the
    novelty gain at each rank of the documents with a relevant subtopic, lengths their number per query.

    ``relevant`` is (judged documents, subtopics), each query's documents in doc id order from ``starts[q]``. At
    each rank ndeval takes the document with the largest gain, ties to the larger doc id (its idealResult). Equal
    subtopic sets gain alike, so the queries step together over their distinct sets ("patterns"), each taking its
    documents larger doc id first.
    """
    queries, width = starts.shape[0] - 1, relevant.shape[1]
    docs = np.flatnonzero(relevant.any(axis=1))
    query = np.searchsorted(starts, docs, side="right") - 1
    lengths = np.bincount(query, minlength=queries)
    if width > _MAX_BITS:
        gains = np.zeros((queries, int(lengths.max(initial=0))))
        for q in range(queries):
            ranked = _greedy_gains(relevant[starts[q]: starts[q + 1]], alpha)
            gains[q, : len(ranked)] = ranked
        return gains, lengths
    local = docs - starts[query]
    masks = (relevant[docs].astype(np.int64) << np.arange(width, dtype=np.int64)).sum(axis=1)
    order = np.lexsort((-local, masks, query))
    query, masks, local = query[order], masks[order], local[order]
    opens = np.ones(docs.shape[0], dtype=bool)
    opens[1:] = (query[1:] != query[:-1]) | (masks[1:] != masks[:-1])
    first = np.flatnonzero(opens)
    pattern_query, pattern_mask = query[first], masks[first]
    counts = np.diff(np.append(first, docs.shape[0]))
    slot = np.arange(first.shape[0]) - np.searchsorted(pattern_query, pattern_query, side="left")
    patterns = int(slot.max(initial=-1)) + 1
    count = np.zeros((queries, patterns), dtype=np.int64)
    offset = np.zeros((queries, patterns), dtype=np.int64)
    members = np.zeros((queries, patterns, width), dtype=bool)
    count[pattern_query, slot] = counts
    offset[pattern_query, slot] = first
    members[pattern_query, slot] = (pattern_mask[:, None] >> np.arange(width)) & 1 == 1
    taken = np.zeros((queries, patterns), dtype=np.int64)
    gain = np.ones((queries, width))
    decay = 1.0 - alpha
    gains = np.zeros((queries, int(lengths.max(initial=0))))
    last = max(docs.shape[0] - 1, 0)
    for step in range(gains.shape[1]):
        score = np.zeros((queries, patterns))
        for j in range(width):  # in subtopic order, as ndeval adds a document's gains
            score = score + np.where(members[:, :, j], gain[:, j:j + 1], 0.0)
        available = taken < count
        score = np.where(available, score, -np.inf)
        best = score.max(axis=1)
        heads = np.where(available & (score == best[:, None]), local[np.minimum(offset + taken, last)], -1)
        choice = heads.argmax(axis=1)
        active = np.flatnonzero(step < lengths)
        gains[active, step] = best[active]
        taken[active, choice[active]] += 1
        chosen = members[active, choice[active]]
        gain[active] = np.where(chosen, gain[active] * decay, gain[active])
    return gains, lengths


def _greedy_gains(relevant: np.ndarray, alpha: float) -> list[float]:
    """:func:`_greedy_ideal` for one query, a document at a time: for queries with more subtopics than bits."""
    documents = np.flatnonzero(relevant.any(axis=1))
    gain = [1.0] * relevant.shape[1]
    waiting = documents.tolist()
    members = {doc: np.flatnonzero(relevant[doc]).tolist() for doc in waiting}
    ranked: list[float] = []
    while waiting:
        best, best_score = -1, 0.0
        for doc in waiting:  # doc id order: the last of the largest gains wins, as in ndeval
            score = 0.0
            for j in members[doc]:
                score += gain[j]
            if best == -1 or score >= best_score:
                best, best_score = doc, score
        waiting.remove(best)
        for j in members[best]:
            gain[j] *= 1.0 - alpha
        ranked.append(best_score)
    return ranked


@dataclass(frozen=True)
class _Ideal:
    dcg: np.ndarray  # (n, DEPTH) the ideal ranking's alpha-DCG over the ideal ideal
    err: np.ndarray
    nrbp: np.ndarray


def _ideal(ctx: Context, alpha: float, beta: float) -> _Ideal:
    return ctx.shared(("diversity ideal", alpha, beta), lambda: _build_ideal(ctx, alpha, beta))


def _build_ideal(ctx: Context, alpha: float, beta: float) -> _Ideal:
    batch = ctx.batch
    if batch.subtopics is None:  # one subtopic: its R relevant documents gain 1, 1 - alpha, (1 - alpha)^2, ...
        lengths = ctx.num_relevant.astype(np.int64)
        covered = (lengths > 0).astype(np.int64)
        of_row = np.arange(batch.size)
        rows = np.repeat(of_row, lengths)
        ranks = np.arange(rows.shape[0]) - np.repeat(np.cumsum(lengths) - lengths, lengths) + 1
        scores = _powers(1.0 - alpha, int(lengths.max(initial=0)))[ranks - 1] if rows.shape[0] else np.zeros(0)
    else:
        rows_of = batch.subtopics
        relevant = rows_of.grades >= ctx.level
        covered = (_per_query_counts(relevant, rows_of.starts) > 0).sum(axis=1)
        gains, lengths = _greedy_ideal(relevant, rows_of.starts, alpha)
        of_row = rows_of.query_of_row
        present = np.arange(gains.shape[1])[None, :] < lengths[:, None]
        rows, columns = np.nonzero(present)
        ranks, scores = columns + 1, gains[rows, columns]
    size = covered.shape[0]
    return _Ideal(_cumulative(rows, ranks, scores, covered, alpha, size, err=False)[of_row],
                  _cumulative(rows, ranks, scores, covered, alpha, size, err=True)[of_row],
                  _nrbp(rows, ranks, scores, covered, alpha, beta, size)[of_row])


# ---- kernels --------------------------------------------------------------------------------------------------


def _columns(cutoffs: np.ndarray, name: str) -> np.ndarray:
    bad = cutoffs[(cutoffs < 1) | (cutoffs > DEPTH)]
    if bad.size:
        raise InputError(f"{name}@{int(bad[0])}: ndeval computes {name} down to rank {DEPTH} at most (its DEPTH); give "
                         f"a cut-off from 1 to {DEPTH}")
    return cutoffs.astype(np.int64) - 1


def _alpha(params: tuple[float, ...], name: str) -> tuple[float, float]:
    alpha = params[0] if params else ALPHA
    beta = params[1] if len(params) > 1 else BETA
    for label, value in (("alpha", alpha), ("beta", beta)):
        if not 0.0 <= value <= 1.0:
            raise InputError(f"{name}: {label} has to lie between 0 and 1, got {value:g}")
    return alpha, beta


def _run(ctx: Context, alpha: float):
    hits = _hits(ctx)
    return ctx.shared(("diversity run", alpha), lambda: _novelty_gains(hits, alpha, ctx.batch.size)), hits


def alpha_dcg(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (ALPHA,)) -> np.ndarray:
    r"""\alpha\text{-}DCG@k = \frac{\sum_{r \le k} g_r / \log_2(r+1)}{\sum_{r \le k} S(1-\alpha)^{r-1} / \log_2(r+1)},
    g_r = \sum_{j\ rel} (1-\alpha)^{c_j(r)} (ndeval's collection-independent normalisation; undivided at k = 1)."""
    alpha, _ = _alpha(params, "alpha-DCG")
    columns = _columns(cutoffs, "alpha-DCG")
    (rows, ranks, scores), hits = _run(ctx, alpha)
    return _cumulative(rows, ranks, scores, hits.covered, alpha, ctx.batch.size, err=False)[:, columns]


def alpha_ndcg(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (ALPHA,)) -> np.ndarray:
    r"""\alpha\text{-}nDCG@k = \alpha\text{-}DCG@k / \alpha\text{-}DCG@k of ndeval's greedy ideal ranking (Clarke et al.
    2008), g_r = \sum_{j\ rel} (1-\alpha)^{c_j(r)}; 0 when the run's \alpha\text{-}DCG@k is 0."""
    alpha, _ = _alpha(params, "alpha-nDCG")
    columns = _columns(cutoffs, "alpha-nDCG")
    (rows, ranks, scores), hits = _run(ctx, alpha)
    run = _cumulative(rows, ranks, scores, hits.covered, alpha, ctx.batch.size, err=False)[:, columns]
    ideal = _ideal(ctx, alpha, BETA).dcg[:, columns]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(run != 0, run / ideal, 0.0)


def err_ia(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (ALPHA,)) -> np.ndarray:
    r"""ERR\text{-}IA@k = \frac{\sum_{r \le k} g_r / r}{\sum_{r \le k} S(1-\alpha)^{r-1} / r}: ERR with each subtopic
    satisfied with probability \alpha, averaged over subtopics (Chapelle et al. 2009; undivided at k = 1)."""
    alpha, _ = _alpha(params, "ERR-IA")
    columns = _columns(cutoffs, "ERR-IA")
    (rows, ranks, scores), hits = _run(ctx, alpha)
    return _cumulative(rows, ranks, scores, hits.covered, alpha, ctx.batch.size, err=True)[:, columns]


def nerr_ia(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (ALPHA,)) -> np.ndarray:
    r"""nERR\text{-}IA@k = ERR\text{-}IA@k / ERR\text{-}IA@k of ndeval's greedy ideal ranking; 0 when the run's
    \alpha\text{-}DCG@k is 0."""
    alpha, _ = _alpha(params, "nERR-IA")
    columns = _columns(cutoffs, "nERR-IA")
    (rows, ranks, scores), hits = _run(ctx, alpha)
    size = ctx.batch.size
    run = _cumulative(rows, ranks, scores, hits.covered, alpha, size, err=True)[:, columns]
    dcg = _cumulative(rows, ranks, scores, hits.covered, alpha, size, err=False)[:, columns]
    ideal = _ideal(ctx, alpha, BETA).err[:, columns]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(dcg != 0, run / ideal, 0.0)


def nrbp(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (ALPHA, BETA)) -> np.ndarray:
    r"""NRBP = \frac{1 - (1-\alpha)\beta}{S}\sum_{r=1}^{|L|} \beta^{r-1} g_r (Clarke et al. 2009; \alpha = \beta =
    0.5)."""
    alpha, beta = _alpha(params, "NRBP")
    (rows, ranks, scores), hits = _run(ctx, alpha)
    return _nrbp(rows, ranks, scores, hits.covered, alpha, beta, ctx.batch.size)[:, None]


def normalised_nrbp(ctx: Context, cutoffs: np.ndarray, params: tuple[float, ...] = (ALPHA, BETA)) -> np.ndarray:
    r"""nNRBP = NRBP / NRBP of ndeval's greedy ideal ranking; 0 without a relevant subtopic."""
    alpha, beta = _alpha(params, "nNRBP")
    (rows, ranks, scores), hits = _run(ctx, alpha)
    run = _nrbp(rows, ranks, scores, hits.covered, alpha, beta, ctx.batch.size)
    ideal = _ideal(ctx, alpha, beta).nrbp
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ideal > 0, run / ideal, 0.0)[:, None]


def precision_ia(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""P\text{-}IA@k = \frac{1}{S}\sum_{j} \frac{|\{r \le k : d_r\ rel\ to\ j\}|}{k}: precision for each subtopic,
    averaged over the S subtopics."""
    columns = _columns(cutoffs, "P-IA")
    hits = _hits(ctx)
    counts = _per_rank(ctx, hits.rows, hits.ranks, np.ones(hits.rows.shape[0]))[:, columns]
    denominator = (columns + 1)[None, :] * hits.covered[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, counts / denominator, 0.0)


def subtopic_recall(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""strec@k = \frac{1}{S}|\{j : some\ d_r, r \le k, rel\ to\ j\}|: the share of the subtopics the top k cover
    (Zhai et al. 2003)."""
    columns = _columns(cutoffs, "strec")
    hits = _hits(ctx)
    first = hits.before == 0
    counts = _per_rank(ctx, hits.rows[first], hits.ranks[first], np.ones(int(first.sum())))[:, columns]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(hits.covered[:, None] > 0, counts / hits.covered[:, None], 0.0)


def _per_rank(ctx: Context, rows: np.ndarray, ranks: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(n, DEPTH) the weights at ranks 1..20, accumulated down the ranking."""
    top = ranks <= DEPTH
    counts = np.zeros((ctx.batch.size, DEPTH))
    np.add.at(counts, (rows[top], ranks[top] - 1), weights[top])
    return np.cumsum(counts, axis=1)


def average_precision_ia(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""MAP\text{-}IA = \frac{1}{S}\sum_{j} AP_j, AP_j = \frac{1}{R_j}\sum_{r:\ d_r\ rel\ to\ j} \frac{c_j(r) + 1}{r}:
    AP for each subtopic over the whole ranking, averaged over the S subtopics."""
    hits = _hits(ctx)
    size, width = ctx.batch.size, hits.relevant_per_subtopic.shape[1]
    totals = np.bincount(hits.rows * width + hits.subtopics, weights=(hits.before + 1) / hits.ranks,
                         minlength=size * width).reshape(size, width)  # in rank order, as ndeval adds them
    summed = np.zeros(size)
    with np.errstate(divide="ignore", invalid="ignore"):
        for j in range(width):  # subtopic by subtopic, as ndeval adds them
            relevant = hits.relevant_per_subtopic[:, j]
            summed = summed + np.where(relevant > 0, totals[:, j] / relevant, 0.0)
        return np.where(hits.covered > 0, summed / hits.covered, 0.0)[:, None]
