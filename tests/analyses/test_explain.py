"""Per-metric explanations: the worked computation for the seed example, the conventions it follows, and a check on
many random queries that the number an explanation ends with is always the engine's value."""

from __future__ import annotations

import re

import numpy as np
import pytest

import metrics
from metrics import Conventions
from metrics.explain import (
    MAX_TERMS,
    METRIC_GUIDE,
    ONLINE_CONFIRMATION,
    explain,
    explorer_measures,
    missed_relevant_note,
)
from metrics.samples import load_sample, load_samples
from tests.support.strategies import random_query

PASTRY = ["donut", "bagel", "muffin", "croissant"]
PASTRY_JUDGMENTS = {"donut": 1, "muffin": 1, "scone": 1}
JAM = ["pretzel", "bagel", "muffin", "donut"]
JAM_JUDGMENTS = {"bagel": 2, "croissant": 2, "roll": 2, "scone": 1, "muffin": 1, "donut": 1}

#: The number a worked line ends with, before an optional remark in parentheses.
FINAL_NUMBER = re.compile(r"= (\d+(?:\.\d+)?)(?: \(.*\))?$")


def by_label(ranking, judgments, k, conventions=None):
    return {e.label: e for e in explain(ranking, judgments, k, conventions)}


def first_line(explanation) -> str:
    return explanation.worked.splitlines()[0]


def printed_value(explanation) -> float:
    match = FINAL_NUMBER.search(first_line(explanation))
    assert match, f"{explanation.label}: no final value in {first_line(explanation)!r}"
    return float(match.group(1))


# ---- the seed example, word for word --------------------------------------------------------------------


def test_sweet_pastry_explanations_read_exactly_as_worked_by_hand():
    worked = {e.label: e.worked for e in explain(PASTRY, PASTRY_JUDGMENTS, 4)}
    assert worked == {
        "P@4": "P@4 = 2 / 4 = 0.500",
        "Recall@4": "Recall@4 = 2 / 3 = 0.667",
        "RR": "RR = 1 / 1 = 1.000 (first relevant document: donut at rank 1)\n"
              "Averaged over queries, RR is MRR (mean reciprocal rank), the number a paper or leaderboard reports.",
        "AP@4": "AP@4 = (1/1 + 2/3) / 3 = 0.556",
        "AP": "AP = (1/1 + 2/3) / 3 = 0.556 (every rank of the list, no cut-off)\n"
              "A paper's \"MAP\" is usually this uncut AP averaged over queries (trec_eval map); MAP@k is ambiguous: "
              "AP@k here and in trec_eval (map_cut, dividing by R), but sentence-transformers' MAP@k divides by "
              "min(R, k).",
        "nDCG@4": "nDCG@4 = DCG@4 / IDCG@4 = (1/log2(2) + 1/log2(4)) / (1/log2(2) + 1/log2(3) + 1/log2(4)) "
                  "= 1.500 / 2.131 = 0.704",
        "Success@4": "Success@4 = 1 (donut at rank 1 is within the top 4)",
    }


def test_each_explanation_carries_the_engine_value_and_the_registry_sentence():
    for explanation, (label, measure) in zip(explain(PASTRY, PASTRY_JUDGMENTS, 4), explorer_measures(4)):
        assert (explanation.label, explanation.measure) == (label, measure)
        parsed = metrics.parse_measure(measure)[0]
        engine = metrics.evaluate_rankings([PASTRY], [PASTRY_JUDGMENTS], [measure])[parsed.key][0]
        assert explanation.value == engine
        assert explanation.rewards == metrics.MEASURES[parsed.name].rewards
        assert explanation.formula.removeprefix(r"\begin{aligned}").startswith(r"\mathrm{")


def test_graded_jam_shows_each_grade_as_its_gain():
    ndcg = by_label(JAM, JAM_JUDGMENTS, 4)["nDCG@4"]
    assert first_line(ndcg) == (
        "nDCG@4 = DCG@4 / IDCG@4 = (2/log2(3) + 1/log2(4) + 1/log2(5)) "
        "/ (2/log2(2) + 2/log2(3) + 2/log2(4) + 1/log2(5)) = 2.193 / 4.693 = 0.467"
    )


# ---- the explorer's metric set -------------------------------------------------------------------------


def test_explorer_measures_lists_the_metrics_in_display_order_with_uncut_ap_after_ap_at_k():
    assert explorer_measures(10) == [
        ("P@10", "P.10"), ("Recall@10", "recall.10"), ("RR", "recip_rank"),
        ("AP@10", "map_cut.10"), ("AP", "map"), ("nDCG@10", "ndcg_cut.10"), ("Success@10", "success.10"),
    ]


def test_the_laminating_sample_shows_uncut_ap_apart_from_ap_at_10():
    sample = load_sample("laminating-butter-temperature")
    explained = by_label(sample.ordered(), sample.judgments, 10)
    assert (round(explained["AP"].value, 3), round(explained["AP@10"].value, 3)) == (0.604, 0.426)


def test_uncut_ap_follows_the_ap_denominator_convention():
    ranking, judgments = ["a", "x", "b"], {"a": 1, "b": 1, "c": 1}
    assert first_line(by_label(ranking, judgments, 2)["AP"]).startswith("AP = (1/1 + 2/3) / 3 = 0.556")
    rule = Conventions(ap_denominator="retrieved_relevant")
    assert first_line(by_label(ranking, judgments, 2, rule)["AP"]).startswith("AP = (1/1 + 2/3) / 2 = 0.833")


@pytest.mark.parametrize(
    "conventions, note",
    [
        ({}, "still count in recall, AP@k and AP (they are in R) and in the ideal DCG."),
        ({"ideal_from": "retrieved"}, "count in recall, AP@k and AP (they are in R) but not in the ideal DCG"),
        ({"ap_denominator": "retrieved_relevant"}, "and in the ideal DCG but not in AP@k or AP"),
        ({"ap_denominator": "min_R_k"}, "AP@k (through min(R, k))"),
    ],
)
def test_the_note_on_missed_relevant_documents_follows_the_conventions(conventions, note):
    assert note in missed_relevant_note(Conventions(**conventions))


@pytest.mark.parametrize("k", [0, -3, 2.5, True, "4"])
def test_explorer_measures_rejects_a_k_that_is_not_a_positive_integer(k):
    with pytest.raises(ValueError, match="Argument `k` has to be a positive integer"):
        explorer_measures(k)


# ---- the worked text follows the conventions ----------------------------------------------------------


def test_exponential_gain_shows_two_to_the_grade_minus_one():
    ndcg = by_label(JAM, JAM_JUDGMENTS, 4, Conventions(gain="exponential"))["nDCG@4"]
    assert "(2^2-1)/log2(3)" in ndcg.worked and "(2^1-1)/log2(4)" in ndcg.worked
    assert "Gain is 2^grade - 1" in ndcg.worked


def test_ideal_from_retrieved_builds_idcg_from_the_retrieved_documents_only():
    ndcg = by_label(JAM, JAM_JUDGMENTS, 4, Conventions(ideal_from="retrieved"))["nDCG@4"]
    assert "/ (2/log2(2) + 1/log2(3) + 1/log2(4))" in first_line(ndcg)
    assert "re-sorts the retrieved documents only" in ndcg.worked


@pytest.mark.parametrize(
    ("denominator", "expected"),
    [
        ("R", "AP@2 = (1/1) / 3 = 0.333"),
        ("min_R_k", "AP@2 = (1/1) / min(3, 2) = 1.000 / 2 = 0.500"),
        ("retrieved_relevant", "AP@2 = (1/1) / 1 = 1.000"),
    ],
)
def test_ap_at_k_shows_the_denominator_its_convention_chooses(denominator, expected):
    ap = by_label(PASTRY, PASTRY_JUDGMENTS, 2, Conventions(ap_denominator=denominator))["AP@2"]
    assert first_line(ap) == expected


def test_precision_on_a_short_list_divides_by_k_or_by_what_was_retrieved():
    short = ["donut", "muffin"]
    trec = by_label(short, PASTRY_JUDGMENTS, 4)["P@4"]
    assert trec.worked == "P@4 = 2 / 4 = 0.500 (only 2 documents retrieved; the 2 empty ranks count as non-relevant)"
    adaptive = by_label(short, PASTRY_JUDGMENTS, 4, Conventions(precision_short_list="retrieved"))["P@4"]
    assert adaptive.worked == "P@4 = 2 / min(4, 2) = 2 / 2 = 1.000"


def test_removing_unjudged_documents_closes_up_the_ranks_and_says_so():
    explained = by_label(PASTRY, PASTRY_JUDGMENTS, 4, Conventions(unjudged="removed"))
    assert first_line(explained["AP@4"]) == "AP@4 = (1/1 + 2/2) / 3 = 0.667"
    for explanation in explained.values():
        assert explanation.worked.splitlines()[1] == (
            "Unjudged documents are removed and the ranks close up (trec_eval -J): bagel (rank 2), croissant (rank 4)."
        )


def test_relevance_level_two_keeps_only_the_grade_two_documents_relevant():
    explained = by_label(JAM, JAM_JUDGMENTS, 4, Conventions(relevance_level=2))
    assert first_line(explained["P@4"]) == "P@4 = 1 / 4 = 0.250"
    assert first_line(explained["RR"]) == "RR = 1 / 2 = 0.500 (first relevant document: bagel at rank 2)"
    assert "Relevant means grade ≥ 2" in explained["Recall@4"].worked
    assert "does not change nDCG" in explained["nDCG@4"].worked


def test_depth_cuts_the_list_before_anything_is_counted():
    explained = by_label(PASTRY, PASTRY_JUDGMENTS, 4, Conventions(depth=2))
    assert first_line(explained["P@4"]).startswith("P@4 = 1 / 4")
    assert "Only the top 2 documents are evaluated" in explained["P@4"].worked


def test_rr_has_no_cutoff_and_says_so_when_the_first_hit_is_below_k():
    rr = by_label(["bagel", "croissant", "muffin"], PASTRY_JUDGMENTS, 2)["RR"]
    assert rr.worked.splitlines()[0] == ("RR = 1 / 3 = 0.333 (first relevant document: muffin at rank 3; RR has no "
                                         "cut-off, so it counts below the top 2, while RR@2 (the k chart's RR@k) is "
                                         "0.000)")


# ---- named edge cases ----------------------------------------------------------------------------------


def test_empty_ranking_explains_every_metric_as_zero():
    for explanation in explain([], PASTRY_JUDGMENTS, 4):
        assert explanation.value == 0.0
        assert printed_value(explanation) == 0.0


def test_no_relevant_judgments_explain_why_the_denominator_is_zero():
    explained = by_label(PASTRY, {"donut": 0, "bagel": 0}, 4)
    assert explained["Recall@4"].worked == "Recall@4 = 0.000 (no document is judged relevant, so R = 0)"
    assert explained["AP@4"].worked == "AP@4 = 0.000 (no document is judged relevant, so R = 0)"
    assert explained["nDCG@4"].worked == "nDCG@4 = 0.000 (no judged document has a positive gain, so IDCG@4 = 0)"


def test_nothing_relevant_retrieved():
    explained = by_label(["bagel", "croissant"], PASTRY_JUDGMENTS, 4)
    assert first_line(explained["RR"]) == "RR = 0.000 (no relevant document retrieved)"
    assert explained["Success@4"].worked == "Success@4 = 0 (no relevant document in the top 4)"
    assert explained["AP@4"].worked == "AP@4 = 0 / 3 = 0.000 (no relevant document in the top 4)"
    assert first_line(explained["nDCG@4"]).startswith("nDCG@4 = DCG@4 / IDCG@4 = 0 / (1/log2(2)")


def test_long_sums_are_abbreviated_but_still_end_with_the_engine_value():
    ranking = [f"d{i:02d}" for i in range(1, 21)]
    judgments = {doc: 1 for doc in ranking[::2]}  # ten relevant, at ranks 1, 3, ..., 19
    explained = by_label(ranking, judgments, 20)
    ap = first_line(explained["AP@20"])
    assert ap.startswith("AP@20 = (1/1 + 2/3 + 3/5 + 4/7 + 5/9 + 6/11 + … + 10/19) / 10 = ")
    assert ap.count("+") == MAX_TERMS - 1
    assert printed_value(explained["AP@20"]) == round(explained["AP@20"].value, 3)
    assert "… + 1/log2(11)" in first_line(explained["nDCG@20"])


# ---- random queries: the explanation never drifts from the engine ----------------------------------------


def random_conventions(rng: np.random.Generator) -> Conventions:
    return Conventions(
        relevance_level=int(rng.integers(0, 4)),
        gain=str(rng.choice(["linear", "exponential", "binary"])),
        ideal_from=str(rng.choice(["judgments", "retrieved"])),
        ap_denominator=str(rng.choice(["R", "min_R_k", "retrieved_relevant"])),
        unjudged=str(rng.choice(["nonrelevant", "removed"])),
        precision_short_list=str(rng.choice(["k", "retrieved"])),
        depth=None if rng.random() < 0.6 else int(rng.integers(1, 15)),
    )


@pytest.mark.parametrize("seed", range(8))
def test_worked_values_equal_the_engine_on_random_queries_under_random_conventions(seed):
    rng = np.random.default_rng(seed)
    for case in range(250):
        judgments, scores = random_query(rng, max_docs=25)
        conventions = random_conventions(rng)
        ranking = metrics.order_documents(scores, conventions.tie_order)
        k = int(rng.integers(1, 30))
        for explanation in explain(ranking, judgments, k, conventions):
            assert printed_value(explanation) == float(f"{explanation.value:.3f}"), (
                f"seed {seed} case {case} {conventions.describe()}: {explanation.worked!r} "
                f"but the engine says {explanation.value!r}"
            )


def test_every_sample_explains_without_drift_under_every_single_convention_change():
    changes = [{}, {"gain": "exponential"}, {"ideal_from": "retrieved"}, {"ap_denominator": "min_R_k"},
               {"ap_denominator": "retrieved_relevant"}, {"unjudged": "removed"}, {"relevance_level": 2},
               {"precision_short_list": "retrieved"}, {"depth": 3}]
    for sample in load_samples():
        for change in changes:
            conventions = Conventions(**change)
            for explanation in explain(sample.ordered(), sample.judgments, sample.k, conventions):
                assert printed_value(explanation) == float(f"{explanation.value:.3f}"), (sample.slug, change)


def test_the_laminating_sample_explains_ndcg_at_10_with_every_retrieved_gain():
    sample = load_sample("laminating-butter-temperature")
    ndcg = by_label(sample.ordered(), sample.judgments, 10)["nDCG@10"]
    assert first_line(ndcg).startswith("nDCG@10 = DCG@10 / IDCG@10 = (3/log2(2) + 1/log2(3) + 2/log2(4)")
    assert first_line(ndcg).endswith(f"= {ndcg.value:.3f}")


# ---- the guide -------------------------------------------------------------------------------------------


def test_the_metric_guide_recommends_recall_for_rag_and_rr_for_single_answers():
    guide = {entry.metric: entry for entry in METRIC_GUIDE}
    assert "RAG" in guide["Recall@k"].use_case
    assert "Single-answer" in guide["RR (or Success@1)"].use_case
    assert {"nDCG@10", "AP (or AP@k for a fixed-length list)"} <= set(guide)
    assert "MAP is usually uncut AP" in guide["AP (or AP@k for a fixed-length list)"].why
    assert all(entry.why.endswith(".") for entry in METRIC_GUIDE)


def test_formulas_have_balanced_braces_under_every_convention_that_changes_them():
    for change in [{}, {"gain": "exponential"}, {"gain": "binary"}, {"ideal_from": "retrieved"},
                   {"ap_denominator": "min_R_k"}, {"ap_denominator": "retrieved_relevant"},
                   {"precision_short_list": "retrieved"}]:
        for explanation in explain(PASTRY, PASTRY_JUDGMENTS, 4, Conventions(**change)):
            depth = 0
            for char in explanation.formula:
                depth += {"{": 1, "}": -1}.get(char, 0)
                assert depth >= 0, explanation.formula
            assert depth == 0, explanation.formula


def test_the_ap_formula_names_the_denominator_of_its_convention():
    formulas = {rule: by_label(PASTRY, PASTRY_JUDGMENTS, 4, Conventions(ap_denominator=rule))["AP@4"].formula
                for rule in ("R", "min_R_k", "retrieved_relevant")}
    assert r"\frac{1}{R}" in formulas["R"]
    assert r"\frac{1}{\min(R,\,k)}" in formulas["min_R_k"]
    assert r"\frac{1}{\sum_{r=1}^{k} \mathrm{rel}_r}" in formulas["retrieved_relevant"]


def test_bad_input_is_an_input_error_naming_the_document():
    with pytest.raises(metrics.InputError, match="document 'donut': grade must be an integer, got 'yes'"):
        explain(PASTRY, {"donut": "yes"}, 4)
    with pytest.raises(metrics.InputError, match="document 'donut' appears twice in the ranking"):
        explain(["donut", "donut"], PASTRY_JUDGMENTS, 4)


def test_the_metric_guide_says_when_an_offline_win_needs_online_confirmation():
    guide = {entry.use_case: entry for entry in METRIC_GUIDE}
    assert "online test" in guide["Deciding whether an offline win will hold with users"].metric
    cases = dict(ONLINE_CONFIRMATION)
    assert "paired test" in cases["The delta is small, within the noise"]
    assert "Judged≥0@k" in cases["Many documents in the new top k are unjudged"]
    assert "position bias" in cases["The change sits below the fold"]
    assert all(why.endswith(".") for why in cases.values())
