"""Compare two runs query by query: deltas, wins/ties/losses, a paired t-test and a paired randomisation test.

Run B is compared with run A: every delta is ``B - A``, a *win* is a query where B scores higher. The queries
compared are the judged queries both runs answer (trec_eval's rule, ``missing_queries="skip"``); with
``missing_queries="zero"`` (trec_eval -c) every judged query counts and a run that lacks one scores 0 on it.
Queries only one run answers are reported, never silently dropped.

Both tests are two-sided and pair the runs by query. Nothing here needs scipy; the tests check it against
``scipy.stats.ttest_rel`` and ``scipy.stats.permutation_test``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..conventions import Conventions
from ..engine import is_count
from ..evaluate import evaluate
from ..model import InputError, Qrels, Run
from ..names import Measure, parse_one_measure
from .intervals import few_queries_warning

#: Random sign vectors at most (enough for p-values near 10^-6); beyond, the test would only cost time and memory.
MAX_PERMUTATIONS = 1_000_000
#: Up to this many queries every one of the 2^n sign vectors is counted (exact p), whatever ``permutations`` says:
#: two halves of at most 2^10 sums each, so it costs less than sampling.
EXACT_MAX_QUERIES = 20
#: Random signs drawn at a time by the sampled randomisation test.
SIGNS_PER_CHUNK = 1 << 17

#: Deltas this close to 0 are ties: equal scores summed in different orders can differ in the last bits.
TIE_TOLERANCE = 1e-12


@dataclass(frozen=True, slots=True)
class TTest:
    r"""Paired t-test on the deltas d_i = b_i - a_i: t = \bar d / (s_d / \sqrt n) with n - 1 degrees of freedom.

    p_value is two-sided, 2 P(T_{n-1} >= |t|). With fewer than 2 queries, or all deltas 0, t and p are NaN (as
    scipy reports); with all deltas equal and non-zero, t is ±inf and p is 0.
    """

    statistic: float
    p_value: float
    degrees_of_freedom: int
    mean_difference: float


@dataclass(frozen=True, slots=True)
class RandomisationTest:
    r"""Paired randomisation (sign-flip) test of the mean delta: under H0 each delta's sign is a coin flip.

    p_value = (c + 1) / (N + 1), where c counts the N random sign vectors s with |\sum s_i d_i| >= |\sum d_i|;
    the +1 counts the observed labelling itself (Phipson & Smyth 2010), so p is never 0 and the test stays
    valid. With at most EXACT_MAX_QUERIES queries every sign vector is counted instead (``exact``, whatever N)
    and p = c / 2^n. ``warning`` is a sentence when the test rests on fewer than 10 queries, else None.
    """

    p_value: float
    permutations: int
    seed: int
    exact: bool
    mean_difference: float
    warning: str | None = None


@dataclass(frozen=True, slots=True)
class QueryDelta:
    qid: str
    a: float
    b: float
    delta: float


@dataclass(frozen=True, slots=True)
class Comparison:
    """Run B against run A on one measure.

    qids, values_a, values_b, deltas (B - A): the compared queries in trec_eval's order (sorted ids). wins,
    ties, losses: queries where B is higher, within TIE_TOLERANCE, lower. only_in_a / only_in_b: judged queries
    one run answers and the other does not (left out unless missing_queries="zero"). not_judged: queries of
    either run without judgments (never evaluated, as in trec_eval).
    """

    measure: str
    conventions: Conventions
    qids: tuple[str, ...]
    values_a: np.ndarray
    values_b: np.ndarray
    deltas: np.ndarray
    wins: int
    ties: int
    losses: int
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]
    not_judged: tuple[str, ...]
    t_test: TTest
    randomisation: RandomisationTest

    @property
    def mean_a(self) -> float:
        return _mean(self.values_a)

    @property
    def mean_b(self) -> float:
        return _mean(self.values_b)

    @property
    def mean_delta(self) -> float:
        return _mean(self.deltas)

    @property
    def warning(self) -> str | None:
        """A sentence when fewer than 10 queries are compared (the tests say little there), else None."""
        return few_queries_warning(len(self.qids))

    def rows(self) -> list[QueryDelta]:
        """One row per compared query, in query-id order: the per-query table."""
        return [QueryDelta(qid, float(a), float(b), float(d))
                for qid, a, b, d in zip(self.qids, self.values_a, self.values_b, self.deltas)]

    def sorted_deltas(self) -> list[QueryDelta]:
        """The rows sorted by delta, largest gain for B first (ties by query id): the data of the sorted
        per-query difference chart, where bar i is the i-th row."""
        return sorted(self.rows(), key=lambda row: (-row.delta, row.qid))


def compare_runs(
    qrels: Qrels,
    run_a: Run,
    run_b: Run,
    measure: str | Measure,
    *,
    conventions: Conventions | None = None,
    permutations: int = 10_000,
    seed: int = 0,
) -> Comparison:
    """Evaluate ``measure`` on both runs and compare them query by query (deltas are B - A).

    >>> qrels = {"q1": {"d1": 1}, "q2": {"d2": 1}, "q3": {"d3": 1}}
    >>> a = {"q1": {"d1": 1.0, "x": 0.5}, "q2": {"x": 1.0, "d2": 0.5}, "q3": {"x": 1.0}}
    >>> b = {"q1": {"d1": 1.0}, "q2": {"d2": 1.0}, "q3": {"d3": 1.0}}
    >>> c = compare_runs(qrels, a, b, "recip_rank")
    >>> (c.wins, c.ties, c.losses, [row.delta for row in c.rows()])
    (2, 1, 0, [0.0, 0.5, 1.0])
    """
    parsed = parse_one_measure(measure)
    if is_count(parsed.key):
        raise ValueError(f"measure {parsed.key!r} is a count, not a score per query; compare a score such as P@10")
    conv = conventions if conventions is not None else Conventions()
    per_query_a, per_query_b = ({qid: values[parsed.key] for qid, values in
                                 evaluate(qrels, run, [parsed], conventions=conv).items()} for run in (run_a, run_b))
    judged_a = {qid for qid in run_a if qid in qrels}
    judged_b = {qid for qid in run_b if qid in qrels}
    not_judged = sorted({qid for qid in (*run_a, *run_b) if qid not in qrels})
    return compare_values(
        per_query_a, per_query_b, measure=parsed.key, conventions=conv, permutations=permutations, seed=seed,
        only_in_a=tuple(sorted(judged_a - judged_b)), only_in_b=tuple(sorted(judged_b - judged_a)),
        not_judged=tuple(not_judged),
    )


def compare_values(
    values_a: Mapping[str, float],
    values_b: Mapping[str, float],
    *,
    measure: str = "",
    conventions: Conventions | None = None,
    permutations: int = 10_000,
    seed: int = 0,
    only_in_a: tuple[str, ...] | None = None,
    only_in_b: tuple[str, ...] | None = None,
    not_judged: tuple[str, ...] = (),
) -> Comparison:
    """Compare per-query values ``{qid: value}`` already computed for two runs, on the queries both have."""
    qids = tuple(sorted(set(values_a) & set(values_b)))
    if not qids:
        raise InputError(
            "the two runs have no judged query in common; check that they answer the same topics as the qrels"
        )
    a = np.array([values_a[qid] for qid in qids], dtype=np.float64)
    b = np.array([values_b[qid] for qid in qids], dtype=np.float64)
    deltas = b - a
    return Comparison(
        measure=measure,
        conventions=conventions if conventions is not None else Conventions(),
        qids=qids,
        values_a=a,
        values_b=b,
        deltas=deltas,
        wins=int((deltas > TIE_TOLERANCE).sum()),
        ties=int((np.abs(deltas) <= TIE_TOLERANCE).sum()),
        losses=int((deltas < -TIE_TOLERANCE).sum()),
        only_in_a=only_in_a if only_in_a is not None else tuple(sorted(set(values_a) - set(values_b))),
        only_in_b=only_in_b if only_in_b is not None else tuple(sorted(set(values_b) - set(values_a))),
        not_judged=not_judged,
        t_test=paired_t_test(a, b),
        randomisation=randomisation_test(a, b, permutations=permutations, seed=seed),
    )


def paired_t_test(a: np.ndarray, b: np.ndarray) -> TTest:
    """Two-sided paired t-test of the deltas b - a (the same test as ``scipy.stats.ttest_rel(b, a)``)."""
    deltas = _deltas(a, b)
    n = deltas.shape[0]
    mean = _mean(deltas)
    if n < 2:
        return TTest(math.nan, math.nan, max(n - 1, 0), mean)
    sd = float(np.std(deltas, ddof=1))
    if sd == 0.0:
        if mean == 0.0:
            return TTest(math.nan, math.nan, n - 1, mean)
        return TTest(math.copysign(math.inf, mean), 0.0, n - 1, mean)
    t = mean / (sd / math.sqrt(n))
    return TTest(t, student_t_two_sided_p(t, n - 1), n - 1, mean)


def randomisation_test(a: np.ndarray, b: np.ndarray, *, permutations: int = 10_000, seed: int = 0) -> RandomisationTest:
    """Two-sided paired randomisation test of the mean of b - a by random sign flips, seeded (numpy Generator)."""
    check_permutations(permutations, seed)
    deltas = _deltas(a, b)
    n = deltas.shape[0]
    mean = _mean(deltas)
    if n == 0:
        return RandomisationTest(1.0, 0, seed, True, mean, few_queries_warning(0))
    p_value = randomisation_p_values(deltas[np.newaxis, :], permutations=permutations, seed=seed)[0]
    exact = n <= EXACT_MAX_QUERIES
    return RandomisationTest(p_value, 2**n if exact else permutations, seed, exact, mean, few_queries_warning(n))


def randomisation_p_values(deltas: np.ndarray, *, permutations: int = 10_000, seed: int = 0) -> list[float]:
    """The p-value of :func:`randomisation_test` for each row of ``deltas`` (pairs x queries, each row one pair's
    b - a): every row is flipped by the same sign vectors (the same seed draws them), so one matrix product per
    chunk of sign vectors scores every pair, and each row's p is the one it gets alone. Sampling costs
    permutations x queries x (rows + 1) multiply-adds; up to EXACT_MAX_QUERIES queries the count is exact."""
    check_permutations(permutations, seed)
    deltas = np.asarray(deltas, dtype=np.float64)
    pairs, n = deltas.shape
    if n == 0:
        return [1.0] * pairs
    observed = np.abs(deltas.sum(axis=1))
    # Sign vectors with the same |sum| as the data must count as "as extreme" despite rounding in the sums.
    threshold = observed - 1e-9 * np.abs(deltas).sum(axis=1)
    if n <= EXACT_MAX_QUERIES:
        return [exact_extreme_count(row, float(limit)) / 2**n for row, limit in zip(deltas, threshold)]
    rng = np.random.default_rng(seed)
    totals = deltas.sum(axis=1)
    extreme = np.zeros(pairs, dtype=np.int64)
    # About 2^17 signs (1 MiB as float64) at a time stay in cache; with long rows, at least 128 sign vectors (up
    # to 2^22 signs) keep the product of many pairs efficient.
    chunk = max(1, min(permutations, max(SIGNS_PER_CHUNK // n, min(128, 32 * SIGNS_PER_CHUNK // n))))
    done = 0
    while done < permutations:
        size = min(chunk, permutations - done)
        flipped = rng.random((size, n)) < 0.5
        sums = totals - 2.0 * (flipped.astype(np.float64) @ deltas.T)
        extreme += np.count_nonzero(np.abs(sums) >= threshold, axis=0)
        done += size
    return ((extreme + 1) / (permutations + 1)).tolist()


def check_permutations(permutations: object, seed: object) -> None:
    """Refuse a number of random sign vectors outside 1 to MAX_PERMUTATIONS, or a seed that is not a non-negative
    integer."""
    if isinstance(permutations, bool) or not isinstance(permutations, int) or not 1 <= permutations <= MAX_PERMUTATIONS:
        raise InputError(f"Argument `permutations` has to be an integer from 1 to {MAX_PERMUTATIONS:,}, "
                         f"but got {permutations!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"Argument `seed` has to be a non-negative integer, but got {seed!r}")


def exact_extreme_count(deltas: np.ndarray, threshold: float) -> int:
    r"""How many of the 2^n sign vectors s have |\sum s_i d_i| >= threshold, by meeting in the middle: the signed
    sums of each half of the deltas (2^{n/2} each), and for each left sum l the right sums r with l + r at or
    beyond +-threshold, counted by binary search in the sorted right sums. Time and memory O(2^{n/2} n)."""
    n = deltas.shape[0]
    if threshold <= 0.0:
        return 2**n
    left, right = _signed_sums(deltas[: n // 2]), np.sort(_signed_sums(deltas[n // 2:]))
    at_least = right.shape[0] - np.searchsorted(right, threshold - left, side="left")
    at_most = np.searchsorted(right, -threshold - left, side="right")
    return int(at_least.sum() + at_most.sum())


def _signed_sums(values: np.ndarray) -> np.ndarray:
    r"""\sum s_i v_i for every sign vector s of ``values`` (2^len values)."""
    sums = np.zeros(1)
    for value in values:
        sums = np.concatenate((sums + value, sums - value))
    return sums


def student_t_two_sided_p(t: float, degrees_of_freedom: float) -> float:
    r"""2 P(T_\nu >= |t|) = I_{\nu / (\nu + t^2)}(\nu/2, 1/2), the regularized incomplete beta function."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    nu = float(degrees_of_freedom)
    # 1 - x is passed as t^2 / (nu + t^2): computing it as 1 - x would cancel when t is small.
    return min(1.0, regularized_incomplete_beta(nu / 2.0, 0.5, nu / (nu + t * t), t * t / (nu + t * t)))


def regularized_incomplete_beta(a: float, b: float, x: float, complement: float | None = None) -> float:
    r"""I_x(a, b) = B(x; a, b) / B(a, b), by its continued fraction (modified Lentz), for a, b > 0 and 0 <= x <= 1.

    The fraction converges fast for x < (a + 1) / (a + b + 2); above that, I_x(a, b) = 1 - I_{1-x}(b, a).
    ``complement`` is 1 - x when the caller knows it more precisely than ``1 - x`` computes it.
    """
    if not 0.0 <= x <= 1.0:
        raise ValueError(f"Argument `x` has to be in [0, 1], but got {x!r}")
    y = 1.0 - x if complement is None else complement
    if x == 0.0 or y == 0.0:
        return 0.0 if x == 0.0 else 1.0
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - regularized_incomplete_beta(b, a, y, x)
    log_front = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(y)
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    fraction = d
    for m in range(1, 10_000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            step = c * d
            fraction *= step
        if abs(step - 1.0) < 1e-15:
            break
    return math.exp(log_front) * fraction / a


def _deltas(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"paired values need two 1-d arrays of the same length, got shapes {a.shape} and {b.shape}")
    return b - a


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if values.size else math.nan


__all__ = ["Comparison", "QueryDelta", "RandomisationTest", "TIE_TOLERANCE", "TTest", "check_permutations",
           "compare_runs", "compare_values", "paired_t_test", "randomisation_p_values", "randomisation_test",
           "regularized_incomplete_beta", "student_t_two_sided_p"]
