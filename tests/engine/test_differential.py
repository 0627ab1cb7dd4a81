"""Differential tests: the engine against pytrec_eval-terrier (trec_eval's C code inside) on thousands of seeded
random queries.

Each test batches many queries into one ``evaluate`` call on each side, then compares every query and every key.
The tolerance is 1e-12, but the values are expected to be bit-identical because the kernels accumulate in the
same order as trec_eval; the case of trec_eval's defaults pins that down.

Two inputs crash pytrec_eval-terrier 0.5.11 and are kept away from it (``strategies.pytrec_eval_safe``):
a query in the run with no documents (it reads uninitialised memory: sometimes zeros, sometimes a segfault), and a
query whose judgments are all negative (trec_eval reads ``rel_levels[-1]`` out of bounds and returns garbage or
segfaults). The tests at the end pin down what our engine
does with them instead.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval
from pytrec_eval_ext import RelevanceEvaluator as RawTrecEvaluator

import metrics
from tests.support.helpers import TOLERANCE, first_mismatch, max_difference
from tests.support.strategies import (
    ODD_DOC_IDS,
    cutoff_specs,
    pytrec_eval_safe,
    random_collection,
    trec_eval_measure_names,
)

QUERIES_PER_CASE = 700
MAX_DOCS = 40


def _collection(seed: int, n_queries: int = QUERIES_PER_CASE):
    rng = np.random.default_rng(seed)
    qrels, run = random_collection(rng, n_queries, max_docs=MAX_DOCS)
    specs = cutoff_specs(rng, trec_eval_measure_names(), longest=MAX_DOCS)
    pytrec_eval_safe(qrels, run)
    return qrels, run, specs


def _assert_same(ours, reference, what: str) -> float:
    worst = max_difference(ours, reference)
    assert worst <= TOLERANCE, f"{what}: max difference {worst!r}; first: {first_mismatch(ours, reference, TOLERANCE)}"
    return worst


# ---- every trec_eval measure, every relevance level, with and without -J -------------------------------------------


@pytest.mark.parametrize("judged_docs_only", [False, True], ids=["all_docs", "judged_only_-J"])
@pytest.mark.parametrize("relevance_level", [1, 2, 3], ids=lambda level: f"-l{level}")
def test_every_trec_eval_measure_matches_pytrec_eval_per_query(relevance_level, judged_docs_only):
    seed = 1000 + 10 * relevance_level + judged_docs_only
    qrels, run, specs = _collection(seed)
    reference = pytrec_eval.RelevanceEvaluator(
        qrels, specs, relevance_level=relevance_level, judged_docs_only_flag=judged_docs_only
    ).evaluate(run)
    ours = metrics.evaluate(qrels, run, specs, relevance_level=relevance_level, judged_docs_only=judged_docs_only)
    assert len(reference) >= QUERIES_PER_CASE * 0.9
    worst = _assert_same(ours, reference, f"seed {seed}")
    if relevance_level == 1 and not judged_docs_only:
        # trec_eval's defaults: the largest difference seen is zero, not just within TOLERANCE (the engine sums in
        # trec_eval's order, so the values are the same doubles).
        assert worst == 0.0


@pytest.mark.parametrize("judged_docs_only", [False, True], ids=["all_docs", "judged_only_-J"])
def test_relevance_level_zero_matches_pytrec_eval_on_grades_shifted_up_by_one(judged_docs_only):
    # pytrec_eval refuses relevance_level=0 ("should be positive"). Adding 1 to every grade >= 0 and asking for
    # level 1 makes exactly the same documents relevant and judged, so every measure that reads only relevance
    # (all but nDCG, ndcg_rel, Rndcg and G, whose gains are the grades themselves) must agree with our -l0 on the
    # original grades.
    qrels, run, specs = _collection(1300 + judged_docs_only)
    specs = [spec for spec in specs if "gain" not in metrics.MEASURES[spec.partition(".")[0]].conventions]
    shifted = {qid: {doc: g + 1 if g >= 0 else g for doc, g in js.items()} for qid, js in qrels.items()}
    reference = pytrec_eval.RelevanceEvaluator(
        shifted, specs, relevance_level=1, judged_docs_only_flag=judged_docs_only
    ).evaluate(run)
    ours = metrics.evaluate(qrels, run, specs, relevance_level=0, judged_docs_only=judged_docs_only)
    _assert_same(ours, reference, "-l0")


def test_the_collections_cover_the_cases_that_make_evaluators_disagree():
    """Guards the generator: a differential test is only as good as the cases it draws."""
    qrels, run, _ = _collection(1010)
    evaluated = [qid for qid in run if qid in qrels]
    grades = [list(qrels[qid].values()) for qid in evaluated]
    assert sum(all(g <= 0 for g in gs) for gs in grades) > 50, "queries with no relevant document"
    assert sum(all(g == 0 for g in gs) for gs in grades) > 20, "queries with only grade-0 judgments"
    assert sum(any(g == -1 for g in gs) for gs in grades) > 100, "negative (unjudged-in-pool) grades"
    assert sum(any(d not in qrels[q] for d in run[q]) for q in evaluated) > 300, "unjudged retrieved documents"
    assert sum(any(d not in run[q] for d in qrels[q]) for q in evaluated) > 300, "judged documents never retrieved"
    assert sum(len(set(run[q].values())) < len(run[q]) for q in evaluated) > 300, "tied scores"
    assert sum(len(set(np.float32(list(run[q].values())))) < len(set(run[q].values())) for q in evaluated) > 50, (
        "float64 scores that tie as float32")
    assert sum(len(run[q]) == 1 for q in evaluated) > 5, "single-document rankings"
    assert any(qid not in qrels for qid in run) and any(qid not in run for qid in qrels)
    odd = {doc for q in evaluated for doc in run[q] if any(stem in doc for stem in ODD_DOC_IDS)}
    assert {"é", "10", "9", "Z", "a", "😀"} <= odd


# ---- scores as trec_eval 9 stores them -----------------------------------------------------------------------------


def test_doubles_that_round_to_the_same_float_tie_as_in_pytrec_eval():
    # trec_eval 9.0.8 (inside pytrec_eval) keeps scores as C floats: 0.1 + 1e-9 and 0.1 are the same float, so the
    # tie goes to the doc id (y before x) and the relevant y is first; trec_eval 10 compares doubles.
    qrels = {"a": {"y": 1, "x": 0}}
    run = {"a": {"x": 0.1 + 1e-9, "y": 0.1}}
    reference = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert metrics.evaluate(qrels, run, ["recip_rank"]) == reference == {"a": {"recip_rank": 1.0}}
    assert metrics.evaluate(qrels, run, ["recip_rank"], score_precision="float64") == {"a": {"recip_rank": 0.5}}


def test_near_ties_of_float64_scores_match_pytrec_eval_only_under_float32():
    qrels, run, specs = _collection(4242)
    near = {qid: scores for qid, scores in run.items()
            if len(set(np.float32(list(scores.values())))) < len(set(scores.values()))}
    reference = pytrec_eval.RelevanceEvaluator(qrels, specs).evaluate(near)
    _assert_same(metrics.evaluate(qrels, near, specs), reference, "float32 scores")
    doubles = metrics.evaluate(qrels, near, specs, score_precision="float64")
    assert max_difference(doubles, reference) > 0.01, "the near-ties must matter, or this test proves nothing"


# ---- the mean ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [7, 8])
def test_aggregate_is_the_plain_mean_of_pytrec_evals_values_and_the_sum_of_counts(seed):
    qrels, run, specs = _collection(seed, 1000)
    reference = pytrec_eval.RelevanceEvaluator(qrels, specs).evaluate(run)
    means = metrics.aggregate(metrics.evaluate(qrels, run, specs))
    keys = next(iter(reference.values())).keys()
    assert set(means) == set(keys)
    for key in keys:
        column = [values[key] for values in reference.values()]
        expected = sum(column) if key.startswith("num_") else sum(column) / len(column)
        if key.startswith("gm_"):  # per-query logs; the geometric mean is exp of their mean
            expected = math.exp(expected)
        assert means[key] == pytest.approx(expected, rel=0, abs=TOLERANCE), key
        assert means[key] == pytest.approx(
            pytrec_eval.compute_aggregated_measure(key, column), rel=0, abs=TOLERANCE
        ), key


def test_aggregate_sums_in_trec_evals_query_order_whatever_the_dict_order():
    # (0.1 + 0.2) + 0.3 and (0.3 + 0.2) + 0.1 differ in the last bit; trec_eval sums in sorted query order.
    in_order = {"a": {"map": 0.1}, "b": {"map": 0.2}, "c": {"map": 0.3}}
    reversed_order = dict(reversed(in_order.items()))
    expected = ((0.1 + 0.2) + 0.3) / 3
    assert expected != ((0.3 + 0.2) + 0.1) / 3
    assert metrics.aggregate(reversed_order)["map"] == metrics.aggregate(in_order)["map"] == expected


@pytest.mark.parametrize("seed", [11, 12])
def test_aggregate_of_a_shuffled_run_is_trec_evals_all_line_to_the_last_bit(seed):
    # trec_eval adds each query's value to the 'all' value as it goes, queries in sorted order, then divides.
    qrels, run, specs = _collection(seed, 500)  # the run's queries come in shuffled order
    reference = pytrec_eval.RelevanceEvaluator(qrels, specs).evaluate(run)
    means = metrics.aggregate(metrics.evaluate(qrels, run, specs))
    differs_from_dict_order = 0
    for key in next(iter(reference.values())):
        total = in_dict_order = 0.0
        for qid in sorted(reference):
            total += reference[qid][key]
        for values in reference.values():
            in_dict_order += values[key]
        expected = total if key.startswith("num_") else total / len(reference)
        if key.startswith("gm_"):  # per-query logs: trec_eval prints exp of their mean
            expected = math.exp(expected)
        assert means[key] == expected, key
        differs_from_dict_order += in_dict_order != total
    assert differs_from_dict_order, "the order must matter on this data, or this test proves nothing"


# ---- drop-in replacement -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "measures",
    [
        {"map", "ndcg", "P", "recall", "recip_rank", "Rprec", "bpref", "num_ret", "num_rel", "num_rel_ret", "num_q"},
        {"P.1,3,17", "ndcg_cut.5,50", "map_cut.2,1000", "success.1,4"},
        {"ndcg_cut.23.4", "P_5", "recall_7"},
    ],
    ids=["defaults", "cutoffs", "odd_spellings"],
)
@pytest.mark.parametrize("relevance_level,judged_docs_only", [(1, False), (2, True)])
def test_relevance_evaluator_is_a_drop_in_for_pytrec_eval(measures, relevance_level, judged_docs_only):
    qrels, run, _ = _collection(99, 300)
    args = dict(relevance_level=relevance_level, judged_docs_only_flag=judged_docs_only)
    reference = pytrec_eval.RelevanceEvaluator(qrels, measures, **args).evaluate(run)
    ours = metrics.RelevanceEvaluator(qrels, measures, **args).evaluate(run)
    _assert_same(ours, reference, f"measures {sorted(measures)}")


def test_relevance_evaluator_returns_nothing_for_an_empty_run_like_pytrec_eval():
    qrels = {"q": {"a": 1}}
    assert metrics.RelevanceEvaluator(qrels, ["map"]).evaluate({}) == pytrec_eval.RelevanceEvaluator(
        qrels, ["map"]
    ).evaluate({}) == {}


# ---- trec_eval's gain map: ndcg.1=3,2=9 ----------------------------------------------------------------------------


def _gain_map_reference(qrels, run, gains: str):
    # pytrec_eval's Python wrapper mangles "ndcg.1=3,2=9" (its regex keeps "1"), so this calls its extension,
    # which passes the string to trec_eval unchanged and reports the value under "ndcg".
    return RawTrecEvaluator(
        query_relevance=qrels, measures={f"ndcg.{gains}"}, relevance_level=1, judged_docs_only_flag=False
    ).evaluate(run)


GAIN_MAPS = ["1=3,2=9", "0=1,1=2,2=4,3=8", "1=10,3=1", "1=0", "2=-1", "1=1.5"]


@pytest.mark.parametrize("seed,gains", list(enumerate(GAIN_MAPS)))
def test_ndcg_gain_map_matches_trec_eval(seed, gains):
    qrels, run, _ = _collection(300 + seed, 400)
    reference = _gain_map_reference(qrels, run, gains)
    ours = metrics.evaluate(qrels, run, [f"ndcg.{gains}"])
    renamed = {qid: {"ndcg": values[f"ndcg_{gains}"]} for qid, values in ours.items()}
    _assert_same(renamed, reference, f"ndcg.{gains}")


# trec_eval sorts gain levels with an int comparator (gain1 - gain2): gains less than 1 apart compare equal,
# keep their listed order, and its ideal DCG may take the smaller first. The engine reproduces that.
@pytest.mark.parametrize("gains", ["2=0.5", "2=1.5", "3=2.5", "1=2.5,2=2", "0=0.5,1=0.2,2=1.1", "3=0.5,1=0.9"])
def test_ndcg_fractional_gain_maps_less_than_one_apart_match_trec_eval(gains):
    qrels, run, _ = _collection(400, 400)
    reference = _gain_map_reference(qrels, run, gains)
    ours = metrics.evaluate(qrels, run, [f"ndcg.{gains}"])
    renamed = {qid: {"ndcg": values[f"ndcg_{gains}"]} for qid, values in ours.items()}
    _assert_same(renamed, reference, f"ndcg.{gains}")


# ---- which queries are evaluated -------------------------------------------------------------------------------------


def test_queries_only_in_the_run_or_only_in_the_qrels_are_not_evaluated():
    qrels = {"both": {"a": 1}, "qrels only": {"a": 1}}
    run = {"both": {"a": 1.0}, "run only": {"a": 1.0}}
    reference = pytrec_eval.RelevanceEvaluator(qrels, ["P.1"]).evaluate(run)
    assert metrics.evaluate(qrels, run, ["P.1"]) == reference == {"both": {"P_1": 1.0}}


def test_a_query_with_an_empty_judgment_set_is_not_evaluated():
    # trec_eval cannot even express it (a qrels file has no line for it); pytrec_eval drops it explicitly.
    qrels = {"judged": {"a": 1}, "no judgments": {}}
    run = {"judged": {"a": 1.0}, "no judgments": {"a": 1.0}}
    reference = pytrec_eval.RelevanceEvaluator(qrels, ["P.1"]).evaluate(run)
    assert metrics.evaluate(qrels, run, ["P.1"]) == reference == {"judged": {"P_1": 1.0}}
    assert "no judgments" not in metrics.evaluate(qrels, {"judged": {"a": 1.0}}, ["P.1"], missing_queries="zero")


def test_tie_breaking_follows_trec_eval_byte_order_on_odd_doc_ids():
    # One relevant document at a time among equally scored ones: recip_rank reveals where trec_eval placed it.
    docs = ["Z", "a", "é", "10", "9", "09", "€", "😀", "ÿ", "Ā", "A", "e\u0301", "ß", "ss"]
    run = {f"q{i}": {doc: 1.0 for doc in docs} for i in range(len(docs))}
    qrels = {f"q{i}": {doc: 1} for i, doc in enumerate(docs)}
    reference = pytrec_eval.RelevanceEvaluator(qrels, ["recip_rank"]).evaluate(run)
    trec_order = sorted(docs, key=lambda doc: round(1 / reference[f"q{docs.index(doc)}"]["recip_rank"]))
    assert trec_order == metrics.order_documents(run["q0"]) == sorted(docs, key=str.encode, reverse=True)
    assert trec_order[:5] == ["😀", "€", "Ā", "ÿ", "é"] and trec_order.index("9") < trec_order.index("10")
    assert metrics.evaluate(qrels, run, ["recip_rank"]) == reference


# ---- the inputs pytrec_eval cannot take ------------------------------------------------------------------------------


def test_an_empty_ranking_scores_like_a_ranking_of_unjudged_documents_under_judged_only():
    # pytrec_eval cannot evaluate an empty ranking, but with -J a ranking of unjudged documents becomes empty
    # inside trec_eval, which evaluates it. Our engine must give an empty ranking exactly those values.
    qrels, _, specs = _collection(5, 200)
    empty_run = {qid: {} for qid in qrels}
    unjudged_run = {qid: {"never judged 1": 1.0, "never judged 2": 0.5} for qid in qrels}
    reference = pytrec_eval.RelevanceEvaluator(qrels, specs, judged_docs_only_flag=True).evaluate(unjudged_run)
    ours = metrics.evaluate(qrels, empty_run, specs)
    _assert_same(ours, reference, "empty rankings")
    assert all(values["num_ret"] == 0 for values in ours.values())


def test_queries_judged_only_negatively_score_zero_where_trec_eval_would_read_out_of_bounds():
    # trec_eval's ndcg_cut reads rel_levels[-1] when no judgment is >= 0 (pytrec_eval then returns garbage or
    # segfaults), so no reference exists. Every judgment is "unjudged", so nothing is relevant and IDCG is 0:
    # every measure is 0 (trec_eval's rule for an empty denominator) and the counts say so.
    qrels = {"all negative": {"a": -1, "b": -1, "c": -1}}
    run = {"all negative": {"a": 0.9, "b": 0.8, "z": 0.7}}
    specs = cutoff_specs(np.random.default_rng(0), trec_eval_measure_names(), longest=3)
    for level in (0, 1):
        for judged_only in (False, True):
            values = metrics.evaluate(qrels, run, specs, relevance_level=level, judged_docs_only=judged_only)
            counts = {"num_q": 1.0, "num_ret": 0.0 if judged_only else 3.0,
                      # log(0.00001): a geometric mean floors each query at 0.00001
                      "gm_map": math.log(1e-5), "gm_bpref": math.log(1e-5),
                      # 3 non-relevant retrieved at -1 each; -J leaves an empty ranking, which scores 0
                      "utility": 0.0 if judged_only else -3.0}
            for key, value in values["all negative"].items():
                assert value == counts.get(key, 0.0), (level, judged_only, key, value)


def test_depth_matches_truncating_the_run_before_pytrec_eval():
    # pytrec_eval has no -M flag; cutting each ranking at the same depth (in trec_eval's order) is the same thing.
    qrels, run, specs = _collection(31, 400)
    depth = 7
    truncated = {
        qid: {doc: scores[doc] for doc in metrics.order_documents(scores)[:depth]} for qid, scores in run.items()
    }
    reference = pytrec_eval.RelevanceEvaluator(qrels, specs).evaluate(truncated)
    _assert_same(metrics.evaluate(qrels, run, specs, depth=depth), reference, "depth 7")
    reference_j = pytrec_eval.RelevanceEvaluator(qrels, specs, judged_docs_only_flag=True).evaluate(truncated)
    ours_j = metrics.evaluate(qrels, run, specs, depth=depth, judged_docs_only=True)
    _assert_same(ours_j, reference_j, "depth 7 then -J")
