"""Delta attribution: for one query, two rankings A and B and one measure, split ``value(B) - value(A)`` exactly into
the contributions of the document edits that turn A into B.

The edits. Both lists are first taken as the measure reads them (cut at the depth, ``-M``, then condensed to judged
documents where the measure counts only those, ``-J``); when the measure has a cut-off k and its value on each
list's top k equals its value on the whole list, only the two top-k lists are compared. The common documents keep
the longest sequence they share in the same order in A and in B (the *stable* documents: a longest increasing
subsequence of their ranks in B, read in A's order, found by patience sorting); every other document is one edit:

- ``moved``: in both lists, out of that shared order;
- ``inserted``: in B only (or "entered the top k");
- ``removed``: in A only (or "left the top k").

The path. Applying any set S of edits gives one ranking: the stable documents in their shared order; between two
stable documents (a *gap*) each non-stable document sits at its place in A (edit not applied) or in B (applied),
ordered by its offset inside the gap, and at equal offsets the document placed as in B first. S = {} is A and
S = every edit is B. A contribution is a change of the measure along such rankings:

- up to :data:`SHAPLEY_UP_TO` edits, the **Shapley value** of each edit: its change averaged over every order of
  the edits (every subset of them is one ranking of a batch, scored in one kernel call);
- beyond, the change of each edit along one **fixed order**: the removals first (A's order, top first), then the
  moves and insertions in B's order, top first.

Every value is the engine's float for a ranking (:func:`~metrics.engine.evaluate_batch` under the same conventions,
so the two ends are :func:`metrics.evaluate`'s values), turned into an exact :class:`~fractions.Fraction`; the
contributions are exact rationals, so they sum to ``Fraction(after) - Fraction(before)`` with no residual.

>>> judgments = {"a": 1, "b": 0, "c": 1}
>>> delta = attribute_delta(judgments, ["b", "a", "x"], ["a", "c", "b"], "P@2")
>>> delta.before, delta.after, delta.method, delta.window
(0.5, 1.0, 'shapley', 2)
>>> [(c.describe(delta.window), str(c.exact)) for c in delta.contributions]
[('b (rank 1) left the top 2', '1/4'), ('c entered the top 2 at rank 2', '1/4')]
>>> sum(c.exact for c in delta.contributions) == delta.difference
True
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np

from ..conventions import PLACEHOLDER_DOCNO, TREC_EVAL, Conventions
from ..engine import check_gain_range, cleared_by_placeholder, evaluate_batch, judged_only
from ..model import InputError, RankingBatch, check_grades, check_unique, order_documents
from ..names import Measure, parse_one_measure
from .scenario import CHUNK_CELLS

#: Shapley values over up to this many edits: 2^12 = 4,096 rankings in one batch. Beyond, the fixed order.
SHAPLEY_UP_TO = 12

#: The longest list attributed (documents per ranking, after the depth cut): the fixed order then scores at most
#: 2 x 10,000 rankings, in chunks of at most CHUNK_CELLS ranks.
MAX_LIST = 10_000

EditKind = Literal["moved", "inserted", "removed"]
Method = Literal["shapley", "fixed order", "no edits"]


@dataclass(frozen=True, slots=True)
class Contribution:
    """One document's edit and its exact share of the difference. Ranks are 1-based in the lists as the measure
    reads them (after depth and judged-only); None where the document is not in that list (or not in its top k)."""

    doc: str
    kind: EditKind
    rank_before: int | None
    rank_after: int | None
    exact: Fraction

    @property
    def value(self) -> float:
        return float(self.exact)

    def describe(self, window: int | None = None) -> str:
        """``muffin moved from rank 3 to rank 1``, ``scone entered at rank 2``, ``bagel (rank 4) was removed``."""
        if self.kind == "moved":
            return f"{self.doc} moved from rank {self.rank_before} to rank {self.rank_after}"
        if self.kind == "inserted":
            return f"{self.doc} entered the top {window} at rank {self.rank_after}" if window else \
                f"{self.doc} entered at rank {self.rank_after}"
        return f"{self.doc} (rank {self.rank_before}) left the top {window}" if window else \
            f"{self.doc} (rank {self.rank_before}) was removed"


@dataclass(frozen=True)
class DeltaAttribution:
    """``after - before`` of ``measure`` (B's value minus A's) split into ``contributions``, largest share first."""

    measure: str  # the measure's key, e.g. "ndcg_cut_10"
    before: float
    after: float
    contributions: tuple[Contribution, ...]
    method: Method
    window: int | None  # the top k compared, or None for the whole lists
    stable: tuple[str, ...]  # the documents that keep their shared order

    @property
    def difference(self) -> Fraction:
        """``after - before``, exactly: the sum of the contributions."""
        return Fraction(self.after) - Fraction(self.before)

    @property
    def method_sentence(self) -> str:
        if self.method == "no edits":
            return "The two lists are the same as the measure reads them: there is nothing to split."
        where = f"the top {self.window} of each list" if self.window else "the whole lists"
        if len(self.contributions) == 1:
            return f"Edits between {where}: one, which carries the whole difference."
        if self.method == "shapley":
            how = (f"Shapley values: each edit's change averaged over every order of the {len(self.contributions)} "
                   "edits")
        else:
            how = (f"the change of each edit along one fixed order ({len(self.contributions)} edits, more than "
                   f"{SHAPLEY_UP_TO} for Shapley values): removals first, then moves and insertions from B's top")
        return f"Edits between {where}; shares are {how}. They sum to the difference exactly."


def attribute_delta(
    judgments: Mapping[str, int],
    run_a: Mapping[str, float] | Sequence[str] | None,
    run_b: Mapping[str, float] | Sequence[str] | None,
    measure: str | Measure,
    conventions: Conventions = TREC_EVAL,
    *,
    qid: str = "",
) -> DeltaAttribution:
    """Split ``measure(B) - measure(A)`` for one query into the contributions of its document edits.

    ``run_a`` and ``run_b`` are one query's scores ``{doc: score}`` (ordered as the run is: score descending, ties
    by ``conventions.tie_order`` at ``conventions.score_precision``), an explicit ranking (doc ids in rank order),
    or None for a query the run does not have (trec_eval -c's empty ranking, under ``missing_queries="zero"``).
    """
    if not isinstance(conventions, Conventions):
        raise InputError(f"Argument `conventions` has to be a metrics.Conventions, got {type(conventions).__name__}")
    parsed = parse_one_measure(measure)
    where = f"query {qid!r}: " if qid else ""
    if not parsed.info.per_query:
        raise InputError(f"{where}{parsed.key} is a summary over queries (trec_eval prints no per-query value): "
                         "there is no one-query difference to split; use its per-query form (e.g. map for gm_map)")
    if conventions.tied_gains == "averaged":
        raise InputError("delta attribution needs one order of each list: tied_gains='averaged' scores tied "
                         "documents as one group, so mixed lists of A and B have no scores to tie; use 'ordered'")
    check_grades(judgments, qid=qid)
    judgments = {str(doc): int(grade) for doc, grade in judgments.items()}
    if not judgments:
        raise InputError(f"{where}no judgments: trec_eval does not evaluate a query without them")
    check_gain_range([judgments], [parsed], conventions, names=[qid] if qid else None)
    lists = [_as_list(run, name, parsed, conventions, where, qid) for name, run in (("A", run_a), ("B", run_b))]
    evaluated = [_as_read(ranking, judgments, parsed, conventions) for ranking in lists]
    for name, ranking in zip("AB", evaluated):
        if len(ranking) > MAX_LIST:
            raise InputError(f"{where}list {name} has {len(ranking):,} documents as the measure reads them; delta "
                             f"attribution takes at most {MAX_LIST:,} (set a depth, -M)")
    scorer = _Scorer(evaluated[0], evaluated[1], judgments, parsed, conventions)
    before, after = scorer.ends()
    window = None
    k = parsed.cutoff
    if k is not None and not parsed.info.float_cutoffs and max(map(len, evaluated)) > k:
        cut = _Scorer(evaluated[0][: int(k)], evaluated[1][: int(k)], judgments, parsed, conventions)
        if cut.ends() == (before, after):
            scorer, window = cut, int(k)
    contributions, method = scorer.attribute()
    return DeltaAttribution(parsed.key, before, after, contributions, method, window, scorer.stable)


def _as_list(run, name: str, measure: Measure, conv: Conventions, where: str, qid: str) -> list[str]:
    if run is None:
        if conv.missing_queries != "zero":
            raise InputError(f"{where}run {name} does not have this query: trec_eval skips it (missing queries: "
                             "skip), so it has no value to compare; 'missing queries: zero' (-c) counts it as empty")
        if conv.missing_ranking == "placeholder":
            if cleared_by_placeholder(measure):
                raise InputError(f"{where}run {name} does not have this query, and trec_eval 10 sets {measure.key} "
                                 "of its placeholder to 0 whatever it retrieves: no edit explains that value")
            return [PLACEHOLDER_DOCNO]
        return []
    if isinstance(run, Mapping):
        return order_documents(run, conv.tie_order, qid=qid, score_precision=conv.score_precision)
    if isinstance(run, (str, bytes)) or not isinstance(run, Sequence):
        raise InputError(f"Argument `run_{name.lower()}` has to be one query's scores {{doc: score}}, a ranking "
                         f"(doc ids in rank order) or None, got {type(run).__name__}")
    ranking = [str(doc) for doc in run]
    check_unique(ranking, qid=qid)
    return ranking


def _as_read(ranking: list[str], judgments: Mapping[str, int], measure: Measure, conv: Conventions) -> list[str]:
    """The list as the measure reads it: cut at the depth, then (for judged-only measures) its judged documents."""
    if conv.depth is not None:
        ranking = ranking[: conv.depth]
    if judged_only(measure, conv):
        ranking = [doc for doc in ranking if judgments.get(doc, -1) >= 0]
    return ranking


class _Scorer:
    """The edits from list A to list B, and the measure of the ranking any set of them gives."""

    def __init__(self, a: list[str], b: list[str], judgments: Mapping[str, int], measure: Measure,
                 conv: Conventions):
        self.measure, self.conv = measure, conv
        in_b = {doc: rank for rank, doc in enumerate(b)}
        in_a = {doc: rank for rank, doc in enumerate(a)}
        common = [doc for doc in a if doc in in_b]
        stable = set(_longest_increasing([in_b[doc] for doc in common], common))
        self.stable = tuple(doc for doc in a if doc in stable)
        self.union = a + [doc for doc in b if doc not in in_a]
        # The edits, in the fixed order: removals in A's order, then moves and insertions in B's order.
        self.edits = [doc for doc in a if doc not in in_b] + [doc for doc in b if doc not in stable]
        self.kinds: list[EditKind] = ["removed" if doc not in in_b else "inserted" if doc not in in_a else "moved"
                                      for doc in self.edits]
        self.ranks = [(in_a[doc] + 1 if doc in in_a else None, in_b[doc] + 1 if doc in in_b else None)
                      for doc in self.edits]
        edit_of = {doc: e for e, doc in enumerate(self.edits)}
        # Each document's place in A and in B as one sortable integer (absent: ABSENT); stable ones have one place.
        size = len(self.union) + 1
        place_a, place_b = _places(a, stable, size), _places(b, stable, size)
        # At equal places the document placed as in B sorts first (the last bit: 0 for B, 1 for A).
        self.absent = 8 * size * size
        self.key_a = np.array([2 * place_a[doc] + 1 if doc in place_a else self.absent for doc in self.union],
                              dtype=np.int64)
        self.key_b = np.array([2 * place_b[doc] if doc in place_b else self.absent for doc in self.union],
                              dtype=np.int64)
        self.edit = np.array([edit_of.get(doc, -1) for doc in self.union], dtype=np.int64)
        self.base = RankingBatch.from_rankings([self.union], [judgments])

    def rankings(self, applied: np.ndarray) -> np.ndarray:
        """Positions (into ``union``) of the ranking each row of ``applied`` (rows x edits, bool) gives; -1 pads."""
        rows = applied.shape[0]
        use_b = np.zeros((rows, len(self.union)), dtype=bool)
        has_edit = self.edit >= 0
        use_b[:, has_edit] = applied[:, self.edit[has_edit]]
        keys = np.where(use_b, self.key_b, self.key_a)
        order = np.argsort(keys, axis=1, kind="stable")
        positions = np.where(np.take_along_axis(keys, order, axis=1) < self.absent, order, -1)
        width = max(1, int((positions >= 0).sum(axis=1).max(initial=0)))
        if self.conv.depth is not None:
            width = min(width, self.conv.depth)
        return positions[:, :width]

    def values(self, applied: np.ndarray) -> np.ndarray:
        """The measure of each row's ranking, in chunks of at most CHUNK_CELLS ranks."""
        step = max(1, CHUNK_CELLS // max(len(self.union), 1))
        out = np.empty(applied.shape[0])
        for start in range(0, applied.shape[0], step):
            positions = self.rankings(applied[start: start + step])
            batch = self.base.reordered(0, positions)
            out[start: start + step] = evaluate_batch(batch, [self.measure], self.conv)[self.measure.key]
        return out

    def ends(self) -> tuple[float, float]:
        n = len(self.edits)
        values = self.values(np.array([[False] * n, [True] * n], dtype=bool).reshape(2, n))
        return float(values[0]), float(values[1])

    def attribute(self) -> tuple[tuple[Contribution, ...], Method]:
        n = len(self.edits)
        if n == 0:
            return (), "no edits"
        if n <= SHAPLEY_UP_TO:
            shares, method = self._shapley(n), "shapley"
        else:
            path = np.tri(n + 1, n, -1, dtype=bool)  # row t applies the first t edits of the fixed order
            exact = [Fraction(float(v)) for v in self.values(path)]
            shares, method = [exact[t + 1] - exact[t] for t in range(n)], "fixed order"
        contributions = [Contribution(doc, kind, before, after, share) for doc, kind, (before, after), share
                         in zip(self.edits, self.kinds, self.ranks, shares)]
        order = sorted(range(n), key=lambda e: (-abs(shares[e]), e))
        return tuple(contributions[e] for e in order), method

    def _shapley(self, n: int) -> list[Fraction]:
        """phi_e = sum over the sets S without e of |S|! (n - |S| - 1)! / n! (v(S + e) - v(S)), in integers: every
        float is an integer over a power of two, so all values are scaled to their largest denominator first."""
        subsets = np.arange(1 << n)
        applied = (subsets[:, None] >> np.arange(n)[None, :]) & 1 == 1
        ratios = [float(v).as_integer_ratio() for v in self.values(applied)]
        scale = max(denominator for _, denominator in ratios)
        scaled = [numerator * (scale // denominator) for numerator, denominator in ratios]
        sizes = applied.sum(axis=1).tolist()
        shares = []
        for e in range(n):
            bit = 1 << e
            by_size = [0] * n  # the summed changes of e over the sets of each size
            for s in subsets[(subsets & bit) == 0].tolist():
                by_size[sizes[s]] += scaled[s | bit] - scaled[s]
            total = sum(math.factorial(size) * math.factorial(n - size - 1) * change
                        for size, change in enumerate(by_size))
            shares.append(Fraction(total, math.factorial(n) * scale))
        return shares


def _places(ranking: list[str], stable: set[str], size: int) -> dict[str, int]:
    """Each document's place in ``ranking`` as one integer that sorts as (gap, the stable document after the gap
    last, offset inside the gap)."""
    places, gap, offset = {}, 0, 0
    for doc in ranking:
        if doc in stable:
            places[doc] = (gap * 2 + 1) * size
            gap, offset = gap + 1, 0
        else:
            places[doc] = gap * 2 * size + offset
            offset += 1
    return places


def _longest_increasing(values: list[int], items: list[str]) -> list[str]:
    """The items of one longest strictly increasing subsequence of ``values`` (patience sorting)."""
    tails: list[int] = []  # tails[length - 1]: index of the smallest tail of an increasing run of that length
    tail_values: list[int] = []
    previous = [-1] * len(values)
    for i, value in enumerate(values):
        length = bisect.bisect_left(tail_values, value)
        if length:
            previous[i] = tails[length - 1]
        if length == len(tails):
            tails.append(i)
            tail_values.append(value)
        else:
            tails[length], tail_values[length] = i, value
    chosen, i = [], tails[-1] if tails else -1
    while i >= 0:
        chosen.append(items[i])
        i = previous[i]
    return chosen[::-1]
