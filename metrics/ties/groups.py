"""One query's ranking as its tie groups: what each document is to a measure (its *label*) and which documents
share a score.

A measure reads a document only through its label: its grade when judged (>= 0), ``POOLED`` (-1) when it is in
the qrels with a negative grade (in the pool, unjudged: trec_eval's infAP tells these apart), ``ABSENT`` (-2) when
it is not in the qrels. Documents with the same label are interchangeable, so the orders of a tie group that give
different rankings are the distinct arrangements of its labels (a multiset permutation), each one reached by the
same number of document orders: a uniformly random order of the documents is a uniformly random arrangement.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

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

    def spans(self) -> list[tuple[int, int]]:
        """``(start, end)`` of every tie group of two or more documents whose labels differ: the groups whose
        order can change a value."""
        out = []
        edges = np.flatnonzero(np.diff(self.groups)) + 1
        for start, end in zip([0, *edges.tolist()], [*edges.tolist(), len(self.groups)]):
            if end - start > 1 and len(set(self.labels[start:end].tolist())) > 1:
                out.append((start, end))
        return out

    def orders(self) -> int:
        """How many distinct rankings the tie groups allow: the product of each group's arrangements."""
        return math.prod(arrangements_count(self.labels[start:end]) for start, end in self.spans())

    def straddles(self, depth: int | None) -> bool:
        """Whether a tie group that matters crosses the -M depth (which documents are kept is then left to ties)."""
        return depth is not None and any(start < depth < end for start, end in self.spans())

    def sorted_labels(self, best_first: bool) -> np.ndarray:
        """The labels with every tie group sorted, best label first (grade descending, pooled, then absent) or
        last."""
        labels = self.labels.copy()
        for start, end in self.spans():
            labels[start:end] = np.sort(labels[start:end])[::-1] if best_first else np.sort(labels[start:end])
        return labels

    def every_order(self) -> np.ndarray:
        """(orders, len) every distinct ranking the ties allow, one row each (call only when :meth:`orders` is
        small)."""
        spans = self.spans()
        choices = [list(multiset_permutations(self.labels[start:end].tolist())) for start, end in spans]
        rows = np.tile(self.labels, (math.prod(len(c) for c in choices), 1))
        for i, picked in enumerate(itertools.product(*choices)):
            for (start, end), arrangement in zip(spans, picked):
                rows[i, start:end] = arrangement
        return rows


def _label(grade: int | None) -> int:
    if grade is None:
        return ABSENT
    return int(grade) if grade >= 0 else POOLED


def arrangements_count(labels: np.ndarray) -> int:
    """n! / (m_1! m_2! ...): the distinct arrangements of a group whose labels occur m_1, m_2, ... times."""
    counts = Counter(labels.tolist())
    return math.factorial(len(labels)) // math.prod(math.factorial(m) for m in counts.values())


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


def batch_of(query: TiedQuery, rows: np.ndarray, conventions: Conventions, condensed: bool) -> RankingBatch:
    """The batch the engine scores for rankings of ``query`` given as label rows: cut at -M (``depth``), then,
    when ``condensed`` (-J), without the unjudged documents, as :meth:`RankingBatch.from_rankings` builds it.
    ``tied_with_previous`` follows the tie groups, for ``tied_gains="averaged"``."""
    rows = np.atleast_2d(rows)
    groups = np.broadcast_to(query.groups, rows.shape)
    if conventions.depth is not None:
        rows, groups = rows[:, : conventions.depth], groups[:, : conventions.depth]
    keep = rows >= 0 if condensed else np.ones(rows.shape, dtype=bool)
    # Kept documents first, in rank order (a stable sort on "dropped").
    order = np.argsort(~keep, axis=1, kind="stable")
    rows, groups, keep = (np.take_along_axis(a, order, axis=1) for a in (rows, groups, keep))
    lengths = keep.sum(axis=1).astype(np.int64)
    width = max(1, int(lengths.max(initial=0)))
    pad = max(0, width - rows.shape[1])  # an empty ranking still has one (empty) column
    rows, groups = (np.pad(a[:, :width], ((0, 0), (0, pad))) for a in (rows, groups))
    keep = np.pad(keep[:, :width], ((0, 0), (0, pad)))
    judged = keep & (rows >= 0)
    grades = np.where(judged, rows, np.where(keep & (rows == POOLED), -1, 0)).astype(np.float64)
    tied = np.zeros(rows.shape, dtype=bool)
    tied[:, 1:] = keep[:, 1:] & (groups[:, 1:] == groups[:, :-1])
    judged_grades = np.repeat(judged_grade_matrix([query.judgments]), rows.shape[0], axis=0)
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
