"""Measures of the judgments behind a score: how much of a ranking is judged at all."""

from __future__ import annotations

import numpy as np

from ..model import RankingBatch
from .context import Context


def unjudged_fraction(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""unj@k = \frac{1}{k}\,|\{r \le k : d_r \text{ unjudged}\}|: the share of the top k without a judgment
    (trec_eval 10)."""
    unjudged = np.cumsum(ctx.unjudged, axis=1)
    return ctx.at(unjudged, cutoffs) / cutoffs[None, :].astype(np.float64)


def judged_fraction(ctx: Context, cutoffs: np.ndarray) -> np.ndarray:
    r"""Judged@k = \frac{1}{\min(k, |L|)}\,|\{r \le k : d_r \text{ in the qrels}\}|: the share of the top k that has a
    qrels line, negative grades included (ir_measures); 0 for an empty ranking."""
    judged = np.cumsum(ctx.retrieved & (ctx.batch.judged | ctx.pooled_unjudged), axis=1)
    k = np.where(cutoffs <= 0, ctx.batch.width, cutoffs)[None, :]
    shown = np.minimum(k, ctx.batch.lengths[:, None]).astype(np.float64)
    out = np.zeros(shown.shape)
    np.divide(ctx.at(judged, cutoffs), shown, out=out, where=shown > 0)
    return out


def relevance_strings(batch: RankingBatch, length: int) -> list[str]:
    """trec_eval's ``relstring``: each ranking's top ``length`` documents as one character each -- the grade
    (``>`` above 9), ``-`` outside the qrels, ``.`` in the qrels with a negative grade (pooled, unjudged)."""
    width = min(max(length, 0), batch.width)
    grades = batch.grades[:, :width]
    judged = batch.judged[:, :width]
    digits = np.where(grades > 9, ord(">"), ord("0") + np.clip(grades, 0, 9).astype(np.int64))
    codes = np.where(judged, digits, np.where(grades < 0, ord("."), ord("-"))).astype(np.uint8)
    shown = np.minimum(batch.lengths, width)
    return [codes[i, : shown[i]].tobytes().decode("ascii") for i in range(batch.size)]
