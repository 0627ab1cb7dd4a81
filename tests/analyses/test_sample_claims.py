"""Each sample's description is a claim about its list; these check the parts the cards do not show
(tests/app/test_app_explore.py checks the numbers the page shows when a sample loads)."""

from __future__ import annotations

import itertools

import metrics
from metrics.samples import load_sample


def test_dunk_in_coffee_ties_biscotti_and_scone_and_trec_eval_puts_scone_first():
    sample = load_sample("dunk-in-coffee")
    scores = dict(sample.ranking)
    assert scores["biscotti"] == scores["scone"] == 0.8
    assert sample.ordered("trec_eval")[:2] == ["scone", "biscotti"]
    assert sample.ordered("docid_ascending")[0] == "biscotti"


def test_gluten_free_has_unjudged_dishes_at_ranks_1_and_3():
    sample = load_sample("gluten-free-breakfast")
    order = sample.ordered()
    assert [rank for rank, doc in enumerate(order, 1) if doc not in sample.judgments] == [1, 3]


def test_the_jam_samples_are_the_same_list_with_every_match_judged_1_in_the_binary_one():
    graded, binary = load_sample("goes-well-with-jam"), load_sample("goes-well-with-jam-binary")
    assert graded.ordered() == binary.ordered() and graded.ordered()[0] == "pretzel" not in graded.judgments
    assert binary.judgments == {doc: min(grade, 1) for doc, grade in graded.judgments.items()}
    missing_twos = [doc for doc, g in graded.judgments.items() if g == 2 and doc not in graded.ordered()]
    assert len(missing_twos) == 2


def test_laminating_counts_as_its_description_says_and_no_reordering_reaches_ndcg_1():
    sample = load_sample("laminating-butter-temperature")
    order = sample.ordered()
    assert len(order) == 20 and set(sample.judgments.values()) == {0, 1, 2, 3}
    assert sample.conventions.relevance_level == 2
    assert sum(doc not in sample.judgments for doc in order) == 4
    unretrieved = [g for doc, g in sample.judgments.items() if doc not in order and g >= 1]
    assert len(unretrieved) == 4 and unretrieved.count(3) == 1
    best = sorted(order, key=lambda doc: -sample.judgments.get(doc, 0))
    value = metrics.evaluate_rankings([best], [sample.judgments], ["ndcg_cut.10"], sample.conventions)
    assert value["ndcg_cut_10"][0] < 1


def test_sourdough_recall_at_5_is_two_thirds_whatever_the_order_of_the_top_5():
    sample = load_sample("sourdough-starter-rag")
    top = sample.ordered()[:5]
    values = {metrics.evaluate_rankings([list(p)], [sample.judgments], ["recall.5"], sample.conventions)["recall_5"][0]
              for p in itertools.permutations(top)}
    assert {round(v, 3) for v in values} == {0.667}


def test_lunch_first_relevant_is_the_sandwich_at_rank_3():
    sample = load_sample("suitable-for-lunch")
    order = sample.ordered()
    first = next(rank for rank, doc in enumerate(order, 1) if sample.judgments.get(doc, 0) >= 1)
    assert (first, order[first - 1]) == (3, "sandwich")
