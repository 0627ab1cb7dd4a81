"""2. Reordering: the change of every metric for each swap of two ranks, and the preview of one move."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .scenario import SAME, Change, MetricSet, Scenario, _identity
from .sentences import change_sentence

#: Swaps are scored among the top this many ranks: 780 pairs, a matrix a reader can take in and click. Longer lists
#: would give matrices of 1-px cells (and n^2 rankings of n items to score).
SWAP_WINDOW = 40


@dataclass(frozen=True)
class SwapDeltas:
    """``deltas[m, i, j]``: the change in metric m if the items at positions i and j swap (symmetric, NaN on the
    diagonal), for positions i, j in the top ``window`` ranks. ``current[m]`` is the value before any swap."""

    metrics: MetricSet
    ranking: tuple[str, ...]
    current: np.ndarray
    deltas: np.ndarray

    @property
    def window(self) -> int:
        """How many top ranks the swaps cover: the whole list unless it is longer than the window asked for."""
        return self.deltas.shape[1]

    @property
    def windowed(self) -> bool:
        """Whether the list is longer than the swaps cover."""
        return self.window < len(self.ranking)

    def of(self, metric: str) -> np.ndarray:
        return self.deltas[self.metrics.index(metric)]

    def best(self, metric: str | None = None) -> tuple[Change, np.ndarray] | None:
        """The swap that raises ``metric`` most (a family, label or measure string; default the primary metric,
        nDCG@k), the first such pair in rank order, with the deltas of every metric; None when no swap raises it.

        One metric, not a sum over the six: summed, RR's jumps (1 to 0.5) outweigh everything else."""
        n = self.window
        if n < 2:
            return None
        chosen = self.metrics.index(metric if metric is not None else self.metrics.primary.family)
        rows, cols = np.triu_indices(n, 1)
        pair_deltas = self.deltas[:, rows, cols]  # (metrics, pairs)
        gains = pair_deltas[chosen]
        if not (gains > SAME).any():
            return None
        best = int(np.flatnonzero(gains >= gains.max() - SAME)[0])  # equal gains: the first pair in rank order
        return Change("swap", int(rows[best]), int(cols[best])), pair_deltas[:, best]


def swap_deltas(query: Scenario, window: int | None = SWAP_WINDOW) -> SwapDeltas:
    """Change of every metric for each of the w(w-1)/2 swaps of two of the top w = min(window, n) items (None:
    every item), scored in chunks: row 0 is the ranking as it is, row p + 1 swaps pair p."""
    n = query.size
    if window is not None and (isinstance(window, bool) or not isinstance(window, (int, np.integer)) or window < 1):
        raise ValueError(f"Argument `window` has to be a positive integer or None, but got {window!r}")
    w = n if window is None else min(n, int(window))
    rows, cols = np.triu_indices(w, 1)

    def make_rows(start: int, stop: int) -> np.ndarray:
        positions = _identity(n, stop - start)
        pairs = np.arange(max(start, 1), stop) - 1  # row 0 stays the identity
        swapped = pairs + 1 - start
        positions[swapped, rows[pairs]] = cols[pairs]
        positions[swapped, cols[pairs]] = rows[pairs]
        return positions

    values = query.evaluate_rows(len(rows) + 1, n, make_rows)
    current = values[0]
    deltas = np.full((len(current), w, w), np.nan)
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
