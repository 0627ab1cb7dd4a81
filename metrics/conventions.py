"""The conventions that make "the same" metric differ between tools.

A score is only meaningful together with the conventions that produced it. Every convention below is one
field of :class:`Conventions`; trec_eval's behaviour is the default of each, so ``Conventions()`` reproduces
trec_eval 9.0.8 (and pytrec_eval) exactly, and :func:`trec_eval_conventions` gives trec_eval 10.0's values.
``CONVENTION_INFO`` documents each choice; the tools that use it come from their profiles
(:mod:`metrics.profiles`). The command line's ``--help``, the app's conventions panel and the convention finder
are all generated from the two.
"""

from __future__ import annotations

import dataclasses
import numbers
import textwrap
from dataclasses import dataclass
from typing import Literal, get_args

from .profiles import tools_using

Gain = Literal["linear", "exponential", "binary", "thresholded"]
IdealFrom = Literal["judgments", "retrieved"]
APDenominator = Literal["R", "min_R_k", "retrieved_relevant", "min_retrieved_relevant_k"]
TieOrder = Literal["trec_eval", "as_given", "docid_ascending", "ranx", "ranx_resorted"]
Unjudged = Literal["nonrelevant", "removed"]
PrecisionShortList = Literal["k", "retrieved"]
MissingQueries = Literal["skip", "zero"]
ScorePrecision = Literal["float32", "float64"]
TiedGains = Literal["ordered", "averaged"]
EmptyIdeal = Literal["zero", "one"]
Discount = Literal["log2", "jk_b2", "jk_b10"]
RecallCutoff = Literal["plus_0.9", "round"]
MissingRanking = Literal["empty", "placeholder"]
NonpositiveScores = Literal["retrieved", "not_relevant"]
TrecEvalBuild = Literal["9.0.8", "10.0"]


@dataclass(frozen=True, slots=True)
class Conventions:
    """One complete set of evaluation conventions. The defaults are trec_eval 9.0.8's (:data:`DEFAULT_TREC_EVAL`);
    :func:`trec_eval_conventions` gives another build's.

    Each field's meaning is the ``description`` of its :class:`ConventionInfo` in :data:`ALL_CONVENTIONS`,
    listed below by :func:`help`.
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
    tied_gains: TiedGains = "ordered"
    empty_ideal: EmptyIdeal = "zero"
    discount: Discount = "log2"
    recall_cutoff: RecallCutoff = "plus_0.9"
    missing_ranking: MissingRanking = "empty"
    nonpositive_scores: NonpositiveScores = "retrieved"

    def __post_init__(self) -> None:
        # A numpy integer (np.int64(2), as a DataFrame hands one out) is an integer too: stored as Python's int.
        for name in ("relevance_level", "depth"):
            value = getattr(self, name)
            if isinstance(value, numbers.Integral) and not isinstance(value, (bool, int)):
                object.__setattr__(self, name, int(value))
        if isinstance(self.relevance_level, bool) or not isinstance(self.relevance_level, int):
            raise ValueError(
                f"Argument `relevance_level` has to be an integer, but got {self.relevance_level!r}"
            )
        if self.relevance_level < 0:
            raise ValueError(
                f"Argument `relevance_level` has to be >= 0 (negative grades mean 'unjudged'), "
                f"but got {self.relevance_level}"
            )
        for name, allowed in _ALLOWED_VALUES.items():
            value = getattr(self, name)
            if value not in allowed:
                raise ValueError(
                    f"Argument `{name}` has to be one of {', '.join(map(repr, allowed))}, but got {value!r}"
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
    "tied_gains": TiedGains,
    "empty_ideal": EmptyIdeal,
    "discount": Discount,
    "recall_cutoff": RecallCutoff,
    "missing_ranking": MissingRanking,
    "nonpositive_scores": NonpositiveScores,
}
#: Each choice-valued field's allowed values, in field order (read once: the convention finder builds tens of
#: thousands of Conventions, and reading the Literal types in each one was most of its time).
_ALLOWED_VALUES: dict[str, tuple[object, ...]] = {
    field.name: get_args(_FIELD_TYPES[field.name])
    for field in dataclasses.fields(Conventions)
    if field.name not in ("relevance_level", "depth")
}

TREC_EVAL = Conventions()


@dataclass(frozen=True, slots=True)
class Attribution:
    """A source that defines a choice without being a tool (a paper), and the test that shows the engine follows it.

    Tools are credited through their profiles (:mod:`metrics.profiles`), never here.
    """

    tool: str
    test: str
    source: str = ""

    def __str__(self) -> str:
        return self.tool


@dataclass(frozen=True, slots=True)
class Choice:
    """One value of a convention: what it means, and who uses it: the tool profiles that set it
    (:func:`metrics.profiles.tools_using`) and the papers that define it (``references``).

    builds: the trec_eval builds (:data:`TREC_EVAL_BUILDS`) whose output needs this value, on the conventions
    where the builds differ; :func:`trec_eval_conventions` reads them. one_tool: the value is one tool's
    implementation (ranx's unstable sort), not a choice an evaluation states: the multiverse does not vary it."""

    value: str
    meaning: str
    references: tuple[Attribution, ...] = ()
    builds: tuple[str, ...] = ()
    one_tool: bool = False
    convention: str = ""  # the field it is a value of (set by its ConventionInfo)

    @property
    def used_by(self) -> tuple[str, ...]:
        return (*tools_using(self.convention, self.value), *(str(reference) for reference in self.references))


@dataclass(frozen=True, slots=True)
class ConventionInfo:
    """Every fact about one convention (one field of :class:`Conventions`).

    name: the field. label: a short title for a select box. affects: the measures it changes (``all``, ``mean``).
    choices: its values with their meaning, trec_eval's first; empty for a number (relevance_level, depth).
    description: what the field means. scope: ``query`` when it means something for one ranked list, ``run`` when
    only for a whole run (missing_queries, depth). url_param: the explorer's URL parameter, None when the explorer
    does not offer it. orders_only: it only decides how scores order the documents (tie_order, score_precision), so
    a list of scores that already gives the order carries any value of it. reads_scores: it reads the scores once
    the ranking is made (tied_gains, nonpositive_scores), so a ranking given without scores carries only the
    default: the front doors hand the scores to the batch when another value is in force.
    """

    name: str
    label: str
    affects: tuple[str, ...]
    choices: tuple[Choice, ...]
    notes: tuple[str, ...] = ()  # tools whose behaviour no choice describes, and what they do instead
    description: str = ""
    scope: Literal["query", "run"] = "query"
    url_param: str | None = None
    orders_only: bool = False
    reads_scores: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "choices", tuple(dataclasses.replace(choice, convention=self.name)
                                                  for choice in self.choices))


#: trec_eval 10's -c scores a judged query missing from the run as this one document with score 1 (trec_eval.c).
PLACEHOLDER_DOCNO = "ceci_nest_pas_un_docno"


#: The original DCG (Järvelin & Kekäläinen, ACM TOIS 20(4), 2002): no discount before rank b, then log_b(rank).
_JARVELIN_KEKALAINEN = "https://doi.org/10.1145/582415.582418"
_JK_TEST = "tests/engine/test_trec_measures.py::test_jarvelin_kekalainen_discount_leaves_ranks_before_b_undiscounted"
_JARVELIN_KEKALAINEN_B2 = Attribution("Järvelin & Kekäläinen 2002 (b = 2)", _JK_TEST, _JARVELIN_KEKALAINEN)
_JARVELIN_KEKALAINEN_B10 = Attribution("Järvelin & Kekäläinen 2002 (b = 10, a patient user)", _JK_TEST,
                                       _JARVELIN_KEKALAINEN)


#: Every convention, one entry per field of :class:`Conventions`: those with choices in the order the command line
#: and the panels list them, and the two numbers (relevance_level, depth).
ALL_CONVENTIONS: tuple[ConventionInfo, ...] = (
    ConventionInfo(
        "relevance_level",
        "Relevance threshold",
        ("all",),
        (),
        description="a judgment counts as relevant when grade >= relevance_level (trec_eval ``-l``).",
        url_param="level",
    ),
    ConventionInfo(
        "gain",
        "Gain of a graded judgment",
        ("ndcg", "ndcg_cut"),
        (
            Choice("linear", "gain = grade (Järvelin & Kekäläinen)"),
            Choice("exponential", "gain = 2^grade - 1 (Burges et al.)"),
            Choice("binary", "gain = 1 if relevant, else 0"),
            Choice("thresholded", "gain = grade if relevant (at least the relevance threshold), else 0: ranx's "
                                  "ndcg with rel_lvl", one_tool=True),
        ),
        description=("the gain of a judged document with grade g >= 0 in DCG: ``linear`` g (trec_eval), "
                     "``exponential`` 2^g - 1 (Burges et al.), ``binary`` 1 if relevant else 0, ``thresholded`` g "
                     "if relevant else 0 (ranx's rel_lvl)."),
        url_param="gain",
    ),
    ConventionInfo(
        "ideal_from",
        "Where the ideal DCG comes from",
        ("ndcg", "ndcg_cut"),
        (
            Choice("judgments", "sort the gains of every judged document, retrieved or not"),
            Choice("retrieved", "sort the gains of the retrieved documents only (the items scored)"),
        ),
        description=("the ideal DCG sorts the gains of ``judgments`` (every judged document; trec_eval) or of "
                     "the ``retrieved`` list only (scikit-learn's ndcg_score)."),
        url_param="ideal",
    ),
    ConventionInfo(
        "tied_gains",
        "Gains of documents with equal scores",
        ("ndcg", "ndcg_cut"),
        (
            Choice("ordered", "each takes its own gain at its own rank, in the tie order"),
            Choice("averaged", "they share the mean gain of their tie group, whatever their order"),
        ),
        description=("in DCG, documents with equal scores each take the gain of their own grade at their rank "
                     "(``ordered``, in the tie order; trec_eval) or share the mean gain of their tie group "
                     "(``averaged``; scikit-learn's ndcg_score, torchmetrics). Rankings given without scores "
                     "have no ties."),
        reads_scores=True,
    ),
    ConventionInfo(
        "empty_ideal",
        "Score of a query whose ideal ranking has nothing relevant",
        ("ndcg", "ndcg_cut", "map", "map_cut"),
        (
            Choice("zero", "is 0"),
            Choice("one", "is 1"),
        ),
        description=("nDCG of a ranking whose ideal DCG is 0 (no document with a positive gain), and AP of a "
                     "query without a relevant document (in the judgments, or in the ranking for the AP "
                     "denominators read from it): ``zero`` (trec_eval) or ``one`` (LightGBM, XGBoost's "
                     "``ndcg`` and ``map``)."),
    ),
    ConventionInfo(
        "discount",
        "Rank discount of DCG",
        ("ndcg", "ndcg_cut"),
        (
            Choice("log2", "gain / log2(rank + 1) at every rank (any log base gives the same nDCG)"),
            Choice("jk_b2", "Järvelin & Kekäläinen: rank 1 undiscounted, then gain / log2(rank)",
                   (_JARVELIN_KEKALAINEN_B2,)),
            Choice("jk_b10", "Järvelin & Kekäläinen: ranks 1-9 undiscounted, then gain / log10(rank)",
                   (_JARVELIN_KEKALAINEN_B10,)),
        ),
        description=("DCG divides the gain at rank r by ``log2`` (r + 1) (trec_eval, ir_measures; the base of "
                     "this log cancels in nDCG), or follows Järvelin & Kekäläinen (2002): no discount before "
                     "rank b, then log_b(r), with b = 2 (``jk_b2``) or b = 10 (``jk_b10``, their patient "
                     "user)."),
    ),
    ConventionInfo(
        "ap_denominator",
        "Denominator of AP@k",
        ("map_cut", "map"),
        (
            Choice("R", "all relevant documents of the query"),
            Choice("min_R_k", "min(R, k): the best AP@k is 1 even when R > k"),
            Choice("retrieved_relevant", "relevant documents found in the top k"),
            Choice("min_retrieved_relevant_k", "min(relevant documents anywhere in the ranking, k)"),
        ),
        description=("AP@k divides the summed precisions by ``R`` (all relevant; trec_eval map_cut), "
                     "``min_R_k`` (min(R, k)), ``retrieved_relevant`` (relevant documents in the top k), or "
                     "``min_retrieved_relevant_k`` (min(relevant documents retrieved, k): LightGBM's and "
                     "XGBoost's map@k, which see only the ranked list)."),
        url_param="ap_denominator",
    ),
    ConventionInfo(
        "tie_order",
        "Order of documents with equal scores",
        ("all",),
        (
            Choice("trec_eval", "score descending, then doc id descending (byte order)"),
            Choice("as_given", "score descending, ties keep the input order"),
            Choice("docid_ascending", "score descending, then doc id ascending"),
            Choice("ranx", "as ranx's Run sorts a query: numba's quicksort of the scores in input order (ties "
                           "keep the input order in lists of up to 15 documents, a fixed shuffle beyond)",
                   one_tool=True),
            Choice("ranx_resorted", "as ranx's evaluate(..., make_comparable=True) orders them: the same quicksort "
                                    "run again on the sorted list", one_tool=True),
        ),
        description=("how documents with equal scores are ordered: ``trec_eval`` (doc id descending, byte "
                     "order), ``as_given`` (input order), ``docid_ascending``, ``ranx`` (numba's unstable "
                     "quicksort of each query's scores in input order, as ranx's ``Run`` does), ``ranx_resorted`` "
                     "(that quicksort once more on its own output: ranx's ``make_comparable=True``)."),
        url_param="ties",
        orders_only=True,
    ),
    ConventionInfo(
        "nonpositive_scores",
        "Documents scored 0 or below",
        ("all",),
        (
            Choice("retrieved", "are retrieved like any other: a score only decides the order"),
            Choice("not_relevant", "keep their rank but count as not relevant (a judged one reads as grade 0)"),
        ),
        notes=(
            "torchmetrics 1.7.4 and later apply the rule in retrieval_precision, retrieval_average_precision, "
            "retrieval_reciprocal_rank and retrieval_recall only; its hit rate, R-precision, fall-out and nDCG "
            "score every document as its label says.",
        ),
        description=("a document whose score is 0 or less (as compared: -0.0, and a double that rounds to 0 as "
                     "a float32, too) is ``retrieved`` like any other (trec_eval: scores only order the "
                     "documents) or keeps its rank but counts as ``not_relevant`` wherever it ranks "
                     "(torchmetrics 1.7.4 and later: ``target`` becomes 0 where ``preds <= 0``); R and the ideal "
                     "ranking still count it. Rankings given without scores have no such document."),
        reads_scores=True,
    ),
    ConventionInfo(
        "unjudged",
        "Unjudged retrieved documents",
        ("all",),
        (
            Choice("nonrelevant", "count as non-relevant and keep their rank"),
            Choice("removed", "are dropped and the list is condensed (Sakai 2007)"),
        ),
        description=("unjudged retrieved documents count as ``nonrelevant`` (trec_eval) or are ``removed`` "
                     "from the ranking before scoring (the condensed list; trec_eval ``-J``)."),
        url_param="unjudged",
    ),
    ConventionInfo(
        "precision_short_list",
        "P@k when fewer than k documents are retrieved",
        ("P",),
        (
            Choice("k", "divide by k: missing ranks count as non-relevant"),
            Choice("retrieved", "divide by min(k, number retrieved)"),
        ),
        description="P@k divides by ``k`` (trec_eval) or by ``retrieved``, min(k, number retrieved).",
        url_param="p_short",
    ),
    ConventionInfo(
        "missing_queries",
        "Judged queries absent from the run",
        ("mean",),
        (
            Choice("skip", "are left out of the mean"),
            Choice("zero", "score 0 and count in the mean"),
        ),
        notes=("ir_measures counts a judged query absent from the run as 0 in its means; its NumQ and NumRel "
               "differ from trec_eval -c's.",),
        description=("queries judged in the qrels but absent from the run are ``skip``-ped (trec_eval) or "
                     "scored as empty rankings, i.e. ``zero`` (trec_eval ``-c``)."),
        scope="run",
    ),
    ConventionInfo(
        "depth",
        "Depth: documents evaluated per ranking",
        ("all",),
        (),
        description=("evaluate only the top ``depth`` documents of each ranking (trec_eval ``-M``); None means "
                     "all."),
        scope="run",
    ),
    ConventionInfo(
        "score_precision",
        "Precision at which scores are compared",
        ("all",),
        (
            Choice("float32", "scores are rounded to 32-bit floats (about 7 digits) before sorting, so scores "
                   "closer than that tie and the tie order decides", builds=("9.0.8",)),
            Choice("float64", "scores are compared as 64-bit doubles, as written", builds=("10.0",)),
        ),
        description=("scores are compared as ``float32`` (trec_eval up to 9.0.8 and pytrec_eval store them as "
                     "C floats, so two doubles that round to the same float tie and go to the tie order) or as "
                     "``float64`` (trec_eval 10)."),
        url_param="precision",
        orders_only=True,
    ),
    ConventionInfo(
        "recall_cutoff",
        "Relevant documents to reach for a recall level",
        ("iprec_at_recall", "11pt_avg"),
        (
            Choice("plus_0.9", "recall level x asks for the c-th relevant document, c = (long)(x R + 0.9)",
                   builds=("9.0.8",)),
            Choice("round", "recall level x asks for the c-th relevant document, c = lround(x R) (halves up)",
                   builds=("10.0",)),
        ),
        description=("iprec_at_recall and 11pt_avg turn a recall level x into a number of relevant documents "
                     "c: ``plus_0.9`` (long)(x R + 0.9) (trec_eval 9.0.8, pytrec_eval) or ``round`` lround(x R) "
                     "(trec_eval 10); IPrec@0.4 with R = 3 asks for the 2nd relevant document under the first, the "
                     "1st under the second."),
    ),
    ConventionInfo(
        "missing_ranking",
        "Ranking scored for a judged query absent from the run (with missing_queries=zero)",
        ("utility", "rbp_resid", "relstring"),
        (
            Choice("empty", "none: every measure is 0 and the query only counts in the means", builds=("9.0.8",)),
            Choice("placeholder", "trec_eval 10's one unjudged document, then num_ret, utility, relstring, unj and "
                   "rbp_resid reset to 0 (their names without parameters only)", builds=("10.0",)),
        ),
        description=("with ``missing_queries=zero`` (trec_eval -c), a judged query absent from the run is scored "
                     "as an ``empty`` ranking (trec_eval 9.0.8: every measure 0, and the command line prints no "
                     "per-query line for it) or as trec_eval 10's ``placeholder``, a one-document ranking of the "
                     f"unjudged document {PLACEHOLDER_DOCNO!r} whose num_ret, utility, relstring, unj and rbp_resid "
                     "are then reset to 0, but not those of parameterised names: utility.1,-1,-2,0, rbp_resid.p=0.5 "
                     "and relstring.3 keep the placeholder's values (the command line prints its lines with -q)."),
        scope="run",
    ),
)

#: The conventions that have choices (every field but the numbers relevance_level and depth), in the order the
#: command line, the panels and the convention finder list them.
CONVENTION_INFO: tuple[ConventionInfo, ...] = tuple(info for info in ALL_CONVENTIONS if info.choices)
#: Every convention by field name.
CONVENTIONS_BY_NAME: dict[str, ConventionInfo] = {info.name: info for info in ALL_CONVENTIONS}
#: The conventions that only order the documents by score (tie_order, score_precision).
ORDER_CONVENTIONS: tuple[str, ...] = tuple(info.name for info in ALL_CONVENTIONS if info.orders_only)
#: The conventions that read the scores once the ranking is made (tied_gains, nonpositive_scores).
SCORE_CONVENTIONS: tuple[str, ...] = tuple(info.name for info in ALL_CONVENTIONS if info.reads_scores)
#: URL parameter of each convention the explorer offers for one query (every query-level one with a parameter).
URL_PARAMS: dict[str, str] = {info.name: info.url_param for info in ALL_CONVENTIONS if info.url_param is not None}

Conventions.__doc__ = (Conventions.__doc__ or "") + "\n" + "\n".join(
    textwrap.fill(f"{name}: {CONVENTIONS_BY_NAME[name].description}", width=110, initial_indent="    ",
                  subsequent_indent="        ")
    for name in Conventions.__dataclass_fields__)


# ---- trec_eval builds ---------------------------------------------------------------------------------------------

#: The trec_eval builds the engine reproduces byte for byte, oldest first.
TREC_EVAL_BUILDS: tuple[str, ...] = get_args(TrecEvalBuild)
#: The build ``Conventions()`` reproduces: pytrec_eval, ir_measures and PyTerrier all compute through trec_eval
#: 9.0.8, so most numbers reported from Python are its numbers (docs/conventions.md says more).
DEFAULT_TREC_EVAL: TrecEvalBuild = "9.0.8"


def trec_eval_values(build: str) -> dict[str, str]:
    """The conventions on which the trec_eval builds differ, as ``build`` sets them (from the ``builds`` of each
    :class:`Choice`): ``{"score_precision": "float64", "recall_cutoff": "round", "missing_ranking": "placeholder"}``
    for ``"10.0"``."""
    build = _build_name(build)
    return {info.name: choice.value for info in ALL_CONVENTIONS for choice in info.choices if build in choice.builds}


def trec_eval_conventions(build: str, base: Conventions | None = None) -> Conventions:
    """``base`` (``Conventions()`` when omitted) with trec_eval ``build``'s values, so that the engine prints that
    build's output: ``trec_eval_conventions("10.0", Conventions(relevance_level=2))`` is trec_eval 10's ``-l 2``.
    The other conventions (-c, -J, -l, -M, gain, ...) are ``base``'s.

    >>> trec_eval_conventions("10.0").describe()
    'score_precision=float64 recall_cutoff=round missing_ranking=placeholder'
    """
    return (base if base is not None else TREC_EVAL).replace(**trec_eval_values(build))


def trec_eval_build(conventions: Conventions) -> str | None:
    """The trec_eval build whose values ``conventions`` hold on every convention where builds differ, or None
    for a mix that no build gives (e.g. float64 scores with 9.0.8's recall cut-offs)."""
    for build in TREC_EVAL_BUILDS:
        if all(getattr(conventions, name) == value for name, value in trec_eval_values(build).items()):
            return build
    return None


def _build_name(build: object) -> str:
    if not isinstance(build, str) or build.strip() not in TREC_EVAL_BUILDS:
        raise ValueError(f"Argument `trec_eval` has to be one of {', '.join(map(repr, TREC_EVAL_BUILDS))}, "
                         f"but got {build!r}")
    return build.strip()
