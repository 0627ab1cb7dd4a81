"""Judgment holes (metrics.holes): Judged@k and the two scenarios, by hand, against pytrec_eval, and the claim
that low and high bound the measures of ``BOUNDED`` (and only those) over every partial judgment of the hole."""

from __future__ import annotations

import io

import numpy as np
import pytest
import pytrec_eval

import metrics
from metrics.holes import BOUNDED, all_relevant, condensed, hole_cutoff, holes, holes_tables, query_holes, ranking_holes
from metrics.io.trec import read_qrels, read_run
from metrics.model import RankingBatch
from tests.support.strategies import pytrec_eval_safe, random_collection

SWEET_PASTRY = ["donut", "bagel", "muffin", "croissant"]
SWEET_JUDGMENTS = {"donut": 1, "muffin": 1, "scone": 1}


# ---- the worked example, by hand -------------------------------------------------------------------------------


def test_sweet_pastry_holes_by_hand():
    # bagel (rank 2) and croissant (rank 4) are unjudged: Judged@4 = 2/4. All relevant, R = 3 + 2 = 5.
    found = query_holes(SWEET_PASTRY, SWEET_JUDGMENTS, ["P.4", "recall.4", "recip_rank", "map_cut.4", "ndcg_cut.4",
                                                        "Judged@4", "success.1", "P.1", "P.2"])
    assert (found["P_4"].low, found["P_4"].high, found["P_4"].judged) == (0.5, 1.0, 0.5)
    assert found["recall_4"].low == pytest.approx(2 / 3) and found["recall_4"].high == pytest.approx(4 / 5)
    assert (found["recip_rank"].low, found["recip_rank"].high) == (1.0, 1.0)
    assert found["map_cut_4"].low == pytest.approx((1 + 2 / 3) / 3)
    assert found["map_cut_4"].high == pytest.approx(4 / 5)  # 1 + 1 + 1 + 1 over R = 5
    assert found["ndcg_cut_4"].high == pytest.approx(1.0)
    assert (found["Judged@4"].value, found["Judged@4"].high) == (0.5, 1.0)
    # The hole of P@1 is empty (donut is judged): nothing can move it. P@2's hole is bagel alone.
    assert (found["P_1"].low, found["P_1"].high, found["P_1"].judged) == (1.0, 1.0, 1.0)
    assert (found["P_2"].low, found["P_2"].high, found["P_2"].judged) == (0.5, 1.0, 0.5)
    assert found["P_4"].bounded and found["recall_4"].bounded and not found["map_cut_4"].bounded
    assert found["P_4"].k == 4 and found["recip_rank"].k is None


def test_uncut_measures_take_the_whole_ranking_as_their_hole():
    found = query_holes(SWEET_PASTRY, SWEET_JUDGMENTS, ["map", "Rprec", "ndcg"])
    # Both unjudged documents become relevant: AP = (1 + 1 + 1 + 1) / 5, Rprec = 4 relevant in the top 5 / 5.
    assert found["map"].high == pytest.approx(0.8) and found["Rprec"].high == pytest.approx(0.8)
    assert found["map"].judged == 0.5 and found["map"].k is None


def test_ap_scenarios_are_not_bounds():
    """The issue's example: AP of [relevant, unjudged x 9] with R = 1. Both scenarios give 1, yet judging only the
    tenth document relevant gives (1 + 2/10) / 2 = 0.6: that is why AP's low and high are called a range."""
    ranking = ["rel"] + [f"u{i}" for i in range(2, 11)]
    found = query_holes(ranking, {"rel": 1}, ["map"])["map"]
    assert (found.low, found.high, found.bounded) == (1.0, 1.0, False)
    partial = metrics.evaluate_rankings([ranking], [{"rel": 1, "u10": 1}], ["map"])["map"][0]
    assert partial == pytest.approx(0.6) and partial < found.low


def test_query_without_relevant_documents_gets_the_relevance_level_as_top_grade():
    # Only grade-0 judgments: g* = max(0, level). At -l 2 the two unjudged documents become grade 2, R = 2.
    ranking = ["judged-zero", "u1", "u2"]
    found = query_holes(ranking, {"judged-zero": 0}, ["P.3", "recall.3", "ndcg_cut.3"],
                        metrics.Conventions(relevance_level=2))
    assert (found["P_3"].low, found["P_3"].high) == (0.0, pytest.approx(2 / 3))
    assert (found["recall_3"].low, found["recall_3"].high) == (0.0, 1.0)
    batch = all_relevant(RankingBatch.from_rankings([ranking], [{"judged-zero": 0}]), 0, 2)
    assert batch.grades[0].tolist() == [0.0, 2.0, 2.0] and batch.judged_grades[0].tolist() == [2.0, 2.0, 0.0]


def test_graded_query_uses_its_highest_grade_and_negative_grades_are_unjudged():
    # "pooled" has grade -1: in the pool but unjudged (trec_eval), so it is in the hole and becomes grade 3.
    ranking = ["pooled", "a", "outside"]
    judgments = {"pooled": -1, "a": 1, "best": 3}
    batch = all_relevant(RankingBatch.from_rankings([ranking], [judgments]), 2, 1)
    assert batch.grades[0].tolist() == [3.0, 1.0, 0.0]  # rank 3 is beyond k = 2
    assert batch.judged[0].tolist() == [True, True, False]
    assert batch.judged_grades[0].tolist() == [3.0, 3.0, 1.0]
    assert query_holes(ranking, judgments, ["P.2"])["P_2"].judged == 0.5


def test_empty_ranking_has_no_hole():
    found = query_holes([], SWEET_JUDGMENTS, ["P.5", "map", "Judged@5"])
    assert all(h.low == h.high == h.value for h in found.values())
    assert found["P_5"].judged == 0.0  # the Judged kernel's rule for an empty ranking


def test_fully_judged_ranking_has_low_equal_high_equal_value():
    found = query_holes(["donut", "muffin", "scone"], SWEET_JUDGMENTS, ["P.3", "map", "ndcg", "bpref", "infAP"])
    assert all((h.low, h.high, h.judged) == (h.value, h.value, 1.0) for h in found.values())


# ---- the claim behind every printed word -----------------------------------------------------------------------


BOUNDED_SPECS = ["P.1,2,3,5,10,40", "recall.1,3,5,10,40", "success.1,3,10", "recip_rank", "RR@3", "RR@10",
                 "F@5", "F(beta=2)@10", "set_P", "set_recall", "set_F", "Judged@5", "Judged@20", "unj.5,10",
                 "num_rel", "num_rel_ret", "num_ret", "num_q", "P(rel=2)@5"]
SCENARIO_SPECS = ["map", "map_cut.5,10", "ndcg", "ndcg_cut.5,10", "Rprec", "bpref", "infAP", "relative_P.5", "binG",
                  "G", "Rndcg", "ndcg_rel", "iprec_at_recall", "Rprec_mult", "11pt_avg", "num_nonrel_judged_ret",
                  "rbp", "rbp_resid", "ERR@10", "utility", "set_map", "set_relative_P"]


def _partial_judgments(rng, ranking, judgments, k, level, copies):
    """``copies`` random judgments of the unjudged documents among the top k: each stays unjudged (absent or
    negative) or gets a grade from 0 to one above the query's top grade."""
    top = max([g for g in judgments.values() if g >= 0] + [level])
    window = ranking[:k] if k else ranking
    hole = [doc for doc in window if judgments.get(doc, -1) < 0]
    out = []
    for _ in range(copies):
        changed = dict(judgments)
        for doc in hole:
            choice = int(rng.integers(-2, top + 2))
            if choice == -2:
                continue
            changed[doc] = choice
        out.append(changed)
    return out


def _by_hole(measures, relevance_level: int) -> dict[tuple, list]:
    """The measures grouped by their hole: cut-off and relevance level (the measure's own, else the conventions')."""
    groups: dict[tuple, list] = {}
    for m in measures:
        groups.setdefault((hole_cutoff(m), m.relevance_level or relevance_level), []).append(m)
    return groups


@pytest.mark.parametrize("conventions", [metrics.Conventions(), metrics.Conventions(relevance_level=2),
                                         metrics.Conventions(depth=7, precision_short_list="retrieved"),
                                         metrics.Conventions(missing_queries="zero")],
                         ids=["trec_eval", "-l2", "-M7_short_list", "-c"])
def test_bounded_measures_stay_within_low_and_high_for_every_partial_judgment_of_the_hole(conventions):
    rng = np.random.default_rng(120 + conventions.relevance_level + (conventions.depth or 0))
    qrels, run = random_collection(rng, 100, max_docs=25)  # 250 queries took 4-5 s a convention, for no new case
    table = holes(qrels, run, BOUNDED_SPECS, conventions=conventions)
    rankings = dict(zip(*metrics.model.rankings_for_run(qrels, run, include_missing=True)))
    checked = 0
    index = {qid: i for i, qid in enumerate(table.qids)}
    for (k, level), group in _by_hole(table.measures, conventions.relevance_level).items():
        assert all(m.name in BOUNDED and table.bounded(m.key) for m in group)
        # The measures of one hole (cut-off and level) share its partial judgments: one evaluation for them all.
        variants_qrels, variants_run, origin = {}, {}, {}
        for qid in table.qids:
            ranking = rankings[qid][: conventions.depth] if conventions.depth else rankings[qid]
            for a, changed in enumerate(_partial_judgments(rng, ranking, qrels[qid], k, level, 4)):
                name = f"{qid}#{a}"
                variants_qrels[name], origin[name] = changed, qid
                if qid in run:
                    variants_run[name] = run[qid]
        values = metrics.evaluate(variants_qrels, variants_run, group, conventions=conventions)
        for m in group:
            low, high = table.low[m.key], table.high[m.key]
            for name, result in values.items():
                i = index[origin[name]]
                assert low[i] - 1e-12 <= result[m.key] <= high[i] + 1e-12, (m.key, name, low[i], result[m.key],
                                                                            high[i])
                checked += 1
    assert checked > 10_000


def test_scenario_measures_leave_their_range_under_some_partial_judgment():
    """For AP, nDCG, R-precision, bpref and most measures outside BOUNDED, random partial judgments find a value
    outside [low, high]: calling their range a bound would be false. The others (rbp_resid, utility, relative_P,
    set_map, set_relative_P) are not proven monotone here, so they too are only called a range."""
    rng = np.random.default_rng(7)
    qrels, run = random_collection(rng, 100, max_docs=20)  # 60 already find every escape; 300 took 12 s
    table = holes(qrels, run, SCENARIO_SPECS)
    escaped = set()
    rankings = dict(zip(*metrics.model.rankings_for_run(qrels, run)))
    index = {qid: i for i, qid in enumerate(table.qids)}
    for (k, _), group in _by_hole(table.measures, 1).items():
        assert not any(table.bounded(m.key) for m in group)
        variants_qrels, variants_run, origin = {}, {}, {}
        for qid in table.qids:
            for a, changed in enumerate(_partial_judgments(rng, rankings[qid], qrels[qid], k, 1, 6)):
                variants_qrels[f"{qid}#{a}"], variants_run[f"{qid}#{a}"], origin[f"{qid}#{a}"] = changed, run[qid], qid
        values = metrics.evaluate(variants_qrels, variants_run, group)
        for m in group:
            for name, result in values.items():
                i = index[origin[name]]
                if not table.low[m.key][i] - 1e-12 <= result[m.key] <= table.high[m.key][i] + 1e-12:
                    escaped.add(m.name)
                    break
    # num_nonrel_judged_ret rises when a hole is judged non-relevant: the all-relevant scenario leaves it unchanged.
    assert {m.name for m in table.measures} - escaped == {"rbp_resid", "utility", "relative_P", "set_map",
                                                          "set_relative_P"}


def test_judged_only_makes_precision_a_scenario_range():
    # [u, u, rel, rel], -J: P@2 of the condensed list [rel, rel] is 1 in both scenarios, 0 if both are judged 0.
    ranking, judgments = ["u1", "u2", "r1", "r2"], {"r1": 1, "r2": 1}
    found = query_holes(ranking, judgments, ["P.2"], metrics.Conventions(unjudged="removed"))["P_2"]
    assert (found.low, found.high, found.bounded) == (1.0, 1.0, False)
    judged = metrics.evaluate_rankings([ranking], [{**judgments, "u1": 0, "u2": 0}], ["P.2"],
                                       metrics.Conventions(unjudged="removed"))["P_2"][0]
    assert judged == 0.0


# ---- against pytrec_eval ----------------------------------------------------------------------------------------


#: Measures pytrec_eval computes as trec_eval 10 does (iprec_at_recall and 11pt_avg round differently in 9).
DIFFERENTIAL_SPECS = ["P.1,3,5,10,30", "recall.3,10", "success.1,5", "recip_rank", "map", "map_cut.5,10", "ndcg",
                      "ndcg_cut.3,10", "Rprec", "bpref", "infAP", "num_rel", "num_rel_ret", "relative_P.5", "G",
                      "binG", "Rprec_mult", "set_F", "utility", "ndcg_rel", "Rndcg"]


def _pytrec(qrels, run, specs, level, judged_only):
    return pytrec_eval.RelevanceEvaluator(qrels, specs, relevance_level=level,
                                          judged_docs_only_flag=judged_only).evaluate(run)


@pytest.mark.parametrize("level,judged_only", [(1, False), (2, False), (1, True)], ids=["-l1", "-l2", "-J"])
def test_low_and_high_match_pytrec_eval_on_the_qrels_and_on_the_qrels_with_the_hole_judged(level, judged_only):
    """low and high are min and max of pytrec_eval on the qrels and on the qrels plus every unjudged document of
    the measure's top k (the whole ranking when uncut) at the query's top grade."""
    rng = np.random.default_rng(300 + level + 10 * judged_only)
    qrels, run = random_collection(rng, 300, max_docs=30)
    pytrec_eval_safe(qrels, run)
    conv = metrics.Conventions(relevance_level=level, unjudged="removed" if judged_only else "nonrelevant")
    table = holes(qrels, run, DIFFERENTIAL_SPECS, conventions=conv)
    as_judged = _pytrec(qrels, run, DIFFERENTIAL_SPECS, level, judged_only)
    rankings = dict(zip(*metrics.model.rankings_for_run(qrels, run)))
    by_k: dict[int, list] = {}
    for m in table.measures:
        by_k.setdefault(hole_cutoff(m), []).append(m)
    for k, group in by_k.items():
        augmented = {}
        for qid, judgments in qrels.items():
            ranking = rankings.get(qid, [])
            top = max([g for g in judgments.values() if g >= 0] + [level])
            hole = [doc for doc in (ranking[:k] if k else ranking) if judgments.get(doc, -1) < 0]
            augmented[qid] = {**judgments, **dict.fromkeys(hole, top)}
        specs = sorted({m.trec_name.rpartition("_")[0] + "." + str(m.cutoff) if m.cutoff is not None
                        and not m.info.float_cutoffs else m.name for m in group})
        scenario = _pytrec(augmented, run, specs, level, judged_only)
        for m in group:
            key = m.key
            for i, qid in enumerate(table.qids):
                expected_low = min(as_judged[qid][key], scenario[qid][key])
                expected_high = max(as_judged[qid][key], scenario[qid][key])
                assert table.value[key][i] == pytest.approx(as_judged[qid][key], abs=1e-12), (key, qid)
                assert table.low[key][i] == pytest.approx(expected_low, abs=1e-12), (key, qid, "low")
                assert table.high[key][i] == pytest.approx(expected_high, abs=1e-12), (key, qid, "high")


def test_condensed_batch_is_the_judged_only_batch():
    rng = np.random.default_rng(5)
    qrels, run = random_collection(rng, 200, max_docs=20)
    qids, rankings = metrics.model.rankings_for_run(qrels, run)
    judgments = [qrels[q] for q in qids]
    scores = [[float(np.float32(run[q][d])) for d in r] for q, r in zip(qids, rankings)]
    whole = RankingBatch.from_rankings(rankings, judgments, scores=scores)
    expected = RankingBatch.from_rankings(rankings, judgments, judged_only=True, scores=scores)
    ours = condensed(whole)
    width = expected.width
    assert ours.lengths.tolist() == expected.lengths.tolist()
    filled = np.arange(width) < expected.lengths[:, None]
    assert np.array_equal(np.where(filled, ours.grades[:, :width], 0), np.where(filled, expected.grades, 0))
    assert np.array_equal(ours.tied_with_previous[:, :width] & filled, expected.tied_with_previous & filled)


def _trec_text(qrels, run):
    q = "".join(f"{qid} 0 {doc} {grade}\n" for qid, judgments in qrels.items() for doc, grade in judgments.items())
    r = "".join(f"{qid} Q0 {doc} {rank} {score!r} tag\n" for qid, scores in run.items()
                for rank, (doc, score) in enumerate(scores.items(), start=1))
    return q.encode(), r.encode()


@pytest.mark.parametrize("conventions", [metrics.Conventions(), metrics.Conventions(unjudged="removed", depth=8),
                                         metrics.Conventions(missing_queries="zero", relevance_level=2)],
                         ids=["trec_eval", "-J_-M8", "-c_-l2"])
def test_bulk_path_equals_dict_path(conventions):
    rng = np.random.default_rng(11)
    qrels, run = random_collection(rng, 150, max_docs=25)
    run = {qid: {doc.replace(" ", "_"): s for doc, s in scores.items()} for qid, scores in run.items()}
    specs = ["P.5,10", "map", "ndcg_cut.10", "bpref", "Judged@10", "gm_map"]
    expected = holes(qrels, run, specs, conventions=conventions)
    qrels_bytes, run_bytes = _trec_text(qrels, run)
    ours = holes_tables(read_qrels(io.BytesIO(qrels_bytes), name="qrels"), read_run(io.BytesIO(run_bytes), name="run"),
                        specs, conventions)
    assert ours.qids == expected.qids
    for name in ("value", "low", "high", "judged"):
        for key, column in getattr(expected, name).items():
            assert np.array_equal(getattr(ours, name)[key], column), (name, key)


def test_means_are_means_of_per_query_lows_and_highs_in_sorted_qid_order():
    rng = np.random.default_rng(3)
    qrels, run = random_collection(rng, 60, max_docs=15)
    table = holes(qrels, run, ["P.5", "num_rel", "gm_map"])
    means = table.means()
    assert table.qids == sorted(table.qids)
    assert means["P_5"].low == float(np.cumsum(table.low["P_5"])[-1]) / len(table.qids)
    assert means["num_rel"].high == float(table.high["num_rel"].sum())
    assert means["gm_map"].low == pytest.approx(np.exp(table.low["gm_map"].mean()))
    assert means["P_5"].low <= means["P_5"].value <= means["P_5"].high


def test_ranking_holes_names_queries_and_keeps_them_sorted():
    table = ranking_holes([SWEET_PASTRY, ["scone"]], [SWEET_JUDGMENTS, SWEET_JUDGMENTS], ["P.1"], qids=["b", "a"])
    assert table.qids == ["a", "b"] and table.value["P_1"].tolist() == [1.0, 1.0]
