"""Measures over graded gains: nDCG."""

from __future__ import annotations

import numpy as np

from .context import Context, ratio


def ndcg(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""nDCG@k = DCG@k / IDCG@k with DCG@k = \sum_{r=1}^{k} gain_r / \log_2(r+1); 0 when IDCG@k = 0."""
    deepest = int(cutoffs.max()) if (cutoffs > 0).all() else 0
    return ratio(ctx.at(ctx.cum_dcg_through(deepest), cutoffs), ctx.at(ctx.cum_ideal_dcg, cutoffs))
