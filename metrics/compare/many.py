r"""Many runs on one or more measures: every pair (or every run against a baseline) with a paired test, a
multiple-testing correction, an effect size and a bootstrap interval of the difference; Tukey's HSD for all pairs.

Runs are paired by query. The queries compared on a measure are the judged queries every run answers (trec_eval's
rule; with ``missing_queries="zero"``, every judged query, a missing one scoring 0). So one run that lacks a query
changes the mean of every other run: :attr:`ManyComparison.missing` names what each run lacks, and
:meth:`ManyComparison.coverage` says it in sentences (the report table prints them, the command line warns). A
correction adjusts the p-values of one measure's pairs together (one family per measure).

Tests (two-sided):

- ``t``: paired t-test of the deltas (as ``scipy.stats.ttest_rel``);
- ``randomisation``: paired sign-flip randomisation test, seeded (see :func:`.pairs.randomisation_test`);
- ``wilcoxon``: Wilcoxon signed-rank test (``scipy.stats.wilcoxon``, zero deltas dropped, exact p for small n);
- ``tukey``: Tukey's HSD with queries as blocks (Carterette 2012): the residual mean square of the two-way
  ANOVA runs x queries, q = |\bar x_i - \bar x_j| / \sqrt{MSE / n} against the studentized range of
  (number of runs, (runs - 1)(n - 1)) degrees of freedom. It controls the family-wise error itself, so no other
  correction is applied to it.

Effect size: Cohen's d_z = \bar d / s_d of the per-query deltas (0 when every delta is 0; infinite when the deltas
are equal and non-zero).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..conventions import Conventions
from ..engine import is_count, is_geometric, make_conventions
from ..many_runs import per_query_values
from ..measures import MEASURES
from ..model import InputError, Qrels, Run
from ..names import Measure, parse_measures
from ..optional import require
from .intervals import Interval, IntervalMethod, bootstrap_interval, few_queries_warning
from .pairs import TIE_TOLERANCE, paired_t_test, randomisation_p_values, randomisation_test
from .risk import Risk, risk

Test = Literal["t", "randomisation", "wilcoxon", "tukey"]
Correction = Literal["holm", "bh", "bonferroni", "none"]
TESTS: tuple[Test, ...] = ("t", "randomisation", "wilcoxon", "tukey")
CORRECTIONS: tuple[Correction, ...] = ("holm", "bh", "bonferroni", "none")
TEST_NAMES = {"t": "paired t-test", "randomisation": "paired randomisation test",
              "wilcoxon": "Wilcoxon signed-rank test", "tukey": "Tukey's HSD (queries as blocks)"}
CORRECTION_NAMES = {"holm": "Holm-Bonferroni", "bh": "Benjamini-Hochberg", "bonferroni": "Bonferroni",
                    "none": "no correction"}
#: Letters name the runs in a report table (a, b, ... z), so 26 runs at most.
MAX_RUNS = 26
#: Measures a results table cannot rank by "higher is better", with what they are instead.
NOT_A_SCORE = {**{name: info.not_a_score for name, info in MEASURES.items() if info.not_a_score},
               "relstring": "a string of grades"}


@dataclass(frozen=True, slots=True)
class PairResult:
    """Run B against run A on one measure; ``difference`` is mean(B) - mean(A) over the compared queries."""

    measure: str
    run_a: str
    run_b: str
    mean_a: float
    mean_b: float
    difference: float
    wins: int
    ties: int
    losses: int
    effect_size: float
    p_value: float
    p_adjusted: float
    significant: bool
    interval: Interval


@dataclass(frozen=True, slots=True)
class RunMean:
    """One run's mean on one measure with its bootstrap interval."""

    measure: str
    run: str
    interval: Interval

    @property
    def mean(self) -> float:
        return self.interval.estimate


@dataclass(frozen=True)
class ManyComparison:
    """Everything a results table needs: per (measure, run) means with intervals, per (measure, pair) tests."""

    measures: tuple[str, ...]
    runs: tuple[str, ...]
    queries: dict[str, tuple[str, ...]]
    values: dict[str, dict[str, np.ndarray]]
    means: tuple[RunMean, ...]
    pairs: tuple[PairResult, ...]
    test: Test
    correction: Correction
    alpha: float
    conventions: Conventions
    baseline: str | None
    left_out: dict[str, tuple[str, ...]]
    #: Per run, the judged queries it does not answer (sorted): left out of every run's mean, or scored 0 with
    #: ``missing_queries="zero"``.
    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def warning(self) -> str | None:
        """A sentence when a measure is compared on fewer than 10 queries (its intervals and tests say little),
        else None; each interval and pair carries it too."""
        return few_queries_warning(min(len(qids) for qids in self.queries.values()))

    def mean(self, measure: str, run: str) -> RunMean:
        return next(m for m in self.means if m.measure == measure and m.run == run)

    def beaten_by(self, measure: str, run: str) -> list[str]:
        """The runs that ``run`` beats significantly on ``measure`` (higher mean, significant after correction)."""
        beaten = []
        for pair in self.pairs:
            if pair.measure != measure or not pair.significant:
                continue
            if pair.run_b == run and pair.difference > 0:
                beaten.append(pair.run_a)
            elif pair.run_a == run and pair.difference < 0:
                beaten.append(pair.run_b)
        return [name for name in self.runs if name in beaten]

    def risks(self, alpha: float = 1.0) -> list[tuple[str, str, Risk]]:
        """(measure, run, risk against the baseline) for every other run; empty without a baseline."""
        if self.baseline is None:
            return []
        return [(measure, run, risk(self.values[measure][run], self.values[measure][self.baseline], alpha=alpha))
                for measure in self.measures for run in self.runs if run != self.baseline]

    def incomplete_runs(self) -> dict[str, tuple[str, ...]]:
        """``{run: the judged queries it lacks}`` for the runs that lack any, in the order of the runs: with
        ``missing_queries="zero"`` every judged query it lacks (each scores 0), otherwise those another run answers
        (each is left out of every run's mean; a query no run answers changes nothing)."""
        if self.conventions.missing_queries == "zero":
            lacked = self.missing
        else:
            answered = {qid for measure in self.measures for qid in (*self.queries[measure], *self.left_out[measure])}
            lacked = {run: tuple(qid for qid in qids if qid in answered) for run, qids in self.missing.items()}
        return {run: lacked[run] for run in self.runs if lacked.get(run)}

    def coverage(self, escape=lambda text: text, *, most: int = 10) -> list[str]:
        """Sentences saying which queries the means are over and what each run lacks, with the alternative
        (trec_eval's -c, ``missing_queries="zero"``); empty when no run lacks a judged query. ``escape`` makes each
        sentence (run names and query ids included) literal in the reader's format; at most ``most`` ids are
        listed per list."""
        incomplete = self.incomplete_runs()
        if not incomplete:
            return []
        lists = {measure: self.queries[measure] for measure in self.measures}
        first = lists[self.measures[0]]
        if all(qids == first for qids in lists.values()):
            over = _listed(first, most)
        else:
            over = "; ".join(f"{measure}: {_listed(qids, most)}" for measure, qids in lists.items())
        lacks = "; ".join(f"{run} lacks {_count(len(qids), 'judged query', 'judged queries')} "
                          f"({_listed(qids, most)})" for run, qids in incomplete.items())
        if self.conventions.missing_queries == "zero":
            sentences = [f"Queries: all {_count(len(first), 'judged query', 'judged queries')} ({over}); a query a "
                         "run lacks scores 0 for it (trec_eval -c, missing_queries=zero).",
                         f"Missing: {lacks}."]
        else:
            sentences = [f"Queries: the {_count(len(first), 'judged query', 'judged queries')} every run answers "
                         f"({over}); every run's mean is over these, so it can differ from the run's own "
                         "evaluation.",
                         f"Missing: {lacks}. Left out of every run's mean; trec_eval's -c (missing_queries=zero) "
                         "scores a missing query 0 instead and keeps every judged query."]
        return [escape(sentence) for sentence in sentences]

    def tests_counted(self) -> str:
        """How many paired tests ``pairs`` holds, and why: "10 pairs x 2 measures = 20 tests" (every pair of 5 runs,
        or with a baseline each other run against it, on each measure)."""
        pairs = len({(pair.run_a, pair.run_b) for pair in self.pairs})
        measures = len({pair.measure for pair in self.pairs})
        return f"{_counted(pairs, 'pair')} x {_counted(measures, 'measure')} = {_counted(len(self.pairs), 'test')}"

    def describe(self) -> str:
        """One sentence naming the test, the correction, alpha, and the queries compared."""
        correction = "" if self.test == "tukey" else f", {CORRECTION_NAMES[self.correction]} per measure"
        counts = sorted({len(q) for q in self.queries.values()})
        queries = f"{counts[0]}" if len(counts) == 1 else f"{counts[0]}-{counts[-1]}"
        if self.conventions.missing_queries == "zero":
            over = f"over {queries} judged queries, a query a run misses scoring 0"
        else:
            over = f"over {queries} queries judged and answered by every run"
        return f"{TEST_NAMES[self.test]}{correction}, alpha = {self.alpha:g}, {over}"


def _counted(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def values_by_run(qrels: Qrels, runs: Mapping[str, Run], measures: Sequence[str | Measure],
                  conventions: Conventions) -> tuple[dict[str, dict[str, dict[str, float]]], list[Measure]]:
    """``{measure key: {run: {qid: value}}}`` for every run, with the parsed measures. Runs (and qrels) may be dicts,
    file paths or tables: the qrels are read once and the runs evaluated in parallel (:mod:`metrics.many_runs`).
    :func:`metrics.evaluate_runs` gives the same numbers as one long table."""
    parsed = comparable_measures(measures)
    values, _ = per_query_values(qrels, runs, parsed, conventions)
    return values, parsed


#: The name :func:`values_by_run` had, which :func:`metrics.evaluate_runs` (a DataFrame) also has.
evaluate_runs = values_by_run


def comparable_measures(measures: Sequence[str | Measure]) -> list[Measure]:
    """The parsed measures, refusing those a comparison cannot rank by "higher is better" (counts, geometric means,
    the share of unjudged documents, ...)."""
    parsed = [m for spec in measures for m in (parse_measures([spec]) if isinstance(spec, str) else [spec])]
    if not parsed:
        raise InputError("give at least one measure, e.g. nDCG@10")
    for measure in parsed:
        if is_count(measure.key):
            raise InputError(f"measure {measure.key!r} is a count, not a score per query; compare a score such as P@10")
        if is_geometric(measure.key):
            raise InputError(f"measure {measure.key!r} is a geometric mean, not a mean of per-query values; compare "
                             f"{measure.key.replace('gm_', '')} instead")
        if measure.name in NOT_A_SCORE:
            raise InputError(f"measure {measure.key!r} is {NOT_A_SCORE[measure.name]}, not a score where higher is "
                             "better; compare a score such as P@10")
    return parsed


def compare_many(
    qrels: Qrels,
    runs: Mapping[str, Run],
    measures: Sequence[str | Measure],
    *,
    test: Test = "t",
    correction: Correction = "holm",
    alpha: float = 0.05,
    baseline: str | None = None,
    interval: IntervalMethod = "bca",
    resamples: int = 10_000,
    permutations: int = 10_000,
    seed: int = 0,
    conventions: Conventions | None = None,
    **convention_changes: object,
) -> ManyComparison:
    """Compare ``runs`` (``{name: run}``) on ``measures``: every pair, or every run against ``baseline``. ``qrels``
    and each run may be a dict, a file path or a table (read once, evaluated by :mod:`metrics.many_runs`)."""
    conv = make_conventions(conventions, **convention_changes)
    values, missing = per_query_values(qrels, runs, comparable_measures(measures), conv)
    return compare_values_many(values, test=test, correction=correction, alpha=alpha, baseline=baseline,
                               interval=interval, resamples=resamples, permutations=permutations, seed=seed,
                               conventions=conv, missing=missing)


def compare_values_many(
    values: Mapping[str, Mapping[str, Mapping[str, float]]],
    *,
    test: Test = "t",
    correction: Correction = "holm",
    alpha: float = 0.05,
    baseline: str | None = None,
    interval: IntervalMethod = "bca",
    resamples: int = 10_000,
    permutations: int = 10_000,
    seed: int = 0,
    conventions: Conventions | None = None,
    missing: Mapping[str, Sequence[str]] | None = None,
) -> ManyComparison:
    """The same from per-query values already computed: ``{measure: {run: {qid: value}}}``. ``missing``: per run,
    the judged queries it does not answer (needed with ``missing_queries="zero"``, where they are among the values
    as 0); by default, the queries of any run's values that the run's values lack."""
    _check_choice("test", test, TESTS)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"Argument `seed` has to be a non-negative integer, got {seed!r}")
    _check_choice("correction", correction, CORRECTIONS)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha <= 0.5:
        raise InputError(f"Argument `alpha` (the significance level) has to be a number in (0, 0.5], got {alpha!r}")
    measures = tuple(values)
    if not measures:
        raise InputError("give at least one measure")
    runs = tuple(next(iter(values.values())))
    if len(runs) < 2:
        raise InputError(f"comparing needs at least two runs, got {len(runs)}")
    if len(runs) > MAX_RUNS:
        raise InputError(f"{len(runs)} runs: at most {MAX_RUNS} can be compared at once (one letter each)")
    if baseline is not None and baseline not in runs:
        raise InputError(f"baseline {baseline!r} is not one of the runs ({', '.join(runs)})")
    pairs_of_runs = ([(baseline, run) for run in runs if run != baseline] if baseline is not None
                     else [(a, b) for i, a in enumerate(runs) for b in runs[i + 1:]])

    queries, arrays, left_out, means, pairs = {}, {}, {}, [], []
    for measure in measures:
        per_run = values[measure]
        answered = [set(per_run[run]) for run in runs]
        common = tuple(sorted(set.intersection(*answered)))
        left_out[measure] = tuple(sorted(set.union(*answered) - set(common)))
        if not common:
            raise InputError(f"{measure}: no judged query is answered by every run; nothing to compare")
        queries[measure] = common
        arrays[measure] = {run: np.array([per_run[run][qid] for qid in common], dtype=np.float64) for run in runs}
        for offset, run in enumerate(runs):
            means.append(RunMean(measure, run, bootstrap_interval(
                arrays[measure][run], method=interval, confidence=1.0 - alpha, resamples=resamples,
                seed=seed + offset)))
        raw = p_values(test, arrays[measure], pairs_of_runs, permutations, seed)
        adjusted = raw if test == "tukey" else adjust_p_values(raw, correction)
        for (a, b), p, p_adj in zip(pairs_of_runs, raw, adjusted):
            deltas = arrays[measure][b] - arrays[measure][a]
            pairs.append(PairResult(
                measure=measure, run_a=a, run_b=b, mean_a=float(arrays[measure][a].mean()),
                mean_b=float(arrays[measure][b].mean()), difference=float(deltas.mean()),
                wins=int((deltas > TIE_TOLERANCE).sum()), ties=int((np.abs(deltas) <= TIE_TOLERANCE).sum()),
                losses=int((deltas < -TIE_TOLERANCE).sum()), effect_size=effect_size(deltas), p_value=p,
                p_adjusted=p_adj, significant=p_adj < alpha,
                interval=bootstrap_interval(deltas, method=interval, confidence=1.0 - alpha, resamples=resamples,
                                            seed=seed),
            ))
    if missing is None:
        everywhere = {qid for per_run in values.values() for answered in per_run.values() for qid in answered}
        missing = {run: sorted(everywhere - {qid for measure in measures for qid in values[measure][run]})
                   for run in runs}
    return ManyComparison(measures, runs, queries, arrays, tuple(means), tuple(pairs), test, correction, alpha,
                          conventions if conventions is not None else Conventions(), baseline, left_out,
                          {run: tuple(sorted(missing.get(run, ()))) for run in runs})


def _listed(qids: Sequence[str], most: int) -> str:
    """Query ids as a list, the first ``most`` of them and how many more."""
    shown = ", ".join(str(qid) for qid in qids[:most])
    return shown + (f" and {len(qids) - most:,} more" if len(qids) > most else "")


def _count(n: int, one: str, many: str) -> str:
    return f"{n:,} {one if n == 1 else many}"


def effect_size(deltas: np.ndarray) -> float:
    """Cohen's d_z of paired deltas: mean / standard deviation (ddof 1)."""
    if deltas.size == 0:
        return 0.0
    mean = float(deltas.mean())
    sd = float(deltas.std(ddof=1)) if deltas.size > 1 else 0.0
    if sd == 0.0:
        return 0.0 if abs(mean) <= TIE_TOLERANCE else math.copysign(math.inf, mean)
    return mean / sd


def adjust_p_values(p_values: Sequence[float], correction: Correction) -> list[float]:
    """Adjusted p-values: Holm's step-down, Benjamini-Hochberg's step-up, Bonferroni, or none (as statsmodels'
    ``multipletests`` with ``holm``, ``fdr_bh``, ``bonferroni``)."""
    _check_choice("correction", correction, CORRECTIONS)
    p = np.asarray(p_values, dtype=np.float64)
    m = p.size
    if m == 0 or correction == "none":
        return p.tolist()
    if correction == "bonferroni":
        return np.minimum(1.0, p * m).tolist()
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if correction == "holm":
        steps = np.maximum.accumulate((m - np.arange(m)) * ranked)
    else:  # Benjamini-Hochberg
        steps = np.minimum.accumulate(m / np.arange(m, 0, -1) * ranked[::-1])[::-1]
    adjusted = np.empty(m)
    adjusted[order] = np.minimum(1.0, steps)
    return adjusted.tolist()


def p_values(test: Test, arrays: Mapping[str, np.ndarray], pairs: Sequence[tuple[str, str]], permutations: int,
             seed: int) -> list[float]:
    """The raw p-value of ``test`` for each pair (a, b) of runs in ``arrays`` (``{run: per-query values}``, paired
    by position). The randomisation test scores every pair on the same sign vectors in one pass
    (:func:`.pairs.randomisation_p_values`); each p is the one the pair gets alone."""
    if test == "randomisation" and pairs:
        return randomisation_p_values(np.array([arrays[b] - arrays[a] for a, b in pairs]), permutations=permutations,
                                      seed=seed)
    return [_p_value(test, arrays, a, b, permutations, seed) for a, b in pairs]


def _p_value(test: Test, arrays: Mapping[str, np.ndarray], a: str, b: str, permutations: int, seed: int) -> float:
    x, y = arrays[a], arrays[b]
    if test == "t":
        p = paired_t_test(x, y).p_value
        return 1.0 if math.isnan(p) else p  # no spread and no difference: nothing to reject
    if test == "randomisation":
        return randomisation_test(x, y, permutations=permutations, seed=seed).p_value
    if test == "wilcoxon":
        deltas = y - x
        if not np.any(np.abs(deltas) > TIE_TOLERANCE):
            return 1.0
        wilcoxon = require("scipy.stats", needed_by="metrics.compare (the Wilcoxon test)").wilcoxon
        return float(wilcoxon(deltas, zero_method="wilcox").pvalue)
    return tukey_hsd_p_value(arrays, a, b)


def tukey_hsd_p_value(arrays: Mapping[str, np.ndarray], a: str, b: str) -> float:
    """Tukey's HSD p-value for runs a and b, with queries as blocks (the two-way ANOVA's residual mean square)."""
    studentized_range = require("scipy.stats", needed_by="metrics.compare (Tukey's HSD)").studentized_range
    matrix = np.vstack([arrays[run] for run in arrays])  # runs x queries
    k, n = matrix.shape
    if n < 2:
        return 1.0
    residuals = matrix - matrix.mean(axis=1, keepdims=True) - matrix.mean(axis=0, keepdims=True) + matrix.mean()
    degrees = (k - 1) * (n - 1)
    mse = float((residuals ** 2).sum()) / degrees
    gap = abs(float(arrays[a].mean() - arrays[b].mean()))
    if mse == 0.0:
        return 1.0 if gap <= TIE_TOLERANCE else 0.0
    q = gap / math.sqrt(mse / n)
    return float(min(1.0, studentized_range.sf(q, k, degrees)))


def _check_choice(name: str, value: object, choices: tuple[str, ...]) -> None:
    if value not in choices:
        raise InputError(f"Argument `{name}` has to be one of {', '.join(choices)}, got {value!r}")
