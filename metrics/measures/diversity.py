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

import heapq
import math
from dataclasses import dataclass

import numpy as np

from ..model import InputError, SubtopicRows
from .context import Context

#: ndeval's DEPTH: the deepest cut-off of alpha-nDCG, ERR-IA, P-IA and strec.
DEPTH = 20
ALPHA = 0.5  # ndeval's default redundancy intolerance
BETA = 0.5  # ndeval's default patience (NRBP)

#: ndeval's discount of rank r (1-based): log(2) / log(r + 1), through the C library's log as ndeval takes it.
_DISCOUNTS = np.array([math.log(2.0) / math.log(rank + 1.0) for rank in range(1, DEPTH + 1)])


@dataclass(frozen=True)
class _Relevant:
    """The (judged document, subtopic) pairs of a batch's queries judged relevant (grade >= the relevance level), by
    document then subtopic, and each query's relevant subtopics: memory follows the judgment lines.

    ``key`` is query * ``stride`` + subtopic, sorted, for every (query, subtopic) with a relevant document, and
    ``count`` how many documents are relevant to it; ``covered`` (queries,) is S, each query's number of them."""

    starts: np.ndarray  # (judged documents + 1,) document i's relevant pairs are starts[i]:starts[i + 1]
    subtopic: np.ndarray
    key: np.ndarray
    count: np.ndarray
    stride: int
    covered: np.ndarray


def _relevant(ctx: Context) -> _Relevant:
    return ctx.shared("diversity relevant", lambda: _find_relevant(ctx.batch.subtopics, ctx.level))


def _find_relevant(rows_of: SubtopicRows, level: float) -> _Relevant:
    documents, queries = rows_of.pair_starts.shape[0] - 1, rows_of.starts.shape[0] - 1
    relevant = rows_of.pair_grade >= level
    document = np.repeat(np.arange(documents), np.diff(rows_of.pair_starts))[relevant]
    subtopic = rows_of.pair_subtopic[relevant]
    starts = np.zeros(documents + 1, dtype=np.int64)
    starts[1:] = np.cumsum(np.bincount(document, minlength=documents))
    stride = max(1, int(rows_of.pair_subtopic.max(initial=-1)) + 1)
    query_of_document = np.repeat(np.arange(queries), np.diff(rows_of.starts))
    key, count = np.unique(query_of_document[document] * stride + subtopic, return_counts=True)
    return _Relevant(starts, subtopic, key, count, stride, np.bincount(key // stride, minlength=queries))


@dataclass(frozen=True)
class _Hits:
    """Every (ranked document, subtopic) pair judged relevant, sorted by row, rank and subtopic, with how many
    documents above it were relevant to the same subtopic; per row S; and, for the (group, subtopic) pairs with a
    relevant document (a row's group is its query), how many documents are relevant to each."""

    rows: np.ndarray
    ranks: np.ndarray  # 1-based
    subtopics: np.ndarray
    before: np.ndarray  # c_j(r)
    covered: np.ndarray  # (n,) S, the subtopics with a relevant document
    group_of_row: np.ndarray  # (n,)
    key: np.ndarray  # sorted group * stride + subtopic
    count: np.ndarray  # the relevant documents of each key
    stride: int

    def relevant_per_subtopic(self, rows: np.ndarray, subtopics: np.ndarray) -> np.ndarray:
        """The relevant documents of each (row, subtopic) pair, every pair one with a relevant document."""
        return self.count[np.searchsorted(self.key, self.group_of_row[rows] * self.stride + subtopics)]


def _hits(ctx: Context) -> _Hits:
    return ctx.shared("diversity hits", lambda: _find_hits(ctx))


def _find_hits(ctx: Context) -> _Hits:
    batch = ctx.batch
    rows_of = batch.subtopics
    if rows_of is None:  # the qrels are each query's one subtopic
        rows, ranks, _ = ctx.relevant_positions
        subtopics = np.zeros(rows.shape[0], dtype=np.int64)
        group_of_row, stride = np.arange(batch.size), 1
        key = np.flatnonzero(ctx.num_relevant > 0)
        count = ctx.num_relevant[key].astype(np.int64)
        covered = (ctx.num_relevant > 0).astype(np.int64)
    else:
        relevant = _relevant(ctx)
        group_of_row, stride, key, count = rows_of.query_of_row, relevant.stride, relevant.key, relevant.count
        covered = relevant.covered[group_of_row]
        # Each ranked judged document's relevant pairs, in rank order, each document's by subtopic.
        flat = np.flatnonzero(rows_of.judged_row >= 0)
        document = rows_of.judged_row.ravel()[flat]
        first = relevant.starts[document]
        per_document = relevant.starts[document + 1] - first
        subtopics = relevant.subtopic[np.repeat(first, per_document) + _within(per_document)]
        rows, columns = np.divmod(np.repeat(flat, per_document), rows_of.judged_row.shape[1])
        ranks = columns + 1
    group = rows * stride + subtopics
    order = np.argsort(group, kind="stable")  # rank order inside each (row, subtopic)
    starts = np.searchsorted(group[order], group[order], side="left")
    before = np.empty(rows.shape[0], dtype=np.int64)
    before[order] = np.arange(rows.shape[0]) - starts
    return _Hits(rows, ranks, subtopics, before, covered, group_of_row, key, count, stride)


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


#: Subtopics held as bits of one integer by the greedy ideal; a query with more takes the sparse, per-query greedy.
_MAX_BITS = 62

#: A query goes through the bits (every query at once) while its documents x subtopic sets x subtopics, the gains
#: those steps add, stay below this; a larger one takes the sparse greedy, whose work follows what each step changes.
_BITS_CELLS = 1 << 22

#: The most gain sums ndeval's greedy ideal ranking may take for one query (each limit about 2 s of CPU): on the
#: sparse path, counted as it goes (a subtopic set is scored again when it comes to the top of the heap); then
#: through the bits, documents x subtopic sets x subtopics, for a query of at
#: most 62 subtopics. A query past both is refused.
MAX_IDEAL_SUMS = 10_000_000
MAX_IDEAL_CELLS = 1 << 27


def _greedy_ideal(relevant: _Relevant, starts: np.ndarray, alpha: float,
                  name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """ndeval's greedy ideal ranking of every query: ``(queries, ranks, gains)``, the novelty gain at each rank of
    the documents with a relevant subtopic, by query then rank (ragged: a long query pads no other).

    Each query's documents are in doc id order from ``starts[q]``. At each rank ndeval takes the document with the
    largest gain, ties to the larger doc id (its idealResult). Documents with equal subtopic sets gain alike
    ("patterns"), each pattern taking its documents larger doc id first. Queries with few subtopics and patterns step
    together through bit masks (:func:`_greedy_bits`); the others take :func:`_greedy_sparse`.
    """
    queries = starts.shape[0] - 1
    per_document = np.diff(relevant.starts)
    documents = np.flatnonzero(per_document > 0)
    query = np.searchsorted(starts, documents, side="right") - 1
    lengths = np.bincount(query, minlength=queries)
    # Each pair's subtopic renumbered among its query's relevant subtopics (the same order).
    pair_query = np.repeat(query, per_document[documents])
    place = np.searchsorted(relevant.key, pair_query * relevant.stride + relevant.subtopic)
    local_subtopic = place - np.searchsorted(relevant.key, np.arange(queries) * relevant.stride)[pair_query]
    width = relevant.covered
    narrow = width <= _MAX_BITS
    bits = np.where(narrow[pair_query], np.left_shift(1, np.minimum(local_subtopic, _MAX_BITS)), 0)
    masks = np.bitwise_or.reduceat(bits, relevant.starts[documents]) if documents.shape[0] else bits
    patterns = np.bincount(np.unique(np.stack([query, masks]), axis=1)[0], minlength=queries)
    through_bits = narrow & (lengths * patterns * width <= _BITS_CELLS)
    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    on_bits = through_bits[query]
    sizes = np.stack([_bit_length(lengths), _bit_length(patterns), _bit_length(width)])
    bucket_of = sizes[:, query[on_bits]]
    if bucket_of.shape[1]:
        _, bucket = np.unique(bucket_of, axis=1, return_inverse=True)
        for b in range(int(bucket.max()) + 1):  # queries of similar sizes together: padding stays within 2x
            take = np.flatnonzero(on_bits)[bucket.reshape(-1) == b]
            members = np.unique(query[take])
            local = np.searchsorted(members, query[take])
            gains, counts = _greedy_bits(local, documents[take] - starts[query[take]], masks[take],
                                         members.shape[0], int(width[members].max()), alpha)
            present = np.arange(gains.shape[1])[None, :] < counts[:, None]
            rows, columns = np.nonzero(present)
            parts.append((members[rows], columns + 1, gains[rows, columns]))
    pair_starts = np.concatenate([[0], np.cumsum(per_document[documents])])  # of each document, in ``place``
    first_of_query = np.concatenate([[0], np.cumsum(lengths)])
    # A document alone on each of its subtopics gains their number wherever it comes: it shares nothing.
    solitary = (np.minimum.reduceat(relevant.count[place] == 1, pair_starts[:-1]) if documents.shape[0]
                else np.zeros(0, dtype=bool))
    for q in np.flatnonzero(~through_bits & (lengths > 0)).tolist():
        span = np.arange(first_of_query[q], first_of_query[q + 1])
        alone, shared = span[solitary[span]], span[~solitary[span]]
        counts = per_document[documents[shared]]
        grouped = _patterns((documents[shared] - starts[q]).tolist(), np.concatenate([[0], np.cumsum(counts)]).tolist(),
                            local_subtopic[np.repeat(pair_starts[shared], counts) + _within(counts)].tolist())
        found = _greedy_sparse(grouped, alpha)
        cells = int(lengths[q]) * len(grouped.members) * int(width[q])
        if found is not None:
            gains = np.concatenate([found[0], per_document[documents[alone]].astype(np.float64)])
            heads = np.concatenate([found[1], documents[alone] - starts[q]])
            ranked = gains[np.lexsort((-heads, -gains))]
        elif narrow[q] and cells <= MAX_IDEAL_CELLS:
            ranked = _greedy_bits(np.zeros(span.shape[0], dtype=np.int64), documents[span] - starts[q], masks[span],
                                  1, int(width[q]), alpha)[0][0]
        else:
            raise InputError(f"{name}: a query has {shared.shape[0]:,} documents relevant to overlapping sets of its "
                             f"{int(width[q]):,} subtopics ({len(grouped.members):,} different sets); ndeval's greedy "
                             f"ideal ranking of it takes more than {MAX_IDEAL_SUMS:,} gain sums, the limit per query: "
                             "judge fewer documents for those subtopics, or use alpha-DCG, ERR-IA or NRBP (divided "
                             "by the ideal ideal, no greedy ranking)")
        parts.append((np.full(len(ranked), q), np.arange(1, len(ranked) + 1), np.asarray(ranked)))
    if not parts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, np.zeros(0)
    found_queries, ranks, gains = (np.concatenate(column) for column in zip(*parts))
    order = np.lexsort((ranks, found_queries))
    return found_queries[order], ranks[order], gains[order]


def _within(counts: np.ndarray) -> np.ndarray:
    """0, 1, ..., count - 1 for each count, one after the other."""
    return np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)


def _bit_length(values: np.ndarray) -> np.ndarray:
    return np.ceil(np.log2(np.maximum(values, 1))).astype(np.int64)


def _greedy_bits(query: np.ndarray, local: np.ndarray, masks: np.ndarray, queries: int, width: int,
                 alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """The greedy ideal of several queries at once, stepping together over their patterns: ``(gains, lengths)``,
    gains (queries, deepest). ``query``, ``local`` (the doc id order within the query) and ``masks`` (the relevant
    subtopics as bits) describe each document with a relevant subtopic, by query and doc id."""
    lengths = np.bincount(query, minlength=queries)
    order = np.lexsort((-local, masks, query))
    query, masks, local = query[order], masks[order], local[order]
    opens = np.ones(query.shape[0], dtype=bool)
    opens[1:] = (query[1:] != query[:-1]) | (masks[1:] != masks[:-1])
    first = np.flatnonzero(opens)
    pattern_query, pattern_mask = query[first], masks[first]
    counts = np.diff(np.append(first, query.shape[0]))
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
    last = max(query.shape[0] - 1, 0)
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


@dataclass
class _Patterns:
    """One query's documents grouped by their set of relevant subtopics, for :func:`_greedy_sparse`.

    members: each pattern's subtopics, ascending; heads: its documents, the larger doc id first (the order ndeval
    takes them in); sharing: the patterns of each subtopic (a pattern alone on its subtopics gains in closed form)."""

    members: list[tuple[int, ...]]
    heads: list[list[int]]
    sharing: list[list[int]]


def _patterns(documents: list[int], pair_starts: list[int], subtopics: list[int]) -> _Patterns:
    """``documents`` (doc id order within the query, ascending) each have a relevant subtopic; document i's are
    ``subtopics[pair_starts[i]:pair_starts[i + 1]]``, ascending."""
    pattern_of: dict[tuple[int, ...], int] = {}
    members: list[tuple[int, ...]] = []
    heads: list[list[int]] = []
    for i, document in enumerate(documents):
        pattern = tuple(subtopics[pair_starts[i]: pair_starts[i + 1]])
        p = pattern_of.setdefault(pattern, len(members))
        if p == len(members):
            members.append(pattern)
            heads.append([])
        heads[p].append(document)
    for taking in heads:
        taking.reverse()
    sharing: list[list[int]] = [[] for _ in range(max(map(max, members), default=-1) + 1)]
    for p, pattern in enumerate(members):
        for j in pattern:
            sharing[j].append(p)
    return _Patterns(members, heads, sharing)


def _greedy_sparse(patterns: _Patterns, alpha: float) -> tuple[np.ndarray, np.ndarray] | None:
    """The greedy ideal of one query's patterns: ``(gains, heads)``, each document's gain where ndeval takes it;
    None once it has added :data:`MAX_IDEAL_SUMS` gains.
    Patterns that share no subtopic never change each other's gains, so ndeval's ranking is their separate rankings
    merged by (gain, doc id), both descending (each one's keys fall step by step): the caller sorts. A pattern alone
    on its subtopics gains, at its k-th document, its size times (1 - alpha)^k, added one subtopic at a time; the
    others go through a heap of bounds, a pattern scored again when it comes to the top: it is ndeval's choice when
    its score is still its bound."""
    members, heads, sharing = patterns.members, patterns.heads, patterns.sharing
    decay = 1.0 - alpha
    alone = [p for p, pattern in enumerate(members) if all(len(sharing[j]) == 1 for j in pattern)]
    counts = np.array([len(heads[p]) for p in alone], dtype=np.int64)
    sizes = np.array([len(members[p]) for p in alone], dtype=np.int64)
    nth = _within(counts)
    repeated = np.repeat(_powers(decay, int(counts.max(initial=1)))[nth], np.repeat(sizes, counts))
    gains = [np.bincount(np.repeat(np.arange(nth.shape[0]), np.repeat(sizes, counts)), weights=repeated,
                         minlength=nth.shape[0])]  # in subtopic order, from 0.0, as ndeval adds them
    taken_heads = [np.fromiter((doc for p in alone for doc in heads[p]), dtype=np.int64, count=nth.shape[0])]
    isolated = set(alone)
    gain = [1.0] * len(sharing)
    taken = [0] * len(members)
    # One entry per pattern with documents left: a bound on its gain (gains only fall; exact when it was scored
    # after the last change of its subtopics) and its next document, the largest gain first, ties to the larger doc id.
    heap = [(-float(len(pattern)), -heads[p][0], p) for p, pattern in enumerate(members) if p not in isolated]
    heapq.heapify(heap)
    ranked: list[float] = []
    ranked_heads: list[int] = []
    sums = 0
    while heap:
        bound, head, p = heap[0]
        sums += len(members[p])
        if sums > MAX_IDEAL_SUMS:
            return None
        score = 0.0
        for j in members[p]:  # in subtopic order, as ndeval adds a document's gains
            score += gain[j]
        if score != -bound:  # its subtopics fell since: back in its place
            heapq.heapreplace(heap, (-score, head, p))
            continue
        # Exact and above every other bound: ndeval's choice.
        ranked.append(score)
        ranked_heads.append(-head)
        taken[p] += 1
        for j in members[p]:
            gain[j] *= decay
        if taken[p] < len(heads[p]):
            heapq.heapreplace(heap, (bound, -heads[p][taken[p]], p))
        else:
            heapq.heappop(heap)
    gains.append(np.asarray(ranked, dtype=np.float64))
    taken_heads.append(np.asarray(ranked_heads, dtype=np.int64))
    return np.concatenate(gains), np.concatenate(taken_heads)


@dataclass(frozen=True)
class _Ideal:
    dcg: np.ndarray  # (n, DEPTH) the ideal ranking's alpha-DCG over the ideal ideal
    err: np.ndarray
    nrbp: np.ndarray


def _ideal(ctx: Context, alpha: float, beta: float, name: str) -> _Ideal:
    return ctx.shared(("diversity ideal", alpha, beta), lambda: _build_ideal(ctx, alpha, beta, name))


def _build_ideal(ctx: Context, alpha: float, beta: float, name: str) -> _Ideal:
    batch = ctx.batch
    if batch.subtopics is None:  # one subtopic: its R relevant documents gain 1, 1 - alpha, (1 - alpha)^2, ...
        lengths = ctx.num_relevant.astype(np.int64)
        covered = (lengths > 0).astype(np.int64)
        of_row = np.arange(batch.size)
        rows = np.repeat(of_row, lengths)
        ranks = np.arange(rows.shape[0]) - np.repeat(np.cumsum(lengths) - lengths, lengths) + 1
        scores = _powers(1.0 - alpha, int(lengths.max(initial=0)))[ranks - 1] if rows.shape[0] else np.zeros(0)
    else:
        relevant = _relevant(ctx)
        covered = relevant.covered
        rows, ranks, scores = _greedy_ideal(relevant, batch.subtopics.starts, alpha, name)
        of_row = batch.subtopics.query_of_row
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
    ideal = _ideal(ctx, alpha, BETA, "alpha-nDCG").dcg[:, columns]
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
    ideal = _ideal(ctx, alpha, BETA, "nERR-IA").err[:, columns]
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
    ideal = _ideal(ctx, alpha, beta, "nNRBP").nrbp
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
    places, inverse = np.unique(hits.rows * hits.stride + hits.subtopics, return_inverse=True)
    totals = np.bincount(inverse.reshape(-1), weights=(hits.before + 1) / hits.ranks,
                         minlength=places.shape[0])  # in rank order, as ndeval adds them
    rows, subtopics = np.divmod(places, hits.stride)
    # Subtopic by subtopic, as ndeval adds them (a relevant subtopic the ranking misses adds 0).
    summed = np.bincount(rows, weights=totals / hits.relevant_per_subtopic(rows, subtopics), minlength=ctx.batch.size)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(hits.covered > 0, summed / hits.covered, 0.0)[:, None]
