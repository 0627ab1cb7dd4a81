r"""Online experiments against a baseline, simulated with a click model: an A/B test of two lists, the sessions an
A/B test needs, and team-draft interleaving.

An A/B test shows list A to N sessions and list B to N others and compares their click-through rates. Team-draft
interleaving (Radlinski, Kurup and Joachims 2008) shows every session one list mixed from both, each document
credited to the ranking (team) that contributed it, and counts which team's documents got more clicks; it usually
needs far fewer sessions to see the same difference.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist

import numpy as np

from ..ids import check_ids
from ..model import InputError, check_grades, check_unique, short_repr
from .models import (
    DEFAULT_CONTINUATION,
    DEFAULT_ETA,
    MODELS,
    ClickModel,
    _as_number,
    _probabilities,
    default_attractiveness,
    default_position_bias,
    default_satisfaction,
    expected_signals,
)
from .simulate import CHUNK_CELLS, Simulated, check_seed, check_sessions, draw_sessions, simulate_with

#: The signals an A/B test compares (both are proportions of sessions).
AB_SIGNALS = ("ctr", "abandonment")
#: Interleaved lists are at most this long (each session's coin flips, one per pair of picks, stay few).
MAX_INTERLEAVING_DEPTH = 30
DEFAULT_INTERLEAVING_DEPTH = 10
#: Probabilities (each at most 1) closer than this are equal but for float rounding: no change to detect.
SAME_PROBABILITY = 1e-12
_STANDARD_NORMAL = NormalDist()


@dataclass(frozen=True)
class Difference:
    """One signal of an A/B test, always B minus A: ``expected`` from the closed forms, ``simulated`` from the
    sessions, ``ci`` its (1 - alpha) confidence interval, ``sessions_needed`` per arm to detect ``expected`` at
    alpha with power 0.8 (None when the expected difference is 0)."""

    expected: float
    simulated: float
    ci: tuple[float, float]
    sessions_needed: int | None

    @property
    def significant(self) -> bool:
        """The interval excludes 0."""
        return self.ci[0] > 0 or self.ci[1] < 0


@dataclass(frozen=True, eq=False)
class ABTest:
    """A simulated A/B test: ``ctr`` and ``abandonment`` differences (B - A), each arm's simulation."""

    ctr: Difference
    abandonment: Difference
    sessions: int
    seed: int
    alpha: float
    simulated_a: Simulated
    simulated_b: Simulated

    @property
    def differences(self) -> dict[str, Difference]:
        return {signal: getattr(self, signal) for signal in AB_SIGNALS}


def ab_test(model_a: ClickModel, model_b: ClickModel, sessions: int, seed: int, alpha: float = 0.05) -> ABTest:
    r"""Simulate ``sessions`` sessions on each arm (independent streams from ``seed``) and compare.

    The interval is Wald's for a difference of proportions: (\hat p_B - \hat p_A) \pm z_{1-\alpha/2}
    \sqrt{\hat p_A (1 - \hat p_A) / N + \hat p_B (1 - \hat p_B) / N}; abandonment is 1 - CTR, so its difference and
    interval are CTR's negated.
    """
    for name, model in (("model_a", model_a), ("model_b", model_b)):
        if not isinstance(model, ClickModel):
            raise InputError(f"Argument `{name}` has to be a metrics.online.ClickModel, got {type(model).__name__}")
    sessions = check_sessions(sessions)
    seed = check_seed(seed)
    alpha = _check_alpha(alpha)
    stream_a, stream_b = np.random.SeedSequence(seed).spawn(2)
    simulated_a = simulate_with(model_a, sessions, np.random.default_rng(stream_a), seed)
    simulated_b = simulate_with(model_b, sessions, np.random.default_rng(stream_b), seed)
    expected_a, expected_b = expected_signals(model_a), expected_signals(model_b)
    p_a, p_b = simulated_a.signals.ctr, simulated_b.signals.ctr
    half = _STANDARD_NORMAL.inv_cdf(1 - alpha / 2) * math.sqrt((p_a * (1 - p_a) + p_b * (1 - p_b)) / sessions)
    needed = sessions_needed(expected_a.ctr, expected_b.ctr, alpha=alpha)
    ctr = Difference(expected_b.ctr - expected_a.ctr, p_b - p_a, (p_b - p_a - half, p_b - p_a + half), needed)
    abandonment = Difference(expected_b.abandonment - expected_a.abandonment, -(p_b - p_a),
                             (-(p_b - p_a) - half, -(p_b - p_a) + half), needed)
    return ABTest(ctr, abandonment, sessions, seed, alpha, simulated_a, simulated_b)


def sessions_needed(p_a: float, p_b: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    r"""Sessions per arm for a two-sided test at level ``alpha`` to detect proportions p_A against p_B with the
    given power: the smallest n with \Phi(h\sqrt{n/2} - z) + \Phi(-h\sqrt{n/2} - z) \ge power, where
    h = |2 \arcsin\sqrt{p_B} - 2 \arcsin\sqrt{p_A}| (Cohen's effect size for proportions) and z = z_{1-\alpha/2};
    about 2 (z + z_{power})^2 / h^2. This is statsmodels' ``NormalIndPower`` with equal arms. None when
    p_A = p_B up to float rounding (|p_B - p_A| <= :data:`SAME_PROBABILITY`): no number of sessions tells them apart.
    """
    p_a = _as_number(p_a, "p_a", low=0.0, high=1.0)
    p_b = _as_number(p_b, "p_b", low=0.0, high=1.0)
    alpha = _check_alpha(alpha)
    power = _as_number(power, "power", low=0.0, high=1.0)
    if not alpha / 2 < power < 1:
        raise InputError(f"Argument `power` has to lie between alpha / 2 and 1 (exclusive), got {power!r}")
    if abs(p_b - p_a) <= SAME_PROBABILITY:
        return None
    effect = abs(2 * math.asin(math.sqrt(p_b)) - 2 * math.asin(math.sqrt(p_a)))
    z = _STANDARD_NORMAL.inv_cdf(1 - alpha / 2)

    def power_at(n: float) -> float:
        shift = effect * math.sqrt(n / 2)
        return _STANDARD_NORMAL.cdf(shift - z) + _STANDARD_NORMAL.cdf(-shift - z)

    high = 2 * ((z + _STANDARD_NORMAL.inv_cdf(power)) / effect) ** 2  # one tail only: power_at(high) >= power
    low = 0.0
    for _ in range(100):  # bisection on n (power grows with n), down to the float spacing of n
        middle = (low + high) / 2
        if not low < middle < high:
            break
        if power_at(middle) >= power:
            high = middle
        else:
            low = middle
    return max(1, math.ceil(high * (1 - 1e-12)))


@dataclass(frozen=True)
class Interleaving:
    """Team-draft interleaving's outcome over ``sessions`` sessions: a session is a win for the team whose documents
    got more clicks, a tie when both got as many (also none). ``win_rate_a`` = wins_a / (wins_a + wins_b), None
    without wins; ``ci`` its Wilson interval at 1 - alpha ((0, 1) without wins)."""

    wins_a: int
    wins_b: int
    ties: int
    sessions: int
    seed: int
    win_rate_a: float | None
    ci: tuple[float, float]
    clicks_a: int
    clicks_b: int


def team_draft(
    ranking_a: Sequence[str], ranking_b: Sequence[str], judgments: Mapping[str, int], kind: str, sessions: int,
    seed: int, *, depth: int = DEFAULT_INTERLEAVING_DEPTH, alpha: float = 0.05, eta: float = DEFAULT_ETA,
    continuation: float = DEFAULT_CONTINUATION, attractiveness: Mapping[str, float] | None = None,
    satisfaction: Mapping[str, float] | None = None, position_bias: Sequence[float] | None = None,
) -> Interleaving:
    """Interleave the top of ``ranking_a`` and ``ranking_b`` by team draft, once per session, simulate clicks on the
    interleaved list with the click model ``kind`` (parameters from ``judgments`` as
    :meth:`ClickModel.for_list` sets them, g_max the judgments' highest grade), and credit each click to the team
    that contributed the document.

    Team draft (Radlinski et al. 2008): while both rankings hold a document not yet shown and the list is shorter
    than ``depth``, the team with fewer picks (a coin flip when equal) adds its highest-ranked document not yet
    shown. Sessions, coin flips and clicks come from ``np.random.default_rng(seed)``.

    Typed parameters replace the defaults, as in :meth:`ClickModel.for_list`: ``attractiveness`` and
    ``satisfaction`` per document id (a document keeps them wherever it lands), ``position_bias`` θ_r for the first
    ranks of the interleaved list (pbm; the rest follow (1/r)^eta).
    """
    ranking_a, ranking_b = _check_ranking(ranking_a, "ranking_a"), _check_ranking(ranking_b, "ranking_b")
    check_grades(judgments, where="Argument `judgments`")
    check_ids(judgments, "document id", where="Argument `judgments`")
    if kind not in MODELS:
        raise InputError(f"Argument `kind` has to be one of {', '.join(MODELS)}, got {short_repr(kind)}")
    sessions = check_sessions(sessions)
    seed = check_seed(seed)
    alpha = _check_alpha(alpha)
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 1 <= depth <= MAX_INTERLEAVING_DEPTH:
        raise InputError(f"Argument `depth` has to be a whole number from 1 to {MAX_INTERLEAVING_DEPTH}, "
                         f"got {short_repr(depth)}")
    max_grade = max((int(g) for g in judgments.values() if g >= 0), default=0)
    typed_attractiveness = _typed_per_document(attractiveness, "attractiveness")
    typed_satisfaction = _typed_per_document(satisfaction, "satisfaction")
    typed_bias = _probabilities(position_bias, "position_bias") if position_bias is not None else np.zeros(0)
    rng = np.random.default_rng(seed)
    rounds = (int(depth) + 1) // 2
    coins = rng.integers(0, 2**rounds, size=sessions, dtype=np.int64)
    codes, which = np.unique(coins, return_inverse=True)
    lists = [interleave(ranking_a, ranking_b, int(code), int(depth)) for code in codes]
    width = max(1, max(len(docs) for docs, _ in lists))
    attractiveness = np.zeros((len(lists), width))
    satisfaction = np.zeros((len(lists), width))
    team_a = np.zeros((len(lists), width), dtype=bool)
    team_b = np.zeros((len(lists), width), dtype=bool)
    # Each document's parameters once (a document keeps its grade wherever it lands in a list).
    pool = list(dict.fromkeys([*ranking_a[: int(depth)], *ranking_b[: int(depth)]]))
    pool_grades = [judgments.get(doc) for doc in pool]
    doc_attractiveness = {**dict(zip(pool, default_attractiveness(pool_grades, max_grade).tolist())),
                          **typed_attractiveness}
    doc_satisfaction = {**dict(zip(pool, default_satisfaction(pool_grades, max_grade).tolist())),
                        **typed_satisfaction}
    for row, (docs, teams) in enumerate(lists):
        attractiveness[row, : len(docs)] = [doc_attractiveness[doc] for doc in docs]
        satisfaction[row, : len(docs)] = [doc_satisfaction[doc] for doc in docs]
        team_a[row, : len(docs)] = [team == "a" for team in teams]
        team_b[row, : len(docs)] = [team == "b" for team in teams]
    theta = None
    if kind == "pbm":
        theta = default_position_bias(width, eta)
        theta[: min(width, typed_bias.shape[0])] = typed_bias[:width]
    gamma = 1.0 if kind == "cascade" else _as_number(continuation, "continuation", low=0.0, high=1.0)
    wins_a = wins_b = clicks_a = clicks_b = 0
    chunk = max(1, CHUNK_CELLS // width)
    for start in range(0, sessions, chunk):
        rows = which[start: start + chunk]
        clicks, _ = draw_sessions(kind, attractiveness[rows], rng, rows.shape[0], position_bias=theta,
                                  satisfaction=satisfaction[rows] if kind == "dbn" else None, continuation=gamma)
        credit_a = (clicks & team_a[rows]).sum(axis=1)
        credit_b = (clicks & team_b[rows]).sum(axis=1)
        wins_a += int((credit_a > credit_b).sum())
        wins_b += int((credit_b > credit_a).sum())
        clicks_a += int(credit_a.sum())
        clicks_b += int(credit_b.sum())
    decided = wins_a + wins_b
    rate = wins_a / decided if decided else None
    ci = wilson_interval(wins_a, decided, alpha) if decided else (0.0, 1.0)
    return Interleaving(wins_a, wins_b, sessions - decided, sessions, seed, rate, ci, clicks_a, clicks_b)


def _typed_per_document(values: Mapping[str, float] | None, name: str) -> dict[str, float]:
    """``{document id: probability}`` checked: each value in [0, 1]."""
    if values is None:
        return {}
    if not isinstance(values, Mapping):
        raise InputError(f"Argument `{name}` has to be a mapping of document id to a probability, "
                         f"got {type(values).__name__}")
    return dict(zip(values, _probabilities(list(values.values()), name).tolist()))


def interleave(ranking_a: Sequence[str], ranking_b: Sequence[str], coins: int,
               depth: int) -> tuple[list[str], list[str]]:
    """Team draft's list for one session: (documents, team of each: "a" or "b"). Bit i of ``coins`` decides the
    i-th tie in team sizes (1: team A picks first)."""
    shown: set[str] = set()
    docs: list[str] = []
    teams: list[str] = []
    next_a = next_b = 0
    picks_a = picks_b = flips = 0
    while len(docs) < depth:
        while next_a < len(ranking_a) and ranking_a[next_a] in shown:
            next_a += 1
        while next_b < len(ranking_b) and ranking_b[next_b] in shown:
            next_b += 1
        if next_a >= len(ranking_a) or next_b >= len(ranking_b):
            break
        if picks_a == picks_b:
            a_first = bool(coins >> flips & 1)
            flips += 1
        else:
            a_first = picks_a < picks_b
        doc = ranking_a[next_a] if a_first else ranking_b[next_b]
        docs.append(doc)
        teams.append("a" if a_first else "b")
        shown.add(doc)
        if a_first:
            picks_a += 1
        else:
            picks_b += 1
    return docs, teams


def wilson_interval(successes: int, trials: int, alpha: float = 0.05) -> tuple[float, float]:
    r"""Wilson's score interval for a proportion: (\hat p + z^2/2n \pm z\sqrt{\hat p(1-\hat p)/n + z^2/4n^2}) /
    (1 + z^2/n); it stays inside [0, 1], also at 0 or n successes."""
    if trials <= 0:
        return (0.0, 1.0)
    z = _STANDARD_NORMAL.inv_cdf(1 - alpha / 2)
    p = successes / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    scale = 1 + z * z / trials
    low = 0.0 if successes <= 0 else max(0.0, (centre - spread) / scale)
    high = 1.0 if successes >= trials else min(1.0, (centre + spread) / scale)
    return (low, high)


def _check_ranking(ranking: object, name: str) -> list[str]:
    if isinstance(ranking, (str, bytes)) or not isinstance(ranking, (Sequence, np.ndarray)):
        hint = " (a string would be read as its characters)" if isinstance(ranking, str) else ""
        raise InputError(f"Argument `{name}` has to be a list of doc ids in rank order, got "
                         f"{type(ranking).__name__}{hint}")
    ranking = list(ranking)
    check_ids(ranking, "document id", where=f"Argument `{name}`")
    try:
        check_unique(ranking)
    except InputError as error:
        raise InputError(f"Argument `{name}`: {error}") from None
    return ranking


def _check_alpha(alpha: object) -> float:
    value = _as_number(alpha, "alpha", low=0.0, high=1.0)
    if not 0 < value < 1:
        raise InputError(f"Argument `alpha` has to lie strictly between 0 and 1, got {short_repr(alpha)}")
    return value


__all__ = ["AB_SIGNALS", "ABTest", "DEFAULT_INTERLEAVING_DEPTH", "Difference", "Interleaving", "MAX_INTERLEAVING_DEPTH",
           "ab_test", "interleave", "sessions_needed", "team_draft", "wilson_interval"]
