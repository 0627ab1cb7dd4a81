"""Counts, summed rather than averaged over queries: num_q, num_ret, num_rel, num_rel_ret."""

from __future__ import annotations

import numpy as np

from .context import Context


def num_ret(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """Number of documents retrieved (after -M and -J)."""
    return ctx.batch.lengths.astype(np.float64)[:, None]


def num_rel(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """R, the number of relevant documents judged for the query."""
    return ctx.num_relevant.astype(np.float64)[:, None]


def num_rel_ret(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """Number of relevant documents retrieved."""
    return ctx.cum_relevant[:, -1].astype(np.float64)[:, None]


def num_q(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """Number of queries: 1 per query, summed over queries."""
    return np.ones((ctx.batch.size, 1))


def num_nonrel_judged_ret(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    """Number of judged non-relevant documents retrieved."""
    return ctx.judged_nonrelevant.sum(axis=1).astype(np.float64)[:, None]
