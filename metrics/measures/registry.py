"""The measure registry: every fact about a measure, in one :class:`MeasureInfo` per measure. Its names in both
notations, its documentation and kernel, how it aggregates, whether holes bound it, its cut and uncut forms, the
tools that compute it. Other modules read these facts here rather than keeping tables of their own.

Each entry carries two formulas: ``formula``, LaTeX for the page (the kernel's docstring unless given), and
``text``, plain text for a terminal (``--help``), written for that measure alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from ..profiles import tools_computing
from .agreement import compatibility, pairwise_accuracy
from .context import Kernel
from .counts import num_nonrel_judged_ret, num_q, num_rel, num_rel_ret, num_ret
from .cwl import (
    bejewelled_player_model,
    insq,
    inst,
    nerr_eq8,
    nerr_eq9,
    nerr_eq10,
    nerr_eq11,
    scaled_dcg,
)
from .diversity import (
    alpha_dcg,
    alpha_ndcg,
    average_precision_ia,
    err_ia,
    nerr_ia,
    normalised_nrbp,
    nrbp,
    precision_ia,
    subtopic_recall,
)
from .gain_based import (
    dcg,
    expected_reciprocal_rank,
    g_measure,
    ndcg,
    ndcg_over_relevant,
    r_ndcg,
    rank_biased_precision,
    rank_biased_precision_residual,
)
from .judgments import judged_fraction, unjudged_fraction
from .preferences import PREFERENCE_MEASURES, PREFERENCE_NICKNAMES  # noqa: F401 (re-exported: see below)
from .rank_based import (
    average_precision,
    binary_g,
    bpref,
    eleven_point_average,
    inferred_average_precision,
    interpolated_precision,
    log_average_precision,
    log_bpref,
    reciprocal_rank,
    yet_another_average_precision,
)
from .set_based import (
    f_measure,
    precision,
    precision_at_r_multiple,
    r_precision,
    recall,
    relative_precision,
    set_average_precision,
    set_f,
    set_precision,
    set_recall,
    set_relative_precision,
    success,
    utility,
)

TREC_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
R_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

Aggregate = Literal["mean", "sum", "geometric"]


@dataclass(frozen=True, slots=True)
class MeasureInfo:
    """A registered measure: every fact about it. Its names in both notations, documentation and kernel; how it
    aggregates over queries; whether judgment holes bound it (``monotone``); whether it is a score, a count or a
    diagnostic (``not_a_score``); its cut and uncut forms; and the tools that compute or define it.

    ``cutoff`` says whether the measure takes cut-offs (``P.5,10``): whole ranks, or fractions (``float_cutoffs``:
    recall levels, multiples of R), printed ``%3.2f`` as trec_eval does; ``optional``: without one it covers the
    whole ranking (ir_measures' ``Judged``). ``params`` says whether it takes one
    list of values as written (``utility.2,-1,0,0``) or ``name=value`` pairs (``ndcg.1=3,2=9``, ``rbp.p=0.8``);
    ``default_params`` are used when none are written.
    """

    name: str  # trec_eval's name, e.g. "ndcg_cut"
    ir_name: str  # ir_measures' name, e.g. "nDCG"
    pretty_name: str
    short_desc: str
    rewards: str  # one sentence on what the measure rewards
    kernel: Kernel
    cutoff: Literal["none", "required", "optional"] = "none"
    default_cutoffs: tuple[float, ...] = ()
    aggregate: Aggregate = "mean"  # over queries: mean, sum (counts) or geometric mean (gm_map, gm_bpref)
    trec_eval: bool = True  # defined by trec_eval (so checked against pytrec_eval)
    conventions: tuple[str, ...] = field(default=())  # the conventions (beyond ties/unjudged) that change it
    text: str = ""  # the formula in plain text, for a terminal
    latex: str = ""  # the LaTeX formula when the kernel's docstring covers more than this measure
    float_cutoffs: bool = False
    params: Literal["none", "values", "pairs"] = "none"
    default_params: tuple[float, ...] = ()
    per_query: bool = True  # trec_eval prints it for each query (gm_map and gm_bpref only in the summary)
    peer: str = "pytrec_eval"  # the tool its differential test compares with
    ir_aliases: tuple[str, ...] = ()  # other ir_measures-notation names read as it: MAP, NDCG, MRR
    ir_native: bool = True  # ir_name is ir_measures' own (else trec_eval's name in its notation: gm_map, unj@10)
    cut_form: str | None = None  # the same measure cut at k (map -> map_cut), for an uncut one
    uncut_form: str | None = None  # the same measure over the whole ranking (map_cut -> map), for a cut one
    monotone: bool = False  # each judgment of an unjudged document moves it one way, so holes bound it
    not_a_score: str = ""  # what it is instead of a score where higher is better (unj, rbp_resid)
    source: str = ""  # where it is defined, when not trec_eval (a paper, a tool)
    cutoff_mark: str = "_"  # joins name and cut-off in its tool's output: trec_eval's P_5, ndeval's alpha-nDCG@20

    @property
    def formula(self) -> str:
        """The LaTeX formula: ``latex`` if given, else the kernel docstring's first paragraph (its lines joined)."""
        return self.latex or " ".join((self.kernel.__doc__ or "").strip().split("\n\n")[0].split())

    @property
    def reference(self) -> str:
        """Where the measure is defined and what its numbers are tested against, in one line for ``--help``:
        ``trec_eval; tested against pytrec_eval``."""
        return f"{self.source or ('trec_eval' if self.trec_eval else self.peer)}; tested against {self.peer}"

    @property
    def is_count(self) -> bool:
        """A count (num_q, num_ret, ...): summed over queries, not a score per query."""
        return self.aggregate == "sum"

    @property
    def is_score(self) -> bool:
        """A score where higher is better, averaged over queries: neither a count nor a diagnostic (unj)."""
        return not self.is_count and not self.not_a_score

    @property
    def ir_names(self) -> tuple[str, ...]:
        """Every name it is read under in ir_measures' notation: ``ir_name`` first, then the aliases."""
        return (self.ir_name, *self.ir_aliases)

    @property
    def computed_by(self) -> tuple[str, ...]:
        """The tools with a profile for it (:mod:`metrics.profiles`), trec_eval first."""
        return tools_computing(self.name)


_RR_TEXT = "RR = 1 / rank of the first relevant document; 0 if none is retrieved"
_AP_TEXT = "AP = (sum over relevant retrieved d of P@rank(d)) / R"
_NDCG_TEXT = ("nDCG@k = DCG@k / ideal DCG@k, DCG@k = sum over ranks r <= k of gain(r) / log2(r + 1), "
              "gain = grade (trec_eval)")

_CWL_GAIN = ("gain = (clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel), min_rel = 0, max_rel = 1 "
             "unless given; W, L and the quantities (quantity=ETU, ED, ResEU, ...) as cwl_eval computes them")
_CWL_PEER = "cwl_eval (ir_measures' cwl_eval provider)"


_CWL_PAPERS = {"BPM": "Zhang et al. 2017 (SIGIR)", "INST": "Moffat et al. 2015 (ADCS)",
               "INSQ": "Moffat et al. 2012 (ADCS)", "SDCG": "Järvelin & Kekäläinen 2002, scaled as cwl_eval's NDCG-k",
               **{f"NERR{n}": f"Azzopardi, Mackenzie & Moffat 2021 (ICTIR), eq. {n}" for n in (8, 9, 10, 11)}}


def _cwl(name: str, pretty: str, desc: str, rewards: str, kernel, text: str, cutoff: bool = False) -> MeasureInfo:
    """A C/W/L measure of cwl_eval, named as ir_measures names it in both notations."""
    paper = _CWL_PAPERS[name]
    return MeasureInfo(name, name, pretty, desc, rewards, kernel, "required" if cutoff else "none",
                       (10,) if cutoff else (), trec_eval=False, text=f"{text}; EU = sum_r W_r g_r, {_CWL_GAIN}",
                       peer=_CWL_PEER, source=f"{paper}, as cwl_eval 1.0.12 computes it (Azzopardi, Thomas & Moffat "
                                              "2019)")

_NDEVAL = "pyndeval (NIST's ndeval 4.5)"
_NOVELTY = "g_r = sum over the subtopics j of the document at rank r of (1 - alpha)^(documents above r relevant to j)"
_DIVERSITY = dict(trec_eval=False, conventions=("relevance_level",), peer=_NDEVAL, cutoff_mark="@")

#: The TREC Web track's diversity measures, as NIST's ndeval names and computes them (metrics.measures.diversity).
DIVERSITY_MEASURES = (
    MeasureInfo("alpha-nDCG", "alpha_nDCG", "alpha-nDCG@k",
                "nDCG over subtopics: each document gains for the subtopics it covers, less for those covered above.",
                "Covering every subtopic of the query early, without repeating the ones already covered.",
                alpha_ndcg, "required", (5, 10, 20), default_params=(0.5,),
                ir_aliases=("α_nDCG",), **_DIVERSITY,
                source="Clarke et al. 2008 (SIGIR); NIST's ndeval 4.5",
                text=f"alpha-nDCG@k = alpha-DCG@k / alpha-DCG@k of the greedy ideal ranking, {_NOVELTY} (alpha 0.5; "
                     "k <= 20, ndeval's depth)"),
    MeasureInfo("alpha-DCG", "alpha_DCG", "alpha-DCG@k",
                "Novelty-discounted DCG over the subtopics, divided by the 'ideal ideal' (every subtopic at every "
                "rank).",
                "Covering every subtopic early, measured against a ranking that covers all of them at every rank.",
                alpha_dcg, "required", (5, 10, 20), default_params=(0.5,),
                ir_aliases=("α_DCG",), **_DIVERSITY,
                source="Clarke et al. 2008 (SIGIR); NIST's ndeval 4.5",
                text=f"alpha-DCG@k = (sum over r <= k of g_r / log2(r + 1)) / (sum over r <= k of S (1 - alpha)^(r-1) "
                     f"/ log2(r + 1)), {_NOVELTY}, S = subtopics with a relevant document (not divided at k = 1)"),
    MeasureInfo("ERR-IA", "ERR_IA", "Intent-aware ERR@k",
                "ERR for each subtopic (a relevant document satisfies it with probability alpha), averaged over the "
                "subtopics.",
                "Satisfying every subtopic early: once one is satisfied, more of it counts for less.",
                err_ia, "required", (5, 10, 20), default_params=(0.5,), **_DIVERSITY,
                source="Chapelle et al. 2009 (CIKM), intent aware as Agrawal et al. 2009 (WSDM); NIST's ndeval 4.5",
                text=f"ERR-IA@k = (sum over r <= k of g_r / r) / (sum over r <= k of S (1 - alpha)^(r-1) / r), "
                     f"{_NOVELTY} (not divided at k = 1)"),
    MeasureInfo("nERR-IA", "nERR_IA", "Normalised intent-aware ERR@k",
                "ERR-IA over the ERR-IA of the greedy ideal ranking.",
                "Satisfying every subtopic early, as well as the judged documents allow.",
                nerr_ia, "required", (5, 10, 20), default_params=(0.5,), **_DIVERSITY,
                source="Chapelle et al. 2009 (CIKM), intent aware as Agrawal et al. 2009 (WSDM); NIST's ndeval 4.5",
                text="nERR-IA@k = ERR-IA@k / ERR-IA@k of the greedy ideal ranking (0 when alpha-DCG@k is 0)"),
    MeasureInfo("NRBP", "NRBP", "Novelty- and rank-biased precision",
                "RBP over subtopics: a user with patience beta, redundancy intolerance alpha.",
                "Covering new subtopics near the top, for a user who may stop at any rank.",
                nrbp, default_params=(0.5, 0.5), **_DIVERSITY,
                source="Clarke, Kolla & Vechtomova 2009 (ICTIR); NIST's ndeval 4.5",
                text=f"NRBP = (1 - (1 - alpha) beta) / S * sum over r of beta^(r-1) g_r, {_NOVELTY} (alpha = beta = "
                     "0.5)"),
    MeasureInfo("nNRBP", "nNRBP", "Normalised NRBP", "NRBP over the NRBP of the greedy ideal ranking.",
                "Covering new subtopics near the top, as well as the judged documents allow.",
                normalised_nrbp, default_params=(0.5, 0.5), **_DIVERSITY,
                source="Clarke, Kolla & Vechtomova 2009 (ICTIR); NIST's ndeval 4.5",
                text="nNRBP = NRBP / NRBP of the greedy ideal ranking (0 without a relevant subtopic)"),
    MeasureInfo("MAP-IA", "AP_IA", "Intent-aware AP",
                "Average precision for each subtopic, averaged over the subtopics.",
                "Ranking the relevant documents of every subtopic early.",
                average_precision_ia, ir_aliases=("MAP_IA",), **_DIVERSITY,
                source="Agrawal et al. 2009 (WSDM); NIST's ndeval 4.5",
                text="MAP-IA = (1/S) sum over subtopics j of AP_j, AP_j = (sum over documents d relevant to j of "
                     "P_j@rank(d)) / R_j"),
    MeasureInfo("P-IA", "P_IA", "Intent-aware precision@k",
                "Precision at k for each subtopic, averaged over the subtopics.",
                "Filling the top k with documents relevant to many subtopics.",
                precision_ia, "required", (5, 10, 20), **_DIVERSITY,
                source="Agrawal et al. 2009 (WSDM); NIST's ndeval 4.5",
                text="P-IA@k = (1/S) sum over subtopics j of (documents in the top k relevant to j) / k (k <= 20)"),
    MeasureInfo("strec", "StRecall", "Subtopic recall@k", "Share of the subtopics the top k cover.",
                "Covering every subtopic somewhere in the top k, however often.",
                subtopic_recall, "required", (5, 10, 20), monotone=True, **_DIVERSITY,
                source="Zhai, Cohen & Lafferty 2003 (SIGIR); NIST's ndeval 4.5",
                text="strec@k = (subtopics with a relevant document in the top k) / S (k <= 20)"),
)

MEASURES: dict[str, MeasureInfo] = {
    info.name: info
    for info in (
        MeasureInfo("P", "P", "Precision@k", "Fraction of the top k that is relevant.",
                    "Filling the top k with relevant documents, whatever their order inside it.",
                    precision, "required", TREC_CUTOFFS, conventions=("relevance_level", "precision_short_list"),
                    text="P@k = (relevant in top k) / k",
                    monotone=True),
        MeasureInfo("recall", "R", "Recall@k", "Fraction of all relevant documents found in the top k.",
                    "Finding every relevant document somewhere in the top k: what a RAG retriever needs.",
                    recall, "required", TREC_CUTOFFS, conventions=("relevance_level",),
                    text="R@k = (relevant in top k) / R, R = relevant judged for the query; 0 if R = 0",
                    monotone=True),
        MeasureInfo("success", "Success", "Success@k", "1 if any relevant document is in the top k, else 0.",
                    "Having at least one relevant document in the top k; nothing else counts.",
                    success, "required", (1, 5, 10), conventions=("relevance_level",),
                    text="Success@k = 1 if some relevant document is in the top k, else 0",
                    monotone=True),
        MeasureInfo("recip_rank", "RR", "Reciprocal rank", "1 / rank of the first relevant document.",
                    "Putting the first relevant document as high as possible; later ones do not count.",
                    reciprocal_rank, conventions=("relevance_level",), text=_RR_TEXT,
                    latex=r"RR = 1 / r^* where r^* is the rank of the first relevant document, and 0 if none is found.",
                    ir_aliases=("MRR",), cut_form="recip_rank_cut", monotone=True),
        MeasureInfo("recip_rank_cut", "RR", "Reciprocal rank@k",
                    "1 / rank of the first relevant document, 0 if it is below k (MRR@10 of MS MARCO).",
                    "Putting the first relevant document in the top k, the higher the better.",
                    reciprocal_rank, "required", (10,), trec_eval=False, conventions=("relevance_level",),
                    text="RR@k = 1 / rank of the first relevant document if that rank <= k, else 0",
                    peer="ir_measures RR@k",
                    ir_aliases=("MRR",), uncut_form="recip_rank", monotone=True),
        MeasureInfo("map", "AP", "Average precision",
                    "Mean of the precision at each relevant document's rank, over all R relevant.",
                    "Ranking every relevant document early; each one found lifts it, each one missed costs.",
                    average_precision, conventions=("relevance_level", "ap_denominator", "empty_ideal"), text=_AP_TEXT,
                    latex=r"AP = \frac{1}{R}\sum_{r:\ rel_r = 1} P@r",
                    ir_aliases=("MAP",), cut_form="map_cut"),
        MeasureInfo("gm_map", "gm_map", "Geometric mean AP",
                    "AP per query, averaged with the geometric mean (per-query values under 0.00001 count as 0.00001).",
                    "Doing reasonably on every query: one query near 0 pulls the mean down hard.",
                    log_average_precision, aggregate="geometric", conventions=("relevance_level",), per_query=False,
                    text="gm_map = exp(mean over queries of log(max(AP, 0.00001))); AP as for map",
                    latex=r"gm\_map = \exp\left(\frac{1}{|Q|}\sum_q \log \max(AP_q, 10^{-5})\right)",
                    ir_native=False),
        MeasureInfo("Rprec", "Rprec", "R-precision", "Precision at rank R, the number of relevant documents.",
                    "Finding the relevant documents within the first R ranks.",
                    r_precision, conventions=("relevance_level",),
                    text="Rprec = (relevant in top R) / R; 0 if R = 0"),
        MeasureInfo("bpref", "Bpref", "bpref", "How often judged relevant documents precede judged non-relevant ones.",
                    "Ranking judged relevant above judged non-relevant documents; unjudged ones are ignored.",
                    bpref, conventions=("relevance_level",),
                    text="bpref = (1/R) sum over relevant retrieved d of (1 - min(n_d, R) / min(N, R)), n_d = judged "
                         "non-relevant above d, N = all judged non-relevant"),
        MeasureInfo("iprec_at_recall", "IPrec", "Interpolated precision at recall x",
                    "The best precision at any rank where recall is at least x.",
                    "Keeping precision high down to the recall level x.",
                    interpolated_precision, "required", RECALL_LEVELS, float_cutoffs=True,
                    conventions=("relevance_level", "recall_cutoff"),
                    text="IPrec@x = max over ranks r at or below the c-th relevant document of P@r, "
                         "c = (long)(x * R + 0.9) (trec_eval 9.0.8; lround(x * R) in 10, --recall-cutoff round); "
                         "0 if fewer than c relevant are retrieved",
                    peer="pytrec_eval"),
        MeasureInfo("infAP", "infAP", "Inferred AP",
                    "AP estimated from a sampled pool: unjudged pooled documents count as relevant in the judged "
                    "proportion.",
                    "Ranking relevant documents early when only a sample of the pool is judged.",
                    inferred_average_precision, conventions=("relevance_level",),
                    text="infAP = (1/R) sum over relevant retrieved d at rank r of 1/r + ((r-1)/r) * (pooled above "
                         "/ (r-1)) "
                         "* (rel above + e) / (rel above + nonrel above + 2e), e = 0.00001; 1 for rank 1"),
        MeasureInfo("gm_bpref", "gm_bpref", "Geometric mean bpref",
                    "bpref per query, averaged with the geometric mean.",
                    "Doing reasonably on every query, judged documents only.",
                    log_bpref, aggregate="geometric", conventions=("relevance_level",), per_query=False,
                    text="gm_bpref = exp(mean over queries of log(max(bpref, 0.00001)))",
                    latex=r"gm\_bpref = \exp\left(\frac{1}{|Q|}\sum_q \log \max(bpref_q, 10^{-5})\right)",
                    ir_native=False),
        MeasureInfo("Rprec_mult", "Rprec_mult", "Precision at a multiple of R",
                    "Precision at rank m x R for each multiple m.",
                    "Finding relevant documents within a depth proportional to how many exist.",
                    precision_at_r_multiple, "required", R_MULTIPLES, float_cutoffs=True,
                    conventions=("relevance_level",),
                    text="Rprec_mult@m = (relevant in top c) / c, c = floor(m * R + 0.9); 0 if c = 0",
                    ir_native=False),
        MeasureInfo("utility", "utility", "Utility",
                    "Set-based utility: coefficients a, b, c, d weigh relevant retrieved, non-relevant retrieved, "
                    "relevant missed, non-relevant missed.",
                    "Whatever the coefficients reward: by default, each relevant retrieved (+1) over each "
                    "non-relevant (-1).",
                    utility, params="values", default_params=(1.0, -1.0, 0.0, 0.0), conventions=("relevance_level",),
                    text="utility.a,b,c,d = a*relret + b*nonrelret + c*relmissed + d*nonrelmissed (default 1,-1,0,0; "
                         "collection size 0)",
                    ir_native=False),
        MeasureInfo("11pt_avg", "11pt_avg", "11-point interpolated average precision",
                    "Interpolated precision averaged over the recall levels (0, 0.1, ..., 1 by default).",
                    "High precision at every recall level, the way old TREC reports averaged it.",
                    eleven_point_average, params="values", default_params=RECALL_LEVELS,
                    conventions=("relevance_level", "recall_cutoff"),
                    text="11pt_avg.x1,... = mean of IPrec@x over the levels (default 0, 0.1, ..., 1)",
                    peer="pytrec_eval",
                    ir_native=False),
        MeasureInfo("binG", "binG", "Binary G",
                    "Sakai's G with binary gain: each relevant document discounted by the non-relevant ones above it.",
                    "Retrieving relevant documents before non-relevant ones.",
                    binary_g, conventions=("relevance_level",),
                    text="binG = (1/R) sum over relevant retrieved d of 1 / log2(2 + non-relevant above d)",
                    ir_native=False),
        MeasureInfo("G", "G", "G", "Sakai's G: graded gains, discounted by the gain still missing at each rank.",
                    "Retrieving high-grade documents early with graded credit.",
                    g_measure, params="pairs", conventions=("gain",),
                    text="G = (1 / sum of ideal gains) * sum over ranks r of g_r / log2(2 + C_r - (g_1 + ... + g_r)), "
                         "C_r = max(ideal gain 1, 1) + ... + max(ideal gain r, 1)",
                    ir_native=False),
        MeasureInfo("ndcg", "nDCG", "nDCG", "Discounted cumulative gain of the whole ranking over the ideal's.",
                    "Putting the most relevant documents first, with graded credit that fades with rank.",
                    ndcg, params="pairs", conventions=("gain", "ideal_from", "discount", "tied_gains", "empty_ideal"),
                    text="nDCG = DCG / ideal DCG over the whole ranking; DCG = sum_r gain(r) / log2(r + 1), gain = "
                         "grade (trec_eval; ndcg.1=3,2=9 sets gains per grade)",
                    ir_aliases=("NDCG",), cut_form="ndcg_cut"),
        MeasureInfo("ndcg_rel", "ndcg_rel", "nDCG averaged over relevant documents",
                    "nDCG at the rank of each document with positive gain, averaged over them.",
                    "Putting every graded document early, each one weighed equally.",
                    ndcg_over_relevant, params="pairs", conventions=("gain", "ideal_from", "discount"),
                    text="ndcg_rel = mean of nDCG@r over the ranks r of the documents with positive gain "
                         "(nDCG of the whole ranking for those not retrieved)",
                    ir_native=False),
        MeasureInfo("Rndcg", "Rndcg", "R-nDCG", "nDCG averaged over the ranks where the ideal gain drops a level.",
                    "Getting each grade's documents into the ranks the ideal gives them.",
                    r_ndcg, params="pairs", conventions=("gain", "ideal_from", "discount"),
                    text="Rndcg = mean of nDCG@b over the ranks b where the ideal ranking moves to a lower grade; 0 "
                         "if R = 0",
                    ir_native=False),
        MeasureInfo("ndcg_cut", "nDCG", "nDCG@k", "nDCG with both rankings cut at k.",
                    "Putting the most relevant documents first within the top k, with graded credit.",
                    ndcg, "required", TREC_CUTOFFS,
                    conventions=("gain", "ideal_from", "discount", "tied_gains", "empty_ideal"),
                    text=_NDCG_TEXT,
                    ir_aliases=("NDCG",), uncut_form="ndcg"),
        MeasureInfo("dcg", "dcg", "DCG", "Discounted cumulative gain of the whole ranking, not normalised.",
                    "Putting high-grade documents first; unlike nDCG it grows with the number of them found.",
                    dcg, trec_eval=False, conventions=("gain", "discount", "tied_gains"),
                    text="DCG = sum_r gain(r) / log2(r + 1), gain = grade (ranx dcg; dcg_burges: 2^grade - 1)",
                    peer="ranx dcg, dcg_burges", ir_native=False,
                    source="Järvelin & Kekäläinen 2002; ranx 0.3.21 dcg, dcg_burges (Burges et al. 2005)"),
        MeasureInfo("dcg_cut", "dcg_cut", "DCG@k", "Discounted cumulative gain of the top k, not normalised.",
                    "Putting high-grade documents first within the top k.",
                    dcg, "required", (10,), trec_eval=False, conventions=("gain", "discount", "tied_gains"),
                    text="DCG@k = sum over ranks r <= k of gain(r) / log2(r + 1), gain = grade (ranx dcg@k; "
                         "dcg_burges@k: 2^grade - 1)",
                    peer="ranx dcg, dcg_burges", ir_native=False,
                    source="Järvelin & Kekäläinen 2002; ranx 0.3.21 dcg, dcg_burges (Burges et al. 2005)"),
        MeasureInfo("map_cut", "AP", "Average precision@k", "Average precision counting only the top k.",
                    "Ranking relevant documents early within the top k.",
                    average_precision, "required", TREC_CUTOFFS,
                    conventions=("relevance_level", "ap_denominator", "empty_ideal"),
                    text="AP@k = (sum over relevant d in the top k of P@rank(d)) / D, D = R (trec_eval), min(R, k) "
                         "or the relevant in the top k (--ap-denominator)",
                    ir_aliases=("MAP",), uncut_form="map"),
        MeasureInfo("relative_P", "relative_P", "Relative precision@k",
                    "Precision at k against the best possible, min(k, R).",
                    "Filling the top k as well as the number of relevant documents allows.",
                    relative_precision, "required", TREC_CUTOFFS, conventions=("relevance_level",),
                    text="relative_P@k = (relevant in top k) / min(k, R); 0 if R = 0",
                    ir_native=False),
        MeasureInfo("set_P", "SetP", "Set precision", "Precision of the whole retrieved set.",
                    "Retrieving only relevant documents, however many.",
                    set_precision, conventions=("relevance_level",),
                    text="set_P = relevant retrieved / retrieved",
                    monotone=True),
        MeasureInfo("set_relative_P", "set_relative_P", "Set relative precision",
                    "Set precision against the best possible, min(|L|, R).",
                    "Retrieving as many relevant documents as the set size allows.",
                    set_relative_precision, conventions=("relevance_level",),
                    text="set_relative_P = relevant retrieved / min(retrieved, R)",
                    ir_native=False),
        MeasureInfo("set_recall", "SetR", "Set recall", "Recall of the whole retrieved set.",
                    "Retrieving every relevant document, however deep.",
                    set_recall, conventions=("relevance_level",),
                    text="set_recall = relevant retrieved / R",
                    monotone=True),
        MeasureInfo("set_map", "SetAP", "Set AP", "Set precision times set recall.",
                    "Retrieving all the relevant documents and little else.",
                    set_average_precision, conventions=("relevance_level",),
                    text="set_map = set_P * set_recall = relevant retrieved^2 / (retrieved * R)"),
        MeasureInfo("set_F", "SetF", "Set F-measure",
                    "Weighted harmonic mean of set precision and set recall (beta = 1 by default).",
                    "Balancing set precision against set recall.",
                    set_f, params="values", default_params=(1.0,), conventions=("relevance_level",),
                    text="set_F.beta = (beta + 1) * set_P * set_recall / (beta * set_P + set_recall) (default beta 1)",
                    monotone=True),
        MeasureInfo("num_nonrel_judged_ret", "num_nonrel_judged_ret", "Judged non-relevant retrieved",
                    "Number of retrieved documents judged non-relevant.", "Nothing: it is a count.",
                    num_nonrel_judged_ret, aggregate="sum", conventions=("relevance_level",),
                    text="num_nonrel_judged_ret = retrieved documents with 0 <= grade < level",
                    ir_native=False),
        MeasureInfo("unj", "unj", "Unjudged@k", "Share of the top k without a judgment.",
                    "Nothing: it measures the judgments, not the ranking.",
                    unjudged_fraction, "required", (5, 10, 20),
                    text="unj@k = (documents in the top k without a grade >= 0) / k",
                    peer="trec_eval 10 files; ir_measures Judged",
                    ir_native=False, monotone=True, not_a_score="the share of unjudged documents"),
        MeasureInfo("rbp", "RBP", "Rank-biased precision",
                    "Expected gain of a user who goes on to the next rank with probability p (0.9).",
                    "Putting high-grade documents early; a patient user (p near 1) also looks deep.",
                    rank_biased_precision, params="pairs", default_params=(0.9,),
                    text="rbp.p = (1 - p) sum_r g_r p^(r-1), g = grade / max grade of the query when that "
                         "exceeds 1 (trec_eval: p = 0.9; RBP in ir_measures notation: p = 0.8, RBP(rel=N) counts "
                         "relevant documents as 1)",
                    peer="trec_eval 10 files; ranx rbp (binary), cwl_eval and ranx cases"),
        MeasureInfo("rbp_resid", "rbp_resid", "RBP residual",
                    "How much RBP could still gain if every unjudged document were relevant.",
                    "Nothing: it is the uncertainty of rbp from missing judgments.",
                    rank_biased_precision_residual, params="pairs", default_params=(0.9,),
                    text="rbp_resid.p = p^|L| + (1 - p) sum over unjudged r of p^(r-1); 0 if all are judged (p = 0.9)",
                    peer="trec_eval 10 files",
                    ir_native=False, not_a_score="RBP's residual (its uncertainty)"),
        MeasureInfo("yaap", "yaap", "Yet another average precision",
                    "Robertson's smoothed AP: the log-odds of AP's sum against the relevant documents it misses.",
                    "Ranking relevant documents early, like AP, without letting queries with few relevant documents "
                    "swing the mean.",
                    yet_another_average_precision, conventions=("relevance_level",),
                    text="yaap = log((1 + S) / (1 + R - S)), S = sum over relevant retrieved d of P@rank(d) (AP "
                         "times R); 0 if R = 0; not in trec_eval's all_trec",
                    peer="trec_eval 9.0.8 and 10.0 files", ir_native=False),
        MeasureInfo("num_ret", "NumRet", "Retrieved", "Number of documents retrieved.", "Nothing: it is a count.",
                    num_ret, aggregate="sum", text="num_ret = |L|, the documents retrieved (after -M and -J)",
                    monotone=True),
        MeasureInfo("num_rel", "NumRel", "Relevant",
                    "Number of relevant documents judged (R).", "Nothing: it is a count.",
                    num_rel, aggregate="sum", conventions=("relevance_level",),
                    text="num_rel = R, judged documents with grade >= level",
                    monotone=True),
        MeasureInfo("num_rel_ret", "NumRelRet", "Relevant retrieved", "Number of relevant documents retrieved.",
                    "Nothing: it is a count.", num_rel_ret, aggregate="sum", conventions=("relevance_level",),
                    text="num_rel_ret = relevant documents retrieved",
                    monotone=True),
        MeasureInfo("num_q", "NumQ", "Queries", "Number of queries evaluated.", "Nothing: it is a count.",
                    num_q, aggregate="sum", text="num_q = number of queries evaluated",
                    monotone=True),
        MeasureInfo("Judged", "Judged", "Judged@k", "Share of the top k (without a cut-off, of the whole ranking) "
                    "that has a judgment (any qrels line).",
                    "Nothing: it is the size of the judgment hole behind every other score.",
                    judged_fraction, "optional", (10,), trec_eval=False, peer="ir_measures Judged",
                    text="Judged@k = (documents of the top k in the qrels) / min(k, |L|); Judged (no k): of all |L|",
                    monotone=True),
        MeasureInfo("F", "F", "F-measure@k",
                    "Weighted harmonic mean of P@k and R@k (F1 by default; F(beta=2)@k weighs recall more).",
                    "Balancing precision and recall within the top k.",
                    f_measure, "required", (10,), trec_eval=False, default_params=(1.0,),
                    conventions=("relevance_level",), peer="ranx f1",
                    text="F_beta@k = (1 + beta^2) * P@k * R@k / (beta^2 * P@k + R@k), beta = 1 (F1) unless given",
                    monotone=True),
        MeasureInfo("ERR", "ERR", "Expected reciprocal rank@k",
                    "Expected reciprocal rank at which a cascading user stops, each grade satisfying with "
                    "probability (2^g - 1) / 16.",
                    "A highly relevant document early; after one, the rest matter much less.",
                    expected_reciprocal_rank, "required", (20,), trec_eval=False, default_params=(4.0,),
                    peer="gdeval (perl, shipped with ir_measures)", source="Chapelle et al. 2009; gdeval",
                    text="ERR@k = sum over r <= k of (1/r) * R_r * (1 - R_1) * ... * (1 - R_(r-1)), R = (2^grade - "
                         "1) / 2^4 "
                         "(gdeval's maximum grade 4)"),
        MeasureInfo("compat", "Compat", "Compatibility",
                    "Rank-biased overlap of the ranking with the ideal ranking of the judged relevant documents, over "
                    "the best possible (persistence p = 0.95).",
                    "Ranking documents in the order of their grades, without needing gain values.",
                    compatibility, trec_eval=False, default_params=(0.95, 1.0),
                    text="Compat(p) = RBO(L, I) / RBO(I, I), RBO(A, B) = sum_d p^(d-1) |A[:d] & B[:d]| / d over "
                         "sum_d p^(d-1), d = 1..max(|L|, |I|), I = the documents with grade > 0, grade descending, "
                         "then as retrieved (p = 0.95; normalize=False: RBO(L, I) alone)",
                    peer="ir_measures compat (the authors' compatibility.py)",
                    source="Clarke, Vtyurina & Smucker 2021, Offline evaluation without gain (ACM TOIS)"),
        MeasureInfo("accuracy", "Accuracy", "Pairwise accuracy",
                    "Share of (relevant, non-relevant) pairs in the top k (the whole ranking without a cut-off) "
                    "ranked relevant first.",
                    "Nothing beyond order: a diagnostic that a relevant document precedes a non-relevant one.",
                    pairwise_accuracy, "optional", (10,), trec_eval=False, conventions=("relevance_level",),
                    text="Accuracy = 1 - (sum over relevant d in the top k of the non-relevant above d) / (m * N), m "
                         "and N the relevant and non-relevant (or unjudged) in the top k; 0 if m = 0, 1 if N = 0",
                    peer="ir_measures accuracy", source="ir_measures 0.4.3 (its accuracy provider)"),
        _cwl("BPM", "Bejewelled Player Model@K",
             "Expected gain per document of a user who stops once the gain reaches T or the cost reaches K.",
             "Reaching the wanted gain T early, within a budget of K documents.", bejewelled_player_model,
             "BPM(T)@K: C_r = 1 while gain so far < T (1) and r < K, else 0 (Zhang et al. 2017, static)", True),
        _cwl("INST", "INST", "Expected gain per document of a user who wants T units of gain and grows impatient "
             "as they arrive.", "Delivering the gain T early; after it arrives the user soon stops.", inst,
             "INST(T): C_r = ((r + T + T_r - 1) / (r + T + T_r))^2, T_r = T - gain so far (T = 1, at least "
             "0.25: below it C_r exceeds 1 after documents of gain 1; Moffat et al. 2015)"),
        _cwl("INSQ", "INSQ", "Expected gain per document of a user who wants T units of gain, patience fixed by T.",
             "Gain at the top ranks; a larger T looks deeper.", insq,
             "INSQ(T): C_r = ((r + 2T - 1) / (r + 2T))^2 (T = 1; Moffat et al. 2012)"),
        _cwl("SDCG", "Scaled DCG@k", "DCG@k over the DCG@k of k documents of the largest gain (cwl_eval's NDCG-k).",
             "Gain in the top k, discounted by rank, as if k fully relevant documents existed.", scaled_dcg,
             "SDCG@k: C_r = log2(r + 1) / log2(r + 2) for r < k, else 0: DCG@k / (sum over r <= k of 1 / "
             "log2(r + 1))", True),
        _cwl("NERR8", "NERR (eq. 8)@k", "ERR's cascade as a C/W/L model: the user stops at a document with its "
             "gain, and at k.", "A high-gain document early, within the top k.", nerr_eq8,
             "NERR8@k: C_r = 1 - g_r for r < k, else 0 (Azzopardi et al. 2021, eq. 8)", True),
        _cwl("NERR9", "NERR (eq. 9)@k", "ERR's cascade with a reciprocal-rank discount, as a C/W/L model cut at k.",
             "A high-gain document early, within the top k.", nerr_eq9,
             "NERR9@k: C_r = r / (r + 1) * (1 - g_r) for r < k, else 0 (Azzopardi et al. 2021, eq. 9)", True),
        _cwl("NERR10", "NERR (eq. 10)", "ERR's cascade with RBP's patience p, to full depth.",
             "A high-gain document early; p sets how deep the user looks.", nerr_eq10,
             "NERR10(p): C_r = p (1 - g_r) (p = 0.9; Azzopardi et al. 2021, eq. 10)"),
        _cwl("NERR11", "NERR (eq. 11)", "ERR's cascade with INSQ's goal T, to full depth.",
             "A high-gain document early; T sets how deep the user looks.", nerr_eq11,
             "NERR11(T): C_r = ((r + 2T - 1) / (r + 2T))^2 (1 - g_r) (T = 1; Azzopardi et al. 2021, eq. 11)"),
        *DIVERSITY_MEASURES,
    )
}

# trec_eval's preference and judgment-group measures (-R prefs, -R qrels_prefs, -R qrels_jg) have a table of their own,
# PREFERENCE_MEASURES (metrics.measures.preferences): they score counts of preferences, or several sets of judgments
# per query, not a batch of gains.

#: The diversity measures' names: their qrels are judgments per subtopic (``qid subtopic docno grade``).
DIVERSITY_NAMES = frozenset(info.name for info in DIVERSITY_MEASURES)

#: trec_eval's default ("official") measures, in trec_eval's output order.
TREC_DEFAULT_MEASURES = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
                         "iprec_at_recall", "P")


def _ir_names() -> dict[str, tuple[str | None, str | None]]:
    table: dict[str, tuple[str | None, str | None]] = {}
    for info in MEASURES.values():
        if not info.ir_native:
            continue
        for name in info.ir_names:
            uncut, cut = table.get(name, (None, None))
            table[name] = {"required": (uncut, info.name), "optional": (info.name, info.name)}.get(
                info.cutoff, (info.name, cut))
    return table


#: ir_measures' names (and their aliases) -> the registry names they read as without and with a cut-off:
#: ``AP`` -> (map, map_cut), ``P`` -> (None, P), ``Rprec`` -> (Rprec, None).
IR_NAMES: dict[str, tuple[str | None, str | None]] = _ir_names()

_AGGREGATE_OF_NAME: dict[str, Aggregate] = {
    name: info.aggregate for info in MEASURES.values() for name in (info.name, *info.ir_names)
} | {name: "sum" for name, info in PREFERENCE_MEASURES.items() if info.is_count}


def aggregation(key: str) -> Aggregate:
    """How the per-query values of a result key are combined over queries: the ``aggregate`` of the measure it
    names (``num_q``, ``NumRet(rel=2)``: sum; ``gm_map``: geometric), and the mean for every other key
    (``P_5``, ``nDCG@10``, names as written such as ``hit_rate@10``)."""
    return _AGGREGATE_OF_NAME.get(key.split("(")[0], "mean")
