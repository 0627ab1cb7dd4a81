"""3. Removing items: the change of every metric when each item in turn leaves the list."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from .scenario import SAME, Change, MetricSet, Scenario


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
    """Change of every metric when each item in turn is removed: ``(n_items, n_metrics)``, from n + 1 rows
    scored in chunks (row 0 is the ranking as it is)."""
    n = query.size
    ranks = np.arange(max(n, 1), dtype=np.int64)

    def make_rows(start: int, stop: int) -> np.ndarray:
        # Row i + 1 keeps every item but i: the items from i on move up one rank, and the last rank is empty.
        removed = np.arange(start, stop, dtype=np.int64) - 1
        positions = ranks[None, :] + (ranks[None, :] >= removed[:, None])
        positions[removed < 0] = ranks
        positions[positions >= n] = -1
        return positions

    values = query.evaluate_rows(n + 1, max(n, 1), make_rows)
    return RemovalDeltas(query.metrics, query.ranking, values[0], values[1:] - values[0])
