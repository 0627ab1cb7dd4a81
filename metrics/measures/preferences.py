"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``) and judgment-group measures (``-R qrels_jg``).

A query's preferences come in judgment groups (JG, one user's consistent view), each of one or more sub-groups
(JSG): within a sub-group a document with a higher level is preferred to one with a lower level, level 0 meaning
non-relevant. A group with one sub-group prefers every higher level to every lower one (its equivalence classes);
a group with several also gets the transitive preferences across them (A > B in one, B > C in another: A > C).

Documents are numbered as trec_eval numbers them (form_prefs_counts.c): the judged documents the run retrieves
0 .. NJR-1 in rank order (score descending, then doc id *ascending*, as trec_eval sorts for these measures), then
the judged documents it does not retrieve NJR .. NJ-1 in doc id order. A preference A > B is *fulfilled* when A is
ranked above B, which counts an unretrieved B below every retrieved document; it is *retrieved* when both are
retrieved, *implied* when one is, and *not occurring* when neither is.

Every measure is a function of the counts of :class:`PreferenceCounts`, built once per query.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

#: The most judged documents of one query a preference file may hold: the pair counts are a matrix of that size
#: squared (2,000: 16 MB, with a few temporaries of that size), and a group of several sub-groups is closed under
#: transitivity by multiplying such matrices.
MAX_JUDGED_PER_QUERY = 2_000

#: trec_eval's default cut-offs of P_avgjg and multiples of R of Rprec_mult_avgjg.
P_AVGJG_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RPREC_MULT_AVGJG_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


class PreferenceError(ValueError):
    """Preferences that trec_eval cannot count: a contradiction inside a judgment group, or too many documents."""


@dataclass(frozen=True)
class GroupCounts:
    """The preferences of one judgment group, counted against one ranking (trec_eval's JG struct)."""

    fulfilled_ret: int  # both retrieved, the preferred one above
    possible_ret: int  # both retrieved
    fulfilled_imp: int  # only the preferred one retrieved
    possible_imp: int  # exactly one retrieved
    possible_notoccur: int  # neither retrieved
    num_rel: int  # documents with a level > 0
    num_rel_ret: int
    num_nonrel: int  # documents with a level <= 0
    num_nonrel_ret: int
    rnonrel: tuple[int, int]  # (fulfilled, possible) with the non-relevant cut to R (prefs_avgjg_Rnonrel)
    rnonrel_ret: tuple[int, int]  # the same among retrieved documents (prefs_avgjg_Rnonrel_ret)

    @property
    def fulfilled(self) -> int:
        return self.fulfilled_ret + self.fulfilled_imp

    @property
    def possible(self) -> int:
        return self.possible_ret + self.possible_imp + self.possible_notoccur


@dataclass(frozen=True)
class PreferenceCounts:
    """One query's preferences against one ranking: each group's counts, and the pair sums over groups."""

    groups: tuple[GroupCounts, ...]
    num_judged: int
    num_judged_ret: int
    pair_sums: tuple[float, float, float]  # sum over doc pairs of fulfilled share: retrieved, implied (A3), -
    pair_counts: tuple[int, int, int]  # doc pairs with a preference: retrieved, implied, neither retrieved


def preference_counts(preferences: Sequence, ranked_docnos: Sequence[str]) -> PreferenceCounts:
    """Count ``preferences`` (objects with ``jg``, ``jsg``, ``docno``, ``rel``) against a ranking (doc ids in rank
    order, already cut at -M), as trec_eval's form_prefs_counts does."""
    judged = sorted({p.docno for p in preferences})
    if len(judged) > MAX_JUDGED_PER_QUERY:
        raise PreferenceError(f"{len(judged):,} documents have preferences for one query; at most "
                              f"{MAX_JUDGED_PER_QUERY:,} are counted (the pairs make a matrix of that size squared)")
    judged_set = set(judged)
    retrieved = [doc for doc in ranked_docnos if doc in judged_set]
    rank = {doc: i for i, doc in enumerate(retrieved)}
    njr = len(retrieved)
    for doc in judged:
        if doc not in rank:
            rank[doc] = len(rank)
    nj = len(judged)
    rows = sorted((p.jg, p.jsg, -p.rel, rank[p.docno], p.docno) for p in preferences)
    pairs = np.zeros((nj, nj), dtype=np.int32)  # pairs[i, j]: groups preferring i to j
    groups = []
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end][0] == rows[start][0]:
            end += 1
        group = rows[start:end]
        if len({row[1] for row in group}) > 1:
            groups.append(_array_group(group, nj, njr, pairs))
        else:
            groups.append(_class_group(group, njr, pairs))
        start = end
    return PreferenceCounts(tuple(groups), nj, njr, *_pair_totals(pairs, njr))


def _class_group(rows: list[tuple], njr: int, pairs: np.ndarray) -> GroupCounts:
    """A group of one sub-group: equivalence classes by level, each preferred to every lower one."""
    classes: list[np.ndarray] = []
    levels: list[float] = []
    for row in rows:
        if not levels or -row[2] != levels[-1]:
            levels.append(-row[2])
            classes.append([])
        classes[-1].append(row[3])
    ranks = [np.array(ranks, dtype=np.int64) for ranks in classes]  # ascending within a class
    counts = dict.fromkeys(("fr", "pr", "fi", "pi", "no", "rel", "relret", "non", "nonret"), 0)
    for index, (level, a) in enumerate(zip(levels, ranks)):
        retrieved_here = int(np.count_nonzero(a < njr))
        if level > 0.0:
            counts["rel"] += a.size
            counts["relret"] += retrieved_here
        else:
            counts["non"] += a.size
            counts["nonret"] += retrieved_here
        for b in ranks[index + 1:]:
            if np.intersect1d(a, b).size:
                raise PreferenceError("a document has two different levels in the same judgment sub-group")
            if np.unique(a).size == a.size and np.unique(b).size == b.size:
                pairs[np.ix_(a, b)] += 1
            else:  # a document listed twice at one level counts twice, as in trec_eval
                np.add.at(pairs, (a[:, None], b[None, :]), 1)
            a_ret, b_ret = a[a < njr], b[b < njr]
            above = a_ret.size * b_ret.size - int(np.searchsorted(b_ret, a_ret, side="right").sum())
            a_out, b_out = a.size - a_ret.size, b.size - b_ret.size
            counts["fr"] += above
            counts["pr"] += a_ret.size * b_ret.size
            counts["fi"] += a_ret.size * b_out
            counts["pi"] += a_ret.size * b_out + a_out * b_ret.size
            counts["no"] += a_out * b_out
    return GroupCounts(counts["fr"], counts["pr"], counts["fi"], counts["pi"], counts["no"], counts["rel"],
                       counts["relret"], counts["non"], counts["nonret"],
                       _class_rnonrel(ranks, counts["rel"], njr, retrieved_only=False),
                       _class_rnonrel(ranks, counts["relret"], njr, retrieved_only=True))


def _class_rnonrel(ranks: list[np.ndarray], r: int, njr: int, *, retrieved_only: bool) -> tuple[int, int]:
    """prefs_avgjg_Rnonrel's recount (trec_eval's ``recalculate``) of a class group: the pairs between classes
    except the last, then every class (the last too) against the first R documents of the last class.

    With ``retrieved_only`` (the _ret variant) only retrieved documents take part and R is those retrieved."""
    if retrieved_only:
        ranks = [a[a < njr] for a in ranks]
    fulfilled = possible = 0

    def count(a: np.ndarray, b: np.ndarray) -> None:
        nonlocal fulfilled, possible
        b_sorted = np.sort(b)
        shown = a[a < njr] if not retrieved_only else a
        above = int((b_sorted.size - np.searchsorted(b_sorted, shown, side="right")).sum())
        fulfilled += above
        possible += a.size * b.size - above

    for index, a in enumerate(ranks):
        for b in ranks[index + 1:len(ranks) - 1]:
            count(a, b)
    cut = ranks[-1][:r]
    for a in ranks:
        count(a, cut)
    return fulfilled, possible + fulfilled


def _array_group(rows: list[tuple], nj: int, njr: int, pairs: np.ndarray) -> GroupCounts:
    """A group of several sub-groups: its preferences as a matrix, closed under transitivity."""
    prefers = np.zeros((nj, nj), dtype=bool)
    level_of = np.full(nj, -1.0)
    start = 0
    while start < len(rows):
        end = start
        while end < len(rows) and rows[end][1] == rows[start][1]:
            end += 1
        ranks = np.array([row[3] for row in rows[start:end]], dtype=np.int64)
        levels = np.array([-row[2] for row in rows[start:end]])
        for row in rows[start:end]:
            known, level = level_of[row[3]], -row[2]
            if (known > 0.0 and level == 0.0) or (known == 0.0 and level > 0.0):
                raise PreferenceError(f"document {row[4]!r} has both level 0 and a level above 0 in judgment "
                                      f"group {row[0]!r}")
            level_of[row[3]] = level
        above, below = np.nonzero(levels[:, None] > levels[None, :])
        prefers[ranks[above], ranks[below]] = True
        start = end
    members = np.unique([row[3] for row in rows])  # only the group's documents can gain preferences
    closed = _transitive_closure(prefers[np.ix_(members, members)])
    if closed is None:
        raise PreferenceError(f"the preferences of judgment group {rows[0][0]!r} contradict each other (a document "
                              "preferred to another that is, through other sub-groups, preferred to it)")
    prefers[np.ix_(members, members)] = closed
    pairs += prefers
    relevant, nonrelevant = level_of > 0.0, level_of == 0.0
    fr = int(np.triu(prefers[:njr, :njr], 1).sum())
    pr = int(prefers[:njr, :njr].sum())
    fi = int(prefers[:njr, njr:].sum())
    pi = fi + int(prefers[njr:, :njr].sum())
    no = int(prefers[njr:, njr:].sum())
    return GroupCounts(fr, pr, fi, pi, no, int(relevant.sum()), int(relevant[:njr].sum()), int(nonrelevant.sum()),
                       int(nonrelevant[:njr].sum()),
                       _array_rnonrel(prefers, level_of, int(relevant.sum()), nj, njr),
                       # trec_eval's _ret recount keeps num_rel (not num_rel_ret) non-relevant documents here.
                       _array_rnonrel(prefers, level_of, int(relevant.sum()), njr, njr))


def _transitive_closure(prefers: np.ndarray) -> np.ndarray | None:
    """The relation closed under transitivity (what trec_eval's repeated self-multiplication reaches), or None when
    it has a cycle (trec_eval then finds a pair preferred both ways and aborts).

    The relation is a DAG: documents are taken in layers of a topological order, and each document reaches its
    successors and what they reach, as rows of bits, from the last layer back (about n^2 / 8 bytes of work per
    layer instead of n^3 per multiplication)."""
    direct = prefers.copy()
    np.fill_diagonal(direct, False)  # a document at two levels of one sub-group prefers nothing new
    n = direct.shape[0]
    remaining_in = direct.sum(axis=0)
    placed = np.zeros(n, dtype=bool)
    layers = []
    while not placed.all():
        layer = np.flatnonzero(~placed & (remaining_in == 0))
        if layer.size == 0:
            return None
        placed[layer] = True
        remaining_in = remaining_in - direct[layer].sum(axis=0)
        layers.append(layer)
    reach = np.packbits(direct, axis=1)
    for layer in reversed(layers):
        for node in layer:
            successors = np.flatnonzero(direct[node])
            if successors.size:
                reach[node] |= np.bitwise_or.reduce(reach[successors], axis=0)
    return np.unpackbits(reach, axis=1, count=n).astype(bool)


def _array_rnonrel(prefers: np.ndarray, level_of: np.ndarray, r: int, searched: int, njr: int) -> tuple[int, int]:
    """prefs_avgjg_Rnonrel's recount of a matrix group: non-relevant documents after the first R (in document
    order, among the first ``searched``) are left out; ``searched == njr`` is the _ret variant (retrieved only)."""
    nonrelevant = np.flatnonzero(level_of[:searched] == 0.0)
    first_discarded = int(nonrelevant[r]) if nonrelevant.size > r else searched
    kept = ~((np.arange(level_of.size) >= first_discarded) & (level_of == 0.0))
    kept_prefers = prefers & kept[:, None] & kept[None, :]
    retrieved = kept_prefers[:njr, :njr]
    fulfilled = int(np.triu(retrieved, 1).sum())
    possible = int(np.tril(retrieved, -1).sum())
    if searched > njr:  # the full variant also counts the pairs with an unretrieved document
        fulfilled += int(kept_prefers[:njr, njr:].sum())
        possible += int(kept_prefers[njr:, :].sum())
    return fulfilled, possible + fulfilled


def _pair_totals(pairs: np.ndarray, njr: int) -> tuple[tuple[float, float, float], tuple[int, int, int]]:
    """For prefs_pair: over document pairs with a preference, the sum of the share of groups ranking them as
    preferred, summed in trec_eval's order (both retrieved, then one), and the number of such pairs in each area."""
    both = pairs[:njr, :njr]
    mask = np.triu((both + both.T) > 0, 1)
    shares_retrieved = (both / np.where(mask, both + both.T, 1))[mask]
    one_forward, one_back = pairs[:njr, njr:], pairs[njr:, :njr].T
    one_mask = (one_forward + one_back) > 0
    shares_implied = (one_forward / np.where(one_mask, one_forward + one_back, 1))[one_mask]
    rest = pairs[njr:, njr:]
    neither = int(np.count_nonzero(np.triu((rest + rest.T) > 0, 1)))
    ordered = np.concatenate([shares_retrieved, shares_implied])
    total = float(np.cumsum(ordered)[-1]) if ordered.size else 0.0
    retrieved_total = float(np.cumsum(shares_retrieved)[-1]) if shares_retrieved.size else 0.0
    return (retrieved_total, total, 0.0), (int(shares_retrieved.size), int(shares_implied.size), neither)


# ---- the preference measures: each a function of one query's counts ------------------------------------------


def _ratio(fulfilled: int, possible: int) -> float:
    return fulfilled / possible if possible else 0.0


def _per_group(counts: PreferenceCounts, ratio) -> float:
    """trec_eval's avgjg: the mean over groups of each group's ratio (a group with none possible adds 0)."""
    total = 0.0
    for group in counts.groups:
        total += ratio(group)
    return total / len(counts.groups) if total > 0.0 else 0.0  # NaN > 0.0 is false, as in C


def prefs_num_prefs_poss(c: PreferenceCounts) -> float:
    """Preferences possible: every preference of every group, whatever the ranking."""
    return float(sum(g.possible for g in c.groups))


def prefs_num_prefs_ful(c: PreferenceCounts) -> float:
    """Preferences fulfilled, an unretrieved document counting below every retrieved one."""
    return float(sum(g.fulfilled for g in c.groups))


def prefs_num_prefs_ful_ret(c: PreferenceCounts) -> float:
    """Preferences fulfilled between retrieved documents."""
    return float(sum(g.fulfilled_ret for g in c.groups))


def prefs_simp(c: PreferenceCounts) -> float:
    r"""prefs\_simp = \frac{\sum_g fulfilled_g}{\sum_g possible_g}"""
    return _ratio(sum(g.fulfilled for g in c.groups), sum(g.possible for g in c.groups))


def prefs_simp_ret(c: PreferenceCounts) -> float:
    r"""prefs\_simp\_ret = \frac{\sum_g fulfilled^{ret}_g}{\sum_g possible^{ret}_g}"""
    return _ratio(sum(g.fulfilled_ret for g in c.groups), sum(g.possible_ret for g in c.groups))


def prefs_simp_imp(c: PreferenceCounts) -> float:
    r"""prefs\_simp\_imp = \frac{\sum_g fulfilled_g}{\sum_g possible^{ret}_g + possible^{imp}_g}"""
    return _ratio(sum(g.fulfilled for g in c.groups), sum(g.possible_ret + g.possible_imp for g in c.groups))


def prefs_pair(c: PreferenceCounts) -> float:
    r"""prefs\_pair = \frac{1}{|pairs|}\sum_{\{a,b\}} \frac{n_{a>b}}{n_{a>b} + n_{b>a}}, a ranked above b"""
    pairs = sum(c.pair_counts)
    return c.pair_sums[1] / pairs if pairs else 0.0


def prefs_pair_ret(c: PreferenceCounts) -> float:
    r"""prefs\_pair over the pairs of retrieved documents"""
    return c.pair_sums[0] / c.pair_counts[0] if c.pair_counts[0] else 0.0


def prefs_pair_imp(c: PreferenceCounts) -> float:
    r"""prefs\_pair over the pairs with at least one retrieved document"""
    pairs = c.pair_counts[0] + c.pair_counts[1]
    return c.pair_sums[1] / pairs if pairs else 0.0


def prefs_avgjg(c: PreferenceCounts) -> float:
    r"""prefs\_avgjg = \frac{1}{|G|}\sum_g \frac{fulfilled_g}{possible_g}"""
    return _per_group(c, lambda g: _ratio(g.fulfilled, g.possible))


def prefs_avgjg_ret(c: PreferenceCounts) -> float:
    r"""prefs\_avgjg\_ret = \frac{1}{|G|}\sum_g \frac{fulfilled^{ret}_g}{possible^{ret}_g}"""
    return _per_group(c, lambda g: _ratio(g.fulfilled_ret, g.possible_ret))


def prefs_avgjg_imp(c: PreferenceCounts) -> float:
    r"""prefs\_avgjg\_imp = \frac{1}{|G|}\sum_g \frac{fulfilled_g}{possible^{ret}_g + possible^{imp}_g}"""
    return _per_group(c, lambda g: _ratio(g.fulfilled, g.possible_ret + g.possible_imp))


def _c_divide(numerator: int, denominator: int) -> float:
    """numerator / denominator as C divides doubles: 0/0 is NaN, which makes trec_eval's ``sum > 0.0`` false, so the
    query scores 0 (prefs_avgjg_Rnonrel_ret of a group with nothing retrieved)."""
    if denominator:
        return numerator / denominator
    return float("nan") if numerator == 0 else math.copysign(math.inf, numerator)


def _rnonrel(g: GroupCounts) -> float:
    r, n = g.num_rel, g.num_nonrel
    if r >= n:
        return _c_divide(g.fulfilled + g.num_rel_ret * (r - n), g.possible + g.num_rel * (r - n))
    return _c_divide(*g.rnonrel)


def _rnonrel_ret(g: GroupCounts) -> float:
    r, n = g.num_rel_ret, g.num_nonrel_ret
    if r >= n:
        # trec_eval adds num_rel (not num_rel_ret) times R - N possible preferences here.
        return _c_divide(g.fulfilled_ret + g.num_rel_ret * (r - n), g.possible_ret + g.num_rel * (r - n))
    return _c_divide(*g.rnonrel_ret)


def prefs_avgjg_Rnonrel(c: PreferenceCounts) -> float:  # noqa: N802 (trec_eval's name)
    r"""prefs\_avgjg with each group's non-relevant documents set to R: R (R - N) fulfilled preferences added when
    N < R, only the first R non-relevant counted when N > R (akin to bpref)"""
    return _per_group(c, _rnonrel)


def prefs_avgjg_Rnonrel_ret(c: PreferenceCounts) -> float:  # noqa: N802 (trec_eval's name)
    r"""prefs\_avgjg\_Rnonrel among retrieved documents: R and N are those retrieved"""
    return _per_group(c, _rnonrel_ret)


# ---- the judgment-group measures of -R qrels_jg: each group's judgments in turn, averaged ------------------------


def _group_mean(total: float, groups: int) -> float:
    return total / groups if groups > 1 else total


def map_avgjg(grades_by_group: Sequence[np.ndarray], relevant_by_group: Sequence[int], level: int) -> float:
    r"""map\_avgjg = \frac{1}{|G|}\sum_g AP_g: AP against each judgment group's grades, averaged over groups"""
    total = 0.0
    for grades, relevant in zip(grades_by_group, relevant_by_group):
        hits = np.flatnonzero(grades >= level)
        if hits.size:
            precisions = np.arange(1, hits.size + 1) / (hits + 1.0)
            total += float(np.cumsum(precisions)[-1]) / relevant
    return _group_mean(total, len(grades_by_group))


def p_avgjg(grades_by_group: Sequence[np.ndarray], cutoffs: Sequence[int], level: int) -> list[float]:
    r"""P\_avgjg@k = \frac{1}{|G|}\sum_g P@k_g"""
    totals = [0.0] * len(cutoffs)
    for grades in grades_by_group:
        found = np.concatenate([[0], np.cumsum(grades >= level)])
        for index, k in enumerate(cutoffs):
            totals[index] += int(found[min(k, grades.size)]) / k
    return [_group_mean(total, len(grades_by_group)) for total in totals]


def rprec_mult_avgjg(grades_by_group: Sequence[np.ndarray], relevant_by_group: Sequence[int],
                     multiples: Sequence[float], level: int) -> list[float]:
    r"""Rprec\_mult\_avgjg@m = \frac{1}{|G|}\sum_g P@c_g, c = \lfloor m R_g + 0.9 \rfloor"""
    totals = [0.0] * len(multiples)
    for grades, relevant in zip(grades_by_group, relevant_by_group):
        found = np.concatenate([[0], np.cumsum(grades >= level)])
        for index, multiple in enumerate(multiples):
            cut = int(multiple * relevant + 0.9)
            if cut > 0:
                totals[index] += int(found[min(cut, grades.size)]) / cut
    return [_group_mean(total, len(grades_by_group)) for total in totals]


@dataclass(frozen=True)
class PreferenceMeasure:
    """A measure of ``-R prefs`` / ``-R qrels_prefs`` (``kernel`` over :class:`PreferenceCounts`) or of ``-R
    qrels_jg`` (``kernel`` None: computed by the qrels_jg front door), with trec_eval's name and description."""

    name: str
    short_desc: str
    kernel: object | None
    formats: tuple[str, ...]
    text: str = ""  # the formula in plain text, for a terminal (--help) and docs/measures.md
    is_count: bool = False
    cutoffs: tuple[float, ...] = ()  # default cut-offs (P_avgjg) or multiples of R (Rprec_mult_avgjg)
    peer: str = "trec_eval 9.0.8 and 10.0 files"  # what its tests compare with

    @property
    def formula(self) -> str:
        return " ".join((getattr(self.kernel, "__doc__", None) or "").split())


_PREFS = ("prefs", "qrels_prefs")
_QRELS_JG = ("qrels_jg",)

#: In trec_eval's order (its measures.c table).
PREFERENCE_MEASURES: dict[str, PreferenceMeasure] = {m.name: m for m in (
    PreferenceMeasure(
        "prefs_num_prefs_poss", "Number of preferences possible (summed over queries).", prefs_num_prefs_poss, _PREFS,
        text="possible = the preferences of every group, whatever the ranking", is_count=True),
    PreferenceMeasure(
        "prefs_num_prefs_ful", "Number of preferences fulfilled, implied ones included.", prefs_num_prefs_ful, _PREFS,
        text="fulfilled = preferences a > b with a ranked above b (an unretrieved document is below every retrieved "
             "one)", is_count=True),
    PreferenceMeasure(
        "prefs_num_prefs_ful_ret", "Number of preferences fulfilled between retrieved documents.",
        prefs_num_prefs_ful_ret, _PREFS, text="fulfilled_ret = fulfilled preferences between two retrieved documents",
        is_count=True),
    PreferenceMeasure(
        "prefs_simp", "Preferences fulfilled / preferences possible.", prefs_simp, _PREFS,
        text="prefs_simp = fulfilled / possible, over all groups' preferences"),
    PreferenceMeasure(
        "prefs_pair", "Mean over document pairs of the share of groups whose preference is fulfilled.", prefs_pair,
        _PREFS, text="prefs_pair = mean over document pairs of (groups preferring the one ranked higher) / (groups "
                     "with a preference on the pair)"),
    PreferenceMeasure(
        "prefs_avgjg", "prefs_simp within each judgment group, averaged over groups.", prefs_avgjg, _PREFS,
        text="prefs_avgjg = mean over groups g of fulfilled_g / possible_g"),
    PreferenceMeasure(
        "prefs_avgjg_Rnonrel", "prefs_avgjg with as many non-relevant as relevant documents (like bpref).",
        prefs_avgjg_Rnonrel, _PREFS,
        text="prefs_avgjg_Rnonrel = prefs_avgjg with each group's N non-relevant documents set to its R relevant: "
             "R (R - N) fulfilled added if N < R, only the first R non-relevant kept if N > R"),
    PreferenceMeasure(
        "prefs_simp_ret", "prefs_simp between retrieved documents only.", prefs_simp_ret, _PREFS,
        text="prefs_simp_ret = fulfilled_ret / possible_ret (both documents retrieved)"),
    PreferenceMeasure(
        "prefs_pair_ret", "prefs_pair over pairs of retrieved documents.", prefs_pair_ret, _PREFS,
        text="prefs_pair_ret = prefs_pair over pairs of two retrieved documents"),
    PreferenceMeasure(
        "prefs_avgjg_ret", "prefs_avgjg between retrieved documents only.", prefs_avgjg_ret, _PREFS,
        text="prefs_avgjg_ret = mean over groups g of fulfilled_ret_g / possible_ret_g"),
    PreferenceMeasure(
        "prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel between retrieved documents only.", prefs_avgjg_Rnonrel_ret,
        _PREFS, text="prefs_avgjg_Rnonrel_ret = prefs_avgjg_Rnonrel among retrieved documents (R and N retrieved)"),
    PreferenceMeasure(
        "prefs_simp_imp", "prefs_simp ignoring preferences between two unretrieved documents.", prefs_simp_imp,
        _PREFS, text="prefs_simp_imp = fulfilled / possible, leaving out pairs of two unretrieved documents"),
    PreferenceMeasure(
        "prefs_pair_imp", "prefs_pair ignoring pairs of two unretrieved documents.", prefs_pair_imp, _PREFS,
        text="prefs_pair_imp = prefs_pair over pairs with at least one retrieved document"),
    PreferenceMeasure(
        "prefs_avgjg_imp", "prefs_avgjg ignoring preferences between two unretrieved documents.", prefs_avgjg_imp,
        _PREFS, text="prefs_avgjg_imp = prefs_avgjg leaving out pairs of two unretrieved documents"),
    PreferenceMeasure(
        "map_avgjg", "AP against each judgment group's qrels, averaged over groups.", map_avgjg, _QRELS_JG,
        text="map_avgjg = mean over judgment groups g of AP against g's qrels"),
    PreferenceMeasure(
        "P_avgjg", "P@k against each judgment group's qrels, averaged over groups.", p_avgjg, _QRELS_JG,
        text="P_avgjg@k = mean over judgment groups g of P@k against g's qrels", cutoffs=P_AVGJG_CUTOFFS),
    PreferenceMeasure(
        "Rprec_mult_avgjg", "Precision at m x R against each judgment group's qrels, averaged over groups.",
        rprec_mult_avgjg, _QRELS_JG,
        text="Rprec_mult_avgjg@m = mean over groups g of P@c against g's qrels, c = (long)(m * R_g + 0.9)",
        cutoffs=RPREC_MULT_AVGJG_MULTIPLES),
)}

#: trec_eval's nicknames of these measures (measures.c), runid and num_q aside.
PREFERENCE_NICKNAMES = {
    "all_prefs": tuple(name for name, m in PREFERENCE_MEASURES.items() if m.formats == _PREFS),
    "prefs": ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
              "prefs_avgjg"),
    "qrels_jg": ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}
