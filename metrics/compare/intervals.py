r"""Bootstrap confidence intervals of a mean over queries, seeded, in memory linear in the number of queries.

Percentile: the alpha/2 and 1 - alpha/2 quantiles of the resampled means. BCa (bias-corrected and accelerated,
Efron 1987): the same quantiles moved by the bootstrap's bias z_0 and the jackknife's acceleration a. A paired
difference is the mean of the per-query deltas, resampled by query.

The numbers are scipy.stats.bootstrap's (``vectorized=True``, the same seed and resamples), computed without its
quadratic parts: the resamples are drawn a bounded block of rows at a time (one numpy Generator stream, so the
draws are those of one call), and the jackknife needs no n x (n - 1) matrix. For the mean, the leave-one-out mean
is \theta_{(i)} = (S - x_i) / (n - 1), their mean is \bar x, and scipy's U_i = (n - 1)(\bar\theta - \theta_{(i)})
is x_i - \bar x, so a = \sum (x_i - \bar x)^3 / (6 (\sum (x_i - \bar x)^2)^{3/2}).
"""

from __future__ import annotations

from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

import numpy as np

from ..model import InputError

IntervalMethod = Literal["percentile", "bca"]
METHODS: tuple[IntervalMethod, ...] = ("percentile", "bca")
MAX_RESAMPLES = 100_000
#: Resampled values drawn at once (rows of n query indices): 2^22 cells are 32 MB of indices and 32 MB of values.
RESAMPLE_BLOCK_CELLS = 1 << 22
#: Below this many queries an interval (and a test) says little; results carry a warning.
FEW_QUERIES = 10

_NORMAL = NormalDist()


def few_queries_warning(queries: int) -> str | None:
    """The warning (one sentence) for a comparison over fewer than FEW_QUERIES queries, else None."""
    if queries >= FEW_QUERIES:
        return None
    return (f"Only {queries} {'query' if queries == 1 else 'queries'} compared: below {FEW_QUERIES}, bootstrap "
            "intervals come out too narrow and tests have little power (an interval can exclude 0 beside a large "
            "p-value); read both with care.")


@dataclass(frozen=True, slots=True)
class Interval:
    """A two-sided confidence interval of ``estimate`` at ``confidence`` (e.g. 0.95); ``warning`` is a sentence
    when the interval rests on fewer than FEW_QUERIES queries, else None."""

    estimate: float
    low: float
    high: float
    confidence: float
    method: IntervalMethod
    resamples: int
    seed: int
    warning: str | None = None


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
    warning = few_queries_warning(data.size)
    if data.size < 2 or float(data.max()) == float(data.min()):
        return Interval(mean, mean, mean, confidence, method, resamples, seed, warning)
    means = resampled_means(data, resamples, np.random.default_rng(seed))
    alpha = (1.0 - confidence) / 2.0
    levels = _bca_levels(data, means, alpha) if method == "bca" else (alpha, 1.0 - alpha)
    if levels is None:  # BCa undefined (every resampled mean on one side of the estimate): the mean itself
        return Interval(mean, mean, mean, confidence, method, resamples, seed, warning)
    low, high = (float(q) for q in np.quantile(means, levels))
    return Interval(mean, low, high, confidence, method, resamples, seed, warning)


def resampled_means(data: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """The mean of each of ``resamples`` resamples of ``data`` (drawn with replacement, n each), as scipy draws
    them (``rng.integers(0, n, (resamples, n))``), a block of at most RESAMPLE_BLOCK_CELLS cells at a time."""
    n = data.shape[0]
    rows = max(1, RESAMPLE_BLOCK_CELLS // n)
    means = np.empty(resamples)
    for start in range(0, resamples, rows):
        stop = min(start + rows, resamples)
        means[start:stop] = data[rng.integers(0, n, (stop - start, n))].mean(axis=-1)
    return means


def acceleration(data: np.ndarray) -> float:
    """The jackknife acceleration of the mean, from the leave-one-out means in O(n) (see the module's docstring)."""
    deviations = data - data.mean()
    return float((deviations ** 3).sum() / (6.0 * float((deviations ** 2).sum()) ** 1.5))


def _bca_levels(data: np.ndarray, means: np.ndarray, alpha: float) -> tuple[float, float] | None:
    """The quantile levels of the BCa interval (Efron and Tibshirani 1993, 14.3), or None where z_0 is infinite."""
    estimate = data.mean()
    share_below = (np.count_nonzero(means < estimate) + np.count_nonzero(means <= estimate)) / (2 * means.shape[0])
    if not 0.0 < share_below < 1.0:
        return None
    z0 = _NORMAL.inv_cdf(share_below)
    a = acceleration(data)
    levels = []
    for z in (_NORMAL.inv_cdf(alpha), -_NORMAL.inv_cdf(alpha)):
        shifted = z0 + z
        levels.append(_NORMAL.cdf(z0 + shifted / (1.0 - a * shifted)))
    return levels[0], levels[1]
