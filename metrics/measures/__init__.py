"""Measure kernels and the measure registry.

Every kernel is one vectorised function over a :class:`~metrics.model.RankingBatch`. It receives a
:class:`Context` (the batch, the conventions, and cached intermediates such as cumulative relevance) and an
array of cut-offs, and returns an ``(n, len(cutoffs))`` array of per-ranking values. A cut-off of 0 means "the
whole ranking". Measures without a cut-off return one column. Averaging over queries is left to the caller.

Notation: for ranking i, rel_r is 1 when the document at rank r has grade >= ℓ (the relevance level), R is the
number of judged documents with grade >= ℓ, and |L| is the number of documents retrieved.

Modules:
    context     :class:`Context` (the batch, conventions and shared intermediates) and ``ratio``
    set_based   relevant documents in a prefix or the whole set: P, recall, Success, R-precision, relative_P,
                Rprec_mult, set_P, set_recall, set_relative_P, set_map, set_F, utility
    rank_based  where relevant documents sit: reciprocal rank, AP, bpref, interpolated precision, 11pt_avg,
                infAP, binG
    gain_based  graded gains: nDCG, ndcg_rel, Rndcg, G, rank-biased precision and its residual
    judgments   how much of a ranking is judged: unj, Judged; trec_eval's relstring
    diversity   the TREC Web track's intent-aware measures, as NIST's ndeval computes them: alpha-nDCG, alpha-DCG,
                ERR-IA, nERR-IA, NRBP, nNRBP, MAP-IA, P-IA, strec (subtopic recall)
    counts      num_q, num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret
    preferences trec_eval's -R prefs / qrels_prefs / qrels_jg measures, over counts of preferences (their own
                table, ``PREFERENCE_MEASURES``)
    registry    :class:`MeasureInfo` and ``MEASURES``, the table every other module reads (``IR_NAMES``,
                ``aggregation`` derived from it)
"""

from .context import Context, Kernel, ratio, trec_eval_ideal_gains
from .counts import num_q, num_rel, num_rel_ret, num_ret
from .gain_based import ndcg
from .judgments import judged_fraction, relevance_strings, unjudged_fraction
from .rank_based import average_precision, bpref, reciprocal_rank
from .registry import DIVERSITY_NAMES, IR_NAMES, MEASURES, TREC_CUTOFFS, TREC_DEFAULT_MEASURES, MeasureInfo, aggregation
from .set_based import precision, r_precision, recall, success

__all__ = [
    "DIVERSITY_NAMES",
    "IR_NAMES", "MEASURES", "TREC_CUTOFFS", "TREC_DEFAULT_MEASURES", "Context", "Kernel", "MeasureInfo", "aggregation",
    "average_precision",
    "bpref", "ndcg", "num_q", "num_rel", "num_rel_ret", "num_ret", "precision", "r_precision", "ratio", "recall",
    "reciprocal_rank", "relevance_strings", "success", "trec_eval_ideal_gains", "judged_fraction", "unjudged_fraction",
]
