"""Comparing two runs: per-query deltas, wins/ties/losses, and the paired tests checked against scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest

import metrics
from metrics.compare import (
    compare_runs,
    compare_values,
    paired_t_test,
    randomisation_test,
    regularized_incomplete_beta,
    student_t_two_sided_p,
)

QRELS = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}, "q4": {"d4": 1}}
RUN_A = {"q1": {"d1": 1.0, "x": 0.5}, "q2": {"x": 1.0, "d2": 0.5}, "q3": {"x": 1.0}, "q4": {"d4": 1.0}}
RUN_B = {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}, "q3": {"x": 1.0, "y": 0.9, "d3": 0.8}, "q5": {"d5": 1.0}}


@pytest.fixture(scope="module", autouse=True)
def scipy_stats():
    """scipy.stats, or every test here skipped without it; imported by the first test that runs here, not at
    collection, where every pytest-xdist worker would pay for it."""
    return pytest.importorskip("scipy.stats")


def test_deltas_are_b_minus_a_on_the_judged_queries_both_runs_answer():
    comparison = compare_runs(QRELS, RUN_A, RUN_B, "recip_rank")
    assert comparison.qids == ("q1", "q2", "q3")
    assert [(row.qid, row.a, row.b, row.delta) for row in comparison.rows()] == [
        ("q1", 1.0, 1.0, 0.0), ("q2", 0.5, 1.0, 0.5), ("q3", 0.0, pytest.approx(1 / 3), pytest.approx(1 / 3))]
    assert (comparison.wins, comparison.ties, comparison.losses) == (2, 1, 0)


def test_queries_only_one_run_answers_are_reported_not_dropped_silently():
    comparison = compare_runs(QRELS, RUN_A, RUN_B, "recip_rank")
    assert comparison.only_in_a == ("q4",) and comparison.only_in_b == ()
    assert comparison.not_judged == ("q5",)


def test_missing_queries_zero_compares_every_judged_query():
    comparison = compare_runs(QRELS, RUN_A, RUN_B, "recip_rank",
                              conventions=metrics.Conventions(missing_queries="zero"))
    assert comparison.qids == ("q1", "q2", "q3", "q4")
    assert comparison.rows()[-1].delta == -1.0 and comparison.losses == 1


def test_the_chart_data_sorts_queries_by_delta_largest_gain_first():
    comparison = compare_runs(QRELS, RUN_A, RUN_B, "recip_rank")
    assert [row.qid for row in comparison.sorted_deltas()] == ["q2", "q3", "q1"]


def test_means_follow_the_compared_queries():
    comparison = compare_runs(QRELS, RUN_A, RUN_B, "P@1")
    assert comparison.mean_a == pytest.approx(1 / 3) and comparison.mean_b == pytest.approx(2 / 3)
    assert comparison.mean_delta == pytest.approx(1 / 3)


def test_runs_without_a_common_judged_query_are_an_input_error():
    with pytest.raises(metrics.InputError, match="no judged query in common"):
        compare_runs(QRELS, {"q1": {"d1": 1.0}}, {"q2": {"d2": 1.0}}, "P@1")


def test_a_count_cannot_be_compared_as_a_score():
    with pytest.raises(ValueError, match="count"):
        compare_runs(QRELS, RUN_A, RUN_B, "num_rel_ret")


# ---- the paired t-test against scipy --------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 5, 10, 50, 500, 5000])
def test_paired_t_test_agrees_with_scipy_ttest_rel(n, scipy_stats):
    rng = np.random.default_rng(n)
    a = rng.random(n)
    b = np.clip(a + rng.normal(0.02, 0.1, n), 0, 1)
    ours = paired_t_test(a, b)
    theirs = scipy_stats.ttest_rel(b, a)
    assert ours.statistic == pytest.approx(theirs.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(theirs.pvalue, rel=1e-9)
    assert ours.degrees_of_freedom == n - 1


@pytest.mark.parametrize("t", [1e-6, 0.001, 0.3, 1.0, 2.5, 5.0, 40.0])
@pytest.mark.parametrize("df", [1, 2, 3, 7, 30, 1000, 7000])
def test_student_t_tail_agrees_with_scipy(t, df, scipy_stats):
    expected = 2 * scipy_stats.t.sf(t, df)
    assert student_t_two_sided_p(t, df) == pytest.approx(expected, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize(("a", "b", "x"), [(0.5, 0.5, 0.3), (3.0, 0.5, 0.9), (250.0, 0.5, 0.999), (2.0, 7.0, 0.01)])
def test_regularized_incomplete_beta_agrees_with_scipy(a, b, x):
    special = pytest.importorskip("scipy.special")
    assert regularized_incomplete_beta(a, b, x) == pytest.approx(special.betainc(a, b, x), rel=1e-12)


@pytest.mark.filterwarnings("ignore:Precision loss occurred:RuntimeWarning")
def test_equal_nonzero_deltas_give_infinite_t_and_p_zero_as_scipy_does(scipy_stats):
    ours = paired_t_test(np.array([1.0, 2.0, 3.0]), np.array([2.0, 3.0, 4.0]))
    theirs = scipy_stats.ttest_rel([2.0, 3.0, 4.0], [1.0, 2.0, 3.0])
    assert ours.statistic == theirs.statistic == math.inf and ours.p_value == theirs.pvalue == 0.0


def test_identical_runs_give_nan_t_as_scipy_does_and_p_one_by_randomisation():
    values = np.array([0.1, 0.5, 0.9])
    assert math.isnan(paired_t_test(values, values).p_value)
    assert randomisation_test(values, values).p_value == 1.0


def test_a_single_query_has_no_t_test():
    assert math.isnan(paired_t_test(np.array([0.2]), np.array([0.4])).p_value)


# ---- the randomisation test against scipy ---------------------------------------------------------


def _scipy_sign_flip(scipy_stats, a, b, permutations, seed):
    return scipy_stats.permutation_test(
        (b, a), lambda x, y, axis: np.mean(x - y, axis=axis), permutation_type="samples",
        n_resamples=permutations, vectorized=True, alternative="two-sided", random_state=seed).pvalue


@pytest.mark.parametrize("n", [3, 6, 10, 12])
def test_with_few_queries_every_sign_vector_is_enumerated_and_p_equals_scipys_exact_p(n, scipy_stats):
    rng = np.random.default_rng(100 + n)
    a = rng.random(n)
    b = a + rng.normal(0.05, 0.1, n)
    ours = randomisation_test(a, b, permutations=10_000)
    assert ours.exact and ours.permutations == 2**n
    assert ours.p_value == pytest.approx(_scipy_sign_flip(scipy_stats, a, b, 10_000, 0), rel=1e-12)


def test_exact_enumeration_counts_sign_vectors_tied_with_the_observed_sum():
    # deltas 1, 1: sums 2, 0, 0, -2; |sum| >= 2 for two of four.
    assert randomisation_test(np.zeros(2), np.ones(2)).p_value == 0.5


def test_with_many_queries_the_sampled_p_value_agrees_with_scipy_within_monte_carlo_error(scipy_stats):
    rng = np.random.default_rng(7)
    a = rng.random(60)
    b = np.clip(a + rng.normal(0.03, 0.12, 60), 0, 1)
    permutations = 20_000
    ours = randomisation_test(a, b, permutations=permutations, seed=1)
    theirs = _scipy_sign_flip(scipy_stats, a, b, permutations, 2)
    assert not ours.exact
    spread = math.sqrt(theirs * (1 - theirs) / permutations) * 2
    assert abs(ours.p_value - theirs) < 4 * spread + 1e-4


def test_the_sampled_p_value_counts_the_observed_labelling_and_is_never_zero():
    rng = np.random.default_rng(3)
    a = rng.random(200)
    result = randomisation_test(a, a + 0.5, permutations=999)
    assert result.p_value == 1 / 1000


def test_the_randomisation_test_is_reproducible_by_seed():
    rng = np.random.default_rng(11)
    a, b = rng.random(40), rng.random(40)
    first = randomisation_test(a, b, permutations=2000, seed=5).p_value
    assert randomisation_test(a, b, permutations=2000, seed=5).p_value == first
    assert len({randomisation_test(a, b, permutations=2000, seed=s).p_value for s in range(5)}) > 1


def test_the_randomisation_and_t_tests_agree_roughly_on_a_clear_difference():
    rng = np.random.default_rng(2)
    a = rng.random(80)
    b = np.clip(a + 0.1 + rng.normal(0, 0.05, 80), 0, 1.5)
    comparison = compare_values(dict(zip(map(str, range(80)), a)), dict(zip(map(str, range(80)), b)),
                                permutations=2000)
    assert comparison.t_test.p_value < 1e-6 and comparison.randomisation.p_value == 1 / 2001


@pytest.mark.parametrize("permutations", [0, -5, 2.5, True])
def test_the_number_of_permutations_has_to_be_a_positive_integer(permutations):
    with pytest.raises(ValueError, match="permutations"):
        randomisation_test(np.zeros(3), np.ones(3), permutations=permutations)
