"""A multiverse of conventions: does "B beats A" survive every plausible way of computing the measure?

For two or more runs and one measure, every pairwise conclusion (the sign of the mean difference, and whether it
is significant after the correction) is recomputed under every combination of the plausible conventions for that
measure, and the leaderboard of each combination is compared with the default's (Kendall's tau-b).

Which conventions vary comes from the convention data: those of :data:`PLAUSIBLE` that the measure depends on
(:class:`~metrics.conventions.ConventionInfo` ``affects`` it, and for the measure-specific ones its
:class:`~metrics.measures.MeasureInfo` names it), each over its choices (the default's value first). The
relevance level varies only where the grades admit more than one reading: levels 1 to the highest grade minus one
(grades 0-3, as TREC DL's: ``-l 1`` and ``-l 2``), one per reading (levels between two grades that occur read the
grades alike: :func:`relevance_levels`), and the default's own level.

Cost is linear in settings x lines: the qrels and runs are read once. A run's batches (sorting by score, the tie
order, joining the judgments) are built once per combination of the ordering conventions (tie_order,
score_precision, unjudged) that changes its order: the tie order changes nothing for a run without tied scores,
nor the precision when float32 ties no scores that float64 keeps apart. The judged queries a run lacks are empty
rows of those batches; every other convention only re-runs the kernel on them (relevance_level, gain, ideal_from,
ap_denominator) or drops those rows (missing_queries=skip). The settings are evaluated one at a time, each reduced
to its means and outcomes before the next, and each run holds one set of batches at a time: memory follows the
runs' lines plus one setting's runs x queries values, not settings x runs x queries. The tests are those of
:mod:`.many` (``t``, ``randomisation``, ``wilcoxon``, ``tukey``), corrected over each setting's pairs as
:func:`.many.adjust_p_values` does; the randomisation test's work, permutations x queries x pairs x settings, is
bounded (:data:`MAX_RANDOM_SIGNS`, :data:`MAX_SIGNED_SUMS`) before anything is evaluated.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .. import bulk
from ..conventions import CONVENTIONS_BY_NAME, Conventions
from ..engine import check_grade_range, grade_limit, make_conventions
from ..io.trec import value_codes
from ..many_runs import check_run_paths, checked_qrels_table, named_runs, run_table_of
from ..model import InputError, Qrels, Run
from ..names import Measure
from .many import (
    CORRECTION_NAMES,
    CORRECTIONS,
    MAX_RUNS,
    TEST_NAMES,
    TESTS,
    Correction,
    Test,
    _check_choice,
    adjust_p_values,
    comparable_measures,
    p_values,
)
from .pairs import EXACT_MAX_QUERIES, TIE_TOLERANCE, check_permutations
from .report import _markdown_escape

#: The conventions a multiverse varies, in the order its settings are listed: those that order the documents
#: (the batches are rebuilt), which queries count, then those the kernels read.
PLAUSIBLE: tuple[str, ...] = ("tie_order", "score_precision", "unjudged", "missing_queries", "relevance_level",
                              "gain", "ideal_from", "ap_denominator")
_RANKING = ("tie_order", "score_precision", "unjudged")
_KERNEL = ("relevance_level", "gain", "ideal_from", "ap_denominator")
#: Settings compared at once at most; past it, name fewer conventions to vary.
MAX_SETTINGS = 512
#: A multiverse's randomisation tests draw at most this many random signs (permutations x queries x settings;
#: one sign vector serves every pair) and compute at most MAX_SIGNED_SUMS signed sums (that x pairs): about half a
#: minute each. Past either, lower a factor.
MAX_RANDOM_SIGNS = 2_000_000_000
MAX_SIGNED_SUMS = 50_000_000_000
#: Short names of the corrections in a conclusion, "B > A (p < 0.05, Holm)".
CORRECTION_SHORT = {"holm": "Holm", "bh": "BH", "bonferroni": "Bonferroni", "none": "uncorrected"}


@dataclass(frozen=True, slots=True)
class Outcome:
    """Run B against run A under one setting: mean(B) - mean(A) over the compared queries, raw and corrected p."""

    difference: float
    p_value: float
    p_adjusted: float
    significant: bool

    @property
    def verdict(self) -> int:
        """+2 B significantly higher, +1 higher, 0 equal (within TIE_TOLERANCE), -1 lower, -2 significantly lower."""
        if abs(self.difference) <= TIE_TOLERANCE:
            return 0
        return int(math.copysign(2 if self.significant else 1, self.difference))


@dataclass(frozen=True, slots=True)
class Conclusion:
    """The default setting's conclusion on one pair, oriented winner first, and the settings where it fails.

    ``claim``: "B > A (p < 0.05, Holm)", "B > A (not significant, Holm)" or "A = B". ``holds``: settings (indices)
    with the same verdict as the default's. ``condition``: when it fails, in words ("" when it never does).
    """

    first: str
    second: str
    claim: str
    holds: tuple[int, ...]
    fails: tuple[int, ...]
    condition: str
    differences: tuple[float, ...]  # mean(first) - mean(second) in every setting
    p_adjusted: tuple[float, ...]  # the pair's corrected p in every setting
    verdicts: tuple[int, ...] = ()  # Outcome.verdict of first against second in every setting
    alpha: float = 0.05

    @property
    def settings(self) -> int:
        return len(self.holds) + len(self.fails)

    def sentence(self) -> str:
        """'B > A (p < 0.05, Holm) holds in 14 of 16 settings; it fails when ..., where the difference is ...'."""
        text = f"{self.claim} holds in {len(self.holds)} of {self.settings} settings"
        if not self.fails:
            low, high = min(self.differences), max(self.differences)
            return f"{text}; the difference is {_signed_range(low, high)}"
        failing = [self.differences[i] for i in self.fails]
        p = [self.p_adjusted[i] for i in self.fails]
        p_text = f"{min(p):.3g}" if f"{min(p):.3g}" == f"{max(p):.3g}" else f"{min(p):.3g} to {max(p):.3g}"
        counts: dict[int, int] = {}
        for index in self.fails:
            counts[self.verdicts[index]] = counts.get(self.verdicts[index], 0) + 1
        instead = ", ".join(f"{self.verdict_text(verdict)} in {n}"
                            for verdict, n in sorted(counts.items(), reverse=True))
        return (f"{text}; it fails {self.condition} ({instead}), where the difference is "
                f"{_signed_range(min(failing), max(failing))} (adjusted p {p_text})")

    def verdict_text(self, verdict: int) -> str:
        """A verdict of first against second in words: "A > B (p < 0.05)", "A > B (n.s.)", "A = B"."""
        if verdict == 0:
            return f"{self.first} = {self.second}"
        winner, loser = (self.first, self.second) if verdict > 0 else (self.second, self.first)
        return f"{winner} > {loser} ({f'p < {self.alpha:g}' if abs(verdict) == 2 else 'n.s.'})"


@dataclass(frozen=True)
class Multiverse:
    """Every pair of runs under every setting. ``settings[0]`` is the default (the conventions given);
    ``means[s, r]`` is run r's mean under setting s; ``outcomes[s][p]`` is pair p (``pairs[p]`` = (A, B)) under
    setting s; ``queries[s]`` the number of queries compared there."""

    measure: str
    runs: tuple[str, ...]
    dimensions: tuple[tuple[str, tuple[object, ...]], ...]
    settings: tuple[Conventions, ...]
    means: np.ndarray
    pairs: tuple[tuple[str, str], ...]
    outcomes: tuple[tuple[Outcome, ...], ...]
    queries: tuple[int, ...]
    test: Test
    correction: Correction
    alpha: float

    def setting_values(self, index: int) -> dict[str, object]:
        """The varied conventions' values in setting ``index``."""
        return {name: getattr(self.settings[index], name) for name, _ in self.dimensions}

    def describe_setting(self, index: int) -> str:
        """The varied conventions that differ from the default's, as ``name=value``; ``default`` for the default."""
        default = self.settings[0]
        changed = [f"{name}={getattr(self.settings[index], name)}" for name, _ in self.dimensions
                   if getattr(self.settings[index], name) != getattr(default, name)]
        return " ".join(changed) or "default"

    def conclusions(self) -> list[Conclusion]:
        """One conclusion per pair, in the order of ``pairs``."""
        return [self._conclusion(p) for p in range(len(self.pairs))]

    def _conclusion(self, p: int) -> Conclusion:
        a, b = self.pairs[p]
        verdicts = [self.outcomes[s][p].verdict for s in range(len(self.settings))]
        default = verdicts[0]
        flip = default < 0
        first, second = (a, b) if flip else (b, a)
        sign = -1.0 if flip else 1.0
        differences = tuple(sign * self.outcomes[s][p].difference for s in range(len(self.settings)))
        holds = tuple(s for s, v in enumerate(verdicts) if v == default)
        fails = tuple(s for s, v in enumerate(verdicts) if v != default)
        short = CORRECTION_SHORT[self.correction] if self.test != "tukey" else "Tukey HSD"
        if default == 0:
            claim = f"{first} = {second}"
        elif abs(default) == 2:
            claim = f"{first} > {second} (p < {self.alpha:g}, {short})"
        else:
            claim = f"{first} > {second} (not significant at {self.alpha:g}, {short})"
        p_adjusted = tuple(self.outcomes[s][p].p_adjusted for s in range(len(self.settings)))
        oriented = tuple(-v if flip else v for v in verdicts)
        return Conclusion(first, second, claim, holds, fails, self._condition(fails), differences, p_adjusted,
                          oriented, self.alpha)

    def _condition(self, fails: Sequence[int]) -> str:
        """When the settings ``fails`` occur, in words: exactly when one convention has a value (or one of some
        values), or two conventions have values together; else the narrowest such condition all of them share, or
        the value most of them share."""
        if not fails:
            return ""
        failing = set(fails)
        every = range(len(self.settings))
        with_value = {(name, value): frozenset(s for s in every if getattr(self.settings[s], name) == value)
                      for name, values in self.dimensions for value in values}
        conditions: list[tuple[str, frozenset]] = [(f"{name}={value}", members)
                                                   for (name, value), members in with_value.items()]
        for name, values in self.dimensions:
            for count in range(2, len(values)):
                for chosen in itertools.combinations(values, count):
                    members = frozenset().union(*(with_value[name, v] for v in chosen))
                    conditions.append((f"{name} is {' or '.join(map(str, chosen))}", members))
        for first, second in itertools.combinations(list(with_value), 2):
            if first[0] != second[0]:
                conditions.append((f"{first[0]}={first[1]} and {second[0]}={second[1]}",
                                   with_value[first] & with_value[second]))
        for text, members in conditions:
            if members == failing:
                return f"when {text}"
        covering = [(len(members), text) for text, members in conditions if members >= failing]
        if covering:
            size, text = min(covering)
            return f"in {len(failing)} of the {size} settings where {text}"
        text, members = max(conditions[:len(with_value)], key=lambda c: (len(c[1] & failing), -len(c[1])))
        return f"in {len(failing)} settings, {len(members & failing)} of them where {text}"

    def stability(self) -> list[tuple[int, float | None, tuple[tuple[str, str], ...]]]:
        """Per setting: Kendall's tau-b between its means and the default's (None when either has every run tied)
        and the pairs whose order it reverses (winner under the default first)."""
        rows = []
        for s in range(len(self.settings)):
            swapped = []
            for i, j in itertools.combinations(range(len(self.runs)), 2):
                before = _sign(self.means[0, i] - self.means[0, j])
                after = _sign(self.means[s, i] - self.means[s, j])
                if before * after < 0:
                    swapped.append((self.runs[i], self.runs[j]) if before > 0 else (self.runs[j], self.runs[i]))
            rows.append((s, kendall_tau_b(self.means[0], self.means[s]), tuple(swapped)))
        return rows

    def default_order(self) -> list[str]:
        """The runs by their default mean, highest first (ties in the order given)."""
        return [self.runs[i] for i in sorted(range(len(self.runs)), key=lambda i: -self.means[0, i])]

    def describe(self) -> str:
        """One line: the measure, the runs, how many settings and what varies, the test and correction."""
        test = TEST_NAMES[self.test]
        correction = "" if self.test == "tukey" else f", {CORRECTION_NAMES[self.correction]}"
        sizes = " x ".join(str(len(values)) for _, values in self.dimensions) or "1"
        return (f"{self.measure} over {len(self.runs)} runs in {len(self.settings)} settings ({sizes}); "
                f"{test}{correction}, alpha = {self.alpha:g}")


    def swaps(self) -> list[tuple[str, str, tuple[int, ...], str]]:
        """Each pair some setting reverses: (winner under the default, loser, the settings that reverse it, when),
        most often reversed first."""
        found: dict[tuple[str, str], list[int]] = {}
        for index, _, swapped in self.stability():
            for pair in swapped:
                found.setdefault(pair, []).append(index)
        ranked = sorted(found.items(), key=lambda item: -len(item[1]))
        return [(a, b, tuple(settings), self._condition(settings)) for (a, b), settings in ranked]

    def tau_line(self) -> str:
        """How the settings' orders compare with the default's: each tau-b and in how many settings."""
        counts: dict[float | None, int] = {}
        for _, tau, _ in self.stability():
            shown = None if tau is None else round(tau, 4)
            counts[shown] = counts.get(shown, 0) + 1
        spread = ", ".join(f"{'undefined' if tau is None else f'{tau:g}'} in {n}"
                           for tau, n in sorted(counts.items(), key=lambda item: -2 if item[0] is None else -item[0]))
        return (f"Kendall's tau-b of each setting's order against the default's (means within {TIE_TOLERANCE:g} "
                f"tie): {spread} of {len(self.settings)} settings.")

    def leaderboard_line(self) -> str:
        return f"Leaderboard under the default: {' > '.join(self.default_order())}."

    def lines(self) -> list[str]:
        """The report as plain sentences (the command line and the app lay them out): what was compared, each
        conclusion, the leaderboard's stability, which pairs swap."""
        varied = "; ".join(f"{name} ({', '.join(map(str, values))})" for name, values in self.dimensions)
        lines = [f"Multiverse: {self.describe()}.",
                 f"Default setting: {self.settings[0].describe()}. Varied: {varied or 'nothing'}.",
                 "",
                 "Conclusions of the default setting:",
                 *(f"- {conclusion.sentence()}." for conclusion in self.conclusions()),
                 "",
                 self.leaderboard_line(),
                 self.tau_line()]
        swaps = self.swaps()
        lines.append("Pairs of runs whose order some setting reverses:" if swaps
                     else "No setting reverses any pair of runs.")
        for a, b, settings, condition in swaps:
            lines.append(f"- {b} passes {a} in {len(settings)} of {len(self.settings)} settings ({condition}).")
        return lines


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    r"""Kendall's tau-b of two score vectors, counted exactly over every pair:
    (C - D) / \sqrt{(n_0 - n_x)(n_0 - n_y)}, values within TIE_TOLERANCE tied (as ``scipy.stats.kendalltau``'s
    default, which compares exactly). None when either vector ties everything (tau is undefined there)."""
    n = len(x)
    concordant = discordant = tied_x = tied_y = 0
    for i, j in itertools.combinations(range(n), 2):
        dx, dy = _sign(x[i] - x[j]), _sign(y[i] - y[j])
        if dx == 0:
            tied_x += 1
        if dy == 0:
            tied_y += 1
        concordant += dx * dy > 0
        discordant += dx * dy < 0
    pairs = n * (n - 1) // 2
    denominator = math.sqrt((pairs - tied_x) * (pairs - tied_y))
    return None if denominator == 0 else (concordant - discordant) / denominator


def plausible_values(measure: Measure, qrels_grades: np.ndarray, base: Conventions) -> list[tuple[str, tuple]]:
    """The conventions ``measure`` depends on among :data:`PLAUSIBLE`, each with its plausible values (the base's
    first). A convention the measure fixes itself (``P(rel=2)@10``, ``nDCG(dcg='exp-log2')``) does not vary."""
    fixed = {"relevance_level": measure.relevance_level, "gain": measure.gain or measure.gain_map,
             "ap_denominator": measure.ap_denominator}
    dimensions = []
    for name in PLAUSIBLE:
        info = CONVENTIONS_BY_NAME[name]
        general = bool({"all", "mean"} & set(info.affects))
        depends = name in measure.info.conventions if name in _KERNEL else general
        if not depends or fixed.get(name) is not None:
            continue
        if name == "relevance_level":
            values = relevance_levels(qrels_grades)
            given = reading(qrels_grades, base.relevance_level)  # a level another level reads alike is one setting
            ordered = (base.relevance_level, *(v for v in values if v != given))
        else:
            values = tuple(choice.value for choice in info.choices if not choice.one_tool)
            ordered = (getattr(base, name), *(v for v in values if v != getattr(base, name)))
        if len(ordered) > 1:
            dimensions.append((name, ordered))
    return dimensions


def relevance_levels(grades: np.ndarray) -> tuple[int, ...]:
    """The relevance levels 1 to the highest grade minus one, one per reading of the grades: a level l reads as
    relevant the grades >= l, as the lowest grade that occurs at or above l does, so each is named by that grade
    (grades 0-3: levels 1 and 2; grades 0, 1 and 100,000,000: levels 1 and 100,000,000; 0 and 5: level 5 alone;
    none when no grade is positive). Time and memory follow the distinct grades, never the size of the highest one."""
    occurring = np.unique(grades)
    top = int(occurring[-1]) if occurring.size else 0
    if top <= 1:
        return (1,) if top == 1 else ()
    levels = [int(grade) for grade in occurring[(occurring >= 1) & (occurring < top)]]
    if top - 1 not in levels:  # level top - 1 makes the highest grade alone relevant
        levels.append(top)
    return tuple(levels)


def reading(grades: np.ndarray, level: int) -> int | None:
    """The lowest grade of ``grades`` at or above ``level``: levels with the same one read the grades alike (None:
    no grade is relevant)."""
    above = grades[grades >= level]
    return int(above.min()) if above.size else None


def multiverse(
    qrels: Qrels,
    runs: Mapping[str, Run],
    measure: str | Measure,
    *,
    test: Test = "t",
    correction: Correction = "holm",
    alpha: float = 0.05,
    vary: Sequence[str] | None = None,
    permutations: int = 10_000,
    seed: int = 0,
    max_settings: int = MAX_SETTINGS,
    conventions: Conventions | None = None,
    **convention_changes: object,
) -> Multiverse:
    """Compare ``runs`` (``{name: run}``, each a file path, a table or a dict, as :func:`.many.compare_many` takes
    them) on ``measure`` under every plausible setting (:func:`plausible_values`; ``vary`` names a subset of them).
    The default setting is ``conventions`` (trec_eval's when omitted). The settings are evaluated one at a time,
    each reduced to its means and outcomes; the randomisation test is refused before anything is evaluated when it
    would draw more than :data:`MAX_RANDOM_SIGNS` signs or compute more than :data:`MAX_SIGNED_SUMS` sums."""
    _check_choice("test", test, TESTS)
    if test == "randomisation":
        check_permutations(permutations, seed)
    _check_choice("correction", correction, CORRECTIONS)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha <= 0.5:
        raise InputError(f"Argument `alpha` (the significance level) has to be a number in (0, 0.5], got {alpha!r}")
    if isinstance(max_settings, bool) or not isinstance(max_settings, int) or not 1 <= max_settings <= MAX_SETTINGS:
        raise InputError(f"Argument `max_settings` has to be an integer from 1 to {MAX_SETTINGS}, got {max_settings!r}")
    parsed = comparable_measures([measure] if isinstance(measure, (str, Measure)) else measure)
    if len(parsed) != 1:
        raise InputError(f"a multiverse compares one measure, got {len(parsed)}: "
                         f"{', '.join(m.key for m in parsed)}")
    target = parsed[0]
    if not isinstance(runs, Mapping) or not 2 <= len(runs) <= MAX_RUNS:
        count = len(runs) if isinstance(runs, Mapping) else type(runs).__name__
        raise InputError(f"a multiverse compares 2 to {MAX_RUNS} runs given as {{name: run}}, got {count}")
    base = make_conventions(conventions, **convention_changes)
    named = named_runs(runs)
    check_run_paths([str(source) for _, source in named if isinstance(source, str)])
    qrels_table = checked_qrels_table(qrels, parsed, base)
    dimensions = plausible_values(target, qrels_table.grade, base)
    if vary is not None:
        if isinstance(vary, str) or not vary:
            raise InputError(f"Argument `vary` has to name conventions to vary, e.g. ['tie_order', 'gain'], "
                             f"got {vary!r}")
        known = [name for name, _ in dimensions]
        unknown = [name for name in vary if name not in known]
        if unknown:
            raise InputError(f"cannot vary {', '.join(map(repr, unknown))} for {target.key}: of the conventions a "
                             f"multiverse varies, it depends on {', '.join(known) or 'none'}")
        dimensions = [(name, values) for name, values in dimensions if name in vary]
    count = math.prod(len(values) for _, values in dimensions)
    if count > max_settings:
        sizes = " x ".join(f"{len(values)} {name}" for name, values in dimensions)
        names = ", ".join(name for name, _ in dimensions)
        raise InputError(f"{target.key} under every plausible convention is {sizes} = {count:,} settings, more than "
                         f"{max_settings:,}; vary fewer conventions (some of {names})")
    for gain in dict(dimensions).get("gain", ()):  # refused before any setting, not at the first exponential one
        check_grade_range(qrels_table.grade, grade_limit([target], base.replace(gain=gain)),
                          lambda row, gain=gain: f"gain={gain}, one of the multiverse's settings (vary other "
                                                 f"conventions to leave it out): qrels, query "
                                                 f"{qrels_table.qid[row].as_py()!r}, document "
                                                 f"{qrels_table.docno[row].as_py()!r}")
    tables = [(name, run_table_of(source, name)) for name, source in named]
    settings = [base.replace(**dict(zip([n for n, _ in dimensions], values)))
                for values in itertools.product(*(values for _, values in dimensions))]
    names = tuple(name for name, _ in tables)
    pairs = tuple((a, b) for i, a in enumerate(names) for b in names[i + 1:])
    judged = set(qrels_table.qids)
    answered = judged.intersection(*(table.qids for _, table in tables))
    compared = [len(judged) if conv.missing_queries == "zero" else len(answered) for conv in settings]
    if not all(compared):
        raise InputError(f"{target.key}: no judged query is answered by every run; nothing to compare")
    if test == "randomisation":
        _check_randomisation_work(target.key, len(pairs), compared, permutations)
    means, outcomes, queries = [None] * count, [None] * count, [0] * count
    for index, values, present in _setting_values(qrels_table, tables, target, settings):
        common = np.flatnonzero(present.all(axis=0))
        arrays = {name: values[row, common] for row, name in enumerate(names)}
        raw = p_values(test, arrays, pairs, permutations, seed)
        adjusted = raw if test == "tukey" else adjust_p_values(raw, correction)
        outcomes[index] = tuple(Outcome(float((arrays[b] - arrays[a]).mean()), p, q, q < alpha)
                                for (a, b), p, q in zip(pairs, raw, adjusted))
        means[index] = [float(arrays[name].mean()) for name in names]
        queries[index] = int(common.size)
    return Multiverse(target.key, names, tuple(dimensions), tuple(settings), np.array(means), pairs,
                      tuple(outcomes), tuple(queries), test, correction, float(alpha))


def _check_randomisation_work(measure: str, pairs: int, compared: Sequence[int], permutations: int) -> None:
    """Refuse a randomisation test that would draw more than MAX_RANDOM_SIGNS random signs or compute more than
    MAX_SIGNED_SUMS signed sums over all settings (a setting of at most EXACT_MAX_QUERIES queries counts its 2^n
    sign vectors exactly, at little cost, and draws none)."""
    sampled = [n for n in compared if n > EXACT_MAX_QUERIES]
    if not sampled:
        return
    signs = permutations * max(sampled) * len(sampled)
    factors = f"{permutations:,} permutations x {max(sampled):,} queries x {len(sampled):,} settings"
    other = "(vary fewer conventions), or another test (t, wilcoxon)"
    if signs > MAX_RANDOM_SIGNS:
        raise InputError(f"{measure}: the randomisation test over {factors} draws {signs:,} random signs, more than "
                         f"{MAX_RANDOM_SIGNS:,}; use fewer permutations or settings {other}")
    if signs * pairs > MAX_SIGNED_SUMS:
        raise InputError(f"{measure}: the randomisation test over {factors} x {pairs:,} pairs is "
                         f"{signs * pairs:,} signed sums, more than {MAX_SIGNED_SUMS:,}; use fewer permutations, runs "
                         f"or settings {other}")


def _setting_values(qrels, tables, measure: Measure, settings: Sequence[Conventions]
                    ) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """Each setting in turn: ``(index, values, present)``, ``values[r, q]`` run r's value on judged query q (the
    judged queries in sorted order, trec_eval's) and ``present[r, q]`` whether it counts (a query the run lacks is
    an empty row of its batches, dropped under missing_queries=skip). A run's batches are built once per
    combination of the ordering conventions that changes its order; the settings are visited by unjudged rule,
    then tie order, then precision, so that each run holds one set of batches at a time, never one per setting."""
    judged = sorted(qrels.qids)
    column = {qid: position for position, qid in enumerate(judged)}
    lacks = []
    for _, table in tables:
        absent = np.ones(len(judged), dtype=bool)
        absent[[column[qid] for qid in table.qids if qid in column]] = False
        lacks.append(absent)
    ties = [_ties(table) for _, table in tables]
    groups: dict[tuple[str, str, str], list[int]] = {}
    for index, conv in enumerate(settings):
        groups.setdefault((conv.unjudged, conv.tie_order, conv.score_precision), []).append(index)
    held: list[tuple[tuple, bulk.PreparedRun, np.ndarray] | None] = [None] * len(tables)
    for unjudged, tie_order, precision in sorted(groups):
        for row, (_, table) in enumerate(tables):
            # The tie order only orders tied scores, and float32 only adds ties: a run without them (or whose
            # float32 ties are its float64 ties) has the same batches whatever they say.
            tied, finer = ties[row]
            ranking = (tie_order if tied else None, precision if finer else None, unjudged)
            if held[row] is None or held[row][0] != ranking:
                held[row] = None  # the batches of the last combination go before the next are built
                conv = settings[groups[unjudged, tie_order, precision][0]]
                held[row] = (ranking, *_prepared(qrels, table, measure, conv, column))
        for index in groups[unjudged, tie_order, precision]:
            yield index, *_evaluated(held, measure, settings[index], lacks)


def _prepared(qrels, table, measure: Measure, conv: Conventions, column: Mapping[str, int]
              ) -> tuple[bulk.PreparedRun, np.ndarray]:
    """A run's batches under ``conv`` (with -c's empty rows) and the column of each of its queries."""
    prepared = bulk.prepare_run(qrels, table, [measure], conv.replace(missing_queries="zero"))
    return prepared, np.array([column[qid] for qid in prepared.qids], dtype=np.int64)


def _evaluated(held, measure: Measure, conv: Conventions, lacks: Sequence[np.ndarray]
               ) -> tuple[np.ndarray, np.ndarray]:
    """One setting's ``(values, present)`` (runs x judged queries) from each run's held batches."""
    values = np.zeros((len(held), lacks[0].size))
    present = np.zeros((len(held), lacks[0].size), dtype=bool)
    for row, (_, prepared, columns) in enumerate(held):
        run = dataclasses.replace(prepared, conventions=conv.replace(missing_queries="zero"))
        values[row, columns] = bulk.evaluate_prepared(run)[1][measure.key]
        present[row, columns] = True
        if conv.missing_queries == "skip":
            present[row] &= ~lacks[row]
    return values, present


def _ties(table) -> tuple[bool, bool]:
    """Whether two documents of one query tie when scores are compared as float32, and whether float32 makes more
    ties than float64 (float64 ties are float32 ties too, so equal counts mean the same tie groups)."""
    codes = value_codes(table.qid)[0] if table.qid_code is None else table.qid_code
    counts = []
    for dtype in (np.float32, np.float64):
        with np.errstate(over="ignore"):  # beyond the float32 range a score becomes an infinity, as in the batches
            scores = table.score.astype(dtype)
        order = np.lexsort((scores, codes))
        same_query = codes[order][1:] == codes[order][:-1]
        counts.append(int(np.count_nonzero(same_query & (scores[order][1:] == scores[order][:-1]))))
    return counts[0] > 0, counts[0] != counts[1]


#: The formats :func:`multiverse_report` writes.
FORMATS = ("text", "markdown")


def multiverse_report(result: Multiverse, *, fmt: str = "text") -> str:
    """The report in ``fmt``: plain text, or Markdown where every sentence is literal (run names escaped)."""
    if fmt not in FORMATS:
        raise InputError(f"a multiverse report is {' or '.join(FORMATS)}, got {fmt!r}")
    if fmt == "text":
        return "\n".join(result.lines()) + "\n"
    out = []
    for line in result.lines():
        bullet = line.startswith("- ")
        text = _markdown_escape(line[2:] if bullet else line)
        out.append(f"- {text}" if bullet else (f"**{text}**" if line.endswith(":") else text))
    return "\n".join(out) + "\n"


def _sign(value: float) -> int:
    return 0 if abs(value) <= TIE_TOLERANCE else (1 if value > 0 else -1)


def _signed_range(low: float, high: float) -> str:
    return f"{low:+.4f}" if abs(high - low) < 5e-5 else f"{low:+.4f} to {high:+.4f}"


__all__ = ["FORMATS", "MAX_RANDOM_SIGNS", "MAX_SETTINGS", "MAX_SIGNED_SUMS", "PLAUSIBLE", "Conclusion", "Multiverse",
           "Outcome", "kendall_tau_b", "multiverse", "multiverse_report", "plausible_values", "reading",
           "relevance_levels"]
