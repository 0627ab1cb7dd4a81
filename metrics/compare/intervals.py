"""Bootstrap confidence intervals of a mean over queries (scipy.stats.bootstrap, seeded).

Percentile: the alpha/2 and 1 - alpha/2 quantiles of the resampled means. BCa (bias-corrected and accelerated,
Efron 1987): the same quantiles moved by the bootstrap's bias and the jackknife's acceleration; better coverage for
skewed per-query scores. A paired difference is the mean of the per-query deltas, resampled by query.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..model import InputError
from ..optional import require

IntervalMethod = Literal["percentile", "bca"]
METHODS: tuple[IntervalMethod, ...] = ("percentile", "bca")
MAX_RESAMPLES = 100_000


@dataclass(frozen=True, slots=True)
class Interval:
    """A two-sided confidence interval of ``estimate`` at ``confidence`` (e.g. 0.95)."""

    estimate: float
    low: float
    high: float
    confidence: float
    method: IntervalMethod
    resamples: int
    seed: int


def bootstrap_interval(values, *, method: IntervalMethod = "bca", confidence: float = 0.95,
                       resamples: int = 10_000, seed: int = 0) -> Interval:
    """Bootstrap interval of the mean of ``values`` (one value per query).

    Constant values (every query the same, or a single query) have no spread to resample: the interval is the
    mean itself, where scipy would return NaN for BCa.
    """
    if method not in METHODS:
        raise InputError(f"Argument `method` has to be one of {', '.join(METHODS)}, got {method!r}")
    if not (isinstance(confidence, float) and 0.5 <= confidence < 1.0):
        raise InputError(f"Argument `confidence` has to be a float in [0.5, 1), got {confidence!r}")
    if isinstance(resamples, bool) or not isinstance(resamples, int) or not 100 <= resamples <= MAX_RESAMPLES:
        raise InputError(f"Argument `resamples` has to be an integer from 100 to {MAX_RESAMPLES}, got {resamples!r}")
    data = np.asarray(values, dtype=np.float64)
    if data.ndim != 1 or data.size == 0:
        raise InputError("a bootstrap interval needs at least one value per query")
    mean = float(data.mean())
    if data.size < 2 or float(data.max()) == float(data.min()):
        return Interval(mean, mean, mean, confidence, method, resamples, seed)
    bootstrap = require("scipy.stats", needed_by="metrics.compare (bootstrap intervals)").bootstrap
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about degenerate BCa; handled below
        result = bootstrap((data,), np.mean, n_resamples=resamples, confidence_level=confidence,
                           method="BCa" if method == "bca" else "percentile", rng=np.random.default_rng(seed),
                           vectorized=True)
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if math.isnan(low) or math.isnan(high):  # BCa undefined (e.g. every resample equal): fall back to the mean
        low = high = mean
    return Interval(mean, low, high, confidence, method, resamples, seed)
