"""Tie intervals (metrics.ties) against brute force: every order of the tied documents of small random queries,
each order scored by the ordinary front door (metrics.evaluate_rankings on doc ids), for every registered measure.

Three claims are checked on every case: low, high and the expectation equal the minimum, maximum and mean over
all orders; each closed form equals that mean whatever the size of the groups; and sorting each tie group gives
the extremes for the measures in SORTED_EXTREMES (and the one measure left out, infAP, has a case where it does
not)."""

from __future__ import annotations

import io
import itertools
import math

import numpy as np
import pytest

from metrics import evaluate, evaluate_rankings
from metrics.cli import main
from metrics.conventions import Conventions
from metrics.engine import as_measures, evaluate_batch, judged_only
from metrics.measures import MEASURES
from metrics.model import InputError, compared_scores
from metrics.ties import (
    CLOSED_FORM,
    SORTED_EXTREMES,
    TiedQuery,
    expected_value,
    multiset_permutations,
    query_intervals,
    ranking_intervals,
    tie_intervals,
    tie_table,
)
from metrics.ties.groups import EXACT_ORDER_DIGITS, OrderCount, as_evaluated, batch_of, count_orders
from metrics.ties.intervals import REARRANGED


def every_measure() -> list[str]:
    """One or two forms of every registered measure, with small cut-offs so ties straddle them."""
    specs = []
    for name, info in MEASURES.items():
        if info.cutoff == "required" and info.float_cutoffs:
            specs.append(f"{name}.0.3,1.0")
        elif info.cutoff in ("required", "optional"):
            specs.append(f"{name}.1,3")
        else:
            specs.append(name)
    return specs


MEASURE_SPECS = every_measure()


def random_query(rng: np.random.Generator) -> tuple[list[str], list[float], dict[str, int]]:
    """Up to 7 retrieved documents with scores from three values (many ties), grades among absent, pooled (-1),
    0, 1 and 2, and a few judged documents nobody retrieved."""
    size = int(rng.integers(2, 8))
    docs = [f"d{i}" for i in range(size)]
    scores = sorted((float(s) for s in rng.integers(0, 3, size)), reverse=True)
    judgments = {}
    for doc in docs:
        grade = int(rng.integers(-2, 3))
        if grade > -2:
            judgments[doc] = grade
    for i in range(int(rng.integers(0, 3))):
        judgments[f"unseen{i}"] = int(rng.integers(0, 3))
    return docs, scores, judgments


def all_orders(docs: list[str], scores: list[float]) -> list[list[str]]:
    """Every ranking the ties allow: each tie group's documents in every order (a permutation of doc ids)."""
    groups = [list(g) for _, g in itertools.groupby(zip(docs, scores), key=lambda pair: pair[1])]
    return [[doc for part in parts for doc, _ in part]
            for parts in itertools.product(*(itertools.permutations(group) for group in groups))]


def brute_force(docs, scores, judgments, specs, conventions):
    rankings = all_orders(docs, scores)
    values = evaluate_rankings(rankings, [judgments] * len(rankings), specs, conventions)
    return {key: (float(column.min()), float(column.max()), float(column.mean())) for key, column in values.items()}


CASES = 16


@pytest.mark.parametrize("conventions", [Conventions(), Conventions(relevance_level=2, depth=4),
                                         Conventions(unjudged="removed", gain="exponential")],
                         ids=["trec_eval", "level 2, -M 4", "-J, exponential gain"])
def test_every_measure_matches_every_order(conventions):
    rng = np.random.default_rng(24)
    for _ in range(CASES):
        docs, scores, judgments = random_query(rng)
        truth = brute_force(docs, scores, judgments, MEASURE_SPECS, conventions)
        found = ranking_intervals(docs, scores, judgments, MEASURE_SPECS, conventions)
        for key, (low, high, mean) in truth.items():
            got = found[key]
            assert got.low == pytest.approx(low, abs=1e-12), (key, docs, scores, judgments)
            assert got.high == pytest.approx(high, abs=1e-12), (key, docs, scores, judgments)
            assert got.expected == pytest.approx(mean, abs=1e-12), (key, docs, scores, judgments)
            assert got.low <= got.value <= got.high


@pytest.mark.parametrize("conventions", [Conventions(), Conventions(relevance_level=2),
                                         Conventions(unjudged="removed", precision_short_list="retrieved")],
                         ids=["trec_eval", "level 2", "-J, P over min(k, |L|)"])
def test_each_closed_form_equals_the_mean_over_every_order(conventions):
    specs = [spec for spec in MEASURE_SPECS if spec.split(".")[0] in CLOSED_FORM] + ["F(beta=2)@3", "map_cut.2"]
    measures = as_measures(specs)
    rng = np.random.default_rng(2008)
    for _ in range(CASES):
        docs, scores, judgments = random_query(rng)
        truth = brute_force(docs, scores, judgments, measures, conventions)
        query = TiedQuery.from_ranking(docs, scores, judgments)
        for m in measures:
            condensed = judged_only(m, conventions)
            labels, groups = as_evaluated(query, conventions, condensed)
            found = expected_value(m, query, labels, groups, conventions, condensed)
            if found is None:  # AP without a relevant document: no order changes it
                assert truth[m.key][0] == truth[m.key][1], m.key
                continue
            assert found == pytest.approx(truth[m.key][2], abs=1e-12), (m.key, docs, scores, judgments)


def test_sorting_each_group_gives_the_extremes_of_the_sorted_measures(monkeypatch):
    monkeypatch.setattr("metrics.ties.intervals.MAX_ORDERS", 1)  # never score every order: sort the groups
    rng = np.random.default_rng(519)
    measures = as_measures(MEASURE_SPECS)
    for _ in range(CASES):
        docs, scores, judgments = random_query(rng)
        truth = brute_force(docs, scores, judgments, measures, Conventions())
        found, orders, _ = query_intervals(TiedQuery.from_ranking(docs, scores, judgments), measures, Conventions())
        for m in measures:
            _, low, high, _ = found[m.key]
            if orders == 1 or m.name in SORTED_EXTREMES:
                assert (low, high) == pytest.approx(truth[m.key][:2], abs=1e-12), (m.key, docs, scores, judgments)
            else:
                assert math.isnan(low) and math.isnan(high)


def test_infap_is_not_extreme_when_its_groups_are_sorted():
    # infAP counts the pooled documents above each relevant one as evidence, so where a pooled unjudged one sits
    # among judged ones moves it both ways, and sorting each group by label misses its lowest value (found by a
    # search over random queries).
    docs, scores = ["d0", "d1", "d2", "d3", "d4", "d5", "d6"], [2.0, 2.0, 1.0, 1.0, 1.0, 1.0, 0.0]
    judgments = {"d1": 0, "d2": 1, "d3": 1, "d4": 2, "d5": -1, "d6": 0, "unseen0": 0, "unseen1": 1}
    truth = brute_force(docs, scores, judgments, ["infAP"], Conventions())["infAP"]
    query = TiedQuery.from_ranking(docs, scores, judgments)
    sorted_values = [evaluate_batch(batch_of(query, query.sorted_labels(best), Conventions(), False),
                                    ["infAP"])["infAP"][0] for best in (True, False)]
    assert "infAP" not in SORTED_EXTREMES
    assert (min(sorted_values), max(sorted_values)) != pytest.approx(truth[:2], abs=1e-9)


def random_gain_map(rng: np.random.Generator) -> str:
    """A trec_eval gain map over grades 0-2 with gains from -2 to 5, often not rising with the grade."""
    gains = rng.integers(-2, 6, 3)
    return ",".join(f"{grade}={int(gain)}" for grade, gain in enumerate(gains))


def test_gains_that_do_not_rise_with_the_grade_sort_by_gain(monkeypatch):
    # ndcg.0=5,1=1,2=2 or ndcg.1=-1,2=1: sorting each group by grade would miss the extremes; by gain it finds them
    # for the measures in REARRANGED, and the others say n/a rather than a wrong bound.
    monkeypatch.setattr("metrics.ties.intervals.MAX_ORDERS", 1)  # never score every order
    rng = np.random.default_rng(42)
    rearranged = 0
    for _ in range(3 * CASES):
        docs, scores, judgments = random_query(rng)
        gains = random_gain_map(rng)
        specs = [f"ndcg.{gains}", f"rbp.{gains}", f"Rndcg.{gains}", f"ndcg_rel.{gains}"]
        truth = brute_force(docs, scores, judgments, specs, Conventions())
        found = ranking_intervals(docs, scores, judgments, specs, Conventions())
        for m in as_measures(specs):
            got = found[m.key]
            low, high = truth[m.key][:2]
            if got.low is None:
                assert m.name not in REARRANGED, (m.key, docs, scores, judgments)
                continue
            rearranged += m.name in REARRANGED
            assert (got.low, got.high) == pytest.approx((low, high), abs=1e-12), (m.key, docs, scores, judgments)
    assert rearranged > CASES  # the gain-sorted path was taken, not only queries without ties


def test_the_gain_sorted_extremes_of_the_issue_examples():
    # 30 tied documents (too many orders to score): the extremes are those of the rankings sorted by gain, here
    # every document of the largest gain first, and the smallest first.
    docs = [f"d{i:02d}" for i in range(30)]
    judgments = {doc: i % 3 for i, doc in enumerate(docs)}
    found = ranking_intervals(docs, [1.0] * 30, judgments, ["ndcg.0=5,1=1,2=2", "ndcg.1=-1,2=1"])
    best = evaluate_rankings([sorted(docs, key=lambda d: -[5, 1, 2][judgments[d]])], [judgments],
                             ["ndcg.0=5,1=1,2=2"])["ndcg_0=5,1=1,2=2"][0]
    assert found["ndcg_0=5,1=1,2=2"].high == pytest.approx(best) and best == pytest.approx(1.0)
    worst = evaluate_rankings([sorted(docs, key=lambda d: [0, -1, 1][judgments[d]])], [judgments],
                              ["ndcg.1=-1,2=1"])["ndcg_1=-1,2=1"][0]
    assert found["ndcg_1=-1,2=1"].low == pytest.approx(worst) and worst < 0


def test_twenty_thousand_tied_documents_take_the_closed_forms():
    # 20,000 tied documents, half relevant: C(20000, 10000) orders, a number of 6,019 digits.
    docs = [f"d{i:05d}" for i in range(20_000)]
    judgments = {doc: i % 2 for i, doc in enumerate(docs)}
    found = ranking_intervals(docs, [1.0] * 20_000, judgments, ["P.10", "recip_rank", "success.1", "infAP"])
    assert (found["P_10"].low, found["P_10"].expected, found["P_10"].high) == (0.0, 0.5, 1.0)
    assert found["recip_rank"].low == pytest.approx(1 / 10_001)  # the 10,000 non-relevant documents first
    assert found["success_1"].expected == pytest.approx(0.5)
    assert found["infAP"].low is None  # no proof and too many orders: n/a, never a guess
    query = TiedQuery.from_ranking(docs, [1.0] * 20_000, judgments)
    assert str(query.orders()) == "about 10^6,018" and query.orders() > 10**100


def test_order_counts_are_exact_while_small():
    rng = np.random.default_rng(3)
    for _ in range(50):
        labels = rng.integers(-2, 3, int(rng.integers(1, 16)))
        truth = len(set(itertools.permutations(labels.tolist()))) if labels.shape[0] <= 8 else \
            math.factorial(labels.shape[0]) // math.prod(math.factorial(int(c)) for c in
                                                         np.unique(labels, return_counts=True)[1])
        count = count_orders([labels])
        assert count == truth and int(count) == truth and f"{count:,}" == f"{truth:,}"
    huge = count_orders([np.arange(30)])  # 30! has 33 digits
    assert huge.exact is None and huge > 10 ** (EXACT_ORDER_DIGITS - 1) and huge == OrderCount(huge.log10, None)
    assert round(huge.log10, 6) == round(math.log10(math.factorial(30)), 6)
    with pytest.raises(OverflowError):
        int(huge)


def test_every_order_is_scored_only_for_a_number_nothing_else_gives(monkeypatch):
    docs, scores, judgments = ["a", "b", "c", "d"], [1.0, 1.0, 1.0, 0.5], {"a": 2, "b": 1, "d": 1}

    def refuse(self):
        raise AssertionError("every order scored where closed forms and sorting give every number")

    monkeypatch.setattr(TiedQuery, "every_order", refuse)
    found = ranking_intervals(docs, scores, judgments, ["P.2", "map", "ndcg", "recip_rank"])
    assert (found["P_2"].low, found["P_2"].expected, found["P_2"].high) == pytest.approx((0.5, 2 / 3, 1.0))
    with pytest.raises(AssertionError, match="every order scored"):
        ranking_intervals(docs, scores, judgments, ["infAP"])


def test_a_run_s_budget_of_ranks_scored_order_by_order(monkeypatch):
    # Three tied queries whose infAP needs every order; the budget covers the first only.
    monkeypatch.setattr("metrics.ties.intervals.MAX_RUN_CELLS", 30)
    qrels = {q: {"a": 1, "b": 0, "c": -1} for q in ("1", "2", "3")}
    run = {q: {"a": 1.0, "b": 1.0, "c": 1.0, "z": 0.5} for q in qrels}  # 6 orders of 4 documents: 28 ranks
    table = tie_intervals(qrels, run, ["infAP", "P.1"])
    assert not math.isnan(table.low["infAP"][0]) and np.isnan(table.low["infAP"][1:]).all()
    assert table.how[0] == "all 6 orders scored" and "budget of 30 ranks is spent" in table.how[1]
    assert not np.isnan(table.low["P_1"]).any()  # sorted groups need no budget


# ---- worked examples, by hand --------------------------------------------------------------------------------


def test_a_relevant_document_tied_with_two_others_at_the_top():
    # Three documents tie at the top, one relevant (R = 1). trec_eval puts the relevant 'c' last (doc ids
    # descending); a random order puts it first, second or third with chance 1/3 each.
    found = ranking_intervals(["c", "b", "a"], [1.0, 1.0, 1.0], {"a": 1, "b": 0}, ["recip_rank", "P.1", "map"])
    assert found["recip_rank"].expected == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert (found["recip_rank"].low, found["recip_rank"].high) == (1 / 3, 1.0)
    assert found["P_1"].expected == pytest.approx(1 / 3)
    assert found["map"].expected == found["recip_rank"].expected  # R = 1: AP is RR


def test_the_mean_line_aggregates_lows_highs_and_expectations():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"x": 1}}
    run = {"1": {"a": 0.5, "b": 0.5}, "2": {"x": 0.9, "y": 0.1}}
    table = tie_intervals(qrels, run, ["P.1", "num_rel_ret", "gm_map"])
    means = table.means()
    assert (means["P_1"].low, means["P_1"].high, means["P_1"].expected) == (0.5, 1.0, 0.75)
    assert means["num_rel_ret"].expected == 2.0  # a count: summed
    assert means["gm_map"].expected is None  # no expectation of a geometric mean
    assert table.changed("P_1") == ["1"] and table.orders == [2, 1]


def test_a_long_tie_uses_closed_forms_and_sorted_groups():
    # 12 documents tied, four each of grades 2, 1 and 0: 12! / (4! 4! 4!) = 34,650 distinct rankings, too many to
    # score one by one.
    docs = [f"d{i:02d}" for i in range(12)]
    judgments = {doc: [2, 1, 0][i % 3] for i, doc in enumerate(docs)}
    found = ranking_intervals(docs, [1.0] * 12, judgments, ["P.5", "infAP", "ndcg_cut.5"])
    assert found["P_5"].expected == pytest.approx(8 / 12)  # 8 of 12 relevant (grades 1 and 2)
    assert (found["P_5"].low, found["P_5"].high) == (0.2, 1.0)  # the four non-relevant first, or none
    assert found["infAP"].low is None and found["infAP"].expected is None  # neither proven nor closed


def test_values_are_trec_eval_s():
    rng = np.random.default_rng(7)
    qrels, run = {}, {}
    for q in range(5):
        docs, scores, judgments = random_query(rng)
        qrels[str(q)], run[str(q)] = judgments or {"z": 0}, dict(zip(docs, scores))
    table = tie_intervals(qrels, run, MEASURE_SPECS)
    reference = evaluate(qrels, run, MEASURE_SPECS)
    for i, qid in enumerate(table.qids):
        for key, column in table.values.items():
            assert column[i] == pytest.approx(reference[qid][key], abs=1e-12), (qid, key)


def test_multiset_permutations_counts():
    assert len(list(multiset_permutations([1, 1, 0, 2]))) == 12
    assert compared_scores(np.array([0.1, 0.1 + 1e-9])).tolist()[0] == compared_scores(np.array([0.1 + 1e-9]))[0]


def test_placeholder_rankings_are_refused():
    with pytest.raises(InputError, match="placeholder"):
        tie_intervals({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["P.1"], missing_ranking="placeholder")


# ---- python -m metrics --ties interval ------------------------------------------------------------------------

TIED_QRELS = "q1 0 a 1\nq1 0 b 0\nq2 0 x 1\n"
TIED_RUN = "q1 Q0 a 1 0.5 t\nq1 Q0 b 2 0.5 t\nq2 Q0 x 1 0.9 t\nq2 Q0 y 2 0.1 t\n"


def _cli(tmp_path, *args, run=TIED_RUN):
    (tmp_path / "qrels").write_text(TIED_QRELS)
    (tmp_path / "run").write_text(run)
    out, err = io.StringIO(), io.StringIO()
    status = main([*args, str(tmp_path / "qrels"), str(tmp_path / "run")], out, err)
    return status, out.getvalue(), err.getvalue()


def test_ties_interval_prints_three_lines_after_each_value(tmp_path):
    # q1: a (relevant) and b tie; trec_eval puts b first (doc ids descending), so P@1 = 0; a random order gives 1/2.
    status, out, err = _cli(tmp_path, "-q", "--ties", "interval", "-m", "P.1", "-m", "num_rel_ret", "-m", "gm_map")
    assert status == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    as_text = [(name.strip(), qid, value) for name, qid, value in rows]
    assert as_text[:8] == [  # trec_eval's order of the measures
        ("num_rel_ret", "q1", "1"), ("num_rel_ret:tie_low", "q1", "1"), ("num_rel_ret:tie_expected", "q1", "1"),
        ("num_rel_ret:tie_high", "q1", "1"),
        ("P_1", "q1", "0.0000"), ("P_1:tie_low", "q1", "0.0000"), ("P_1:tie_expected", "q1", "0.5000"),
        ("P_1:tie_high", "q1", "1.0000"),
    ]
    assert ("P_1:tie_expected", "all", "0.7500") in as_text  # (0.5 + 1) / 2
    assert ("gm_map:tie_expected", "all", "n/a") in as_text  # no expectation of a geometric mean
    assert ("gm_map:tie_low", "all", f"{math.sqrt(0.5):6.4f}") in as_text  # exp(mean(log(1/2), log 1))


def test_without_ties_the_output_is_unchanged(tmp_path):
    _, plain, _ = _cli(tmp_path, "-q", "-m", "P.1")
    _, tied, _ = _cli(tmp_path, "-q", "--ties", "interval", "-m", "P.1")
    assert [line for line in tied.splitlines() if ":tie_" not in line] == plain.splitlines()


def test_ties_refuses_standard_input_and_unknown_kinds(tmp_path):
    (tmp_path / "qrels").write_text(TIED_QRELS)
    err = io.StringIO()
    assert main(["--ties", "interval", str(tmp_path / "qrels"), "-"], io.StringIO(), err) == 2
    assert err.getvalue() == "python -m metrics: --ties reads the run a second time: give RUN as a file, not '-'\n"
    status, _, err_text = _cli(tmp_path, "--ties", "average")
    assert status == 2 and "interval" in err_text and "Traceback" not in err_text


def test_a_long_ranking_with_few_orders_still_keeps_its_batch_bounded(monkeypatch):
    # 6 orders of a 4-document ranking make 7 x 4 ranks; with a cap of 20 they are not scored one by one.
    monkeypatch.setattr("metrics.ties.intervals.MAX_CELLS", 20)
    docs, scores, judgments = ["a", "b", "c", "d"], [1.0, 1.0, 1.0, 0.5], {"a": 2, "b": 1, "d": 1}
    found, orders, how = query_intervals(TiedQuery.from_ranking(docs, scores, judgments), as_measures(["P.2", "infAP"]),
                                         Conventions())
    assert orders == 6 and how.endswith("extremes by sorting each tie group, expectation in closed form")
    assert found["P_2"][1:] == pytest.approx((0.5, 1.0, 2 / 3))  # (low, high, expected): 2 relevant of 3 tied
    assert all(math.isnan(x) for x in found["infAP"][1:])


def test_a_run_is_scored_in_batches_with_the_numbers_of_each_query_alone(monkeypatch):
    # tie_table scores the queries without ties together, and those with too many orders together (three rows
    # each, their tie-averaged gains in one more batch): each query's numbers are those it has alone.
    monkeypatch.setattr("metrics.ties.intervals.MAX_ORDERS", 3)
    rng = np.random.default_rng(2026)
    cases = [random_query(rng) for _ in range(12)]
    queries = [TiedQuery.from_ranking(docs, scores, judgments) for docs, scores, judgments in cases]
    measures = as_measures(["P.3", "map", "ndcg_cut.3", "rbp", "recip_rank", "infAP", "unj.2"])
    table = tie_table([f"q{i:02d}" for i in range(12)], queries, measures, Conventions())
    assert {1, 2} & set(table.orders) and max(table.orders) > 3  # all three paths taken
    for i, query in enumerate(queries):
        alone, orders, _ = query_intervals(query, measures, Conventions())
        assert table.orders[i] == orders
        for m in measures:
            got = [table.values[m.key][i], table.low[m.key][i], table.high[m.key][i], table.expected[m.key][i]]
            assert np.allclose(got, alone[m.key], equal_nan=True, rtol=0, atol=1e-12), (i, m.key)
