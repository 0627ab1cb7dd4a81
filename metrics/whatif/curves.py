"""1. Changing k: every metric at every cut-off, in one cumulative pass."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..engine import evaluate_batch
from ..names import Measure
from .scenario import MetricSet, Scenario, _identity

#: Curves have a point at every k up to this cut-off (or the list length, if longer) ...
EVERY_K_UP_TO = 1000
#: ... and at most this many evenly spaced cut-offs beyond it, always including the current k and the last one:
#: below the end of the list nothing new enters, and a k of 10,000 asked for 60,000 measures (30 s) before.
POINTS_BEYOND = 200


def curve_cutoffs(size: int, k: int, last: int) -> np.ndarray:
    """The cut-offs a curve is drawn at: every k up to max(size, EVERY_K_UP_TO), then about POINTS_BEYOND more up
    to ``last``, always with ``k`` and ``last``."""
    dense = min(last, max(size, EVERY_K_UP_TO))
    ks = np.arange(1, dense + 1, dtype=np.int64)
    if last > dense:
        beyond = np.linspace(dense, last, POINTS_BEYOND + 1).round().astype(np.int64)[1:]
        ks = np.unique(np.concatenate([ks, beyond, [k] if dense < k <= last else []]).astype(np.int64))
    return ks


@dataclass(frozen=True)
class Curves:
    """Every metric at the cut-offs ``ks`` (every k from 1 to max(list length, k), thinned beyond
    ``EVERY_K_UP_TO``); ``values[m, c]`` is metric m at ``ks[c]``.

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
    """Each metric at every k from 1 to ``max_k`` (default max(list length, k); thinned beyond
    ``EVERY_K_UP_TO``, see :func:`curve_cutoffs`), in one cumulative pass: the query's single row is evaluated
    once with all cut-offs, so each kernel runs once over its cumulative sums."""
    last = max(query.size, query.k) if max_k is None else max_k
    if isinstance(last, bool) or not isinstance(last, (int, np.integer)) or last < 1:
        raise ValueError(f"Argument `max_k` has to be a positive integer or None, but got {max_k!r}")
    ks = curve_cutoffs(query.size, query.k, int(last))
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
