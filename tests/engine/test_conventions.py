"""Each non-default convention, shown on a hand-worked example: what it changes and what it leaves alone.

Where a peer library implements a variant, a test compares with it on seeded random data and says which tool
uses which convention. Peer versions at the time of writing: ranx 0.3.21, ir_measures 0.4.3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import metrics
from metrics.conventions import CONVENTION_INFO, Conventions
from tests.support.ranx_kernels import ranx_evaluate
from tests.support.strategies import random_collection

L2 = math.log2


def _dcg(*gains: float) -> float:
    return sum(gain / L2(rank + 1) for rank, gain in enumerate(gains, start=1))


def _one(qrels, run, spec, **conventions) -> float:
    (qid,) = run
    values = metrics.evaluate(qrels, run, [spec], **conventions)[qid]
    return values[metrics.parse_measure(spec)[0].key]


# ---- "goes well with jam": gain, ideal_from, unjudged -------------------------------------------------------------
# Ranking: pretzel (unjudged), bagel (2), muffin (1), donut (1). Judged but not retrieved: croissant 2, roll 2, scone 1.


def test_jam_ndcg_at_4_under_trec_eval_is_linear_gain_over_the_ideal_of_all_judgments(jam_qrels, jam_run):
    expected = _dcg(0, 2, 1, 1) / _dcg(2, 2, 2, 1)
    assert _one(jam_qrels, jam_run, "ndcg_cut.4") == pytest.approx(expected, abs=1e-15)
    assert round(expected, 5) == 0.46724


def test_exponential_gain_gives_jam_ndcg_at_4_of_0_4138(jam_qrels, jam_run):
    # 2^2 - 1 = 3 for bagel, 2^1 - 1 = 1 for muffin and donut; the ideal takes three 3s then a 1.
    value = _one(jam_qrels, jam_run, "ndcg_cut.4", gain="exponential")
    assert value == pytest.approx(_dcg(0, 3, 1, 1) / _dcg(3, 3, 3, 1), abs=1e-15)
    assert round(value, 4) == 0.4138


def test_ideal_dcg_over_the_retrieved_list_gives_jam_ndcg_at_4_of_0_7003(jam_qrels, jam_run):
    # The ideal only rearranges what was retrieved: 2, 1, 1, 0. Croissant and roll no longer count against it.
    value = _one(jam_qrels, jam_run, "ndcg_cut.4", ideal_from="retrieved")
    assert value == pytest.approx(_dcg(0, 2, 1, 1) / _dcg(2, 1, 1, 0), abs=1e-15)
    assert round(value, 4) == 0.7003


def test_judged_documents_only_gives_jam_ndcg_at_4_of_0_6672(jam_qrels, jam_run):
    # pretzel is dropped and the list condenses to bagel, muffin, donut.
    value = _one(jam_qrels, jam_run, "ndcg_cut.4", judged_docs_only=True)
    assert value == pytest.approx(_dcg(2, 1, 1) / _dcg(2, 2, 2, 1), abs=1e-15)
    assert round(value, 4) == 0.6672
    assert value == _one(jam_qrels, jam_run, "ndcg_cut.4", unjudged="removed")


def test_binary_gain_treats_every_relevant_grade_as_one(jam_qrels, jam_run):
    value = _one(jam_qrels, jam_run, "ndcg_cut.4", gain="binary")
    assert value == pytest.approx(_dcg(0, 1, 1, 1) / _dcg(1, 1, 1, 1), abs=1e-15)
    flattened = {"jam": {doc: min(grade, 1) for doc, grade in jam_qrels["jam"].items()}}
    assert value == _one(flattened, jam_run, "ndcg_cut.4")
    # With relevance level 2, only grade-2 documents earn a gain of 1.
    assert _one(jam_qrels, jam_run, "ndcg_cut.4", gain="binary", relevance_level=2) == pytest.approx(
        _dcg(0, 1, 0, 0) / _dcg(1, 1, 1), abs=1e-15
    )


@pytest.mark.parametrize(
    "conventions",
    [{"gain": "exponential"}, {"gain": "binary"}, {"ideal_from": "retrieved"}],
    ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()),
)
def test_gain_and_ideal_conventions_leave_every_measure_but_ndcg_alone(jam_qrels, jam_run, conventions):
    others = ["P.4", "recall.4", "recip_rank", "map", "map_cut.4", "Rprec", "bpref", "success.1", "num_rel_ret"]
    assert metrics.evaluate(jam_qrels, jam_run, others, **conventions) == metrics.evaluate(jam_qrels, jam_run, others)


def test_removing_unjudged_documents_changes_rank_based_measures_but_not_bpref_or_counts_of_relevant(
    jam_qrels, jam_run
):
    measures = ["P.1", "recip_rank", "map", "bpref", "num_rel", "num_rel_ret", "num_ret"]
    default = metrics.evaluate(jam_qrels, jam_run, measures)["jam"]
    removed = metrics.evaluate(jam_qrels, jam_run, measures, unjudged="removed")["jam"]
    assert (default["P_1"], removed["P_1"]) == (0.0, 1.0)
    assert (default["recip_rank"], removed["recip_rank"]) == (1 / 2, 1.0)
    assert removed["map"] == pytest.approx((1 / 1 + 2 / 2 + 3 / 3) / 6) and default["map"] == pytest.approx(
        (1 / 2 + 2 / 3 + 3 / 4) / 6
    )
    assert (default["num_ret"], removed["num_ret"]) == (4, 3)
    for unchanged in ("bpref", "num_rel", "num_rel_ret"):  # bpref already ignores unjudged documents
        assert default[unchanged] == removed[unchanged]


def test_trec_eval_ndcg_ignores_the_relevance_level_but_precision_does_not(jam_qrels, jam_run):
    level_2 = metrics.evaluate(jam_qrels, jam_run, ["ndcg_cut.4", "P.4", "num_rel"], relevance_level=2)["jam"]
    level_1 = metrics.evaluate(jam_qrels, jam_run, ["ndcg_cut.4", "P.4", "num_rel"])["jam"]
    assert level_2["ndcg_cut_4"] == level_1["ndcg_cut_4"]
    assert (level_1["P_4"], level_2["P_4"]) == (3 / 4, 1 / 4)  # only bagel is grade >= 2
    assert (level_1["num_rel"], level_2["num_rel"]) == (6, 3)


def test_relevance_level_zero_makes_grade_zero_documents_relevant():
    qrels = {"q": {"a": 0, "b": 1, "c": -1}}
    run = {"q": {"a": 0.9, "c": 0.8, "b": 0.7}}
    assert _one(qrels, run, "P.3") == 1 / 3
    assert _one(qrels, run, "P.3", relevance_level=0) == 2 / 3  # a and b; c (grade -1) is still unjudged
    assert _one(qrels, run, "num_rel", relevance_level=0) == 2


# ---- AP@k denominators --------------------------------------------------------------------------------------------
# Four relevant documents; ranking r1 x r2 r3 r4. AP@3 sums precision at ranks 1 and 3: 1/1 + 2/3 = 5/3.

AP_QRELS = {"q": {"r1": 1, "r2": 1, "r3": 1, "r4": 1, "x": 0}}
AP_RUN = {"q": {"r1": 5.0, "x": 4.0, "r2": 3.0, "r3": 2.0, "r4": 1.0}}


@pytest.mark.parametrize(
    "denominator,expected",
    [("R", (5 / 3) / 4), ("min_R_k", (5 / 3) / min(4, 3)), ("retrieved_relevant", (5 / 3) / 2)],
)
def test_ap_at_k_denominator(denominator, expected):
    assert _one(AP_QRELS, AP_RUN, "map_cut.3", ap_denominator=denominator) == pytest.approx(expected, abs=1e-15)


def test_min_r_k_gives_a_perfect_top_k_an_ap_at_k_of_one_and_leaves_full_map_alone():
    qrels = {"q": {f"r{i}": 1 for i in range(10)}}
    run = {"q": {f"r{i}": 10.0 - i for i in range(5)}}
    assert _one(qrels, run, "map_cut.5") == 0.5  # trec_eval: 5 of R = 10
    assert _one(qrels, run, "map_cut.5", ap_denominator="min_R_k") == 1.0
    assert _one(AP_QRELS, AP_RUN, "map", ap_denominator="min_R_k") == _one(AP_QRELS, AP_RUN, "map")
    assert _one(AP_QRELS, AP_RUN, "map_cut.100", ap_denominator="min_R_k") == _one(AP_QRELS, AP_RUN, "map_cut.100")


def test_retrieved_relevant_denominator_also_changes_full_map():
    # Without a cut-off the "relevant retrieved" denominator still differs from R when some relevant documents are
    # never retrieved: here 2 of 4, AP = (1/1 + 2/3) / 2 instead of / 4.
    run = {"q": {"r1": 5.0, "x": 4.0, "r2": 3.0}}
    assert _one(AP_QRELS, run, "map") == pytest.approx((1 + 2 / 3) / 4)
    assert _one(AP_QRELS, run, "map", ap_denominator="retrieved_relevant") == pytest.approx((1 + 2 / 3) / 2)


def test_ap_denominator_leaves_every_other_measure_alone():
    others = ["P.3", "recall.3", "ndcg_cut.3", "recip_rank", "Rprec", "bpref"]
    for denominator in ("min_R_k", "retrieved_relevant"):
        assert metrics.evaluate(AP_QRELS, AP_RUN, others, ap_denominator=denominator) == metrics.evaluate(
            AP_QRELS, AP_RUN, others
        )


# ---- tie order -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "tie_order,order,reciprocal_rank",
    [("trec_eval", ["c", "b", "a"], 1 / 3), ("as_given", ["b", "a", "c"], 1 / 2),
     ("docid_ascending", ["a", "b", "c"], 1.0)],
)
def test_tie_order_decides_where_equally_scored_documents_land(tie_order, order, reciprocal_rank):
    run = {"q": {"b": 1.0, "a": 1.0, "c": 1.0}}
    assert metrics.order_documents(run["q"], tie_order) == order
    assert _one({"q": {"a": 1}}, run, "recip_rank", tie_order=tie_order) == reciprocal_rank
    # A measure that looks past every tie does not care about their order.
    assert _one({"q": {"a": 1}}, run, "recall.3", tie_order=tie_order) == 1.0


def test_tie_order_changes_nothing_without_ties():
    qrels, run = random_collection(np.random.default_rng(11), 200)
    rng = np.random.default_rng(12)
    untied = {qid: {doc: float(rng.random()) for doc in scores} for qid, scores in run.items()}
    measures = ["P.5", "map", "ndcg_cut.10", "recip_rank", "bpref"]
    reference = metrics.evaluate(qrels, untied, measures)
    for tie_order in ("as_given", "docid_ascending"):
        assert metrics.evaluate(qrels, untied, measures, tie_order=tie_order) == reference


# ---- P@k on a short list, missing queries, depth ------------------------------------------------------------------


def test_precision_short_list_retrieved_divides_by_the_list_length_only_when_it_is_shorter_than_k(pastry_qrels):
    short = {"sweet pastry": {"donut": 1.0, "bagel": 0.5}}
    assert _one(pastry_qrels, short, "P.10") == 1 / 10
    assert _one(pastry_qrels, short, "P.10", precision_short_list="retrieved") == 1 / 2
    assert _one(pastry_qrels, short, "P.1", precision_short_list="retrieved") == _one(pastry_qrels, short, "P.1")
    assert _one(pastry_qrels, short, "recall.10", precision_short_list="retrieved") == 1 / 3
    empty = {"sweet pastry": {}}
    assert _one(pastry_qrels, empty, "P.10", precision_short_list="retrieved") == 0.0


def test_missing_queries_zero_scores_judged_queries_absent_from_the_run_and_lowers_the_mean(
    pastry_qrels, pastry_run, jam_qrels
):
    qrels = {**pastry_qrels, **jam_qrels}
    skipped = metrics.evaluate(qrels, pastry_run, ["map", "P.4", "num_q", "num_rel"])
    zeroed = metrics.evaluate(qrels, pastry_run, ["map", "P.4", "num_q", "num_rel"], missing_queries="zero")
    assert list(skipped) == ["sweet pastry"]
    assert zeroed["sweet pastry"] == skipped["sweet pastry"]
    assert zeroed["jam"] == {"map": 0.0, "P_4": 0.0, "num_q": 1.0, "num_rel": 6.0}
    mean_skipped, mean_zeroed = metrics.aggregate(skipped), metrics.aggregate(zeroed)
    assert mean_zeroed["map"] == pytest.approx(mean_skipped["map"] / 2)
    assert (mean_skipped["num_q"], mean_zeroed["num_q"]) == (1, 2)


def test_depth_evaluates_only_the_top_documents(pastry_qrels, pastry_run):
    # donut bagel | muffin croissant: at depth 2 muffin is never retrieved.
    assert _one(pastry_qrels, pastry_run, "num_ret", depth=2) == 2
    assert _one(pastry_qrels, pastry_run, "map", depth=2) == pytest.approx((1 / 1) / 3)
    assert _one(pastry_qrels, pastry_run, "map") == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert _one(pastry_qrels, pastry_run, "P.2", depth=2) == _one(pastry_qrels, pastry_run, "P.2")
    assert _one(pastry_qrels, pastry_run, "num_rel", depth=2) == 3


# ---- the settings object and its documentation table ----------------------------------------------------------------


def test_averaged_tied_gains_give_tied_documents_the_mean_gain_of_their_group():
    # a (grade 2) and b (grade 0) tie. trec_eval puts b first: DCG = 2/log2(3). Averaged: each gets gain 1,
    # DCG = 1 + 1/log2(3), whatever the tie order. The ideal is 2 either way.
    qrels = {"q": {"a": 2, "b": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5}}
    assert _one(qrels, run, "ndcg") == pytest.approx((2 / math.log2(3)) / 2)
    for tie_order in ("trec_eval", "as_given", "docid_ascending"):
        assert _one(qrels, run, "ndcg", tied_gains="averaged", tie_order=tie_order) == pytest.approx(
            (1 + 1 / math.log2(3)) / 2)
    # A tie group cut by k still shares its mean: nDCG@1 credits half of a's gain at rank 1.
    assert _one(qrels, run, "ndcg_cut.1", tied_gains="averaged") == pytest.approx(0.5)
    assert _one(qrels, run, "P.1", tied_gains="averaged") == _one(qrels, run, "P.1")  # only DCG averages


def test_empty_ideal_one_scores_a_query_without_relevant_documents_one_in_ndcg_and_ap_only():
    # LightGBM and XGBoost score such a query 1 in ndcg@k and map@k (see metrics/profiles.py).
    qrels = {"q": {"a": 0, "b": 0}}
    run = {"q": {"a": 1.0, "c": 0.5}}
    assert _one(qrels, run, "ndcg_cut.10") == 0.0
    assert _one(qrels, run, "ndcg_cut.10", empty_ideal="one") == 1.0
    assert _one(qrels, run, "map") == 0.0
    assert _one(qrels, run, "map", empty_ideal="one") == 1.0
    assert _one(qrels, run, "P.5", empty_ideal="one") == 0.0
    assert _one(qrels, run, "recip_rank", empty_ideal="one") == 0.0


def test_defaults_are_trec_eval_and_describe_names_the_differences():
    assert Conventions() == metrics.TREC_EVAL
    assert Conventions().describe() == "trec_eval defaults"
    changed = Conventions(gain="exponential", depth=10)
    assert changed.differences() == {"gain": "exponential", "depth": 10}
    assert changed.describe() == "gain=exponential depth=10"


@pytest.mark.parametrize(
    "changes,message",
    [
        ({"gain": "exp"},
         "Argument `gain` has to be one of 'linear', 'exponential', 'binary', 'thresholded', but got 'exp'"),
        ({"relevance_level": -1}, "Argument `relevance_level` has to be >= 0"),
        ({"relevance_level": 1.5}, "Argument `relevance_level` has to be an integer, but got 1.5"),
        ({"relevance_level": True}, "Argument `relevance_level` has to be an integer, but got True"),
        ({"depth": 0}, "Argument `depth` has to be a positive integer or None, but got 0"),
        ({"tie_order": "random"}, "Argument `tie_order` has to be one of"),
    ],
)
def test_invalid_conventions_raise_a_precise_error(changes, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Conventions(**changes)


def test_convention_info_documents_every_value_with_the_trec_eval_default_first():
    fields = {field: getattr(metrics.TREC_EVAL, field) for field in Conventions.__dataclass_fields__}
    for info in CONVENTION_INFO:
        values = [choice.value for choice in info.choices]
        assert values[0] == fields[info.name], info.name
        for value in values:
            Conventions(**{info.name: value})  # every documented value is accepted
        assert all(choice.meaning and choice.used_by for choice in info.choices)
    documented = {info.name for info in CONVENTION_INFO}
    assert documented == set(fields) - {"relevance_level", "depth"}


# ---- peers: which tool uses which convention ------------------------------------------------------------------------


def _untied_collection(seed: int, n_queries: int = 300):
    """Random qrels (grades >= 0 only, which every peer reads the same way) and a run without tied scores."""
    rng = np.random.default_rng(seed)
    qrels, run = random_collection(rng, n_queries)
    qrels = {qid: {d: g for d, g in js.items() if g >= 0} for qid, js in qrels.items()}
    qrels = {qid: js for qid, js in qrels.items() if js and qid in run}
    run = {qid: {doc: float(rng.random()) for doc in scores} for qid, scores in run.items() if qid in qrels}
    return qrels, run


@pytest.mark.parametrize(
    "ranx_metric,spec,conventions",
    [
        ("ndcg@10", "ndcg_cut.10", {}),  # ranx ndcg: linear gain (Järvelin & Kekäläinen), ideal from the qrels
        ("ndcg_burges@10", "ndcg_cut.10", {"gain": "exponential"}),  # ranx ndcg_burges: 2^g - 1
        ("map@5", "map_cut.5", {}),  # ranx map@k divides by R, like trec_eval (not by min(R, k))
        ("precision@50", "P.50", {}),  # ranx P@k divides by k on short lists
    ],
)
def test_ranx_agrees_with_the_named_convention_on_untied_random_data(ranx_metric, spec, conventions):
    qrels, run = _untied_collection(21)
    reference = ranx_evaluate(qrels, run, ranx_metric)
    ours = metrics.evaluate(qrels, run, [spec], **conventions)
    key = metrics.parse_measure(spec)[0].key
    assert max(abs(ours[qid][key] - reference[qid]) for qid in reference) <= 1e-12


def test_ranx_map_at_k_is_not_min_r_k():
    # Evidence for CONVENTION_INFO: ranx 0.3.21's map@k sums precisions and divides by the number of relevant
    # judgments (qrels.shape[0] in ranx/metrics/average_precision.py), i.e. R, so a perfect top 5 with R = 10 is 0.5.
    qrels = {"q": {f"r{i}": 1 for i in range(10)}}
    run = {"q": {f"r{i}": 10.0 - i for i in range(5)}}
    assert ranx_evaluate(qrels, run, "map@5")["q"] == 0.5 == _one(qrels, run, "map_cut.5")
    assert _one(qrels, run, "map_cut.5", ap_denominator="min_R_k") == 1.0


TIED = [f"d{i:02d}" for i in range(16)]  # 16 tied documents: beyond the few whose input order ranx keeps


def _ranx_ranks_of_each_tied_document(live: bool = False) -> list[int]:
    run = {"q": {doc: 1.0 for doc in TIED}}
    return [round(1 / ranx_evaluate({"q": {doc: 1}}, run, "mrr", live=live)["q"]) for doc in TIED]


def test_ranx_tie_order_is_not_input_order_beyond_a_few_documents():
    # Evidence for CONVENTION_INFO: ranx sorts scores with an unstable sort, so tied documents keep their input
    # order only in short lists. With 16 tied documents the relevant one given first lands at rank 15.
    assert _ranx_ranks_of_each_tied_document() != list(range(1, 17))
    assert _one({"q": {TIED[0]: 1}}, {"q": {doc: 1.0 for doc in TIED}}, "recip_rank", tie_order="as_given") == 1.0


def test_ir_measures_judged_only_is_trec_eval_minus_j():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_collection(np.random.default_rng(31), 300)
    measure = ir_measures.nDCG(judged_only=True) @ 10
    reference = {m.query_id: m.value for m in ir_measures.iter_calc([measure], qrels, run)}
    ours = metrics.evaluate(qrels, run, ["nDCG(judged_only=True)@10"], missing_queries="zero")
    assert set(reference) == set(ours)
    assert max(abs(ours[qid]["nDCG(judged_only=True)@10"] - reference[qid]) for qid in reference) <= 1e-12


def test_ir_measures_scores_judged_queries_missing_from_the_run_as_zero():
    # Evidence for CONVENTION_INFO: ir_measures 0.4.3 reports 0 for every judged query absent from the run and
    # counts it in calc_aggregate (trec_eval -c), where trec_eval and pytrec_eval leave it out.
    ir_measures = pytest.importorskip("ir_measures")
    qrels = {"a": {"d1": 1}, "b": {"d1": 1}, "c": {"d2": 1}}
    run = {"a": {"d1": 1.0}, "not judged": {"d1": 1.0}}
    per_query = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.P @ 1], qrels, run)}
    assert per_query == {"a": 1.0, "b": 0.0, "c": 0.0}
    ours = metrics.evaluate(qrels, run, ["P.1"], missing_queries="zero")
    assert per_query == {qid: values["P_1"] for qid, values in ours.items()}
    assert ir_measures.calc_aggregate([ir_measures.P @ 1], qrels, run)[ir_measures.P @ 1] == pytest.approx(1 / 3)
    assert metrics.aggregate(metrics.evaluate(qrels, run, ["P.1"]))["P_1"] == 1.0  # trec_eval's mean


MISSING_QRELS, MISSING_RUN = {"a": {"d01": 1}, "b": {"d01": 1}}, {"a": {"d01": 1.0}}  # doc ids as wide as TIED's


def test_ranx_refuses_missing_queries_unless_asked_to_score_them_zero():
    # Evidence for CONVENTION_INFO: ranx 0.3.21 raises on differing query sets; make_comparable=True adds an empty
    # ranking (score 0) for each judged query absent from the run, i.e. missing_queries="zero".
    with pytest.raises(AssertionError, match="query ids do not match"):
        ranx_evaluate(MISSING_QRELS, MISSING_RUN, "precision@1", return_mean=True)
    mean = ranx_evaluate(MISSING_QRELS, MISSING_RUN, "precision@1", return_mean=True, make_comparable=True)
    assert mean == pytest.approx(0.5)
    zero = metrics.evaluate(MISSING_QRELS, MISSING_RUN, ["P.1"], missing_queries="zero")
    assert metrics.aggregate(zero)["P_1"] == 0.5


@pytest.mark.slow  # on a cold cache numba compiles ranx's Qrels, Run and mrr kernels: about a minute of CPU
def test_the_ranx_recording_is_what_the_installed_ranx_gives():
    """The one live ranx test: the suite replays ranx's values from tests/data/ranx (tests/support/ranx_kernels.py);
    here ranx recomputes the calls where its own code decides the most (its tie order, its refusal of differing
    query sets, make_comparable) and each must equal the recording. One metric and one doc-id width (U3) keep
    numba's compiling to one signature of each kernel."""
    assert _ranx_ranks_of_each_tied_document(live=True) != list(range(1, 17))
    with pytest.raises(AssertionError, match="query ids do not match"):
        ranx_evaluate(MISSING_QRELS, MISSING_RUN, "mrr", return_mean=True, live=True)
    assert ranx_evaluate(MISSING_QRELS, MISSING_RUN, "mrr", return_mean=True, make_comparable=True, live=True) == 0.5


def test_ir_measures_breaks_ties_like_trec_eval():
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_collection(np.random.default_rng(32), 300)  # many tied scores
    measures = [ir_measures.P @ 5, ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.RR]
    reference = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    ours = metrics.evaluate(qrels, run, ["P@5", "AP", "nDCG@10", "RR"], missing_queries="zero")
    assert max(abs(ours[qid][key] - value) for (qid, key), value in reference.items()) <= 1e-12
    shuffled = metrics.evaluate(qrels, run, ["P@5", "AP", "nDCG@10", "RR"], tie_order="as_given",
                                missing_queries="zero")
    assert max(abs(shuffled[qid][key] - value) for (qid, key), value in reference.items()) > 0.1


def test_ir_measures_exp_log2_ndcg_is_exponential_gain_with_trec_eval_ties():
    # ir_measures routes nDCG(dcg='exp-log2') to gdeval.pl (Perl), which prints 5 decimals and needs numeric
    # query ids; with ties, only trec_eval's tie order agrees with it, and Perl compares scores as doubles.
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = random_collection(np.random.default_rng(33), 150)
    qids = [qid for qid in run if qid in qrels]
    numbered_qrels = {str(i + 1): qrels[qid] for i, qid in enumerate(qids)}
    numbered_run = {str(i + 1): run[qid] for i, qid in enumerate(qids)}
    measure = ir_measures.nDCG(dcg="exp-log2") @ 10
    try:
        reference = {m.query_id: m.value for m in ir_measures.iter_calc([measure], numbered_qrels, numbered_run)}
    except Exception as error:  # gdeval needs perl
        pytest.skip(f"gdeval unavailable: {error}")
    ours = metrics.evaluate(numbered_qrels, numbered_run, ["nDCG(dcg='exp-log2')@10"], score_precision="float64")
    key = "nDCG(dcg='exp-log2')@10"
    assert max(abs(ours[qid][key] - reference[qid]) for qid in reference) <= 5.1e-6
