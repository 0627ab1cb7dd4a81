"""Bootstrap intervals in memory linear in queries, equal to scipy's; the randomisation test exact up to 20 queries;
comparisons over fewer than 10 queries say so."""

from __future__ import annotations

import io
import itertools
import tracemalloc

import numpy as np
import pytest

from metrics.compare import (
    bootstrap_interval,
    compare_values,
    compare_values_many,
    intervals,
    randomisation_test,
    report_table,
)
from metrics.compare.__main__ import main as compare_main
from metrics.compare.intervals import FEW_QUERIES, acceleration
from metrics.compare.pairs import EXACT_MAX_QUERIES

# scipy.stats is imported in the tests that use it, not at collection, where every pytest-xdist worker
# would pay for it (scipy.stats and statsmodels: about 2 s of CPU per worker).

#: Ours and scipy's draw the same resamples and take the same means; the interval ends may differ in the last bits
#: only (the acceleration is summed in another order, the quantile computed by numpy instead of scipy).
SCIPY_TOLERANCE = 1e-12


def per_query_samples():
    """Per-query scores as comparisons meet them: a few to many queries, skewed, rounded (ties), and deltas."""
    rng = np.random.default_rng(20)
    yield "two queries", np.array([0.25, 0.75])
    yield "three queries", np.array([0.1, 0.5, 0.55])
    yield "seven skewed", rng.exponential(0.2, 7)
    yield "forty in tenths", np.round(rng.uniform(0, 1, 40), 1)
    yield "sixty deltas", rng.normal(0.02, 0.1, 60)
    yield "mostly zero", np.concatenate([np.zeros(45), rng.uniform(0, 1, 5)])


@pytest.mark.parametrize("method, scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
@pytest.mark.parametrize("name, values", list(per_query_samples()), ids=lambda x: x if isinstance(x, str) else "")
def test_intervals_equal_scipys_with_the_same_seed_and_resamples(method, scipy_method, name, values):
    import scipy.stats

    for seed, resamples in ((0, 999), (7, 2000)):
        ours = bootstrap_interval(values, method=method, resamples=resamples, seed=seed)
        theirs = scipy.stats.bootstrap((values,), np.mean, n_resamples=resamples, method=scipy_method,
                                       vectorized=True, rng=np.random.default_rng(seed)).confidence_interval
        assert abs(ours.low - theirs.low) <= SCIPY_TOLERANCE and abs(ours.high - theirs.high) <= SCIPY_TOLERANCE, name


def test_drawing_the_resamples_a_few_rows_at_a_time_gives_the_same_interval(monkeypatch):
    values = np.random.default_rng(4).exponential(1.0, 33)
    whole = bootstrap_interval(values, resamples=1000, seed=3)
    monkeypatch.setattr(intervals, "RESAMPLE_BLOCK_CELLS", 100)  # 3 rows of 33 queries per block
    assert bootstrap_interval(values, resamples=1000, seed=3) == whole


def test_the_acceleration_from_leave_one_out_means_is_the_jackknifes():
    values = np.random.default_rng(5).exponential(1.0, 25)
    n = values.size
    leave_one_out = np.array([np.delete(values, i).mean() for i in range(n)])  # the n x (n - 1) way, on 25 values
    u = (n - 1) * (leave_one_out.mean() - leave_one_out)
    jackknife = (u ** 3).sum() / n ** 3 / (6 * ((u ** 2).sum() / n ** 2) ** 1.5)
    assert acceleration(values) == pytest.approx(jackknife, rel=1e-10)


def test_memory_grows_with_queries_not_with_queries_squared():
    # 5,000 queries: the n x (n - 1) jackknife held 25 million values (200 MB of indices alone); 200 resamples of
    # 5,000 queries are 1 million cells (8 MB of indices, 8 MB of values).
    values = np.random.default_rng(6).uniform(0, 1, 5_000)
    tracemalloc.start()
    try:
        bootstrap_interval(values, method="bca", resamples=200)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, f"{peak / 2**20:.0f} MiB"


# ---- the randomisation test ------------------------------------------------------------------------------------


def brute_force_p(deltas: np.ndarray) -> float:
    """Every sign vector, one by one: the share with |sum| at least the observed one (ties within 1e-9)."""
    observed = abs(deltas.sum())
    tolerance = 1e-9 * np.abs(deltas).sum()
    extreme = sum(abs(np.dot(signs, deltas)) >= observed - tolerance
                  for signs in itertools.product((1.0, -1.0), repeat=deltas.size))
    return extreme / 2 ** deltas.size


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8, 11, 14])
def test_up_to_twenty_queries_the_randomisation_test_counts_every_sign_flip(n):
    rng = np.random.default_rng(n)
    a = rng.uniform(0, 1, n)
    b = np.round(a + rng.normal(0.05, 0.1, n), 2)  # rounded: tied |deltas| make sums that equal the observed one
    result = randomisation_test(a, b, permutations=100)  # fewer permutations than sign vectors: exact anyway
    assert result.exact and result.permutations == 2 ** n
    assert result.p_value == brute_force_p(b - a)


def test_twenty_queries_are_exact_and_twenty_one_are_sampled():
    rng = np.random.default_rng(9)
    deltas = rng.normal(0.03, 0.1, 21)
    exact = randomisation_test(np.zeros(20), deltas[:20])
    assert EXACT_MAX_QUERIES == 20 and exact.exact and exact.permutations == 2 ** 20
    signs = 1.0 - 2.0 * ((np.arange(2 ** 20)[:, None] >> np.arange(20)) & 1)  # every sign vector at once
    sums = np.abs(signs @ deltas[:20])
    observed = abs(deltas[:20].sum())
    assert exact.p_value == np.count_nonzero(sums >= observed - 1e-9 * np.abs(deltas[:20]).sum()) / 2 ** 20
    assert not randomisation_test(np.zeros(21), deltas).exact


# ---- small samples ---------------------------------------------------------------------------------------------


def three_queries():
    """Run B ahead on every query: the interval excludes 0, while the exact test over 2^3 sign flips cannot say much."""
    return {"P@10": {"A": {"q1": 0.1, "q2": 0.3, "q3": 0.2}, "B": {"q1": 0.3, "q2": 0.4, "q3": 0.5}}}


def test_a_comparison_over_three_queries_carries_a_warning_on_every_result():
    comparison = compare_values_many(three_queries(), test="randomisation", resamples=1000)
    pair = comparison.pairs[0]
    assert pair.interval.low > 0 and pair.p_value == 0.25  # 2 of 8 sign vectors are as extreme
    assert "Only 3 queries compared" in comparison.warning
    assert pair.interval.warning == comparison.warning
    assert all(mean.interval.warning == comparison.warning for mean in comparison.means)
    assert "Warning: Only 3 queries" in report_table(comparison, fmt="markdown")
    two = compare_values(three_queries()["P@10"]["A"], three_queries()["P@10"]["B"])
    assert two.warning == comparison.warning and two.randomisation.warning == comparison.warning


def test_ten_queries_carry_no_warning():
    values = {"P@10": {"A": {f"q{i}": i / 10 for i in range(FEW_QUERIES)},
                       "B": {f"q{i}": (i + 1) / 11 for i in range(FEW_QUERIES)}}}
    comparison = compare_values_many(values, resamples=200)
    assert comparison.warning is None and comparison.pairs[0].interval.warning is None


def test_the_command_line_prints_the_warning_under_the_table(tmp_path):
    (tmp_path / "qrels").write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n")
    (tmp_path / "a").write_text("q1 Q0 d1 1 1 a\nq2 Q0 x 1 1 a\nq3 Q0 x 1 1 a\n")
    (tmp_path / "b").write_text("q1 Q0 d1 1 1 b\nq2 Q0 d2 1 1 b\nq3 Q0 d3 1 1 b\n")
    out, err = io.StringIO(), io.StringIO()
    status = compare_main([str(tmp_path / name) for name in ("qrels", "a", "b")] + ["-m", "P.1"], out=out, err=err)
    assert status == 0 and err.getvalue() == ""
    assert "Warning: Only 3 queries compared" in out.getvalue().splitlines()[-1]
