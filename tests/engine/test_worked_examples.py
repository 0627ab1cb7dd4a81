"""The seed's worked examples, computed by hand, must come out exactly."""

import pytest

import metrics

PASTRY_QRELS = {"sweet pastry": {"donut": 1, "muffin": 1, "scone": 1}}
PASTRY_RUN = {"sweet pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}
JAM_QRELS = {"jam": {"bagel": 2, "croissant": 2, "roll": 2, "scone": 1, "muffin": 1, "donut": 1}}
JAM_RUN = {"jam": {"pretzel": 0.9, "bagel": 0.85, "muffin": 0.7, "donut": 0.6}}


def test_sweet_pastry_matches_the_worked_example():
    values = metrics.evaluate(PASTRY_QRELS, PASTRY_RUN, ["P.4", "recall.4", "recip_rank", "map_cut.4", "ndcg_cut.4"])
    got = values["sweet pastry"]
    assert got["P_4"] == 0.5
    assert got["recall_4"] == pytest.approx(2 / 3)
    assert got["recip_rank"] == 1.0
    assert got["map_cut_4"] == pytest.approx((1 / 1 + 2 / 3) / 3)
    assert round(got["ndcg_cut_4"], 3) == 0.704


def test_goes_well_with_jam_graded_ndcg_at_4():
    got = metrics.evaluate(JAM_QRELS, JAM_RUN, ["ndcg_cut.4"])["jam"]["ndcg_cut_4"]
    assert round(got, 5) == 0.46724


def test_moving_muffin_up_raises_ap_and_ndcg_but_not_precision_recall_or_rr():
    measures = ["P.4", "recall.4", "recip_rank", "map_cut.4", "ndcg_cut.4"]
    judgments = [PASTRY_QRELS["sweet pastry"]] * 2
    rankings = [["donut", "bagel", "muffin", "croissant"], ["donut", "muffin", "bagel", "croissant"]]
    before, after = zip(*(metrics.evaluate_rankings(rankings, judgments, measures)[m] for m in
                          ["P_4", "recall_4", "recip_rank", "map_cut_4", "ndcg_cut_4"]))
    assert before[:3] == after[:3]
    assert round(after[3], 3) == 0.667 and round(after[4], 3) == 0.765
    assert after[3] > before[3] and after[4] > before[4]
