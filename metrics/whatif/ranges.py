"""4. The range of every metric under reordering and its random-order mean; 5. a pinned baseline against the
current ranking."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from ..evaluate import evaluate_rankings
from ..model import check_grades
from .scenario import MetricSet, Scenario, _identity

#: Orderings of up to this many items are enumerated exactly by :func:`value_range`; longer lists are sampled.
EXACT_ORDERINGS_UP_TO = 8


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
