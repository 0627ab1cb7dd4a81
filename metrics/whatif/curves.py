"""1. Changing k: every metric at every cut-off, in one cumulative pass."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..evaluate import evaluate_batch
from ..names import Measure
from .scenario import MetricSet, Scenario, _identity


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
