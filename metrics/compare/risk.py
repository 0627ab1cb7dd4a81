r"""Risk against a baseline: how often and how much a run loses, and the risk-sensitive measures of the TREC Web
track (URisk, Wang et al. 2012; TRisk, Dinçer, Macdonald and Ounis, SIGIR 2014).

With per-query deltas \Delta_i = r_i - b_i over c queries and a risk aversion \alpha \ge 0:

    URisk_\alpha = (1/c) [ \sum_{\Delta_i > 0} \Delta_i + (1 + \alpha) \sum_{\Delta_i < 0} \Delta_i ]

that is, the mean of x_i = \Delta_i for gains and (1 + \alpha) \Delta_i for losses; TRisk_\alpha = URisk_\alpha /
(s_x / \sqrt c), a t statistic: below -2 the run is significantly riskier than the baseline, above 2 it is
significantly safer. With \alpha = 0, URisk is the mean difference.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model import InputError
from .pairs import TIE_TOLERANCE


@dataclass(frozen=True, slots=True)
class Risk:
    """A run against a baseline on one measure."""

    alpha: float
    queries: int
    wins: int
    ties: int
    losses: int
    total_gain: float
    total_loss: float
    largest_loss: float
    urisk: float
    trisk: float


def risk(run_values, baseline_values, *, alpha: float = 1.0) -> Risk:
    """URisk and TRisk of a run's per-query values against the baseline's (same queries, same order)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 <= alpha <= 100.0:
        raise InputError(f"Argument `alpha` has to be a number from 0 to 100, got {alpha!r}")
    run = np.asarray(run_values, dtype=np.float64)
    base = np.asarray(baseline_values, dtype=np.float64)
    if run.shape != base.shape or run.ndim != 1 or run.size == 0:
        raise InputError("risk needs the run's and the baseline's values on the same, non-empty list of queries")
    deltas = run - base
    gains, losses = deltas > TIE_TOLERANCE, deltas < -TIE_TOLERANCE
    adjusted = np.where(losses, (1.0 + alpha) * deltas, np.where(gains, deltas, 0.0))
    urisk = float(adjusted.mean())
    spread = float(adjusted.std(ddof=1)) if adjusted.size > 1 else 0.0
    if spread == 0.0:
        trisk = 0.0 if urisk == 0.0 else math.copysign(math.inf, urisk)
    else:
        trisk = urisk / (spread / math.sqrt(adjusted.size))
    return Risk(float(alpha), int(deltas.size), int(gains.sum()), int((~gains & ~losses).sum()), int(losses.sum()),
                float(deltas[gains].sum()), float(-deltas[losses].sum()) if losses.any() else 0.0,
                float(-deltas[losses].min()) if losses.any() else 0.0, urisk, trisk)
