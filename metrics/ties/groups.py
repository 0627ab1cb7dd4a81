"""One query's ranking as its tie groups: what each document is to a measure (its *label*) and which documents
share a score.

A measure reads a document only through its label: its grade when judged (>= 0), ``POOLED`` (-1) when it is in
the qrels with a negative grade (in the pool, unjudged: trec_eval's infAP tells these apart), ``ABSENT`` (-2) when
it is not in the qrels. Documents with the same label are interchangeable, so the orders of a tie group that give
different rankings are the distinct arrangements of its labels (a multiset permutation), each one reached by the
same number of document orders: a uniformly random order of the documents is a uniformly random arrangement.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from ..conventions import Conventions
from ..model import RankingBatch, judged_grade_matrix

POOLED = -1
ABSENT = -2


@dataclass(frozen=True)
class TiedQuery:
    """One query's whole ranking (trec_eval's order, before -M and -J) as labels, and the tie group of each rank.

    ``groups[r]`` numbers the tie groups 0, 1, ... in rank order; ``judgments`` are the query's qrels (R and the
    ideal DCG come from them, whatever the order)."""

    labels: np.ndarray  # int64, one per rank
    groups: np.ndarray  # int64, one per rank, non-decreasing
    judgments: Mapping[str, int]

    @classmethod
    def from_ranking(cls, ranking: Sequence[str], scores: Sequence[float], judgments: Mapping[str, int]
                     ) -> TiedQuery:
        """``ranking`` in rank order with its ``scores`` as compared (equal floats tie)."""
        labels = np.fromiter((_label(judgments.get(doc)) for doc in ranking), dtype=np.int64, count=len(ranking))
        values = np.asarray(scores, dtype=np.float64)
        starts = np.ones(len(ranking), dtype=bool)
        starts[1:] = values[1:] != values[:-1]
        return cls(labels, np.cumsum(starts) - 1 if len(ranking) else np.zeros(0, dtype=np.int64), judgments)

    @cached_property
    def judged_grades(self) -> np.ndarray:
        """The grades of the query's judged documents (>= 0), retrieved or not."""
        return np.array([g for g in self.judgments.values() if g >= 0], dtype=np.int64)

    def spans(self) -> list[tuple[int, int]]:
        """``(start, end)`` of every tie group of two or more documents whose labels differ: the groups whose
        order can change a value."""
        return self._spans

    @cached_property
    def _spans(self) -> list[tuple[int, int]]:
        if self.labels.shape[0] < 2:
            return []
        starts = np.flatnonzero(np.r_[True, self.groups[1:] != self.groups[:-1]])
        differ = np.minimum.reduceat(self.labels, starts) != np.maximum.reduceat(self.labels, starts)
        ends = np.r_[starts[1:], self.labels.shape[0]]
        return [(int(a), int(b)) for a, b in zip(starts[differ].tolist(), ends[differ].tolist())]

    @cached_property
    def _orders(self) -> OrderCount:
        return count_orders([self.labels[start:end] for start, end in self.spans()])

    def orders(self) -> OrderCount:
        """How many distinct rankings the tie groups allow: the product of each group's arrangements."""
        return self._orders

    def straddles(self, depth: int | None) -> bool:
        """Whether a tie group that matters crosses the -M depth (which documents are kept is then left to ties)."""
        return depth is not None and any(start < depth < end for start, end in self.spans())

    def sorted_labels(self, best_first: bool, gain: Mapping[int, float] | None = None) -> np.ndarray:
        """The labels with every tie group sorted, best label first (grade descending, pooled, then absent) or
        last; with ``gain`` (each label's gain), by gain, ties between labels of equal gain kept by label."""
        labels = self.labels.copy()
        for start, end in self.spans():
            group = np.sort(labels[start:end])
            if gain is not None:
                group = group[np.argsort([gain[label] for label in group.tolist()], kind="stable")]
            labels[start:end] = group[::-1] if best_first else group
        return labels

    def every_order(self) -> np.ndarray:
        """(orders, len) every distinct ranking the ties allow, one row each (call only when :meth:`orders` is
        small)."""
        spans = self.spans()
        choices = [arrangements(tuple(sorted(self.labels[start:end].tolist()))) for start, end in spans]
        counts = [c.shape[0] for c in choices]
        total = math.prod(counts)
        rows = np.tile(self.labels, (total, 1))
        # Row i takes arrangement (i // stride) % count of each group: itertools.product's order, as arrays.
        stride = total
        for (start, end), choice, count in zip(spans, choices, counts):
            stride //= count
            rows[:, start:end] = choice[(np.arange(total) // stride) % count]
        return rows


def _label(grade: int | None) -> int:
    if grade is None:
        return ABSENT
    return int(grade) if grade >= 0 else POOLED


#: Order counts of up to this many digits are kept exact; larger ones as their base-10 logarithm.
EXACT_ORDER_DIGITS = 18


@dataclass(frozen=True, order=False)
class OrderCount:
    """How many distinct rankings tie groups allow: exact (``exact``) when it has at most
    :data:`EXACT_ORDER_DIGITS` digits, else only its base-10 logarithm (20,000 tied documents allow a number of
    thousands of digits, which neither needs nor can be printed). Compares with ints; prints ``5,040`` or
    ``about 10^6,018``."""

    log10: float
    exact: int | None

    def _compare(self, other: object) -> float | None:
        if isinstance(other, OrderCount):
            if self.exact is not None and other.exact is not None:
                return float((self.exact > other.exact) - (self.exact < other.exact))
            return self.log10 - other.log10
        if isinstance(other, int):
            if self.exact is not None:
                return float((self.exact > other) - (self.exact < other))
            return 1.0  # only counts past 10^18 are inexact, and they exceed any bound used here
        return None

    def __eq__(self, other: object) -> bool:
        diff = self._compare(other)
        return NotImplemented if diff is None else diff == 0

    def __hash__(self) -> int:
        return hash(self.exact if self.exact is not None else self.log10)

    def __lt__(self, other: object) -> bool:
        diff = self._compare(other)
        return NotImplemented if diff is None else diff < 0

    def __le__(self, other: object) -> bool:
        diff = self._compare(other)
        return NotImplemented if diff is None else diff <= 0

    def __gt__(self, other: object) -> bool:
        diff = self._compare(other)
        return NotImplemented if diff is None else diff > 0

    def __ge__(self, other: object) -> bool:
        diff = self._compare(other)
        return NotImplemented if diff is None else diff >= 0

    def __int__(self) -> int:
        if self.exact is None:
            raise OverflowError(f"{self} orders: too many to count exactly")
        return self.exact

    def __str__(self) -> str:
        return f"{self.exact:,}" if self.exact is not None else f"about 10^{math.floor(self.log10):,}"

    def __format__(self, spec: str) -> str:
        return str(self)


def count_orders(groups: Sequence[np.ndarray]) -> OrderCount:
    """The product over ``groups`` (each a tie group's labels) of n! / (m_1! m_2! ...), the distinct arrangements
    of a group whose labels occur m_1, m_2, ... times; computed with log-gamma, and exactly when small."""
    counts = [np.unique(group, return_counts=True)[1] for group in groups]
    log10 = sum((math.lgamma(int(c.sum()) + 1) - sum(math.lgamma(int(m) + 1) for m in c.tolist()))
                for c in counts) / math.log(10)
    if log10 > EXACT_ORDER_DIGITS - 0.5:
        return OrderCount(log10, None)
    exact = math.prod(math.factorial(int(c.sum())) // math.prod(math.factorial(int(m)) for m in c.tolist())
                      for c in counts)
    return OrderCount(math.log10(exact), exact)


@lru_cache(maxsize=4096)
def arrangements(labels: tuple[int, ...]) -> np.ndarray:
    """(count, n) every distinct arrangement of a tie group's labels, in lexicographic order (cached: a run's
    groups repeat a few label multisets)."""
    out = np.array(list(multiset_permutations(list(labels))), dtype=np.int64)
    out.flags.writeable = False
    return out


def multiset_permutations(items: list[int]) -> Iterator[list[int]]:
    """Every distinct ordering of ``items`` (equal items are not told apart), in lexicographic order."""
    counts = Counter(items)
    values = sorted(counts)

    def extend(prefix: list[int], left: int) -> Iterator[list[int]]:
        if left == 0:
            yield list(prefix)
            return
        for value in values:
            if counts[value]:
                counts[value] -= 1
                prefix.append(value)
                yield from extend(prefix, left - 1)
                prefix.pop()
                counts[value] += 1

    yield from extend([], len(items))


#: Pads the label rows of shorter rankings in a batch of several queries: no document there.
_NO_DOCUMENT = -3


def batch_of(query: TiedQuery, rows: np.ndarray, conventions: Conventions, condensed: bool) -> RankingBatch:
    """The batch the engine scores for rankings of ``query`` given as label rows (see :func:`batch_of_many`)."""
    return batch_of_many([(query, np.atleast_2d(rows))], conventions, condensed)


def batch_of_many(parts: Sequence[tuple[TiedQuery, np.ndarray]], conventions: Conventions, condensed: bool
                  ) -> RankingBatch:
    """One batch for the label rows of several queries (each ``(query, rows)``, rows in that query's rank order),
    in the order given: cut at -M (``depth``), then, when ``condensed`` (-J), without the unjudged documents, as
    :meth:`RankingBatch.from_rankings` builds it. ``tied_with_previous`` follows the tie groups, for
    ``tied_gains="averaged"``."""
    counts = [rows.shape[0] for _, rows in parts]
    longest = max((rows.shape[1] for _, rows in parts), default=0)
    labels = np.full((sum(counts), longest), _NO_DOCUMENT, dtype=np.int64)
    groups = np.full(labels.shape, -1, dtype=np.int64)
    start = 0
    for (query, rows), count in zip(parts, counts):
        labels[start: start + count, : rows.shape[1]] = rows
        groups[start: start + count, : rows.shape[1]] = query.groups
        start += count
    if conventions.depth is not None:
        labels, groups = labels[:, : conventions.depth], groups[:, : conventions.depth]
    keep = (labels >= 0) if condensed else (labels != _NO_DOCUMENT)
    if condensed:
        # Kept documents first, in rank order (a stable sort on "dropped").
        order = np.argsort(~keep, axis=1, kind="stable")
        labels, groups, keep = (np.take_along_axis(a, order, axis=1) for a in (labels, groups, keep))
    lengths = keep.sum(axis=1).astype(np.int64)
    width = max(1, int(lengths.max(initial=0)))
    shape = (labels.shape[0], width)
    shown_labels, shown_groups = np.full(shape, _NO_DOCUMENT, dtype=np.int64), np.full(shape, -1, dtype=np.int64)
    shown_keep = np.zeros(shape, dtype=bool)
    columns = min(width, labels.shape[1])  # an empty ranking still has one (empty) column
    shown_labels[:, :columns], shown_groups[:, :columns] = labels[:, :columns], groups[:, :columns]
    shown_keep[:, :columns] = keep[:, :columns]
    judged = shown_keep & (shown_labels >= 0)
    grades = np.where(judged, shown_labels, np.where(shown_keep & (shown_labels == POOLED), -1, 0)).astype(np.float64)
    tied = np.zeros(shape, dtype=bool)
    tied[:, 1:] = shown_keep[:, 1:] & (shown_groups[:, 1:] == shown_groups[:, :-1])
    judged_grades = np.repeat(judged_grade_matrix([query.judgments for query, _ in parts]), counts, axis=0)
    return RankingBatch(grades, judged, lengths, judged_grades, tied)


def as_evaluated(query: TiedQuery, conventions: Conventions, condensed: bool) -> tuple[np.ndarray, np.ndarray]:
    """``(labels, groups)`` of the ranking the engine scores: cut at -M, then without unjudged documents when
    ``condensed`` (-J). A tie group keeps its documents together, so the groups stay contiguous."""
    labels, groups = query.labels, query.groups
    if conventions.depth is not None:
        labels, groups = labels[: conventions.depth], groups[: conventions.depth]
    if condensed:
        keep = labels >= 0
        labels, groups = labels[keep], groups[keep]
    return labels, groups
