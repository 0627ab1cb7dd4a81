"""One query as the what-if analyses see it: the six explorer metrics (:class:`MetricSet`), the ranking and
judgments (:class:`Scenario`, which scores rearrangements of its ranking), and the edits a user can apply
(:class:`Change`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..conventions import TREC_EVAL, Conventions
from ..engine import evaluate_batch
from ..measures.display import name_of
from ..model import RankingBatch, check_grades, check_unique
from ..names import Measure, measure_at, trec_spec

#: The most ranks (rows x ranks of a batch of rearrangements) scored in one kernel call: about 8 MB of positions.
#: Longer questions are scored in chunks of rows, so memory stays bounded whatever the list length.
CHUNK_CELLS = 1 << 20

#: Deltas smaller than this are floating-point noise and count as "no change".
SAME = 1e-12


# ---- the six explorer metrics ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One explorer metric at a cut-off: its chart label, engine measure, and the word used for it in sentences."""

    family: str  # stable id for colours and look-ups: "P", "Recall", "RR", "AP", "nDCG", "Success"
    label: str  # chart label: "P@4"
    measure: str  # trec_eval measure string: "P.4"
    name: str  # in a sentence: the label, "P@4" (one name per measure)
    curve_label: str  # in the k chart: "P@k"
    curve_measure: str  # the registry name evaluated at every k: "P", or "recip_rank_cut" for RR
    parsed: Measure  # the measure itself, built from the registry and k (``measure`` is its string)


# family, registry name (taken at k when it has cut-offs), measure evaluated along k; every label and the word in
# sentences come from the one naming table (metrics.measures.display.NAMES).
_FAMILIES: tuple[tuple[str, str, str], ...] = (
    ("P", "P", "P"),
    ("Recall", "recall", "recall"),
    ("RR", "recip_rank", "recip_rank_cut"),
    ("AP", "map_cut", "map_cut"),
    ("nDCG", "ndcg_cut", "ndcg_cut"),
    ("Success", "success", "success"),
)


#: The family of :attr:`MetricSet.primary`.
PRIMARY_FAMILY = "nDCG"


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
        specs = []
        for family, registry_name, curve in _FAMILIES:
            measure = measure_at(registry_name, int(self.k))
            label = name_of(registry_name, int(self.k))
            specs.append(MetricSpec(family, label, trec_spec(measure), label, name_of(curve, "k"), curve, measure))
        return tuple(specs)

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(spec.label for spec in self.specs)

    @property
    def measures(self) -> tuple[str, ...]:
        return tuple(spec.measure for spec in self.specs)

    @property
    def families(self) -> tuple[str, ...]:
        return tuple(spec.family for spec in self.specs)

    @property
    def primary(self) -> MetricSpec:
        """The primary metric, that the best single swap is chosen by unless a page asks for another: nDCG@k, graded
        and weighted toward the top, as a result page is read (the metric guide's choice for one)."""
        return self.specs[self.index(PRIMARY_FAMILY)]

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
        object.__setattr__(self, "_measures", tuple(spec.parsed for spec in metric_set.specs))

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
        the filled ranks come first). Rows are scored in chunks of at most ``CHUNK_CELLS`` ranks (see
        :meth:`evaluate_rows`).
        """
        positions = np.asarray(positions)
        if positions.ndim != 2 or not np.issubdtype(positions.dtype, np.integer):
            raise ValueError("Argument `positions` has to be a 2-d integer array of item indices")
        return self.evaluate_rows(positions.shape[0], positions.shape[1], lambda start, stop: positions[start:stop])

    def evaluate_rows(self, rows: int, width: int, make_rows: Callable[[int, int], np.ndarray]) -> np.ndarray:
        """:meth:`evaluate_orders` for ``rows`` rearrangements of ``width`` ranks that ``make_rows(start, stop)``
        writes out a chunk at a time, so that no more than ``CHUNK_CELLS`` positions exist at once."""
        values = np.empty((rows, len(self._measures)))
        step = max(1, CHUNK_CELLS // max(width, 1))
        for start in range(0, rows, step):
            stop = min(rows, start + step)
            values[start:stop] = self._evaluate_chunk(np.asarray(make_rows(start, stop)))
        return values

    def _evaluate_chunk(self, positions: np.ndarray) -> np.ndarray:
        """One chunk, scored over its top k ranks: the five measures at cut-off k read nothing deeper.

        Uncut RR also reads the first relevant rank. For the rows whose first relevant document lies below k it
        comes from one row per distinct first rank (a row's own leading ranks, down to that document), scored by
        the same kernel, so a 1000-item list with its only relevant document at rank 1000 costs 1000 ranks once,
        not once per row. An ideal DCG taken from the retrieved documents needs every rank of every row.
        """
        positions = self._as_evaluated(positions)
        if positions.shape[1] <= self.k:
            return self._score(positions)
        if self.conventions.ideal_from == "retrieved":
            return self._score(positions)
        values = self._score(positions[:, : self.k])
        if not self._relevant.any():
            return values  # RR is 0 everywhere, whatever the depth
        hits = (positions >= 0) & self._relevant[np.maximum(positions, 0)]
        first = np.where(hits.any(axis=1), hits.argmax(axis=1), -1)
        deep = first >= self.k
        if deep.any():
            ranks, representative, inverse = np.unique(first[deep], return_index=True, return_inverse=True)
            leading = positions[np.flatnonzero(deep)[representative], : int(ranks.max()) + 1]
            rr = self.metrics.index("RR")
            values[deep, rr] = self._score(leading, (self._measures[rr],))[:, 0][inverse.reshape(-1)]
        return values

    def _score(self, positions: np.ndarray, measures: tuple[Measure, ...] | None = None) -> np.ndarray:
        measures = self._measures if measures is None else measures
        if positions.shape[1] == 0:
            positions = np.full((positions.shape[0], 1), -1, dtype=np.int64)
        values = evaluate_batch(self._base.reordered(0, positions), measures, self.conventions)
        return np.column_stack([values[measure.key] for measure in measures])

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
