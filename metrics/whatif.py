"""What-if analysis of one query: how six metrics respond to the cut-off k, to swapping, moving or removing items,
and how far reordering alone could move them.

Every question is answered the same way ("One kernel, many rankings"): the changed rankings become the rows of one
:class:`~metrics.model.RankingBatch` built with :meth:`RankingBatch.reordered` from the query's own row, and one
:func:`~metrics.evaluate.evaluate_batch` call scores them all. Row 0 of each batch is the unchanged ranking, so
every delta is ``after - current`` from the same kernel call.

>>> query = Scenario(["donut", "bagel", "muffin", "croissant"], {"donut": 1, "muffin": 1, "scone": 1}, k=4)
>>> swaps = swap_deltas(query)
>>> round(float(swaps.of("AP@4")[1, 2]), 3)  # ranks 2 and 3 swap
0.111
>>> change_sentence(Change("swap", 1, 2), swaps.deltas[:, 1, 2], query.metrics, query.ranking)
'Swapping ranks 2 and 3 (bagel and muffin) raises AP (+0.111) and nDCG (+0.061). Precision, recall, RR and success stay the same.'

Items are addressed by their 0-based position in the current ranking (``index``); sentences and charts speak of
1-based ranks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Literal

import numpy as np

from .conventions import TREC_EVAL, Conventions
from .evaluate import evaluate_batch, evaluate_rankings
from .model import RankingBatch, check_grades, check_unique
from .names import Measure, parse_measures

#: Orderings of up to this many items are enumerated exactly by :func:`value_range`; longer lists are sampled.
EXACT_ORDERINGS_UP_TO = 8

#: Deltas smaller than this are floating-point noise and count as "no change".
SAME = 1e-12


# ---- the six explorer metrics ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One explorer metric at a cut-off: its chart label, engine measure, and the word used for it in sentences."""

    family: str  # stable id for colours and look-ups: "P", "Recall", "RR", "AP", "nDCG", "Success"
    label: str  # chart label: "P@4"
    measure: str  # trec_eval measure string: "P.4"
    name: str  # in a sentence: "precision"
    curve_label: str  # in the k chart: "P@k"
    curve_measure: str  # the registry name evaluated at every k: "P", or "recip_rank_cut" for RR


# family, label pattern, measure pattern, sentence name, measure evaluated along k
_FAMILIES: tuple[tuple[str, str, str, str, str], ...] = (
    ("P", "P@{k}", "P.{k}", "precision", "P"),
    ("Recall", "Recall@{k}", "recall.{k}", "recall", "recall"),
    ("RR", "RR", "recip_rank", "RR", "recip_rank_cut"),
    ("AP", "AP@{k}", "map_cut.{k}", "AP", "map_cut"),
    ("nDCG", "nDCG@{k}", "ndcg_cut.{k}", "nDCG", "ndcg_cut"),
    ("Success", "Success@{k}", "success.{k}", "success", "success"),
)


@dataclass(frozen=True, slots=True)
class MetricSet:
    """The explorer's six metrics at cut-off ``k``: P@k, Recall@k, RR, AP@k (trec_eval map_cut), nDCG@k, Success@k.

    >>> MetricSet(4).labels
    ('P@4', 'Recall@4', 'RR', 'AP@4', 'nDCG@4', 'Success@4')
    >>> MetricSet(4).measures
    ('P.4', 'recall.4', 'recip_rank', 'map_cut.4', 'ndcg_cut.4', 'success.4')
    """

    k: int

    def __post_init__(self) -> None:
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 1:
            raise ValueError(f"Argument `k` has to be a positive integer, but got {self.k!r}")

    @property
    def specs(self) -> tuple[MetricSpec, ...]:
        return tuple(
            MetricSpec(family, label.format(k=self.k), measure.format(k=self.k), name,
                       label.format(k="k") if "{k}" in label else f"{label}@k", curve)
            for family, label, measure, name, curve in _FAMILIES
        )

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(spec.label for spec in self.specs)

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(spec.measure for spec in self.specs)

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(spec.family for spec in self.specs)

    def __len__(self) -> int:
        return len(_FAMILIES)

    def index(self, metric: str) -> int:
        """Position of a metric named by family (``"AP"``), label (``"AP@4"``), curve label or measure string."""
        for i, spec in enumerate(self.specs):
            if metric in (spec.family, spec.label, spec.measure, spec.curve_label):
                return i
        raise KeyError(f"unknown metric {metric!r}; use one of {', '.join(self.labels)}")


# ---- one query --------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Scenario:
    """One query as the what-if charts see it: the ranking (doc ids in rank order, after any removals), the
    judgments ``{doc: grade}`` (including judged documents never retrieved; negative grades are unjudged), the
    cut-off k and the conventions.

    Every what-if ranking is the current one rearranged and is then evaluated exactly as
    :func:`~metrics.evaluate.evaluate_rankings` would evaluate it: cut at ``conventions.depth`` and, with
    ``unjudged="removed"``, condensed to its judged documents.
    """

    ranking: tuple[str, ...]
    judgments: Mapping[str, int] = field(hash=False)
    k: int
    conventions: Conventions = TREC_EVAL
    _base: RankingBatch = field(init=False, repr=False, compare=False)
    _relevant: np.ndarray = field(init=False, repr=False, compare=False)
    _grades: np.ndarray = field(init=False, repr=False, compare=False)
    _measures: tuple[Measure, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.ranking, str):
            raise ValueError("Argument `ranking` has to be a sequence of doc ids, not one string")
        ranking = tuple(self.ranking)
        for rank, doc in enumerate(ranking, start=1):
            if not isinstance(doc, str) or not doc:
                raise ValueError(f"Argument `ranking`: rank {rank} has to be a non-empty doc id, but got {doc!r}")
        check_unique(ranking)
        check_grades(self.judgments)
        judgments = {doc: int(grade) for doc, grade in self.judgments.items()}  # a copy: later edits cannot leak in
        metric_set = MetricSet(self.k)  # validates k
        base = RankingBatch.from_rankings([ranking], [judgments])
        level = self.conventions.relevance_level
        judged = base.judged[0, : len(ranking)]
        grades = base.grades[0, : len(ranking)]
        object.__setattr__(self, "ranking", ranking)
        object.__setattr__(self, "judgments", judgments)
        object.__setattr__(self, "k", int(self.k))
        object.__setattr__(self, "_base", base)
        object.__setattr__(self, "_relevant", judged & (grades >= level))
        object.__setattr__(self, "_grades", np.where(judged, grades, -1.0))
        object.__setattr__(self, "_measures", tuple(parse_measures(list(metric_set.measures))))

    @property
    def metrics(self) -> MetricSet:
        return MetricSet(self.k)

    @property
    def size(self) -> int:
        """Number of items in the ranking."""
        return len(self.ranking)

    def evaluate_orders(self, positions: np.ndarray) -> np.ndarray:
        """Values of the six metrics for rearrangements of the ranking: ``(rows, 6)``.

        Row r is the ranking whose rank j holds the current item ``positions[r, j]`` (-1 leaves the rank empty;
        the filled ranks come first). The rows are scored by one ``evaluate_batch`` call over their top k ranks,
        plus one over deeper ranks for the rows whose first relevant document lies below k (uncut RR needs it).
        """
        positions = np.asarray(positions)
        if positions.ndim != 2 or not np.issubdtype(positions.dtype, np.integer):
            raise ValueError("Argument `positions` has to be a 2-d integer array of item indices")
        positions = self._as_evaluated(positions)
        deep = self._rows_needing_depth(positions)
        if not deep.any():
            return self._score(positions[:, : self.k])
        values = np.empty((positions.shape[0], len(self._measures)))
        values[~deep] = self._score(positions[~deep, : self.k])
        deep_positions = positions[deep]
        values[deep] = self._score(deep_positions[:, : self._first_hit_width(deep_positions)])
        return values

    def _score(self, positions: np.ndarray) -> np.ndarray:
        if positions.shape[1] == 0:
            positions = np.full((positions.shape[0], 1), -1, dtype=np.int64)
        values = evaluate_batch(self._base.reordered(0, positions), self._measures, self.conventions)
        return np.column_stack([values[measure.key] for measure in self._measures])

    def _as_evaluated(self, positions: np.ndarray) -> np.ndarray:
        """Apply depth (-M) and judged-only (-J) as evaluate_rankings does."""
        depth = self.conventions.depth
        if depth is not None and positions.shape[1] > depth:
            positions = positions[:, :depth]
        if self.conventions.unjudged == "removed" and positions.size:
            keep = (positions >= 0) & self._base.judged[0][np.maximum(positions, 0)]
            order = np.argsort(~keep, axis=1, kind="stable")
            positions = np.take_along_axis(np.where(keep, positions, -1), order, axis=1)
        return positions

    def _rows_needing_depth(self, positions: np.ndarray) -> np.ndarray:
        """Rows that the top k ranks do not determine.

        Measures at cut-off k read the top k ranks only, so the later ranks of a 100-item list need not enter the
        batch. Uncut RR also needs each row's first relevant document, and an ideal DCG taken from the retrieved
        documents needs them all.
        """
        rows = positions.shape[0]
        if positions.shape[1] <= self.k:
            return np.zeros(rows, dtype=bool)
        if self.conventions.ideal_from == "retrieved":
            return np.ones(rows, dtype=bool)
        if not self._relevant.any():
            return np.zeros(rows, dtype=bool)  # RR is 0 everywhere, whatever the depth
        top = positions[:, : self.k]
        return ~((top >= 0) & self._relevant[np.maximum(top, 0)]).any(axis=1)

    def _first_hit_width(self, positions: np.ndarray) -> int:
        """Leading ranks that show every row's first relevant document (all ranks for rows without one)."""
        total = positions.shape[1]
        if self.conventions.ideal_from == "retrieved":
            return total
        hits = (positions >= 0) & self._relevant[np.maximum(positions, 0)]
        found = hits.any(axis=1)
        if not found.all():
            return total
        return max(self.k, int(hits.argmax(axis=1).max()) + 1)

    def best_order(self) -> list[int]:
        """Item indices in the order that maximises all six metrics: relevant first, then by grade (every gain
        convention is monotone in the grade), unjudged last, ties as now."""
        return sorted(range(self.size), key=lambda i: (not self._relevant[i], -self._grades[i], i))

    def worst_order(self) -> list[int]:
        """The reverse of :meth:`best_order`, which minimises all six metrics."""
        return self.best_order()[::-1]


def _identity(n: int, rows: int = 1) -> np.ndarray:
    # int32 halves the memory of a 4,951 x 100 swap matrix; the batch is built from its leading columns only.
    # Broadcast assignment fills it several times faster than np.tile.
    positions = np.empty((rows, n), dtype=np.int32)
    positions[:] = np.arange(n, dtype=np.int32)
    return positions


def current_values(query: Scenario) -> np.ndarray:
    """The six metrics of the ranking as it is, in ``query.metrics`` order."""
    return query.evaluate_orders(_identity(query.size))[0]


# ---- changes the user can apply ----------------------------------------------------------------------------------

ChangeKind = Literal["swap", "move", "remove"]


@dataclass(frozen=True, slots=True)
class Change:
    """One edit of the ranking, by 0-based item position: ``swap`` items ``index`` and ``target``, ``move`` item
    ``index`` to position ``target``, or ``remove`` item ``index``.

    Charts carry it as plotly ``customdata``: ``("swap", i, j)``, ``("move", i, t)`` or ``("remove", i)``.
    """

    kind: ChangeKind
    index: int
    target: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in ("swap", "move", "remove"):
            raise ValueError(f"Argument `kind` has to be 'swap', 'move' or 'remove', but got {self.kind!r}")
        if self.kind == "remove" and self.target is not None:
            raise ValueError(f"A 'remove' change has no target, but got target={self.target!r}")
        if self.kind != "remove" and self.target is None:
            raise ValueError(f"A {self.kind!r} change needs a target position")

    @property
    def customdata(self) -> tuple:
        return (self.kind, self.index) if self.kind == "remove" else (self.kind, self.index, self.target)

    @classmethod
    def from_customdata(cls, data: Sequence[object]) -> Change:
        """The change a chart element carries, e.g. ``["swap", 1, 2]`` (JSON may turn the ints into floats)."""
        if isinstance(data, (str, bytes)) or not isinstance(data, Sequence) or not data:
            raise ValueError(f"customdata has to be ('swap', i, j), ('move', i, t) or ('remove', i), got {data!r}")
        kind, *numbers = data
        expected = 1 if kind == "remove" else 2
        if kind not in ("swap", "move", "remove") or len(numbers) < expected:
            raise ValueError(f"customdata has to be ('swap', i, j), ('move', i, t) or ('remove', i), got {data!r}")
        positions = []
        for number in numbers[:expected]:
            if isinstance(number, bool) or not isinstance(number, (int, float, np.integer, np.floating)) or \
                    not float(number).is_integer() or number < 0:
                raise ValueError(f"customdata {data!r}: positions have to be integers >= 0, got {number!r}")
            positions.append(int(number))
        return cls(kind, positions[0], positions[1] if expected == 2 else None)

    def check(self, size: int) -> None:
        """Raise ValueError unless the change fits a ranking of ``size`` items."""
        for name, position in (("index", self.index), ("target", self.target)):
            if position is not None and not 0 <= position < size:
                raise ValueError(
                    f"Change {self.customdata!r}: `{name}` {position} is outside the ranking of {size} items "
                    f"(positions run from 0 to {size - 1})"
                )

    def positions(self, size: int) -> list[int]:
        """The current item indices in their new order."""
        self.check(size)
        order = list(range(size))
        if self.kind == "swap":
            order[self.index], order[self.target] = order[self.target], order[self.index]
        elif self.kind == "move":
            order.insert(self.target, order.pop(self.index))
        else:
            del order[self.index]
        return order

    def apply(self, ranking: Sequence[str]) -> list[str]:
        """The ranking after the change."""
        return [ranking[i] for i in self.positions(len(ranking))]

    def describe(self, ranking: Sequence[str]) -> str:
        """``Swapping ranks 2 and 3 (bagel and muffin)``, ``Moving muffin from rank 3 to rank 2``, ``Removing
        bagel (rank 2)``."""
        self.check(len(ranking))
        if self.kind == "swap":
            first, second = sorted((self.index, self.target))
            return f"Swapping ranks {first + 1} and {second + 1} ({ranking[first]} and {ranking[second]})"
        if self.kind == "move":
            return f"Moving {ranking[self.index]} from rank {self.index + 1} to rank {self.target + 1}"
        return f"Removing {ranking[self.index]} (rank {self.index + 1})"


# ---- 1. changing k -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Curves:
    """Every metric at every cut-off ``ks`` (1 .. max(list length, k)); ``values[m, c]`` is metric m at ``ks[c]``.

    RR is drawn as RR@k (0 until the first relevant document, then flat at 1/rank); at the current k the other
    metrics equal the metric set's values.
    """

    metrics: MetricSet
    ks: np.ndarray
    values: np.ndarray

    @property
    def current_k(self) -> int:
        return self.metrics.k

    def of(self, metric: str) -> np.ndarray:
        return self.values[self.metrics.index(metric)]


def metric_curves(query: Scenario, max_k: int | None = None) -> Curves:
    """Each metric at every k from 1 to ``max_k`` (default max(list length, k)), in one cumulative pass: the
    query's single row is evaluated once with all cut-offs, so each kernel runs once over its cumulative sums."""
    last = max(query.size, query.k) if max_k is None else max_k
    if isinstance(last, bool) or not isinstance(last, (int, np.integer)) or last < 1:
        raise ValueError(f"Argument `max_k` has to be a positive integer or None, but got {max_k!r}")
    ks = np.arange(1, last + 1, dtype=np.int64)
    specs = query.metrics.specs
    measures = [Measure(spec.curve_measure, int(c)) for spec in specs for c in ks]
    positions = _identity(query.size)
    depth = query.conventions.depth
    if depth is not None:
        positions = positions[:, :depth]
    if query.conventions.unjudged == "removed":
        positions = positions[:, query._base.judged[0][: positions.shape[1]]]
    if positions.shape[1] == 0:
        positions = np.full((1, 1), -1, dtype=np.int32)
    batch = query._base.reordered(0, positions)
    values = evaluate_batch(batch, measures, query.conventions)
    matrix = np.array([[values[Measure(spec.curve_measure, int(c)).key][0] for c in ks] for spec in specs])
    return Curves(query.metrics, ks, matrix)


# ---- 2. reordering -----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SwapDeltas:
    """``deltas[m, i, j]``: the change in metric m if the items at positions i and j swap (symmetric, NaN on the
    diagonal). ``current[m]`` is the value before any swap."""

    metrics: MetricSet
    ranking: tuple[str, ...]
    current: np.ndarray
    deltas: np.ndarray

    def of(self, metric: str) -> np.ndarray:
        return self.deltas[self.metrics.index(metric)]

    def best(self) -> tuple[Change, np.ndarray] | None:
        """The swap that raises the metrics most in total (first such pair in rank order), with its deltas;
        None when no swap raises any metric."""
        n = len(self.ranking)
        if n < 2:
            return None
        rows, cols = np.triu_indices(n, 1)
        pair_deltas = self.deltas[:, rows, cols]  # (metrics, pairs)
        gain = np.where(pair_deltas > SAME, pair_deltas, 0.0).sum(axis=0)
        if not (gain > 0).any():
            return None
        total = pair_deltas.sum(axis=0)
        best = int(np.lexsort((-total, -gain))[0])
        return Change("swap", int(rows[best]), int(cols[best])), pair_deltas[:, best]


def swap_deltas(query: Scenario) -> SwapDeltas:
    """Change of every metric for each of the n(n-1)/2 swaps of two items, scored as one batch of rankings."""
    n = query.size
    rows, cols = np.triu_indices(n, 1)
    positions = _identity(n, len(rows) + 1)
    swapped = np.arange(1, len(rows) + 1)
    positions[swapped, rows] = cols
    positions[swapped, cols] = rows
    values = query.evaluate_orders(positions)
    current = values[0]
    deltas = np.full((len(current), n, n), np.nan)
    pair_deltas = (values[1:] - current).T
    deltas[:, rows, cols] = pair_deltas
    deltas[:, cols, rows] = pair_deltas
    return SwapDeltas(query.metrics, query.ranking, current, deltas)


@dataclass(frozen=True)
class MovePreview:
    """The metrics before and after one move (or any other :class:`Change`)."""

    metrics: MetricSet
    change: Change
    ranking_before: tuple[str, ...]
    ranking_after: tuple[str, ...]
    before: np.ndarray
    after: np.ndarray

    @property
    def deltas(self) -> np.ndarray:
        return self.after - self.before

    @property
    def sentence(self) -> str:
        return change_sentence(self.change, self.deltas, self.metrics, self.ranking_before)


def move_preview(query: Scenario, doc_index: int, new_rank: int) -> MovePreview:
    """Metrics before and after moving the item at position ``doc_index`` (0-based) to rank ``new_rank``
    (1-based); the items in between shift by one."""
    n = query.size
    if isinstance(doc_index, bool) or not isinstance(doc_index, (int, np.integer)) or not 0 <= doc_index < n:
        raise ValueError(f"Argument `doc_index` has to be a position from 0 to {n - 1}, but got {doc_index!r}")
    if isinstance(new_rank, bool) or not isinstance(new_rank, (int, np.integer)) or not 1 <= new_rank <= n:
        raise ValueError(f"Argument `new_rank` has to be a rank from 1 to {n} (the list length), but got {new_rank!r}")
    return preview(query, Change("move", int(doc_index), int(new_rank) - 1))


def preview(query: Scenario, change: Change) -> MovePreview:
    """Metrics before and after any change, scored as a batch of two rankings."""
    order = change.positions(query.size)
    positions = np.full((2, query.size), -1, dtype=np.int64)
    positions[0] = np.arange(query.size)
    positions[1, : len(order)] = order
    values = query.evaluate_orders(positions)
    return MovePreview(query.metrics, change, query.ranking, tuple(change.apply(query.ranking)), values[0], values[1])


# ---- 3. removing items -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RemovalDeltas:
    """``deltas[i, m]``: the change in metric m if item i is removed (the items below it move up one rank)."""

    metrics: MetricSet
    ranking: tuple[str, ...]
    current: np.ndarray
    deltas: np.ndarray

    def of(self, metric: str) -> np.ndarray:
        return self.deltas[:, self.metrics.index(metric)]

    def extreme(self, direction: Literal["raises", "lowers"]) -> tuple[Change, np.ndarray] | None:
        """The removal that raises (or lowers) the metrics most in total, or None if none does."""
        if not len(self.ranking):
            return None
        sign = 1.0 if direction == "raises" else -1.0
        moved = np.where(sign * self.deltas > SAME, sign * self.deltas, 0.0).sum(axis=1)
        if not (moved > 0).any():
            return None
        best = int(np.argmax(moved))
        return Change("remove", best), self.deltas[best]


def removal_deltas(query: Scenario) -> RemovalDeltas:
    """Change of every metric when each item in turn is removed: ``(n_items, n_metrics)``, one batch of n + 1."""
    n = query.size
    positions = np.full((n + 1, max(n, 1)), -1, dtype=np.int64)
    positions[0, :n] = np.arange(n)
    if n > 1:
        # Row i + 1 keeps every item but i: the identity with column i deleted.
        kept = ~np.eye(n, dtype=bool)
        positions[1:, : n - 1] = np.broadcast_to(np.arange(n), (n, n))[kept].reshape(n, n - 1)
    values = query.evaluate_orders(positions)
    return RemovalDeltas(query.metrics, query.ranking, values[0], values[1:] - values[0])


# ---- 4. range and random baseline --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ValueRange:
    """For the retrieved items and these judgments: each metric's minimum and maximum over every ordering of the
    items, its expected value under a uniformly random ordering, and the current value.

    ``method`` is ``"exact"`` (all ``orderings`` orderings enumerated; ``standard_error`` is 0) or ``"sampled"``
    (the mean of ``orderings`` seeded random orderings, with its standard error). Minimum and maximum are exact
    either way: the best and worst orders (relevant first by gain, and the reverse) reach them and are always scored.
    """

    metrics: MetricSet
    current: np.ndarray
    minimum: np.ndarray
    maximum: np.ndarray
    expected: np.ndarray
    standard_error: np.ndarray
    method: Literal["exact", "sampled"]
    orderings: int
    seed: int | None

    def describe_method(self) -> str:
        if self.method == "exact":
            return f"exact mean over all {self.orderings:,} orders"
        return f"mean of {self.orderings:,} random orders, seed {self.seed}"


@lru_cache(maxsize=EXACT_ORDERINGS_UP_TO + 1)
def _all_orderings(n: int) -> np.ndarray:
    orderings = np.array(list(itertools.permutations(range(n))), dtype=np.int64).reshape(math.factorial(n), n)
    orderings.setflags(write=False)
    return orderings


def value_range(query: Scenario, *, samples: int = 1000, seed: int = 0) -> ValueRange:
    """Minimum, maximum and expected value of every metric when the same items are reordered.

    E[metric] = (1/n!) * sum over all orderings, enumerated when n <= 8 (8! = 40,320 rows), otherwise estimated
    from ``samples`` uniformly random orderings drawn with ``numpy.random.default_rng(seed)``. Judged documents
    that were never retrieved stay unretrieved.
    """
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 2:
        raise ValueError(f"Argument `samples` has to be an integer >= 2, but got {samples!r}")
    n = query.size
    exact = n <= EXACT_ORDERINGS_UP_TO
    if exact:
        orderings = _all_orderings(n)
    else:
        rng = np.random.default_rng(seed)
        orderings = rng.permuted(_identity(n, samples), axis=1)
    extremes = np.array([query.best_order(), query.worst_order()], dtype=np.int64).reshape(2, n)
    positions = np.vstack([_identity(n), extremes, orderings])
    values = query.evaluate_orders(positions)
    random_values = values[3:]
    count = random_values.shape[0]
    error = np.zeros(values.shape[1]) if exact else random_values.std(axis=0, ddof=1) / math.sqrt(count)
    return ValueRange(
        query.metrics, values[0], values[1:].min(axis=0), values[1:].max(axis=0), random_values.mean(axis=0),
        error, "exact" if exact else "sampled", count, None if exact else seed,
    )


# ---- 5. baseline against current ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class BaselineComparison:
    """The six metrics of a pinned baseline ranking and of the current one, at the current k and conventions."""

    metrics: MetricSet
    baseline: np.ndarray
    current: np.ndarray

    @property
    def deltas(self) -> np.ndarray:
        return self.current - self.baseline


def compare_to_baseline(
    query: Scenario, baseline_ranking: Sequence[str], baseline_judgments: Mapping[str, int] | None = None
) -> BaselineComparison:
    """Baseline and current values side by side; the baseline keeps its own judgments if given (default: the
    current ones), and both are scored at the current k and conventions in one call."""
    judgments = query.judgments if baseline_judgments is None else baseline_judgments
    check_grades(judgments)
    values = evaluate_rankings([list(baseline_ranking), list(query.ranking)], [judgments, query.judgments],
                               list(query.metrics.measures), query.conventions)
    matrix = np.array([values[measure.key] for measure in query._measures])
    return BaselineComparison(query.metrics, matrix[:, 0], matrix[:, 1])


# ---- everything the page draws, at once --------------------------------------------------------------------------


@dataclass(frozen=True)
class ChartData:
    """All what-if chart data for one query (moves and the baseline are computed on demand)."""

    query: Scenario
    current: np.ndarray
    curves: Curves
    swaps: SwapDeltas
    removals: RemovalDeltas
    ranges: ValueRange


def chart_data(query: Scenario, *, samples: int = 1000, seed: int = 0) -> ChartData:
    """Curves over k, every swap, every removal and the value range: one engine call per perturbation family."""
    swaps = swap_deltas(query)
    return ChartData(query, swaps.current, metric_curves(query), swaps, removal_deltas(query),
                     value_range(query, samples=samples, seed=seed))


# ---- 7. plain-language callouts ----------------------------------------------------------------------------------


def format_delta(delta: float) -> str:
    """``+0.111``, ``-0.667``; changes too small for three decimals read ``+<0.001``."""
    if abs(delta) < 0.0005:
        return "+<0.001" if delta > 0 else "-<0.001"
    return f"{delta:+.3f}"


def join_words(words: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    words = list(words)
    if len(words) <= 1:
        return "".join(words)
    return f"{', '.join(words[:-1])} and {words[-1]}"


def _capitalised(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text[:1].upper() + text[1:] if first.islower() else text


def change_sentence(change: Change, deltas: Sequence[float], metrics: MetricSet, ranking: Sequence[str]) -> str:
    """``Swapping ranks 2 and 3 (bagel and muffin) raises AP (+0.111) and nDCG (+0.061). Precision, recall, RR and
    success stay the same.``"""
    return effect_sentence(change.describe(ranking), deltas, metrics)


def effect_sentence(subject: str, deltas: Sequence[float], metrics: MetricSet) -> str:
    """What ``subject`` does to each metric: the ones it raises, lowers, and leaves the same."""
    specs = metrics.specs
    raised = [f"{spec.name} ({format_delta(d)})" for spec, d in zip(specs, deltas) if d > SAME]
    lowered = [f"{spec.name} ({format_delta(d)})" for spec, d in zip(specs, deltas) if d < -SAME]
    same = [spec.name for spec, d in zip(specs, deltas) if abs(d) <= SAME or math.isnan(d)]
    effects = []
    if raised:
        effects.append(f"raises {join_words(raised)}")
    if lowered:
        effects.append(f"lowers {join_words(lowered)}")
    if not effects:
        return f"{subject} changes no metric."
    sentence = f"{subject} {' but '.join(effects)}."
    if same:
        verb = "stays" if len(same) == 1 else "stay"
        sentence += f" {_capitalised(join_words(same))} {verb} the same."
    return sentence


def curve_callouts(curves: Curves) -> list[str]:
    """What the k chart shows: P@k falling as non-relevant documents enter, recall only rising, RR flat after
    the first hit."""
    ks, k = curves.ks, curves.current_k
    at_k = int(np.searchsorted(ks, k))
    sentences = []
    precision = curves.of("P")
    falls = ks[1:][np.diff(precision) < -SAME]
    if falls.size:
        shown = [str(int(c)) for c in falls[:4]]
        where = join_words(shown) if falls.size <= 4 else f"{', '.join(shown)} and {falls.size - 4} more"
        sentences.append(
            f"P@k falls whenever the top k grows without a relevant document (at k={where}): it is "
            f"{precision[0]:.3f} at k=1 and {precision[at_k]:.3f} at k={k}."
        )
    recall = curves.of("Recall")
    if recall[-1] <= SAME:
        sentences.append("Recall@k is 0 at every k: no relevant document is retrieved.")
    else:
        points = {1: recall[0], k: recall[at_k], int(ks[-1]): recall[-1]}
        sentences.append("Recall@k only rises: " + ", ".join(f"{v:.3f} at k={c}" for c, v in points.items()) + ".")
    rr = curves.of("RR")
    hits = np.flatnonzero(rr > SAME)
    if hits.size:
        first = int(ks[hits[0]])
        before = "" if first == 1 else f"is 0 until rank {first}, then "
        sentences.append(
            f"RR@k {before}stays at {rr[hits[0]]:.3f} from the first relevant document (rank {first}) on: "
            f"later documents cannot change it."
        )
    else:
        sentences.append("RR@k is 0 at every k: no relevant document is retrieved.")
    return sentences


def range_callouts(ranges: ValueRange) -> list[str]:
    """Which metrics reordering could still improve, and how this order compares with a random one."""
    labels = ranges.metrics.labels
    at_best = [label for label, now, top in zip(labels, ranges.current, ranges.maximum) if now >= top - SAME]
    could_rise = [f"{label} to {top:.3f}" for label, now, top in zip(labels, ranges.current, ranges.maximum)
                  if now < top - SAME]
    sentences = []
    if could_rise:
        sentence = f"A better order of the same documents could lift {join_words(could_rise)}."
        if at_best:
            sentence += f" {join_words(at_best)} {'is' if len(at_best) == 1 else 'are'} already at the best."
        sentences.append(sentence)
    else:
        sentences.append("No reordering of these documents can raise any metric: this order is already the best.")
    tolerance = np.maximum(2 * ranges.standard_error, SAME)
    above = [label for label, now, mean, tol in zip(labels, ranges.current, ranges.expected, tolerance)
             if now > mean + tol]
    below = [label for label, now, mean, tol in zip(labels, ranges.current, ranges.expected, tolerance)
             if now < mean - tol]
    parts = []
    if above:
        parts.append(f"better than a random order on {join_words(above)}")
    if below:
        parts.append(f"worse on {join_words(below)}" if above else f"worse than a random order on {join_words(below)}")
    if parts:
        sentences.append(f"This ranking is {' and '.join(parts)} ({ranges.describe_method()}).")
    else:
        sentences.append(f"This ranking scores about what a random order would ({ranges.describe_method()}).")
    return sentences


def callouts(data: ChartData, baseline: BaselineComparison | None = None) -> list[str]:
    """Plain-language sentences derived from the chart data: the k curves, the most helpful swap, the removals
    that help and hurt most, the range against a random order, and the change since the baseline."""
    query = data.query
    sentences = curve_callouts(data.curves)
    best_swap = data.swaps.best()
    if best_swap is not None:
        change, deltas = best_swap
        sentences.append("Best single swap: " + _lowered(change_sentence(change, deltas, query.metrics, query.ranking)))
    elif query.size > 1:
        sentences.append("No single swap of two ranks raises any metric.")
    for direction in ("raises", "lowers"):
        removal = data.removals.extreme(direction)  # type: ignore[arg-type]
        if removal is not None:
            change, deltas = removal
            lead = "Removing one item helps most here: " if direction == "raises" else "Removing one item hurts most here: "
            sentences.append(lead + _lowered(change_sentence(change, deltas, query.metrics, query.ranking)))
    sentences.extend(range_callouts(data.ranges))
    if baseline is not None:
        sentences.append(effect_sentence("Compared with the pinned baseline, the current ranking", baseline.deltas,
                                         baseline.metrics))
    return sentences


def _lowered(sentence: str) -> str:
    return sentence[:1].lower() + sentence[1:]


__all__ = [
    "BaselineComparison", "Change", "ChartData", "Curves", "EXACT_ORDERINGS_UP_TO", "MetricSet", "MetricSpec",
    "MovePreview", "RemovalDeltas", "Scenario", "SwapDeltas", "ValueRange", "callouts", "change_sentence",
    "chart_data", "compare_to_baseline", "current_values", "curve_callouts", "effect_sentence", "format_delta",
    "join_words", "metric_curves", "move_preview", "preview", "range_callouts", "removal_deltas", "swap_deltas",
    "value_range",
]
