"""What-if analysis: every perturbed ranking scores exactly as the engine scores that ranking written out."""

from __future__ import annotations

import itertools
import math
import tracemalloc

import numpy as np
import pytest

import metrics
from metrics.whatif import (
    SWAP_WINDOW,
    Change,
    MetricSet,
    Scenario,
    callouts,
    change_sentence,
    chart_data,
    compare_to_baseline,
    current_values,
    metric_curves,
    move_preview,
    removal_deltas,
    swap_deltas,
    value_range,
)

PASTRY_RANKING = ["donut", "bagel", "muffin", "croissant"]
PASTRY_JUDGMENTS = {"donut": 1, "muffin": 1, "scone": 1}
P4, RECALL4, RR, AP4, NDCG4, SUCCESS4 = range(6)


@pytest.fixture
def pastry() -> Scenario:
    return Scenario(PASTRY_RANKING, PASTRY_JUDGMENTS, k=4)


def engine_values(ranking, judgments, k, conventions=metrics.TREC_EVAL) -> np.ndarray:
    """The six metrics of one explicit ranking through the public engine API."""
    metric_set = MetricSet(k)
    values = metrics.evaluate_rankings([list(ranking)], [judgments], list(metric_set.measures), conventions)
    return np.array([column[0] for column in values.values()])


# ---- the metric set ---------------------------------------------------------------------------------------------


def test_metric_set_names_the_six_explorer_metrics_at_k():
    metric_set = MetricSet(4)
    assert metric_set.labels == ("P@4", "Recall@4", "RR", "AP@4", "nDCG@4", "Success@4")
    assert metric_set.measures == ("P.4", "recall.4", "recip_rank", "map_cut.4", "ndcg_cut.4", "success.4")
    assert metric_set.index("AP") == metric_set.index("AP@4") == metric_set.index("map_cut.4") == AP4


@pytest.mark.parametrize("k", [0, -3, 2.5, True, "4"])
def test_metric_set_rejects_a_cut_off_that_is_not_a_positive_integer(k):
    with pytest.raises(ValueError, match="`k` has to be a positive integer"):
        MetricSet(k)


def test_current_values_are_the_worked_example(pastry):
    values = current_values(pastry)
    assert values == pytest.approx([0.5, 2 / 3, 1.0, (1 + 2 / 3) / 3, 0.7039180890341347, 1.0])


# ---- 1. changing k ----------------------------------------------------------------------------------------------


def test_precision_falls_as_noise_enters_while_recall_only_rises_and_rr_stays_flat(pastry):
    curves = metric_curves(pastry)
    assert list(curves.ks) == [1, 2, 3, 4]
    assert curves.of("P") == pytest.approx([1, 0.5, 2 / 3, 0.5])
    assert curves.of("Recall") == pytest.approx([1 / 3, 1 / 3, 2 / 3, 2 / 3])
    assert curves.of("RR") == pytest.approx([1, 1, 1, 1])
    assert curves.of("AP") == pytest.approx([1 / 3, 1 / 3, (1 + 2 / 3) / 3, (1 + 2 / 3) / 3])


def test_curves_run_to_k_when_k_is_longer_than_the_list():
    curves = metric_curves(Scenario(PASTRY_RANKING, PASTRY_JUDGMENTS, k=6))
    assert list(curves.ks) == [1, 2, 3, 4, 5, 6]
    assert curves.of("P")[-2:] == pytest.approx([2 / 5, 2 / 6])  # trec_eval divides by k past the list's end


def test_rr_curve_is_zero_until_the_first_relevant_document():
    curves = metric_curves(Scenario(["bagel", "croissant", "muffin", "donut"], PASTRY_JUDGMENTS, k=4))
    assert curves.of("RR") == pytest.approx([0, 0, 1 / 3, 1 / 3])


# ---- 2. reordering ----------------------------------------------------------------------------------------------


def test_swapping_ranks_2_and_3_raises_ap_by_a_ninth_but_not_precision_or_recall(pastry):
    swaps = swap_deltas(pastry)
    assert swaps.of("AP@4")[1, 2] == pytest.approx(1 / 9)
    assert swaps.of("nDCG@4")[1, 2] == pytest.approx(0.7653606369886217 - 0.7039180890341347)
    for metric in ("P@4", "Recall@4"):
        off_diagonal = swaps.of(metric)[~np.eye(4, dtype=bool)]
        assert np.all(off_diagonal == 0), f"{metric} should be flat for every swap inside the top 4"


def test_swap_matrix_is_symmetric_with_nothing_on_the_diagonal(pastry):
    deltas = swap_deltas(pastry).deltas
    assert deltas.shape == (6, 4, 4)
    assert np.isnan(deltas[:, range(4), range(4)]).all()
    assert np.array_equal(np.nan_to_num(deltas), np.nan_to_num(deltas.transpose(0, 2, 1)))


def test_moving_muffin_up_to_rank_2_previews_the_worked_example(pastry):
    preview = move_preview(pastry, doc_index=2, new_rank=2)
    assert preview.ranking_after == ("donut", "muffin", "bagel", "croissant")
    assert preview.before == pytest.approx(current_values(pastry))
    assert preview.after[AP4] == pytest.approx(2 / 3)
    assert round(preview.after[NDCG4], 3) == 0.765
    assert preview.deltas[[P4, RECALL4, RR, SUCCESS4]] == pytest.approx([0, 0, 0, 0])


def test_moving_to_a_rank_outside_the_list_names_the_valid_ranks(pastry):
    with pytest.raises(ValueError, match=r"`new_rank` has to be a rank from 1 to 4 \(the list length\), but got 7"):
        move_preview(pastry, doc_index=0, new_rank=7)
    with pytest.raises(ValueError, match="`doc_index` has to be a position from 0 to 3"):
        move_preview(pastry, doc_index=4, new_rank=1)


# ---- 3. removing items ------------------------------------------------------------------------------------------


def test_removing_the_non_relevant_bagel_lifts_ap_and_removing_donut_costs_rr_half(pastry):
    removals = removal_deltas(pastry)
    assert removals.deltas.shape == (4, 6)
    assert removals.of("AP@4")[1] == pytest.approx(1 / 9)
    assert removals.of("P@4")[1] == 0  # muffin moves up, croissant comes in: still 2 of 4
    assert removals.of("RR")[0] == pytest.approx(-0.5)  # muffin becomes the first hit, at rank 2
    assert np.all(removals.deltas[3] == 0)  # croissant at rank 4 is non-relevant: nothing changes


# ---- 4. range and random baseline -------------------------------------------------------------------------------


def test_range_of_pastry_is_enumerated_over_all_24_orders(pastry):
    ranges = value_range(pastry)
    assert (ranges.method, ranges.orderings, ranges.seed) == ("exact", 24, None)
    orders = [engine_values(order, PASTRY_JUDGMENTS, 4) for order in itertools.permutations(PASTRY_RANKING)]
    assert ranges.minimum == pytest.approx(np.min(orders, axis=0))
    assert ranges.maximum == pytest.approx(np.max(orders, axis=0))
    assert ranges.expected == pytest.approx(np.mean(orders, axis=0))
    # By hand: the first of 2 relevant among 4 is at rank 1, 2, 3 with probability 1/2, 1/3, 1/6.
    assert ranges.expected[RR] == pytest.approx(1 / 2 + 1 / 3 / 2 + 1 / 6 / 3)
    assert ranges.current == pytest.approx(current_values(pastry))


def test_range_beyond_eight_items_is_sampled_with_a_seed_and_exact_at_the_ends():
    ranking = [f"d{i}" for i in range(12)]
    judgments = {"d1": 2, "d5": 1, "d7": 1, "d11": 3, "unretrieved": 1, "d3": 0}
    query = Scenario(ranking, judgments, k=5)
    first, again, other = value_range(query, seed=7), value_range(query, seed=7), value_range(query, seed=8)
    assert (first.method, first.orderings, first.seed) == ("sampled", 1000, 7)
    assert np.array_equal(first.expected, again.expected)
    assert not np.array_equal(first.expected, other.expected)
    best = engine_values([ranking[i] for i in query.best_order()], judgments, 5)
    worst = engine_values([ranking[i] for i in query.worst_order()], judgments, 5)
    assert first.maximum == pytest.approx(best)
    assert first.minimum == pytest.approx(worst)
    # 4 of the 12 items are relevant, so a random order's P@5 is 4/12 on average.
    assert first.standard_error[P4] > 0
    assert abs(first.expected[P4] - 1 / 3) < 4 * first.standard_error[P4]
    assert np.all((first.minimum <= first.expected) & (first.expected <= first.maximum))


# ---- 5. baseline ------------------------------------------------------------------------------------------------


def test_baseline_and_current_are_scored_at_the_current_k(pastry):
    comparison = compare_to_baseline(pastry, ["bagel", "donut", "croissant", "muffin"])
    assert comparison.baseline == pytest.approx(engine_values(["bagel", "donut", "croissant", "muffin"],
                                                              PASTRY_JUDGMENTS, 4))
    assert comparison.current == pytest.approx(current_values(pastry))
    assert comparison.deltas[RR] == pytest.approx(0.5)


def test_a_baseline_keeps_its_own_judgments(pastry):
    comparison = compare_to_baseline(pastry, PASTRY_RANKING, {"donut": 1})
    assert comparison.baseline[RECALL4] == 1.0  # one relevant document, found
    assert comparison.current[RECALL4] == pytest.approx(2 / 3)


# ---- 6. changes as chart customdata ------------------------------------------------------------------------------


def test_changes_apply_to_the_ranking_and_describe_themselves_in_ranks():
    assert Change("swap", 1, 2).apply(PASTRY_RANKING) == ["donut", "muffin", "bagel", "croissant"]
    assert Change("move", 3, 0).apply(PASTRY_RANKING) == ["croissant", "donut", "bagel", "muffin"]
    assert Change("remove", 0).apply(PASTRY_RANKING) == ["bagel", "muffin", "croissant"]
    assert Change("swap", 2, 1).describe(PASTRY_RANKING) == "Swapping ranks 2 and 3 (bagel and muffin)"
    assert Change("move", 2, 1).describe(PASTRY_RANKING) == "Moving muffin from rank 3 to rank 2"
    assert Change("remove", 1).describe(PASTRY_RANKING) == "Removing bagel (rank 2)"


def test_change_round_trips_through_json_customdata():
    for change in (Change("swap", 1, 2), Change("move", 0, 3), Change("remove", 2)):
        assert Change.from_customdata(list(change.customdata)) == change
    assert Change.from_customdata(["swap", 1.0, 2.0]) == Change("swap", 1, 2)


@pytest.mark.parametrize("data", [None, "swap", [], ["shuffle", 1, 2], ["swap", 1], ["remove", -1], ["swap", 1.5, 2]])
def test_customdata_that_is_not_a_change_is_rejected(data):
    with pytest.raises(ValueError, match="customdata"):
        Change.from_customdata(data)


def test_a_change_outside_the_ranking_names_the_valid_positions():
    with pytest.raises(ValueError, match="outside the ranking of 4 items"):
        Change("swap", 1, 9).apply(PASTRY_RANKING)


# ---- 7. callouts ------------------------------------------------------------------------------------------------


def test_callout_for_the_pastry_swap_reads_like_the_issue(pastry):
    swaps = swap_deltas(pastry)
    sentence = change_sentence(Change("swap", 1, 2), swaps.deltas[:, 1, 2], pastry.metrics, pastry.ranking)
    assert sentence == ("Swapping ranks 2 and 3 (bagel and muffin) raises AP@4 (+0.111) and nDCG@4 (+0.061). "
                        "P@4, Recall@4, RR and Success@4 stay the same.")


def test_callouts_are_derived_from_the_chart_data(pastry):
    sentences = callouts(chart_data(pastry))
    assert any(s.startswith("P@k falls") and "k=2 and 4" in s for s in sentences)
    assert any(s.startswith("Recall@k never falls") for s in sentences)
    assert any(s.startswith("RR@k stays at 1.000") for s in sentences)
    assert any("Best single swap for nDCG@4: swapping ranks 2 and 3" in s for s in sentences)
    assert any("lift AP@4 to 0.667 and nDCG@4 to 0.765" in s for s in sentences)
    assert any("exact mean over all 24 orders" in s for s in sentences)


def test_callouts_name_the_baseline_change(pastry):
    baseline = compare_to_baseline(pastry, ["bagel", "donut", "croissant", "muffin"])
    sentence = callouts(chart_data(pastry), baseline)[-1]
    assert sentence.startswith("Compared with the pinned baseline, the current ranking raises")
    assert "RR (+0.500)" in sentence


def test_the_best_swap_is_chosen_by_one_metric_not_by_a_sum_over_six():
    # b is great (3), d fair (1). Summing the gains of six metrics picks swapping ranks 1 and 4 (d into the top 3
    # lifts recall, RR, AP and precision at once); nDCG@3, the primary metric, gains more from b at rank 1.
    query = Scenario(["a", "b", "c", "d", "e"], {"a": 0, "b": 3, "c": 0, "d": 1, "e": 0}, k=3)
    swaps = swap_deltas(query)
    change, deltas = swaps.best()
    assert (change.index, change.target) == (0, 1)
    assert deltas[query.metrics.index("nDCG")] == pytest.approx(np.nanmax(swaps.of("nDCG")))
    by_recall, _ = swaps.best("Recall@3")
    assert (by_recall.index, by_recall.target) == (0, 3)
    lines = callouts(chart_data(query), best_by="Recall")
    assert any(line.startswith("Best single swap for Recall@3: swapping ranks 1 and 4 (a and d) raises")
               for line in lines)


def test_an_already_ideal_order_says_no_swap_helps():
    query = Scenario(["donut", "muffin", "scone", "bagel"], PASTRY_JUDGMENTS, k=4)
    sentences = callouts(chart_data(query))
    assert "No single swap of two ranks raises nDCG@4." in sentences
    assert swap_deltas(query).best() is None


# ---- named edge cases -------------------------------------------------------------------------------------------


def test_empty_ranking_gives_empty_charts_and_zero_metrics():
    query = Scenario([], PASTRY_JUDGMENTS, k=3)
    data = chart_data(query)
    assert data.current == pytest.approx([0] * 6)
    assert data.swaps.deltas.shape == (6, 0, 0)
    assert data.removals.deltas.shape == (0, 6)
    assert list(data.curves.ks) == [1, 2, 3]
    assert data.ranges.method == "exact" and data.ranges.orderings == 1
    assert callouts(data)


def test_single_item_has_no_swaps_and_one_removal():
    data = chart_data(Scenario(["donut"], PASTRY_JUDGMENTS, k=1))
    assert data.swaps.deltas.shape == (6, 1, 1) and np.isnan(data.swaps.deltas).all()
    assert data.removals.deltas[0] == pytest.approx([-1, -1 / 3, -1, -1 / 3, -1, -1])


def test_no_relevant_document_retrieved_keeps_everything_at_zero():
    data = chart_data(Scenario(["bagel", "croissant"], PASTRY_JUDGMENTS, k=2))
    assert np.all(data.current == 0)
    assert np.nansum(np.abs(data.swaps.deltas)) == 0
    assert "RR@k is 0 at every k: no relevant document is retrieved." in callouts(data)


def test_a_document_ranked_twice_is_an_input_error():
    with pytest.raises(metrics.InputError, match="'donut' appears twice"):
        Scenario(["donut", "bagel", "donut"], PASTRY_JUDGMENTS, k=2)


# ---- differential: every what-if row equals the engine on the ranking written out ----------------------------------

CONVENTIONS = [
    metrics.TREC_EVAL,
    metrics.Conventions(depth=5),
    metrics.Conventions(unjudged="removed"),
    metrics.Conventions(unjudged="removed", depth=4),
    metrics.Conventions(ideal_from="retrieved", gain="exponential"),
    metrics.Conventions(relevance_level=2, precision_short_list="retrieved"),
    metrics.Conventions(ap_denominator="min_R_k", gain="binary"),
    metrics.Conventions(ap_denominator="retrieved_relevant"),
]


def random_query(rng: np.random.Generator, max_items: int = 12) -> tuple[list[str], dict[str, int]]:
    n = int(rng.integers(0, max_items + 1))
    pool = [f"doc{i}" for i in range(max_items + 4)]
    ranking = list(rng.choice(pool, size=n, replace=False))
    judged = rng.choice(pool, size=int(rng.integers(1, len(pool))), replace=False)
    judgments = {str(doc): int(rng.choice([-1, 0, 0, 1, 1, 2, 3])) for doc in judged}
    return [str(doc) for doc in ranking], judgments


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: c.describe())
def test_every_swap_removal_move_and_cut_off_matches_the_engine_on_the_written_out_ranking(conventions):
    rng = np.random.default_rng(20240611)
    for _ in range(25):
        ranking, judgments = random_query(rng)
        k = int(rng.integers(1, 8))
        query = Scenario(ranking, judgments, k=k, conventions=conventions)
        current = engine_values(ranking, judgments, k, conventions)
        swaps = swap_deltas(query)
        assert swaps.current == pytest.approx(current, abs=1e-12)
        for i, j in itertools.combinations(range(len(ranking)), 2):
            expected = engine_values(Change("swap", i, j).apply(ranking), judgments, k, conventions) - current
            assert swaps.deltas[:, i, j] == pytest.approx(expected, abs=1e-12), (ranking, judgments, k, i, j)
        removals = removal_deltas(query)
        for i in range(len(ranking)):
            expected = engine_values(Change("remove", i).apply(ranking), judgments, k, conventions) - current
            assert removals.deltas[i] == pytest.approx(expected, abs=1e-12), (ranking, judgments, k, i)
        if ranking:
            doc_index, new_rank = int(rng.integers(len(ranking))), int(rng.integers(1, len(ranking) + 1))
            preview = move_preview(query, doc_index, new_rank)
            assert preview.after == pytest.approx(
                engine_values(list(preview.ranking_after), judgments, k, conventions), abs=1e-12)
        curves = metric_curves(query)
        for c in curves.ks:
            cut = engine_values(ranking, judgments, int(c), conventions)
            rr_at_c = metrics.evaluate_rankings([ranking], [judgments], [f"RR@{c}"], conventions)[f"RR@{c}"][0]
            expected = np.array([cut[0], cut[1], rr_at_c, cut[3], cut[4], cut[5]])
            assert curves.values[:, c - 1] == pytest.approx(expected, abs=1e-12), (ranking, judgments, c)


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: c.describe())
def test_best_and_worst_orders_reach_the_enumerated_extremes(conventions):
    rng = np.random.default_rng(7)
    for _ in range(15):
        ranking, judgments = random_query(rng, max_items=6)
        query = Scenario(ranking, judgments, k=int(rng.integers(1, 6)), conventions=conventions)
        ranges = value_range(query)
        assert ranges.method == "exact" and ranges.orderings == math.factorial(len(ranking))
        best = query.evaluate_orders(np.array([query.best_order()], dtype=np.int64).reshape(1, -1))[0]
        worst = query.evaluate_orders(np.array([query.worst_order()], dtype=np.int64).reshape(1, -1))[0]
        assert best == pytest.approx(ranges.maximum, abs=1e-12)
        assert worst == pytest.approx(ranges.minimum, abs=1e-12)


def test_rr_of_a_first_hit_far_below_k_is_scored_from_the_deeper_ranks():
    ranking = [f"doc{i}" for i in range(20)]
    judgments = {"doc14": 1, "doc17": 2}
    query = Scenario(ranking, judgments, k=3)
    swaps, removals = swap_deltas(query), removal_deltas(query)
    assert swaps.current[RR] == pytest.approx(1 / 15)
    assert swaps.of("RR")[14, 19] == pytest.approx(1 / 18 - 1 / 15)  # the next hit is doc17 at rank 18
    assert swaps.of("RR")[0, 14] == pytest.approx(1 - 1 / 15)
    assert removals.of("RR")[3] == pytest.approx(1 / 14 - 1 / 15)
    assert value_range(query).maximum[RR] == 1.0


# ---- bounded work: chunks, the swap window and lazy chart data ------------------------------------------------------


def written_out(query: Scenario, changes: list[Change]) -> np.ndarray:
    """The six metrics of every changed ranking, written out and scored by the engine in one batch over every
    rank: the naive computation the bounded one must equal, value for value."""
    rankings = [change.apply(query.ranking) for change in changes]
    values = metrics.evaluate_rankings(rankings, [query.judgments] * len(rankings), list(query.metrics.measures),
                                       query.conventions)
    return np.column_stack([values[measure] for measure in values])


def graded_query_with_ties(rng: np.random.Generator, n: int) -> tuple[list[str], dict[str, int]]:
    """Graded judgments (0-3, some unjudged) with many equal grades, and relevant documents deep down."""
    ranking = [f"doc{i:03d}" for i in range(n)]
    judgments = {doc: int(rng.choice([-1, 0, 0, 1, 1, 1, 2, 2, 3])) for doc in rng.choice(ranking, n // 2)}
    if ranking:
        judgments[ranking[-1]] = 2  # a relevant document at the very bottom: uncut RR has to read every rank
    judgments["never-retrieved"] = 3
    return ranking, judgments


@pytest.mark.parametrize("conventions", CONVENTIONS, ids=lambda c: c.describe())
def test_chunked_swaps_and_removals_equal_the_written_out_rankings_scored_in_one_batch(conventions, monkeypatch):
    monkeypatch.setattr("metrics.whatif.scenario.CHUNK_CELLS", 50)  # a few rows per kernel call
    rng = np.random.default_rng(8)
    for n in (1, 2, 7, 23):
        ranking, judgments = graded_query_with_ties(rng, n)
        query = Scenario(ranking, judgments, k=int(rng.integers(1, 9)), conventions=conventions)
        current = written_out(query, [Change("swap", 0, 0)])  # swapping rank 1 with itself: the list as it is
        swaps = swap_deltas(query, window=None)
        pairs = list(itertools.combinations(range(n), 2))
        if pairs:
            expected = written_out(query, [Change("swap", i, j) for i, j in pairs]) - current
            got = np.array([swaps.deltas[:, i, j] for i, j in pairs])
            assert np.array_equal(got, expected), np.abs(got - expected).max()
        removals = removal_deltas(query)
        expected = written_out(query, [Change("remove", i) for i in range(n)]) - current
        assert np.array_equal(removals.deltas, expected), np.abs(removals.deltas - expected).max()


def test_swaps_and_removals_of_a_graded_list_agree_with_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    ranking, judgments = graded_query_with_ties(np.random.default_rng(3), 30)
    query = Scenario(ranking, judgments, k=10)
    evaluator = pytrec_eval.RelevanceEvaluator({"q": dict(judgments)}, set(query.metrics.measures))
    keys = [measure.replace(".", "_") for measure in query.metrics.measures]

    def reference(order: list[str]) -> np.ndarray:
        scores = {doc: float(len(order) - rank) for rank, doc in enumerate(order)}  # no ties left to break
        values = evaluator.evaluate({"q": scores})["q"]
        return np.array([values[key] for key in keys])

    swaps, removals = swap_deltas(query, window=None), removal_deltas(query)
    current = reference(ranking)
    for i, j in itertools.combinations(range(len(ranking)), 2):
        after = reference(Change("swap", i, j).apply(ranking))
        assert swaps.current + swaps.deltas[:, i, j] == pytest.approx(after, abs=1e-12), (i, j)
    for i in range(len(ranking)):
        after = reference(Change("remove", i).apply(ranking))
        assert removals.current + removals.deltas[i] == pytest.approx(after, abs=1e-12), i
    assert swaps.current == pytest.approx(current, abs=1e-12)


def test_swaps_of_a_long_list_cover_its_top_window_and_say_so():
    ranking = [f"doc{i}" for i in range(100)]
    query = Scenario(ranking, {"doc0": 1, "doc60": 1}, k=10)
    swaps = swap_deltas(query)
    assert swaps.window == SWAP_WINDOW and swaps.windowed
    assert swaps.deltas.shape == (6, SWAP_WINDOW, SWAP_WINDOW)
    full = swap_deltas(query, window=None)
    assert np.array_equal(swaps.deltas, full.deltas[:, :SWAP_WINDOW, :SWAP_WINDOW], equal_nan=True)
    short = swap_deltas(Scenario(PASTRY_RANKING, PASTRY_JUDGMENTS, k=4))
    assert short.window == 4 and not short.windowed


def test_the_best_swap_callout_of_a_long_list_names_the_window():
    ranking = [f"doc{i}" for i in range(100)]
    lines = callouts(chart_data(Scenario(ranking, {"doc5": 1, "doc90": 1}, k=10)))
    assert any(line.startswith(f"Best single swap in the top {SWAP_WINDOW} for nDCG@10: swapping ranks 1 and 6")
               for line in lines)
    lines = callouts(chart_data(Scenario(ranking, {"doc0": 1, "doc90": 1}, k=10)))
    assert f"No single swap within the top {SWAP_WINDOW} ranks raises nDCG@10." in lines


def test_chart_data_computes_each_analysis_when_it_is_first_read(pastry):
    data = chart_data(pastry)
    assert data.computed() == ()
    assert data.curves.of("P")[0] == 1.0
    assert data.computed() == ("curves",)
    assert data.swaps is data.swaps  # kept, not recomputed
    assert data.computed() == ("curves", "swaps")


def traced_peak_mb(function) -> float:
    tracemalloc.start()
    try:
        function()
        return tracemalloc.get_traced_memory()[1] / 1e6
    finally:
        tracemalloc.stop()


def test_every_what_if_analysis_of_a_1000_item_list_with_its_only_relevant_document_last_stays_small():
    # The link of issue 8: before, the swaps alone asked for more than 7 GB.
    ranking = [f"doc{i:04d}" for i in range(1000)]
    query = Scenario(ranking, {"doc0999": 1}, k=10)

    def everything() -> None:
        data = chart_data(query)
        callouts(data, compare_to_baseline(query, ranking[::-1]))
        move_preview(query, 999, 1)
        assert data.computed() == ("curves", "swaps", "removals", "ranges")
        assert data.removals.of("RR")[0] == pytest.approx(1 / 999 - 1 / 1000)
        assert data.curves.ks[-1] == 1000

    assert traced_peak_mb(everything) < 100


def test_all_swaps_of_a_long_list_are_scored_in_chunks_of_bounded_size():
    ranking = [f"doc{i:03d}" for i in range(200)]
    query = Scenario(ranking, {"doc199": 1, "doc150": 2}, k=5)
    swaps = []
    # 19,900 swapped rankings of 200 items: four million positions at once before; a chunk at a time now.
    assert traced_peak_mb(lambda: swaps.append(swap_deltas(query, window=None))) < 60
    assert swaps[0].of("RR")[0, 150] == pytest.approx(1 - 1 / 151)


def test_a_k_of_10000_on_a_1000_item_list_draws_every_k_to_1000_then_200_more_points():
    ranking = [f"doc{i:04d}" for i in range(1000)]
    query = Scenario(ranking, {"doc0999": 1, "doc0004": 2, "never-retrieved": 1}, k=10_000)
    curves = metric_curves(query)  # 60,000 measures took 30 s before
    assert list(curves.ks[:1000]) == list(range(1, 1001)) and curves.ks[-1] == 10_000
    assert len(curves.ks) == 1200 and np.all(np.diff(curves.ks) > 0)
    at_k = int(np.searchsorted(curves.ks, 10_000))
    assert curves.values[[P4, RECALL4, AP4, NDCG4, SUCCESS4], at_k] == pytest.approx(
        current_values(query)[[P4, RECALL4, AP4, NDCG4, SUCCESS4]], abs=1e-12)
    c = int(curves.ks[1100])
    assert curves.of("P")[1100] == pytest.approx(engine_values(ranking, query.judgments, c)[P4], abs=1e-12)
