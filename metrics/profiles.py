"""Tool profiles: for each tool, version and measure, the full setting of every convention that changes it.

A tool gives a number only when *all* its conventions for that measure hold at once, so a tool is credited with
a line of the convention finder, a value in ``--help`` or a row of the docs only through its profile here: the
finder names a tool when one combination that gives the line's value is the tool's whole setting for that
measure, and the conditions of :data:`RULES` the profile lists hold on the data. What no convention expresses is
either a rule (torch's tie order, which changes with k: torchmetrics is named only where it cannot matter) or a
profile marked ``reproducible=False``, which is documented and never named.

A setting is a value (the tool always does that), a :class:`Switch` (an option of the tool chooses, e.g.
trec_eval's ``-c``), :data:`ANY_LEVEL` for the relevance threshold of a tool that takes one, or :data:`ANY` when
the convention cannot change the tool's numbers (ties do not matter where tied gains are averaged). Each profile
names the test that runs the tool (or a transcription of its code, linked from ``source``) and finds the engine
under this setting giving the tool's numbers. The table holds plain data only: this module imports nothing of
the engine, so the conventions, the registry and the finder can all read it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Container, Iterable, Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Switch:
    """A convention the tool lets its user choose: value -> the option that selects it (``""``: the default)."""

    options: Mapping[object, str]

    def __contains__(self, value: object) -> bool:
        return value in self.options


#: The convention cannot change this tool's numbers (any value the finder tries describes it).
ANY = "any"
#: The tool takes a relevance threshold: every level is its own, selected by the profile's ``level_option``.
ANY_LEVEL = "any level"


@dataclass(frozen=True, slots=True)
class Profile:
    """One tool (at one version) computing some measures, with the conventions it uses for them.

    tool: the tool as the finder names it (``ranx``). name: this profile as shown (``ranx ndcg_burges``).
    measures: registry names. settings: convention -> a value, a :class:`Switch`, :data:`ANY` or
    :data:`ANY_LEVEL`. level_option: how the tool sets a relevance threshold, ``{level}`` replaced. rules: names
    in :data:`RULES`, conditions on the data under which the profile is exact. test: ``path::function`` of the
    test that checks it. source: the code a transcription follows. reproducible: False for a behaviour no
    setting gives (then ``note`` says what the tool does instead).
    """

    tool: str
    name: str
    measures: tuple[str, ...]
    settings: Mapping[str, object]
    test: str
    level_option: str = ""
    rules: tuple[str, ...] = ()
    source: str = ""
    note: str = ""
    reproducible: bool = True
    tested: str = ""  # the version the test ran or transcribed
    #: The decimals the tool prints or returns, its mean rounded to them as printf's %.Nf and Python's round do
    #: (trec_eval's "%.4f", BEIR's round(x, 5)); None: every digit of a double (a library's return value).
    decimals: int | None = None
    #: The deepest rank its uncut measures read, whatever the ranking's length (XGBoost's map and ndcg stop at 32,
    #: cwl_eval at its --max_depth of 1000): there the uncut measure is the measure cut at this depth.
    depth: int | None = None
    #: The decimals of each query's value when the tool rounds those before it averages them (gdeval prints
    #: "%.5f" per query, which ir_measures averages); None: it averages the doubles.
    query_decimals: int | None = None

    def accepted(self, convention: str) -> Container[object] | None:
        """The values the tool, with some option, uses for ``convention`` (only conventions it lists); None when any
        value describes it."""
        setting = self.settings[convention]
        if setting == ANY or (setting == ANY_LEVEL and convention == "relevance_level"):
            return None
        return setting if isinstance(setting, Switch) else frozenset([setting])

    def allows(self, convention: str, value: object) -> bool:
        """Whether the tool, with some option, uses ``value`` for ``convention`` (only conventions it lists)."""
        accepted = self.accepted(convention)
        return accepted is None or value in accepted

    def options_for(self, values: Mapping[str, object]) -> tuple[str, ...]:
        """The tool's options that select these convention values (``-c``, ``-l 2``), in its settings' order."""
        options = []
        for convention, setting in self.settings.items():
            if convention not in values:
                continue
            value = values[convention]
            if isinstance(setting, Switch) and setting.options.get(value):
                options.append(setting.options[value])
            elif setting == ANY_LEVEL and convention == "relevance_level" and value != 1 and self.level_option:
                options.append(self.level_option.format(level=value))
        return tuple(options)

    def credit(self, values: Mapping[str, object]) -> str:
        """The profile's name with the options these values need: ``trec_eval 10.0 -c``."""
        return " ".join((self.name, *self.options_for(values)))

    def shown(self, value: float) -> float:
        """``value`` as the tool prints or returns it: rounded to :attr:`decimals` (correctly, half-even on the
        double, as C's printf and Python's round and format do), or as it is."""
        return value if self.decimals is None else float(f"{value:.{self.decimals}f}")

    @property
    def precision_text(self) -> str:
        """How many digits the tool gives: ``4 decimals`` or ``full double precision``."""
        text = "full double precision" if self.decimals is None else f"{self.decimals} decimals"
        return text if self.query_decimals is None else f"the mean of each query's value to {self.query_decimals} " \
                                                         f"decimals, with {text}"

    def mean_of(self, values: Sequence[float], mean: float, aggregate: Callable[[list[float]], float]) -> float:
        """The tool's mean of the per-query ``values`` whose exact mean is ``mean``: ``aggregate`` (the measure's
        mean) of the values rounded first where the tool rounds each query's value."""
        if self.query_decimals is None:
            return mean
        return aggregate([float(f"{value:.{self.query_decimals}f}") for value in values])


#: Conditions on the data under which some profiles are exact (the finder checks them before naming a tool).
RULES: dict[str, str] = {
    "no_float32_ties_across_grades": "no two documents of a ranking with different grades (unjudged counting as "
                                     "0) have equal scores as 32-bit floats (torch's CPU sort and topk are unstable "
                                     "beyond 16 documents: repeatable for one input, but topk's order of tied "
                                     "documents changes with k and differs from argsort's, so no one tie order "
                                     "gives them; tied documents of one grade are interchangeable)",
    "positive_scores": "every retrieved document scores above 0 (ir_measures' Compat puts one scored <= 0 below "
                       "the unretrieved relevant documents of its grade in the ideal ranking)",
    "relevant_ties_in_qrels_order": "relevant documents of one grade with equal scores are listed in the qrels in "
                                    "doc id order (ir_measures' Compat orders them in its ideal ranking as the "
                                    "qrels list them)",
    "relevant_and_nonrelevant_in_top_k": "every ranking has a relevant and a non-relevant document in the top k "
                                         "(ir_measures' Accuracy leaves a query without a relevant one out and "
                                         "fails on one without a non-relevant one)",
    "relevant_in_every_query": "every query counted has a relevant document (sentence-transformers evaluates only "
                               "those; the MS MARCO script's reference file lists only those)",
    "same_queries": "the run holds exactly the queries of the qrels (ranx's evaluate refuses others unless "
                    "make_comparable=True)",
    "binary_grades": "no grade exceeds 1 (ranx's rbp multiplies by the grade itself; the engine scales grades by "
                     "the query's largest)",
    "no_identical_ids": "no document has its query's id (BEIR drops those by default: ignore_identical_ids)",
    "two_documents_each": "every ranking has at least two documents (scikit-learn's ndcg_score refuses one)",
}

TREC_EVAL_BUILDS_TEST = "tests/engine/test_trec_eval_builds.py::test_each_build_is_reproduced_byte_for_byte"
PROFILE_TESTS = "tests/engine/test_profiles.py"

_XGBOOST = "https://github.com/dmlc/xgboost/blob/master/src/metric/rank_metric.cc"
_LIGHTGBM = "https://github.com/microsoft/LightGBM/blob/master/src/metric/"
_TORCHMETRICS = "https://github.com/Lightning-AI/torchmetrics/blob/master/src/torchmetrics/functional/retrieval/"
_SENTENCE_TRANSFORMERS = ("https://github.com/UKPLab/sentence-transformers/blob/master/sentence_transformers/"
                          "sentence_transformer/evaluation/information_retrieval.py")
_SENTENCE_TRANSFORMERS_5 = ("https://github.com/UKPLab/sentence-transformers/blob/v5.1.2/sentence_transformers/"
                            "evaluation/InformationRetrievalEvaluator.py")
_MS_MARCO = "https://github.com/microsoft/MSMARCO-Passage-Ranking/blob/master/ms_marco_eval.py"
_PYNDEVAL = "https://github.com/seanmacavaney/pyndeval"
_BEIR = "https://github.com/beir-cellar/beir/blob/main/beir/retrieval/"

#: trec_eval 9.0.8's measures (10.0 adds rbp and unj); the two builds' presets are
#: ``metrics.conventions.trec_eval_values`` (tests/engine/test_profiles.py checks these settings against them).
_TREC_EVAL_9_MEASURES = (
    "P", "recall", "success", "recip_rank", "map", "gm_map", "Rprec", "bpref", "iprec_at_recall", "infAP",
    "gm_bpref", "Rprec_mult", "11pt_avg",
    "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "set_P", "set_relative_P",
    "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "num_ret", "num_rel", "num_rel_ret", "num_q",
)
_TREC_EVAL_10_MEASURES = (*_TREC_EVAL_9_MEASURES, "rbp", "unj")

#: trec_eval's choice of every convention (the engine's defaults), with its options.
_TREC_EVAL_SETTINGS: dict[str, object] = {
    "relevance_level": ANY_LEVEL, "gain": "linear", "ideal_from": "judgments", "discount": "log2",
    "tied_gains": "ordered", "empty_ideal": "zero", "ap_denominator": "R", "precision_short_list": "k",
    "tie_order": "trec_eval", "score_precision": "float32", "recall_cutoff": "plus_0.9", "missing_ranking": "empty",
    "unjudged": Switch({"nonrelevant": "", "removed": "-J"}), "missing_queries": Switch({"skip": "", "zero": "-c"}),
    "nonpositive_scores": "retrieved",
}
_PYTREC_EVAL_SETTINGS = _TREC_EVAL_SETTINGS | {
    "unjudged": Switch({"nonrelevant": "", "removed": "judged_docs_only_flag=True"}), "missing_queries": "skip"}
#: ir_measures hands these to pytrec_eval, and its means count a judged query the run lacks as 0.
_IR_MEASURES_PYTREC_EVAL = _PYTREC_EVAL_SETTINGS | {
    "unjudged": Switch({"nonrelevant": "", "removed": "judged_only=True"}), "missing_queries": "zero"}
_IR_MEASURES_PYTREC_EVAL_MEASURES = ("P", "recall", "success", "recip_rank", "map", "map_cut", "ndcg", "ndcg_cut",
                                     "Rprec", "bpref")

#: The TREC Web track's diversity measures (metrics.measures.diversity), as ndeval names them.
_DIVERSITY_MEASURES = ("alpha-nDCG", "alpha-DCG", "ERR-IA", "nERR-IA", "NRBP", "nNRBP", "MAP-IA", "P-IA", "strec")

#: Conventions a tool's profile fixes to trec_eval's because they only matter for measures it does not have.
_DCG_TREC = {"gain": "linear", "ideal_from": "judgments", "discount": "log2", "tied_gains": "ordered",
             "empty_ideal": "zero"}


def _ranx_pair(name: str, measures: tuple[str, ...], settings: Mapping[str, object], rules: tuple[str, ...] = (),
               level_option: str = "", note: str = "") -> tuple[Profile, Profile]:
    """ranx as its users call it: ``evaluate(qrels, run, ...)``, where the run must hold the qrels' queries and
    each query's documents are in the order ``Run`` sorted them (tie_order ``ranx``), and with
    ``make_comparable=True``, which fills the missing queries with empty rankings and sorts the run again
    (``ranx_resorted``)."""
    test = f"{PROFILE_TESTS}::test_ranx_profile"
    common = {"score_precision": "float64", "unjudged": "nonrelevant", "nonpositive_scores": "retrieved"}
    return (
        Profile("ranx", name, measures, {**settings, "tie_order": "ranx", **common, "missing_queries": ANY}, test,
                level_option=level_option, rules=("same_queries", *rules), tested="0.3.21",
                note=note or "Run(dict) or Run.from_file: each query's documents in input order, sorted by numba's "
                             "quicksort"),
        Profile("ranx", f"{name} make_comparable=True", measures,
                {**settings, "tie_order": "ranx_resorted", **common, "missing_queries": "zero"}, test,
                level_option=level_option, rules=rules, tested="0.3.21",
                note=note or "make_comparable=True sorts the sorted run once more"),
    )


def _ranx(name: str, measures: tuple[str, ...], **settings: object) -> tuple[Profile, Profile]:
    return _ranx_pair(name, measures, {"relevance_level": ANY_LEVEL, **_DCG_TREC, "ap_denominator": "R",
                                       "precision_short_list": "k"} | settings, level_option="-l{level}")


def _torchmetrics(name: str, measures: tuple[str, ...], tested: str, **settings: object) -> Profile:
    # nDCG averages the gains of tied documents: their order cannot matter.
    rules = () if settings.get("tied_gains") == "averaged" else ("no_float32_ties_across_grades",)
    return Profile(
        "torchmetrics", name, measures,
        {"relevance_level": 1, **_DCG_TREC, "ap_denominator": "R", "precision_short_list": "k",
         "tie_order": "as_given", "score_precision": "float32", "unjudged": "nonrelevant",
         "nonpositive_scores": "retrieved", "missing_queries": "skip"}
        | settings,
        f"{PROFILE_TESTS}::test_torchmetrics_transcription", rules=rules,
        source=_TORCHMETRICS, tested=tested)


def _sentence_transformers(name: str, tie_order: str, source: str, tested: str) -> Profile:
    return Profile(
        "sentence-transformers", name, ("success", "P", "recall", "recip_rank_cut", "ndcg_cut", "map_cut"),
        {"relevance_level": ANY_LEVEL, "gain": "binary", "ideal_from": "judgments", "discount": "log2",
         "tied_gains": "ordered", "empty_ideal": ANY, "ap_denominator": "min_R_k", "precision_short_list": "k",
         "tie_order": tie_order, "score_precision": "float32", "unjudged": "nonrelevant",
         "nonpositive_scores": "retrieved", "missing_queries": "skip"},
        f"{PROFILE_TESTS}::test_sentence_transformers_transcription", rules=("relevant_in_every_query",),
        level_option="with relevant_docs of the documents graded >= {level}", source=source, tested=tested,
        note="InformationRetrievalEvaluator: accuracy@k, precision@k, recall@k, mrr@k, ndcg@k, map@k over its "
             "relevant_docs sets (whatever grades they were made from), scores from torch (float32); returns "
             "doubles (its log lines print 4 decimals)")


#: Every tool profile, trec_eval first.
PROFILES: tuple[Profile, ...] = (
    Profile("trec_eval", "trec_eval 9.0.8", _TREC_EVAL_9_MEASURES, _TREC_EVAL_SETTINGS, TREC_EVAL_BUILDS_TEST,
            level_option="-l {level}", tested="9.0.8", decimals=4,
            note="scores read as C floats; -M is the depth; prints %.4f"),
    Profile("trec_eval", "trec_eval 10.0", _TREC_EVAL_10_MEASURES,
            _TREC_EVAL_SETTINGS | {"score_precision": "float64", "recall_cutoff": "round",
                                   "missing_ranking": "placeholder"},
            TREC_EVAL_BUILDS_TEST, level_option="-l {level}", tested="10.0", decimals=4,
            note="scores read as doubles, recall levels' cut-offs by lround, -c's placeholder ranking; prints %.4f"),
    Profile("pytrec_eval", "pytrec_eval", _TREC_EVAL_9_MEASURES, _PYTREC_EVAL_SETTINGS,
            f"{PROFILE_TESTS}::test_pytrec_eval_profile", level_option="relevance_level={level}", tested="0.5"),
    Profile("ir_measures", "ir_measures", _IR_MEASURES_PYTREC_EVAL_MEASURES, _IR_MEASURES_PYTREC_EVAL,
            f"{PROFILE_TESTS}::test_ir_measures_pytrec_eval_profile", level_option="rel={level}", tested="0.4.3",
            note="these measures go to its pytrec_eval provider"),
    Profile("ir_measures", "ir_measures nDCG(dcg='exp-log2') (gdeval)", ("ndcg_cut",),
            {**_DCG_TREC, "gain": "exponential", "tie_order": "trec_eval", "score_precision": "float64",
             "unjudged": "nonrelevant", "nonpositive_scores": "retrieved", "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_gdeval_profile", tested="0.4.3", query_decimals=5),
    Profile("gdeval", "gdeval ERR@k (through ir_measures)", ("ERR",),
            {"tie_order": "trec_eval", "score_precision": "float64", "unjudged": "nonrelevant",
             "nonpositive_scores": "retrieved",
             "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_gdeval_profile", tested="ir_measures 0.4.3", query_decimals=5),
    Profile("ir_measures", "ir_measures RR@k (msmarco)", ("recip_rank_cut",),
            {"relevance_level": ANY_LEVEL, "tie_order": "docid_ascending", "score_precision": "float64",
             "unjudged": "nonrelevant", "nonpositive_scores": "retrieved", "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_ir_measures_msmarco_profile", level_option="rel={level}", tested="0.4.3"),
    Profile("ir_measures", "ir_measures Judged@k", ("Judged",),
            {"tie_order": "docid_ascending", "score_precision": "float64", "unjudged": "nonrelevant",
             "nonpositive_scores": "retrieved",
             "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_ir_measures_judged_profile", tested="0.4.3"),
    Profile("ir_measures", "ir_measures RBP(rel=N) (cwl_eval)", ("rbp",),
            {"relevance_level": ANY_LEVEL, "gain": "binary", "tie_order": "as_given", "score_precision": "float64",
             "unjudged": "nonrelevant", "nonpositive_scores": "retrieved", "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_cwl_eval_profile", level_option="rel={level}", tested="0.4.3"),
    Profile("cwl_eval", "cwl_eval", ("map", "P", "recip_rank", "rbp"),
            {"relevance_level": ANY_LEVEL, "gain": "binary", "ap_denominator": "retrieved_relevant",
             "empty_ideal": "zero", "precision_short_list": "k", "tie_order": "as_given", "score_precision": "float64",
             "unjudged": "nonrelevant", "nonpositive_scores": "retrieved", "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_cwl_eval_profile", level_option="rel={level}", tested="1.0.12", depth=1000,
            note="as ir_measures' cwl_eval provider runs it: AP divides by the relevant documents retrieved; reads the "
                 "top 1000 ranks (--max_depth)"),
    Profile("cwl_eval", "cwl_eval C/W/L", ("BPM", "INST", "INSQ", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11"),
            {"tie_order": "as_given", "score_precision": "float64", "unjudged": "nonrelevant",
             "nonpositive_scores": "retrieved",
             "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_cwl_eval_cwl_measures_profile", tested="1.0.12",
            note="as ir_measures' cwl_eval provider runs it: gain = (clip(grade, min_rel, max_rel) - min_rel) / "
                 "(max_rel - min_rel) (a negative grade is 0, and judged); every ranking cut or padded to 1000 "
                 "ranks (--max_depth) with unjudged documents (gain 0, or 1 for the residuals); every document "
                 "costs 1 (no cost file); documents in the order given (its sort by score keeps ties as given)"),
    Profile("ir_measures", "ir_measures Compat", ("compat",),
            {"tie_order": "docid_ascending", "score_precision": "float64", "unjudged": "nonrelevant",
             "nonpositive_scores": "retrieved",
             "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_ir_measures_compat_profile",
            rules=("positive_scores", "relevant_ties_in_qrels_order"),
            tested="0.4.3", note="its compat provider (the authors' compatibility.py): relevant means grade > 0"),
    Profile("ir_measures", "ir_measures Accuracy", ("accuracy",),
            {"relevance_level": ANY_LEVEL, "tie_order": "as_given", "score_precision": "float64",
             "unjudged": "nonrelevant", "nonpositive_scores": "retrieved", "missing_queries": "skip"},
            f"{PROFILE_TESTS}::test_ir_measures_accuracy_profile", level_option="rel={level}",
            rules=("relevant_and_nonrelevant_in_top_k",), tested="0.4.3", note="its accuracy provider"),
    *(Profile(tool, name, _DIVERSITY_MEASURES,
              {"relevance_level": ANY_LEVEL, "tie_order": "docid_ascending", "score_precision": "float64",
               "unjudged": "nonrelevant", "nonpositive_scores": "retrieved", "missing_queries": missing},
              f"{PROFILE_TESTS}::test_pyndeval_profile", level_option=level, source=_PYNDEVAL, tested=tested, note=note)
      for tool, name, level, missing, tested, note in (
          ("pyndeval", "pyndeval", "relevance_level={level}", "skip", "0.0.8",
           "NIST's ndeval.c 4.5 inside (alpha = beta = 0.5, cut-offs to 20, unjudged documents not relevant); "
           "each query's documents ordered by (-score, docno); the queries of both qrels and run"),
          ("ir_measures", "ir_measures (pyndeval)", "rel={level}", "zero", "0.4.3",
           "its pyndeval provider: a judged query the run lacks scores 0 (nNRBP: pyndeval's NaN where no subtopic "
           "has a relevant document, 0 here)"))),
    # ranx's rel_lvl drops the grades below it from the gains too (thresholded gain; at level 1, the grade itself).
    *_ranx("ranx", ("P", "recall", "success", "recip_rank", "recip_rank_cut", "map", "map_cut", "ndcg", "ndcg_cut",
                    "Rprec", "F", "dcg", "dcg_cut"), gain=Switch({"linear": "", "thresholded": ""})),
    *_ranx("ranx ndcg_burges", ("ndcg", "ndcg_cut"), gain="exponential"),
    *_ranx("ranx dcg_burges", ("dcg", "dcg_cut"), gain="exponential"),
    *_ranx_pair("ranx rbp", ("rbp",), {"gain": Switch({"linear": "", "binary": ""})}, rules=("binary_grades",),
                note="rbp.p multiplies p^(r-1) by the grade itself: on graded judgments no setting gives it"),
    Profile("scikit-learn", "scikit-learn ndcg_score", ("ndcg", "ndcg_cut"),
            {"gain": "linear", "ideal_from": "retrieved", "discount": "log2", "tied_gains": "averaged",
             "empty_ideal": "zero", "tie_order": ANY, "score_precision": "float64", "unjudged": "nonrelevant",
             "nonpositive_scores": "retrieved",
             "missing_queries": "skip"},
            f"{PROFILE_TESTS}::test_scikit_learn_profile", rules=("two_documents_each",), tested="1.9.1",
            note="ignore_ties=False (the default); one row per query, unjudged documents given label 0"),
    Profile("LightGBM", "LightGBM ndcg@k", ("ndcg_cut",),
            {"gain": "exponential", "ideal_from": "retrieved", "discount": "log2", "tied_gains": "ordered",
             "empty_ideal": "one", "tie_order": "as_given", "score_precision": "float64",
             "unjudged": "nonrelevant", "nonpositive_scores": "retrieved", "missing_queries": "skip"},
            f"{PROFILE_TESTS}::test_lightgbm_profile", source=_LIGHTGBM + "rank_metric.hpp", tested="4.7.0"),
    Profile("LightGBM", "LightGBM map@k", ("map_cut",),
            {"relevance_level": 1, "ap_denominator": "min_retrieved_relevant_k", "empty_ideal": "one",
             "tie_order": "as_given", "score_precision": "float64", "unjudged": "nonrelevant",
             "nonpositive_scores": "retrieved",
             "missing_queries": "skip"},
            f"{PROFILE_TESTS}::test_lightgbm_profile", source=_LIGHTGBM + "map_metric.hpp", tested="4.7.0",
            note="divides by min(relevant documents in the list, k); a list without one scores 1"),
    *(Profile("XGBoost", name, (measure,),
              {"gain": "exponential", "ideal_from": "retrieved", "discount": "log2", "tied_gains": "ordered",
               "empty_ideal": Switch({"one": "", "zero": f"{metric}-"}), "tie_order": "as_given",
               "score_precision": "float32", "unjudged": "nonrelevant",
               "nonpositive_scores": "retrieved", "missing_queries": "skip"},
              f"{PROFILE_TESTS}::test_xgboost_profile", source=_XGBOOST, tested="3.2.0", depth=depth,
              note="eval_metric ndcg without @k reads the top 32 ranks (ndcg@32), whatever the objective" if depth
              else "")
      for name, measure, metric, depth in (("XGBoost ndcg", "ndcg", "ndcg", 32),
                                           ("XGBoost ndcg@k", "ndcg_cut", "ndcg@k", None))),
    *(Profile("XGBoost", name, (measure,),
              {"relevance_level": 1, "ap_denominator": "min_retrieved_relevant_k",
               "empty_ideal": Switch({"one": "", "zero": f"{metric}-"}), "tie_order": "as_given",
               "score_precision": "float32", "unjudged": "nonrelevant",
               "nonpositive_scores": "retrieved", "missing_queries": "skip"},
              f"{PROFILE_TESTS}::test_xgboost_profile", source=_XGBOOST, tested="3.2.0", depth=depth,
              note="binary labels only; divides by min(relevant documents in the list, k)"
                   + ("; eval_metric map without @k reads the top 32 ranks (map@32), whatever the objective"
                      if depth else ""))
      for name, measure, metric, depth in (("XGBoost map", "map", "map", 32),
                                           ("XGBoost map@k", "map_cut", "map@k", None))),
    # retrieval_normalized_dcg and retrieval_hit_rate score every document as its label says, in every version.
    _torchmetrics("torchmetrics retrieval_normalized_dcg", ("ndcg", "ndcg_cut"), "1.9.0", ideal_from="retrieved",
                  tied_gains="averaged", tie_order=ANY),
    _torchmetrics("torchmetrics retrieval_hit_rate", ("success",), "1.9.0"),
    # From 1.7.4 (pull request 3160) precision, AP and RR read a document scored <= 0 as not relevant.
    _torchmetrics("torchmetrics 1.7.4+", ("P", "map", "map_cut", "recip_rank", "recip_rank_cut"), "1.9.0",
                  ap_denominator="retrieved_relevant", nonpositive_scores="not_relevant",
                  precision_short_list=Switch({"k": "", "retrieved": "adaptive_k=True"})),
    _torchmetrics("torchmetrics before 1.7.4", ("P", "map", "map_cut", "recip_rank", "recip_rank_cut"), "1.7.3",
                  ap_denominator="retrieved_relevant",
                  precision_short_list=Switch({"k": "", "retrieved": "adaptive_k=True"})),
    _sentence_transformers("sentence-transformers 6.2", "docid_ascending", _SENTENCE_TRANSFORMERS, "6.2.0"),
    _sentence_transformers("sentence-transformers 5.1 and earlier", "as_given", _SENTENCE_TRANSFORMERS_5, "5.1.2"),
    Profile("MS MARCO eval script", "MS MARCO eval script MRR@10", ("recip_rank_cut",),
            {"relevance_level": ANY_LEVEL, "tie_order": "as_given", "score_precision": ANY, "unjudged": "nonrelevant",
             "nonpositive_scores": "retrieved",
             "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_ms_marco_transcription", source=_MS_MARCO, rules=("relevant_in_every_query",),
            level_option="with a reference file of the documents graded >= {level}",
            note="ranks as written in the run file (here: score order, ties as written); relevant means listed in "
                 "the reference file, whatever grades it was made from; prints the mean's repr"),
    Profile("BEIR", "BEIR EvaluateRetrieval.evaluate", ("ndcg_cut", "map_cut", "recall", "P"),
            _PYTREC_EVAL_SETTINGS | {"relevance_level": 1, "unjudged": "nonrelevant"},
            f"{PROFILE_TESTS}::test_beir_transcription", rules=("no_identical_ids",), source=_BEIR + "evaluation.py",
            tested="2.2.0", decimals=5, note="pytrec_eval's numbers, means rounded to 5 decimals (round(x, 5))"),
    Profile("BEIR", "BEIR mrr, R_cap", ("recip_rank_cut", "relative_P"),
            {"relevance_level": 1, "tie_order": "as_given", "score_precision": "float64", "unjudged": "nonrelevant",
             "nonpositive_scores": "retrieved",
             "missing_queries": "zero"},
            f"{PROFILE_TESTS}::test_beir_transcription", source=_BEIR + "custom_metrics.py", tested="2.2.0",
            decimals=5, note="means rounded to 5 decimals (round(x, 5))"),
)

#: The tools the finder names, in the order it lists them.
TOOLS: tuple[str, ...] = tuple(dict.fromkeys(profile.tool for profile in PROFILES))


@functools.cache
def profiles_for(measure: str) -> tuple[Profile, ...]:
    """The profiles of the tools that compute registry measure ``measure``, reproducible or not."""
    return tuple(profile for profile in PROFILES if measure in profile.measures)


def tools_computing(measure: str) -> tuple[str, ...]:
    """The tools with a reproducible profile for ``measure``, in :data:`TOOLS` order."""
    return tuple(dict.fromkeys(p.tool for p in profiles_for(measure) if p.reproducible))


def tools_using(convention: str, value: object) -> tuple[str, ...]:
    """What uses ``value`` for ``convention``: each profile that names it (not as :data:`ANY`), with the option
    that selects it: ``("trec_eval 9.0.8 -c", "trec_eval 10.0 -c", "ranx make_comparable=True", ...)``."""
    used = []
    for profile in PROFILES:
        setting = profile.settings.get(convention)
        if setting is None or setting in (ANY, ANY_LEVEL) or not profile.reproducible:
            continue
        if setting == value or (isinstance(setting, Switch) and value in setting):
            used.append(profile.credit({convention: value}))
    return tuple(dict.fromkeys(used))


def matching_profiles(measure: str, combinations: Iterable[Mapping[str, object]], holds: Mapping[str, bool],
                      among: Container[str] | None = None) -> tuple[tuple[Profile, str], ...]:
    """The profiles for ``measure`` whose whole setting is one of ``combinations`` (each a mapping of the
    conventions that can change the measure to their values), with the credit that names the options used. A
    profile lists every convention that can change its measures (tests/engine/test_profiles.py checks it).

    ``holds`` says which :data:`RULES` hold on the data; a profile with a rule that does not hold is never
    matched, nor is one marked not reproducible. ``among``: only the profiles of these names.
    """
    combinations = list(combinations)
    found: dict[str, tuple[Profile, str]] = {}
    for profile, allowed in _matchers(measure):
        if among is not None and profile.name not in among:
            continue
        if not all(holds.get(rule, False) for rule in profile.rules):
            continue
        for values in combinations:
            if all(convention not in values or values[convention] in accepted for convention, accepted in allowed):
                credit = profile.credit(values)
                found.setdefault(credit, (profile, credit))
                break
    return tuple(found.values())


@functools.cache
def _matchers(measure: str) -> tuple[tuple[Profile, tuple[tuple[str, Container[object]], ...]], ...]:
    """The reproducible profiles for ``measure``, each with :meth:`Profile.accepted` for each convention that
    constrains it (one that accepts any value is left out): the finder asks this for every combination of
    conventions it tries, thousands per reported value."""
    return tuple(
        (profile, tuple((convention, accepted) for convention in profile.settings
                        if (accepted := profile.accepted(convention)) is not None))
        for profile in profiles_for(measure) if profile.reproducible
    )


def _shown(setting: object) -> str:
    if isinstance(setting, Switch):
        return " or ".join(f"{value} ({option})" if option else str(value) for value, option in setting.options.items())
    return str(setting)


def markdown_table() -> str:
    """The profiles as the Markdown table of docs/conventions.md: each profile, its measures, every convention it
    sets other than trec_eval's and every option (``any``: the convention cannot change its numbers), the rules
    under which it is exact, and its test."""
    defaults = _TREC_EVAL_SETTINGS | {"relevance_level": 1}
    lines = ["| tool | measures | conventions (beyond trec_eval's) | exact when | checked by |",
             "|---|---|---|---|---|"]
    for profile in PROFILES:
        changed = [f"`{name}={_shown(value)}`" for name, value in profile.settings.items()
                   if (value != defaults.get(name) or isinstance(value, Switch))
                   and not (name == "relevance_level" and value == ANY_LEVEL)]
        level = f"; threshold `{profile.level_option.format(level='N')}`" if profile.level_option else ""
        level += f"; uncut measures read the top {profile.depth} ranks" if profile.depth else ""
        level += f"; gives {profile.precision_text}"
        rules = "; ".join(RULES[rule] for rule in profile.rules) or "always"
        test = profile.test.rpartition("::")[2]
        source = f" ([source]({profile.source}))" if profile.source else ""
        lines.append(f"| {profile.name} | {', '.join(profile.measures)} | {', '.join(changed) or 'none'}{level} "
                     f"| {rules} | `{test}`{source} |")
    return "\n".join(lines)


#: Every rule held: what :func:`matching_profiles` matches on the conventions alone.
ALL_RULES_HOLD: Mapping[str, bool] = {rule: True for rule in RULES}

__all__ = ["ALL_RULES_HOLD", "ANY", "ANY_LEVEL", "PROFILES", "Profile", "RULES", "Switch", "TOOLS", "markdown_table",
           "matching_profiles", "profiles_for", "tools_computing", "tools_using"]
