"""The measure registry: every measure's names in both notations, its documentation and its kernel."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .context import Kernel
from .counts import num_q, num_rel, num_rel_ret, num_ret
from .gain_based import ndcg
from .rank_based import average_precision, bpref, reciprocal_rank
from .set_based import precision, r_precision, recall, success

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True, slots=True)
class MeasureInfo:
    """A registered measure: its names in both notations, documentation, and kernel."""

    name: str  # trec_eval's name, e.g. "ndcg_cut"
    ir_name: str  # ir_measures' name, e.g. "nDCG"
    pretty_name: str
    short_desc: str
    rewards: str  # one sentence on what the measure rewards
    kernel: Kernel
    cutoff: Literal["none", "required", "optional"] = "none"
    default_cutoffs: tuple[int, ...] = ()
    aggregate: Literal["mean", "sum"] = "mean"
    trec_eval: bool = True  # defined by trec_eval (so checked against pytrec_eval)
    conventions: tuple[str, ...] = field(default=())  # the conventions (beyond ties/unjudged) that change it

    @property
    def formula(self) -> str:
        """The LaTeX formula, the first line of the kernel's docstring."""
        return (self.kernel.__doc__ or "").strip().splitlines()[0]


MEASURES: dict[str, MeasureInfo] = {
    info.name: info
    for info in (
        MeasureInfo("P", "P", "Precision@k", "Fraction of the top k that is relevant.",
                    "Filling the top k with relevant documents, whatever their order inside it.",
                    precision, "required", TREC_CUTOFFS, conventions=("relevance_level", "precision_short_list")),
        MeasureInfo("recall", "R", "Recall@k", "Fraction of all relevant documents found in the top k.",
                    "Finding every relevant document somewhere in the top k: what a RAG retriever needs.",
                    recall, "required", TREC_CUTOFFS, conventions=("relevance_level",)),
        MeasureInfo("success", "Success", "Success@k", "1 if any relevant document is in the top k, else 0.",
                    "Having at least one relevant document in the top k; nothing else counts.",
                    success, "required", (1, 5, 10), conventions=("relevance_level",)),
        MeasureInfo("recip_rank", "RR", "Reciprocal rank", "1 / rank of the first relevant document.",
                    "Putting the first relevant document as high as possible; later ones do not count.",
                    reciprocal_rank, conventions=("relevance_level",)),
        MeasureInfo("recip_rank_cut", "RR", "Reciprocal rank@k", "1 / rank of the first relevant document, 0 if it is below k (MRR@10 of MS MARCO).",
                    "Putting the first relevant document in the top k, the higher the better.",
                    reciprocal_rank, "required", (10,), trec_eval=False, conventions=("relevance_level",)),
        MeasureInfo("map", "AP", "Average precision", "Mean of the precision at each relevant document's rank, over all R relevant.",
                    "Ranking every relevant document early; each one found lifts it, each one missed costs.",
                    average_precision, conventions=("relevance_level",)),
        MeasureInfo("map_cut", "AP", "Average precision@k", "Average precision counting only the top k.",
                    "Ranking relevant documents early within the top k.",
                    average_precision, "required", TREC_CUTOFFS, conventions=("relevance_level", "ap_denominator")),
        MeasureInfo("ndcg", "nDCG", "nDCG", "Discounted cumulative gain of the whole ranking over the ideal's.",
                    "Putting the most relevant documents first, with graded credit that fades with rank.",
                    ndcg, conventions=("gain", "ideal_from")),
        MeasureInfo("ndcg_cut", "nDCG", "nDCG@k", "nDCG with both rankings cut at k.",
                    "Putting the most relevant documents first within the top k, with graded credit.",
                    ndcg, "required", TREC_CUTOFFS, conventions=("gain", "ideal_from")),
        MeasureInfo("Rprec", "Rprec", "R-precision", "Precision at rank R, the number of relevant documents.",
                    "Finding the relevant documents within the first R ranks.",
                    r_precision, conventions=("relevance_level",)),
        MeasureInfo("bpref", "Bpref", "bpref", "How often judged relevant documents precede judged non-relevant ones.",
                    "Ranking judged relevant above judged non-relevant documents; unjudged ones are ignored.",
                    bpref, conventions=("relevance_level",)),
        MeasureInfo("num_ret", "NumRet", "Retrieved", "Number of documents retrieved.", "Nothing: it is a count.",
                    num_ret, aggregate="sum"),
        MeasureInfo("num_rel", "NumRel", "Relevant", "Number of relevant documents judged (R).", "Nothing: it is a count.",
                    num_rel, aggregate="sum", conventions=("relevance_level",)),
        MeasureInfo("num_rel_ret", "NumRelRet", "Relevant retrieved", "Number of relevant documents retrieved.",
                    "Nothing: it is a count.", num_rel_ret, aggregate="sum", conventions=("relevance_level",)),
        MeasureInfo("num_q", "NumQ", "Queries", "Number of queries evaluated.", "Nothing: it is a count.",
                    num_q, aggregate="sum"),
    )
}

#: trec_eval's default ("official") measures that this engine computes, in trec_eval's output order.
TREC_DEFAULT_MEASURES = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P")
