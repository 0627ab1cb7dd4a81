"""Peers on random data with tied scores: our engine, under the conventions each test names, gives the tool's
numbers. The tool profiles that the finder, ``--help`` and the docs credit (metrics/profiles.py) are checked
tool by tool in tests/engine/test_profiles.py, which reuses the helpers here.

``PROFILES`` says, for each test here, the conventions under which the engine reproduces that tool. Tools that do
not install here (torchmetrics, sentence-transformers, the MS MARCO script, trec_eval 10) are checked against a
transcription of their code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metrics
from metrics.conventions import CONVENTION_INFO
from tests.support.paths import REPO
from tests.support.ranx_kernels import ranx_evaluate
from tests.support.strategies import pytrec_eval_safe, random_collection

TOLERANCE = 1e-12

#: The conventions under which the engine reproduces the tool each test runs.
PROFILES: dict[str, dict[str, object]] = {
    "test_pytrec_eval": {"score_precision": "float32", "tie_order": "trec_eval"} | {
        name: getattr(metrics.TREC_EVAL, name)
        for name in ("gain", "ideal_from", "discount", "tied_gains", "empty_ideal", "ap_denominator", "unjudged",
                     "precision_short_list", "missing_queries")},
    "test_pytrec_eval_judged_docs_only": {"unjudged": "removed"},
    "test_ir_measures_pytrec_eval_provider": {
        "gain": "linear", "ideal_from": "judgments", "discount": "log2", "tied_gains": "ordered", "empty_ideal": "zero",
        "ap_denominator": "R", "tie_order": "trec_eval", "score_precision": "float32", "unjudged": "nonrelevant",
        "precision_short_list": "k", "missing_queries": "zero"},
    "test_ir_measures_gdeval": {"gain": "exponential", "tie_order": "trec_eval", "score_precision": "float64"},
    "test_ir_measures_msmarco_provider": {"tie_order": "docid_ascending", "score_precision": "float64"},
    "test_ir_measures_judged_only": {"unjudged": "removed"},
    "test_ir_measures_missing_queries": {"missing_queries": "zero"},
    "test_ranx": {"gain": "linear", "ideal_from": "judgments", "discount": "log2", "tied_gains": "ordered",
                  "empty_ideal": "zero",
                  "ap_denominator": "R", "unjudged": "nonrelevant", "precision_short_list": "k",
                  "score_precision": "float64"},
    "test_ranx_ndcg_burges": {"gain": "exponential"},
    "test_ranx_make_comparable": {"missing_queries": "zero"},
    "test_scikit_learn_ndcg_score": {"gain": "linear", "ideal_from": "retrieved", "tied_gains": "averaged",
                                     "empty_ideal": "zero", "score_precision": "float64"},
    "test_lightgbm_ndcg": {"gain": "exponential", "ideal_from": "retrieved", "tied_gains": "ordered",
                           "empty_ideal": "one", "tie_order": "as_given", "score_precision": "float64"},
    "test_pandas_sort": {"tie_order": "docid_ascending"},
    "test_xgboost_ndcg_transcription": {"gain": "exponential", "ideal_from": "retrieved", "empty_ideal": "one",
                                        "tie_order": "as_given"},
    "test_torchmetrics_transcription": {"ideal_from": "retrieved", "tied_gains": "averaged",
                                        "ap_denominator": "retrieved_relevant", "precision_short_list": "retrieved"},
    "test_sentence_transformers_transcription": {"gain": "binary", "ideal_from": "judgments",
                                                 "ap_denominator": "min_R_k"},
    "test_ms_marco_eval_transcription": {"tie_order": "as_given", "missing_queries": "zero"},
    "test_trec_eval_10_transcription": {"score_precision": "float64"},
}
#: "ndcg-" is XGBoost's variant that scores 0 without a relevant document: the same test, the other branch.
PROFILE_VARIANTS = {("test_xgboost_ndcg_transcription", "empty_ideal"): {"one", "zero"}}

REFERENCES = [(info.name, choice.value, reference) for info in CONVENTION_INFO for choice in info.choices
              for reference in choice.references]


@pytest.mark.parametrize("convention,value,reference", REFERENCES, ids=[f"{c}={v}:{r.tool}" for c, v, r in REFERENCES])
def test_every_reference_of_a_choice_names_a_test_that_exists(convention, value, reference):
    # Tools are credited through their profiles (tests/engine/test_profiles.py); a choice's references are papers.
    path, _, name = reference.test.rpartition("::")
    assert f"def {name}(" in (REPO / path).read_text(), reference
    assert reference.source.startswith("https://")


def ours(qrels, run, specs, profile: str, **extra):
    return metrics.evaluate(qrels, run, specs, **(PROFILES[profile] | extra))


def worst(left: dict, right: dict) -> float:
    assert set(left) == set(right), (set(left) ^ set(right))
    return max(abs(left[key] - right[key]) for key in left)


def collection(seed: int, n_queries: int = 200, max_docs: int = 40, nonnegative: bool = False):
    """Random qrels and a run with tied and near-tied scores (see strategies), judged queries only."""
    qrels, run = random_collection(np.random.default_rng(seed), n_queries, max_docs=max_docs)
    if nonnegative:  # tools that read grades as labels: an unjudged document is a 0
        qrels = {qid: {doc: max(grade, 0) for doc, grade in judgments.items()} for qid, judgments in qrels.items()}
    run = {qid: scores for qid, scores in run.items() if qid in qrels}
    pytrec_eval_safe(qrels, run)
    return qrels, run


def has_ties(run) -> bool:
    return sum(len(set(np.float32(list(s.values())))) < len(s) for s in run.values()) > len(run) // 4


# ---- trec_eval inside pytrec_eval ------------------------------------------------------------------------------


def test_pytrec_eval():
    import pytrec_eval

    qrels, run = collection(1)
    assert has_ties(run)
    specs = ["P.5", "map", "map_cut.5", "ndcg", "ndcg_cut.10", "recip_rank", "recall.10"]
    reference = pytrec_eval.RelevanceEvaluator(qrels, specs).evaluate(run)
    mine = ours(qrels, run, specs, "test_pytrec_eval")
    assert max(worst(mine[qid], reference[qid]) for qid in reference) == 0.0


def test_pytrec_eval_judged_docs_only():
    import pytrec_eval

    qrels, run = collection(2)
    specs = ["P.5", "map", "ndcg_cut.10", "recip_rank"]
    reference = pytrec_eval.RelevanceEvaluator(qrels, specs, judged_docs_only_flag=True).evaluate(run)
    mine = ours(qrels, run, specs, "test_pytrec_eval_judged_docs_only")
    assert max(worst(mine[qid], reference[qid]) for qid in reference) == 0.0


# ---- ir_measures -----------------------------------------------------------------------------------------------


def _ir_measures():
    return pytest.importorskip("ir_measures", reason="ir_measures does not install here")


def _per_query(ir_measures, measures, qrels, run) -> dict[str, dict[str, float]]:
    values: dict[str, dict[str, float]] = {}
    for metric in ir_measures.iter_calc(measures, qrels, run):
        values.setdefault(metric.query_id, {})[str(metric.measure)] = metric.value
    return values


def test_ir_measures_pytrec_eval_provider():
    ir_measures = _ir_measures()
    qrels, run = collection(3)
    qrels["judged but not run"] = {"d1": 1}
    names = ["P@5", "AP", "AP@5", "nDCG", "nDCG@10", "RR", "R@10"]
    reference = _per_query(ir_measures, [ir_measures.parse_measure(n) for n in names], qrels, run)
    mine = ours(qrels, run, names, "test_ir_measures_pytrec_eval_provider")
    assert max(worst(mine[qid], reference[qid]) for qid in reference) <= TOLERANCE


def test_ir_measures_gdeval():
    # nDCG(dcg='exp-log2') goes to gdeval.pl (Perl): 5 decimals, numeric query ids, scores compared as doubles.
    ir_measures = _ir_measures()
    qrels, run = collection(4, 150)
    qids = list(run)
    qrels = {str(i + 1): qrels[qid] for i, qid in enumerate(qids)}
    run = {str(i + 1): run[qid] for i, qid in enumerate(qids)}
    measure = ir_measures.nDCG(dcg="exp-log2") @ 10
    try:
        reference = _per_query(ir_measures, [measure], qrels, run)
    except Exception as error:  # gdeval needs perl
        pytest.skip(f"gdeval.pl cannot run here (it needs perl): {error}")
    mine = ours(qrels, run, [str(measure)], "test_ir_measures_gdeval")
    assert max(worst(mine[qid], reference[qid]) for qid in reference) <= 5.1e-6


def test_ir_measures_msmarco_provider():
    # RR@k is not a pytrec_eval measure; ir_measures computes it in Python: ties by doc id ascending, doubles.
    ir_measures = _ir_measures()
    qrels, run = collection(5)
    reference = _per_query(ir_measures, [ir_measures.RR @ 10], qrels, run)
    mine = ours(qrels, run, ["RR@10"], "test_ir_measures_msmarco_provider")
    assert max(abs(mine[qid]["RR@10"] - reference.get(qid, {"RR@10": 0.0})["RR@10"]) for qid in mine) <= TOLERANCE
    trec = metrics.evaluate(qrels, run, ["RR@10"])
    assert max(abs(trec[qid]["RR@10"] - reference.get(qid, {"RR@10": 0.0})["RR@10"]) for qid in trec) > 0.1


def test_ir_measures_judged_only():
    ir_measures = _ir_measures()
    qrels, run = collection(6)
    reference = _per_query(ir_measures, [ir_measures.nDCG @ 10, ir_measures.P @ 5], qrels, run)
    mine = ours(qrels, run, ["nDCG@10", "P@5"], "test_ir_measures_judged_only")
    unjudged = {qid: {k.replace("(judged_only=True)", ""): v for k, v in values.items()} for qid, values in
                _per_query(ir_measures, [ir_measures.nDCG(judged_only=True) @ 10,
                                         ir_measures.P(judged_only=True) @ 5], qrels, run).items()}
    assert max(worst(mine[qid], unjudged[qid]) for qid in mine) <= TOLERANCE  # ir_measures adds missing queries
    assert max(worst(mine[qid], reference[qid]) for qid in mine) > 0.1


def test_ir_measures_missing_queries():
    # Averaged measures: a judged query the run lacks scores 0, as with -c. Counts: ir_measures fills each
    # measure's default, so its NumQ counts the query and its NumRel is 0 for it, where trec_eval -c counts R.
    ir_measures = _ir_measures()
    qrels, run = collection(7, 100)
    missing = list(qrels)[:10]
    run = {qid: scores for qid, scores in run.items() if qid not in missing}
    names = ["P@5", "AP", "nDCG@10", "RR"]
    reference = ir_measures.calc_aggregate([ir_measures.parse_measure(n) for n in names], qrels, run)
    means = metrics.aggregate(ours(qrels, run, names, "test_ir_measures_missing_queries"))
    for measure, value in reference.items():
        assert means[str(measure)] == pytest.approx(value, abs=TOLERANCE), measure
    counts = ir_measures.calc_aggregate([ir_measures.NumRel], qrels, run)[ir_measures.NumRel]
    assert counts != metrics.aggregate(ours(qrels, run, ["NumRel"], "test_ir_measures_missing_queries"))["NumRel"]


# ---- ranx ------------------------------------------------------------------------------------------------------


def _ranx_collection(seed: int):
    # ranx keeps tied documents in input order only in lists of up to 15 (see the tie_order note), and reads
    # only grades >= 0 (a negative grade would count as a grade).
    qrels, run = collection(seed, max_docs=15)
    qrels = {qid: {d: g for d, g in js.items() if g >= 0} for qid, js in qrels.items()}
    qrels = {qid: js for qid, js in qrels.items() if js and qid in run}
    run = {qid: scores for qid, scores in run.items() if qid in qrels}
    assert has_ties(run)
    return qrels, run


@pytest.mark.parametrize("metric,spec", [("ndcg@10", "ndcg_cut.10"), ("ndcg", "ndcg"), ("map@5", "map_cut.5"),
                                         ("map", "map"), ("precision@20", "P.20"), ("mrr", "recip_rank"),
                                         ("recall@5", "recall.5")])
def test_ranx(metric, spec):
    qrels, run = _ranx_collection(8)
    reference = ranx_evaluate(qrels, run, metric)
    key = metrics.parse_measure(spec)[0].key
    mine = ours(qrels, run, [spec], "test_ranx", tie_order="as_given")
    assert max(abs(mine[qid][key] - reference[qid]) for qid in reference) <= TOLERANCE


def test_ranx_ndcg_burges():
    qrels, run = _ranx_collection(9)
    reference = ranx_evaluate(qrels, run, "ndcg_burges@10")
    mine = ours(qrels, run, ["ndcg_cut.10"], "test_ranx_ndcg_burges", **PROFILES["test_ranx"] | {
        "tie_order": "as_given", "gain": "exponential"})
    assert max(abs(mine[qid]["ndcg_cut_10"] - reference[qid]) for qid in reference) <= TOLERANCE


def test_ranx_make_comparable():
    qrels, run = _ranx_collection(10)
    run = dict(list(run.items())[10:])
    mean = ranx_evaluate(qrels, run, "precision@5", return_mean=True, make_comparable=True)
    mine = metrics.aggregate(ours(qrels, run, ["P.5"], "test_ranx_make_comparable", tie_order="as_given"))
    assert mine["P_5"] == pytest.approx(mean, abs=TOLERANCE)


# ---- scikit-learn, LightGBM, pandas -------------------------------------------------------------------------------


def _labels(qrels, scores) -> tuple[np.ndarray, np.ndarray]:
    """Each retrieved document's grade as a label (0 when unjudged) and its score, in input order."""
    labels = np.array([max(qrels.get(doc, 0), 0) for doc in scores], dtype=np.float64)
    return labels, np.array(list(scores.values()), dtype=np.float64)


@pytest.mark.parametrize("k", [None, 1, 3, 10])
def test_scikit_learn_ndcg_score(k):
    sklearn_metrics = pytest.importorskip("sklearn.metrics", reason="scikit-learn does not install here")
    qrels, run = collection(11)
    run = {qid: scores for qid, scores in run.items() if len(scores) > 1}  # ndcg_score needs two documents
    spec = "ndcg" if k is None else f"ndcg_cut.{k}"
    key = metrics.parse_measure(spec)[0].key
    mine = ours(qrels, run, [spec], "test_scikit_learn_ndcg_score")
    for qid, scores in run.items():
        labels, values = _labels(qrels[qid], scores)
        reference = sklearn_metrics.ndcg_score([labels], [values], k=k)
        assert abs(mine[qid][key] - reference) <= TOLERANCE, (qid, mine[qid][key], reference)
    ordered = metrics.evaluate(qrels, run, [spec],
                               **PROFILES["test_scikit_learn_ndcg_score"] | {"tied_gains": "ordered"})
    assert any(abs(ordered[qid][key] - mine[qid][key]) > 0.01 for qid in run), "ties must matter here"


def _lightgbm_ndcg(labels: list[np.ndarray], scores: list[np.ndarray], k: int) -> float:
    """LightGBM's own ndcg@k of fixed scores: they are the validation set's init_score, and the one boosting round
    adds 0 (zero gradients give leaves of value 0)."""
    lightgbm = pytest.importorskip("lightgbm", reason="LightGBM does not install here")
    label = np.concatenate(labels)
    features = np.arange(label.shape[0], dtype=np.float64)[:, None]
    data = lightgbm.Dataset(features, label=label, group=[len(g) for g in labels], init_score=np.concatenate(scores))

    def no_gradient(predictions, _):
        return np.zeros(len(predictions)), np.ones(len(predictions))

    record: dict = {}
    params = {"objective": no_gradient, "metric": "ndcg", "eval_at": [k], "verbosity": -1, "min_data_in_leaf": 1}
    lightgbm.train(params, data, num_boost_round=1, valid_sets=[data], valid_names=["v"],
                   callbacks=[lightgbm.record_evaluation(record)])
    return record["v"][f"ndcg@{k}"][0]


@pytest.mark.parametrize("seed", [12, 13])
@pytest.mark.parametrize("k", [1, 5, 10])
def test_lightgbm_ndcg(seed, k):
    qrels, run = collection(seed, 100)
    labels, scores = zip(*(_labels(qrels[qid], run[qid]) for qid in run))
    reference = _lightgbm_ndcg(list(labels), list(scores), k)
    mine = metrics.aggregate(ours(qrels, run, [f"ndcg_cut.{k}"], "test_lightgbm_ndcg"))[f"ndcg_cut_{k}"]
    assert mine == pytest.approx(reference, abs=TOLERANCE)
    assert sum(not any(g > 0 for g in lab) for lab in labels) > 5, "queries without a relevant document"


def test_pandas_sort():
    import pandas as pd

    qrels, run = collection(14)
    for scores in list(run.values())[:50]:
        frame = pd.DataFrame({"docid": list(scores), "score": list(scores.values())})
        by_pandas = frame.sort_values(["score", "docid"], ascending=[False, True], kind="stable")["docid"].tolist()
        assert by_pandas == metrics.order_documents(scores, "docid_ascending", score_precision="float64")


# ---- transcriptions of tools that do not install here -----------------------------------------------------------


def _dcg(gains: list[float], k: int | None) -> float:
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains[:k]))


@pytest.mark.parametrize("empty", ["one", "zero"], ids=["ndcg", "ndcg-"])
def test_xgboost_ndcg_transcription(empty):
    # rank_metric.cc: predictions sorted descending with a stable sort, gain 2^label - 1 (ndcg_exp_gain), the
    # ideal from the query's labels sorted, and a query whose ideal DCG is 0 scores 1 (ndcg) or 0 (ndcg-).
    qrels, run = collection(15, nonnegative=True)
    for k in (3, 10):
        mine = ours(qrels, run, [f"ndcg_cut.{k}"], "test_xgboost_ndcg_transcription", empty_ideal=empty)
        for qid, scores in run.items():
            labels = [qrels[qid].get(doc, 0) for doc in scores]
            predictions = np.float32(list(scores.values()))  # XGBoost's predictions are C floats
            order = sorted(range(len(labels)), key=lambda i: -predictions[i])  # stable
            gains = [2.0 ** labels[i] - 1 for i in order]
            ideal = _dcg(sorted((2.0 ** label - 1 for label in labels), reverse=True), k)
            expected = _dcg(gains, k) / ideal if ideal > 0 else (1.0 if empty == "one" else 0.0)
            assert abs(mine[qid][f"ndcg_cut_{k}"] - expected) <= TOLERANCE


def test_torchmetrics_transcription():
    # ndcg.py: scikit-learn's tie-averaged DCG over the given items (ideal from them); precision.py with
    # adaptive_k divides by min(k, n); average_precision.py with top_k divides by the relevant in the top k.
    qrels, run = collection(16, nonnegative=True)
    k = 5
    specs = [f"ndcg_cut.{k}", f"P.{k}", f"map_cut.{k}"]
    # torch's sort gives ties no defined order: the transcription keeps them in input order, and so does ours.
    mine = ours(qrels, run, specs, "test_torchmetrics_transcription", score_precision="float64", tie_order="as_given")
    for qid, scores in run.items():
        labels, values = _labels(qrels[qid], scores)
        groups = sorted(set(values), reverse=True)
        ranked, position = [], 0
        for value in groups:
            members = labels[values == value]
            ranked += [members.mean()] * len(members)
            position += len(members)
        order = sorted(range(len(values)), key=lambda i: -values[i])
        ideal = _dcg(sorted(labels, reverse=True), k)
        assert abs(mine[qid][f"ndcg_cut_{k}"] - (_dcg(ranked, k) / ideal if ideal else 0.0)) <= TOLERANCE
        relevant = [labels[i] > 0 for i in order][:k]
        assert mine[qid][f"P_{k}"] == sum(relevant) / min(k, len(values))
        precisions = [sum(relevant[: r + 1]) / (r + 1) for r in range(len(relevant)) if relevant[r]]
        expected = sum(precisions) / len(precisions) if precisions else 0.0
        assert abs(mine[qid][f"map_cut_{k}"] - expected) <= TOLERANCE


def test_sentence_transformers_transcription():
    # InformationRetrievalEvaluator: a document is relevant (1) or not; NDCG@k's ideal is min(R, k) ones; MAP@k
    # divides the summed precisions by min(R, k). The ranking is torch.topk's, given here in rank order.
    qrels, run = collection(17)
    k = 10
    mine = ours(qrels, run, [f"ndcg_cut.{k}", f"map_cut.{k}"], "test_sentence_transformers_transcription",
                tie_order="as_given")
    for qid, scores in run.items():
        relevant_docs = {doc for doc, grade in qrels[qid].items() if grade >= 1}
        ranking = metrics.order_documents(scores, "as_given")[:k]
        hits = [1.0 if doc in relevant_docs else 0.0 for doc in ranking]
        ideal = _dcg([1.0] * min(len(relevant_docs), k), k)
        assert abs(mine[qid][f"ndcg_cut_{k}"] - (_dcg(hits, k) / ideal if ideal else 0.0)) <= TOLERANCE
        precisions = [sum(hits[: r + 1]) / (r + 1) for r in range(len(hits)) if hits[r]]
        expected = sum(precisions) / min(k, len(relevant_docs)) if relevant_docs else 0.0
        assert abs(mine[qid][f"map_cut_{k}"] - expected) <= TOLERANCE


def test_ms_marco_eval_transcription():
    # ms_marco_eval.py: MRR@10 from the ranks as written in the run file, summed over the queries that have
    # relevant passages and divided by the number of judged queries (a query missing from the run adds 0).
    qrels, run = collection(18)
    qrels = {qid: js for qid, js in qrels.items() if any(g >= 1 for g in js.values())}
    # The run file as written: by score, ties in the order the system wrote them.
    run = {qid: dict(sorted(scores.items(), key=lambda item: -item[1]))
           for qid, scores in list(run.items())[5:] if qid in qrels}
    total = 0.0
    for qid, scores in run.items():
        for rank, doc in enumerate(list(scores)[:10], start=1):  # the file's rank order: the dict's order
            if qrels[qid].get(doc, 0) >= 1:
                total += 1 / rank
                break
    expected = total / len(qrels)
    mine = metrics.aggregate(ours(qrels, run, ["RR@10"], "test_ms_marco_eval_transcription"))["RR@10"]
    assert mine == pytest.approx(expected, abs=TOLERANCE)


def test_trec_eval_10_transcription():
    # trec_format.h in trec_eval 10 reads sim as a double, and form_res_rels sorts by sim descending, then docno
    # descending (strcmp): the near-ties that trec_eval 9's floats merge stay apart.
    qrels, run = collection(19)
    for scores in run.values():
        expected = sorted(scores, key=lambda doc: (scores[doc], doc.encode()), reverse=True)
        assert metrics.order_documents(scores, **{"score_precision": "float64"}) == expected
