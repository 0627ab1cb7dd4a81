"""Expected values under a uniformly random order of every tie group, in closed form (McSherry & Najork, ECIR 2008,
"Computing information retrieval performance measures efficiently in the presence of tied scores").

Notation, for the tie group containing rank j: n documents, r of them relevant, s documents ranked above the
group and b relevant ones among them. Every order of the group being equally likely, each of its ranks holds a
relevant document with probability r/n, and the number of relevant documents in its first m ranks is
hypergeometric: none with probability C(n - r, m) / C(n, m).

* hits@c (P@k, recall@k, relative_P@k, R-precision, Rprec_mult, F@k): E[hits@c] = sum over ranks j <= c of r/n.
  Every one of these measures is hits@c over a fixed denominator (F@k = (1 + b^2) hits@k / (b^2 R + k)), so its
  expectation is hits replaced by E[hits@c].
* Success@k: 1 - P(no relevant document in the top k).
* DCG, nDCG, RBP: each rank's gain replaced by the mean gain of its group (the engine's ``tied_gains="averaged"``,
  which is McSherry and Najork's tie-averaged DCG); the ideal is fixed.
* RR: the first group holding a relevant document decides; its first relevant document is at its rank j with
  probability C(n - j, r - 1) / C(n, r), so E[RR] = sum_j C(n - j, r - 1) / C(n, r) / (s + j).
* AP: E[sum of P@rank over the relevant documents] = sum over groups with r > 0, over their ranks j = 1..n, of
  (r / n) (b + 1 + (j - 1)(r - 1)/(n - 1)) / (s + j): given a relevant document at the group's j-th rank, the j - 1
  ranks above it inside the group hold (j - 1)(r - 1)/(n - 1) relevant ones on average. Divided by R (trec_eval)
  or min(R, k), both fixed.
* unj@k and Judged@k: hits@k for "unjudged" and "in the qrels" instead of "relevant".

Each function takes the ranking as the engine scores it (labels and tie groups after -M and -J) and returns
None where the measure, under its conventions, has no closed form here.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

import numpy as np

from ..conventions import Conventions
from ..engine import evaluate_batch
from ..names import Measure
from .groups import POOLED, TiedQuery, batch_of

#: Measures whose expectation is the value with each rank's gain averaged over its tie group.
AVERAGED_GAINS = ("ndcg", "ndcg_cut", "rbp")

#: Measures with a closed form for their expected value (rank cut-offs or not).
CLOSED_FORM = frozenset({"P", "recall", "relative_P", "Rprec", "Rprec_mult", "F", "success", "recip_rank",
                         "recip_rank_cut", "map", "map_cut", "ndcg", "ndcg_cut", "rbp", "unj", "Judged"})


def _group_stats(member: np.ndarray, groups: np.ndarray) -> tuple[np.ndarray, ...]:
    """Per rank: its group's size n, members r (``member`` true), ranks above the group s, members above b
    (remembered for the last few rankings: a query's measures ask for the same ones again and again)."""
    return _stats_of(member.astype(bool).tobytes(), groups.astype(np.int64).tobytes())


@lru_cache(maxsize=32)
def _stats_of(member_bytes: bytes, groups_bytes: bytes) -> tuple[np.ndarray, ...]:
    member, groups = np.frombuffer(member_bytes, dtype=bool), np.frombuffer(groups_bytes, dtype=np.int64)
    if groups.shape[0] == 0:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty, empty
    opens = np.empty(groups.shape[0], dtype=bool)
    opens[0] = True
    np.not_equal(groups[1:], groups[:-1], out=opens[1:])
    starts = np.flatnonzero(opens)
    ends = np.append(starts[1:], groups.shape[0])
    index = np.cumsum(opens) - 1
    cum = np.concatenate(([0], np.cumsum(member)))
    size = (ends - starts)[index]
    inside = (cum[ends] - cum[starts])[index]
    return size, inside, starts[index], cum[starts][index]


def expected_hits(member: np.ndarray, groups: np.ndarray, cut: int) -> float:
    """E[number of members in the top ``cut``] (``cut`` <= 0 or past the end: the whole ranking)."""
    size, inside, _, _ = _group_stats(member, groups)
    if size.shape[0] == 0:
        return 0.0
    depth = size.shape[0] if cut <= 0 else min(cut, size.shape[0])
    return float(np.sum(inside[:depth] / size[:depth]))


def chance_of_none(member: np.ndarray, groups: np.ndarray, cut: int) -> float:
    """P(no member in the top ``cut``)."""
    length = member.shape[0]
    depth = length if cut <= 0 else min(cut, length)
    if depth == 0:
        return 1.0
    size, inside, start, before = _group_stats(member, groups)
    last = depth - 1
    if before[last] > 0:
        return 0.0
    n, r, m = int(size[last]), int(inside[last]), depth - int(start[last])
    if m > n - r:
        return 0.0
    # C(n - r, m) / C(n, m) as a product of m ratios: the binomials of a long tie have thousands of digits.
    t = np.arange(m, dtype=np.float64)
    return float(np.prod((n - r - t) / (n - t)))


def expected_reciprocal_rank(relevant: np.ndarray, groups: np.ndarray, cut: int) -> float:
    """E[1 / rank of the first relevant document], 0 past ``cut`` (McSherry & Najork's tie-aware RR)."""
    found = np.flatnonzero(relevant)
    if found.shape[0] == 0:
        return 0.0
    size, inside, start, _ = _group_stats(relevant, groups)
    first = int(found[0])
    n, r, s = int(size[first]), int(inside[first]), int(start[first])
    last = n - r + 1 if cut <= 0 else min(n - r + 1, cut - s)
    if last < 1:
        return 0.0
    # P(first relevant at the group's rank j) = C(n - j, r - 1) / C(n, r): r/n at j = 1, then each next one
    # (n - j - r + 1) / (n - j) times the last (floats, as the binomials of a long tie have thousands of digits).
    j = np.arange(1, last, dtype=np.float64)
    chance = (r / n) * np.concatenate(([1.0], np.cumprod((n - j - r + 1) / (n - j))))
    return float(np.sum(chance / (s + np.arange(1, last + 1))))


def expected_precision_sum(relevant: np.ndarray, groups: np.ndarray, cut: int) -> float:
    """E[sum of P@rank over the relevant documents in the top ``cut``]: AP's numerator (McSherry & Najork)."""
    size, inside, start, before = _group_stats(relevant, groups)
    total = 0.0
    rank = 0
    while rank < size.shape[0]:
        n, r, s, b = int(size[rank]), int(inside[rank]), int(start[rank]), int(before[rank])
        if r:
            for j in range(1, n + 1):
                if cut > 0 and s + j > cut:
                    break
                above = (j - 1) * (r - 1) / (n - 1) if n > 1 else 0.0
                total += (r / n) * (b + 1 + above) / (s + j)
        rank = s + n
    return total


def expected_value(measure: Measure, query: TiedQuery, labels: np.ndarray, groups: np.ndarray,
                   conventions: Conventions, condensed: bool, mean_gains: float | None = None) -> float | None:
    """The expected value of ``measure`` over random orders of the tie groups of ``query`` (scored as ``labels``,
    ``groups``: the ranking after -M and -J), or None when it has no closed form here. ``mean_gains``: the value
    with tie-averaged gains when the caller has it (nDCG, RBP), scored in one batch with other queries."""
    name = measure.name
    if name not in CLOSED_FORM:
        return None
    level = measure.relevance_level if measure.relevance_level is not None else conventions.relevance_level
    relevant = labels >= level
    num_relevant = int((query.judged_grades >= level).sum())
    length = labels.shape[0]
    cut = int(measure.cutoff or 0)
    if name in AVERAGED_GAINS:
        if name == "rbp" and measure.gain_map:
            return None  # RBP scales by the largest gain in the ranking when gains are given: not linear
        if mean_gains is not None:
            return mean_gains
        averaged = averaged_conventions(conventions)
        batch = batch_of(query, query.labels, averaged, condensed)
        return float(evaluate_batch(batch, [measure], averaged)[measure.key][0])
    if name in ("unj", "Judged"):
        member = labels < 0 if name == "unj" else labels >= POOLED
        hits = expected_hits(member, groups, cut)
        if name == "unj":
            return hits / cut
        shown = min(cut if cut > 0 else length, length)
        return hits / shown if shown else 0.0
    if name in ("recip_rank", "recip_rank_cut"):
        return expected_reciprocal_rank(relevant, groups, cut)
    if name in ("map", "map_cut"):
        rule = measure.ap_denominator or conventions.ap_denominator
        if num_relevant == 0 or rule not in ("R", "min_R_k"):
            return None  # 0 or 1 whatever the order (empty_ideal), or a denominator that moves with the order
        denominator = num_relevant if rule == "R" or cut <= 0 else min(num_relevant, cut)
        return expected_precision_sum(relevant, groups, cut) / denominator
    if name == "success":
        return 1.0 - chance_of_none(relevant, groups, cut)
    if name == "Rprec":
        return expected_hits(relevant, groups, num_relevant) / num_relevant if num_relevant else 0.0
    if name == "Rprec_mult":
        c = int(float(measure.cutoff) * num_relevant + 0.9)
        return expected_hits(relevant, groups, c) / c if c > 0 else 0.0
    k = cut if conventions.precision_short_list == "k" else min(cut, length)
    hits = expected_hits(relevant, groups, cut)
    if name == "P":
        return hits / k if k else 0.0
    if name == "recall":
        return hits / num_relevant if num_relevant else 0.0
    if name == "relative_P":
        best = min(cut, num_relevant)
        return hits / best if best else 0.0
    beta2 = (measure.params[0] if measure.params else 1.0) ** 2  # F@k = (1 + b^2) hits / (b^2 R + k)
    return (1 + beta2) * hits / (beta2 * num_relevant + k) if num_relevant and k else 0.0


@lru_cache(maxsize=16)
def averaged_conventions(conventions: Conventions) -> Conventions:
    """The conventions with each rank's gain averaged over its tie group: McSherry and Najork's DCG."""
    return conventions.replace(tied_gains="averaged")


def closed_forms(measures: list[Measure], query: TiedQuery, conventions: Conventions,
                 evaluated: Mapping[bool, tuple[np.ndarray, np.ndarray]], condensed_of: Mapping[str, bool],
                 mean_gains: Mapping[str, float] | None = None) -> dict[str, float | None]:
    """:func:`expected_value` of each measure (None where there is no closed form)."""
    out = {}
    for measure in measures:
        condensed = condensed_of[measure.key]
        labels, groups = evaluated[condensed]
        out[measure.key] = expected_value(measure, query, labels, groups, conventions, condensed,
                                          (mean_gains or {}).get(measure.key))
    return out
