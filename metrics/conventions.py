"""The conventions that make "the same" metric differ between tools.

A score is only meaningful together with the conventions that produced it. Every convention below is one
field of :class:`Conventions`; trec_eval's behaviour is the default of each, so ``Conventions()`` reproduces
trec_eval (and pytrec_eval) exactly. ``CONVENTION_INFO`` documents each choice and names the tools that use it;
the command line's ``--help``, the app's conventions panel and the convention finder are all generated from it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Literal, get_args

Gain = Literal["linear", "exponential", "binary"]
IdealFrom = Literal["judgments", "retrieved"]
APDenominator = Literal["R", "min_R_k", "retrieved_relevant"]
TieOrder = Literal["trec_eval", "as_given", "docid_ascending"]
Unjudged = Literal["nonrelevant", "removed"]
PrecisionShortList = Literal["k", "retrieved"]
MissingQueries = Literal["skip", "zero"]
ScorePrecision = Literal["float32", "float64"]


@dataclass(frozen=True, slots=True)
class Conventions:
    """One complete set of evaluation conventions. The defaults are trec_eval's.

    relevance_level: a judgment counts as relevant when grade >= relevance_level (trec_eval ``-l``).
    gain: the gain of a judged document with grade g >= 0 in DCG: ``linear`` g (trec_eval),
        ``exponential`` 2^g - 1 (Burges et al.), ``binary`` 1 if relevant else 0.
    ideal_from: the ideal DCG sorts the gains of ``judgments`` (every judged document; trec_eval) or of the
        ``retrieved`` list only (scikit-learn's ndcg_score).
    ap_denominator: AP@k divides the summed precisions by ``R`` (all relevant; trec_eval map_cut),
        ``min_R_k`` (min(R, k)), or ``retrieved_relevant`` (relevant documents in the top k).
    tie_order: how documents with equal scores are ordered: ``trec_eval`` (doc id descending, byte order),
        ``as_given`` (input order), ``docid_ascending``.
    unjudged: unjudged retrieved documents count as ``nonrelevant`` (trec_eval) or are ``removed`` from the
        ranking before scoring (the condensed list; trec_eval ``-J``).
    precision_short_list: P@k divides by ``k`` (trec_eval) or by ``retrieved``, min(k, number retrieved).
    missing_queries: queries judged in the qrels but absent from the run are ``skip``-ped (trec_eval) or
        scored as empty rankings, i.e. ``zero`` (trec_eval ``-c``).
    depth: evaluate only the top ``depth`` documents of each ranking (trec_eval ``-M``); None means all.
    score_precision: scores are compared as ``float32`` (trec_eval up to 9.0.8 and pytrec_eval store them as C
        floats, so two doubles that round to the same float tie and go to the tie order) or as ``float64``
        (trec_eval 10).
    """

    relevance_level: int = 1
    gain: Gain = "linear"
    ideal_from: IdealFrom = "judgments"
    ap_denominator: APDenominator = "R"
    tie_order: TieOrder = "trec_eval"
    unjudged: Unjudged = "nonrelevant"
    precision_short_list: PrecisionShortList = "k"
    missing_queries: MissingQueries = "skip"
    depth: int | None = None
    score_precision: ScorePrecision = "float32"

    def __post_init__(self) -> None:
        if isinstance(self.relevance_level, bool) or not isinstance(self.relevance_level, int):
            raise ValueError(
                f"Argument `relevance_level` has to be an integer, but got {self.relevance_level!r}"
            )
        if self.relevance_level < 0:
            raise ValueError(
                f"Argument `relevance_level` has to be >= 0 (negative grades mean 'unjudged'), "
                f"but got {self.relevance_level}"
            )
        for field in dataclasses.fields(self):
            if field.name in ("relevance_level", "depth"):
                continue
            allowed = get_args(field.type if not isinstance(field.type, str) else _FIELD_TYPES[field.name])
            value = getattr(self, field.name)
            if value not in allowed:
                raise ValueError(
                    f"Argument `{field.name}` has to be one of {', '.join(map(repr, allowed))}, but got {value!r}"
                )
        if self.depth is not None and (
            isinstance(self.depth, bool) or not isinstance(self.depth, int) or self.depth < 1
        ):
            raise ValueError(f"Argument `depth` has to be a positive integer or None, but got {self.depth!r}")

    def replace(self, **changes: object) -> Conventions:
        """A copy with some conventions changed (validated like the constructor)."""
        return dataclasses.replace(self, **changes)

    def differences(self, base: Conventions | None = None) -> dict[str, object]:
        """The conventions that differ from ``base`` (trec_eval's defaults when omitted), as name -> value."""
        base = base if base is not None else TREC_EVAL
        return {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(self)
            if getattr(self, field.name) != getattr(base, field.name)
        }

    def describe(self) -> str:
        """``trec_eval defaults`` or the differing conventions as ``name=value`` pairs."""
        diffs = self.differences()
        if not diffs:
            return "trec_eval defaults"
        return " ".join(f"{name}={value}" for name, value in diffs.items())


_FIELD_TYPES = {
    "gain": Gain,
    "ideal_from": IdealFrom,
    "ap_denominator": APDenominator,
    "tie_order": TieOrder,
    "unjudged": Unjudged,
    "precision_short_list": PrecisionShortList,
    "missing_queries": MissingQueries,
    "score_precision": ScorePrecision,
}

TREC_EVAL = Conventions()


@dataclass(frozen=True, slots=True)
class Choice:
    """One value of a convention: what it means and which tools use it."""

    value: str
    meaning: str
    used_by: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ConventionInfo:
    name: str
    label: str
    affects: tuple[str, ...]
    choices: tuple[Choice, ...]


CONVENTION_INFO: tuple[ConventionInfo, ...] = (
    ConventionInfo(
        "gain",
        "Gain of a graded judgment",
        ("ndcg", "ndcg_cut"),
        (
            Choice("linear", "gain = grade (Järvelin & Kekäläinen)", ("trec_eval", "pytrec_eval", "ir_measures", "ranx ndcg")),
            Choice("exponential", "gain = 2^grade - 1 (Burges et al.)", ("ranx ndcg_burges", "ir_measures nDCG(dcg='exp-log2')", "LightGBM/XGBoost ndcg")),
            Choice("binary", "gain = 1 if relevant, else 0", ("sentence-transformers", "BEIR-style binary qrels")),
        ),
    ),
    ConventionInfo(
        "ideal_from",
        "Where the ideal DCG comes from",
        ("ndcg", "ndcg_cut"),
        (
            Choice("judgments", "sort the gains of every judged document, retrieved or not", ("trec_eval", "pytrec_eval", "ir_measures", "ranx", "sentence-transformers")),
            Choice("retrieved", "sort the gains of the retrieved documents only", ("scikit-learn ndcg_score", "torchmetrics retrieval_normalized_dcg")),
        ),
    ),
    ConventionInfo(
        "ap_denominator",
        "Denominator of AP@k",
        ("map_cut", "map"),
        (
            Choice("R", "all relevant documents of the query", ("trec_eval map_cut", "pytrec_eval", "ir_measures AP@k", "ranx map@k")),
            Choice("min_R_k", "min(R, k): the best AP@k is 1 even when R > k", ("sentence-transformers MAP@k",)),
            Choice("retrieved_relevant", "relevant documents found in the top k", ("torchmetrics retrieval_average_precision(top_k)", "many hand-written AP@k")),
        ),
    ),
    ConventionInfo(
        "tie_order",
        "Order of documents with equal scores",
        ("all",),
        (
            Choice("trec_eval", "score descending, then doc id descending (byte order)", ("trec_eval", "pytrec_eval", "ir_measures")),
            Choice("as_given", "score descending, ties keep the input order", ("MS MARCO eval script (ranks as written)", "rank-ordered lists in hand-written evaluation code")),
            Choice("docid_ascending", "score descending, then doc id ascending", ("sorting by (-score, docid) in pandas",)),
        ),
    ),
    ConventionInfo(
        "unjudged",
        "Unjudged retrieved documents",
        ("all",),
        (
            Choice("nonrelevant", "count as non-relevant and keep their rank", ("trec_eval", "pytrec_eval", "ir_measures", "ranx")),
            Choice("removed", "are dropped and the list is condensed (Sakai 2007)", ("trec_eval -J", "ir_measures judged_only")),
        ),
    ),
    ConventionInfo(
        "precision_short_list",
        "P@k when fewer than k documents are retrieved",
        ("P",),
        (
            Choice("k", "divide by k: missing ranks count as non-relevant", ("trec_eval", "pytrec_eval", "ir_measures", "ranx")),
            Choice("retrieved", "divide by min(k, number retrieved)", ("torchmetrics retrieval_precision(adaptive_k=True)",)),
        ),
    ),
    ConventionInfo(
        "missing_queries",
        "Judged queries absent from the run",
        ("mean",),
        (
            Choice("skip", "are left out of the mean", ("trec_eval", "pytrec_eval")),
            Choice("zero", "score 0 and count in the mean", ("trec_eval -c", "ir_measures", "ranx (make_comparable=True)", "MS MARCO eval script")),
        ),
    ),
    ConventionInfo(
        "score_precision",
        "Precision at which scores are compared",
        ("all",),
        (
            Choice("float32", "scores are rounded to 32-bit floats (about 7 digits) before sorting, so scores closer than that tie and the tie order decides", ("trec_eval 9.0.8 and earlier", "pytrec_eval", "ir_measures (measures it takes from pytrec_eval)")),
            Choice("float64", "scores are compared as 64-bit doubles, as written", ("trec_eval 10", "ir_measures nDCG(dcg='exp-log2') (gdeval.pl)")),
        ),
    ),
)
