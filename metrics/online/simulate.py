"""Seeded simulation of click sessions under a click model, with the sampling error of every signal.

Sessions are drawn as a (sessions x ranks) matrix of uniform numbers per decision (attracted, satisfied, goes on),
in chunks of at most :data:`CHUNK_CELLS` cells, so memory stays a few MB whatever the number of sessions. Ranks
below the last one anybody can click are never drawn (they hold no click), and the work, sessions times those
ranks, is capped at :data:`MAX_DRAWS`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model import InputError, short_repr
from .models import ClickModel, Signals

#: The most sessions one simulation draws.
MAX_SESSIONS = 1_000_000
#: The most (session, rank) cells one simulation draws: sessions times the ranks down to the last clickable one.
MAX_DRAWS = 200_000_000
#: Cells per chunk: three float64 matrices of this size stay under 7 MB.
CHUNK_CELLS = 1 << 18


@dataclass(frozen=True, eq=False)
class Simulated:
    """A simulation's result: ``signals`` holds the sample means (first_click_rank over the sessions with a click,
    None without any), ``standard_error`` the standard error of each (None where the signal is None; a proportion's
    is sqrt(p (1 - p) / N)), ``click_probability_error`` that of each rank's click rate."""

    signals: Signals
    standard_error: dict[str, float | None]
    click_probability_error: np.ndarray
    sessions: int
    seed: int


def check_sessions(sessions: object, name: str = "sessions") -> int:
    """``sessions`` as an int from 1 to :data:`MAX_SESSIONS`, or InputError."""
    if isinstance(sessions, bool) or not isinstance(sessions, (int, np.integer)) or not 1 <= sessions <= MAX_SESSIONS:
        raise InputError(f"Argument `{name}` has to be a whole number from 1 to {MAX_SESSIONS:,}, "
                         f"got {short_repr(sessions)}")
    return int(sessions)


def check_seed(seed: object) -> int:
    """``seed`` as a non-negative int below 2^63, or InputError."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**63:
        raise InputError(f"Argument `seed` has to be a whole number from 0 to 2^63-1, got {short_repr(seed)}")
    return int(seed)


def simulate_signals(model: ClickModel, sessions: int, seed: int) -> Simulated:
    """Draw ``sessions`` sessions of ``model`` with ``np.random.default_rng(seed)`` and measure every signal.

    The same model, sessions and seed give the same numbers on every machine (numpy's PCG64 stream).
    """
    if not isinstance(model, ClickModel):
        raise InputError(f"Argument `model` has to be a metrics.online.ClickModel, got {type(model).__name__}")
    sessions = check_sessions(sessions)
    seed = check_seed(seed)
    return simulate_with(model, sessions, np.random.default_rng(seed), seed)


def clickable_length(model: ClickModel) -> int:
    """The ranks down to the last one a click can happen at (0 when none can)."""
    reachable = model.attractiveness > 0
    if model.position_bias is not None:
        reachable &= model.position_bias > 0
    return int(np.flatnonzero(reachable)[-1]) + 1 if reachable.any() else 0


def check_work(sessions: int, ranks: int, what: str = "") -> None:
    """InputError when ``sessions`` x ``ranks`` exceeds :data:`MAX_DRAWS`."""
    if sessions * ranks > MAX_DRAWS:
        raise InputError(f"{what}{sessions:,} sessions x {ranks:,} ranks (down to the last clickable document) is "
                         f"more than {MAX_DRAWS:,} draws; use at most {max(1, MAX_DRAWS // ranks):,} sessions")


def simulate_with(model: ClickModel, sessions: int, rng: np.random.Generator, seed: int) -> Simulated:
    """:func:`simulate_signals` with a generator already made (run-level and A/B simulations share this)."""
    n = model.length
    width = clickable_length(model)
    check_work(sessions, width)
    tally = _Tally(width)
    if width:
        a = model.attractiveness[:width]
        theta = model.position_bias[:width] if model.position_bias is not None else None
        s = model.satisfaction[:width] if model.satisfaction is not None else None
        chunk = max(1, CHUNK_CELLS // width)
        for start in range(0, sessions, chunk):
            clicks, stop_rank = draw_sessions(model.kind, a, rng, min(chunk, sessions - start), position_bias=theta,
                                              satisfaction=s, continuation=model.continuation)
            tally.add(clicks, stop_rank)
    else:
        tally.sessions = sessions
    return tally.result(n, seed)


def draw_sessions(
    kind: str, attractiveness: np.ndarray, rng: np.random.Generator, sessions: int, *,
    position_bias: np.ndarray | None = None, satisfaction: np.ndarray | None = None, continuation: float = 1.0,
) -> tuple[np.ndarray, np.ndarray]:
    """One chunk of sessions: (clicks, stop_rank). ``clicks`` is a (sessions, ranks) bool matrix; ``stop_rank`` the
    rank of the click that ended the session satisfied (pbm: the first click), 0 when none did.

    Per-rank parameters are (ranks,) vectors or (sessions, ranks) matrices (one list per session, as interleaving
    makes). cascade and dbn: the user examines rank r+1 when no satisfying click happened at ranks <= r and every
    "go on" draw above succeeded; pbm: each rank is examined and clicked independently.
    """
    shape = (sessions, np.shape(attractiveness)[-1])
    attracted = rng.random(shape) < attractiveness
    if kind == "pbm":
        examined = rng.random(shape) < (1.0 if position_bias is None else position_bias)
        clicks = attracted & examined
        first = clicks.argmax(axis=1)
        return clicks, np.where(clicks.any(axis=1), first + 1, 0)
    if kind == "cascade":
        satisfied = attracted
        stops = attracted
    else:
        satisfied = attracted & (rng.random(shape) < (1.0 if satisfaction is None else satisfaction))
        stops = satisfied | (rng.random(shape) >= continuation) if continuation < 1.0 else satisfied
    # Rank r is examined when no rank above it stopped the session.
    examined = np.ones(shape, dtype=bool)
    np.logical_and.accumulate(~stops[:, :-1], axis=1, out=examined[:, 1:])
    clicks = examined & attracted
    stopped_here = examined & satisfied
    stop_rank = np.where(stopped_here.any(axis=1), stopped_here.argmax(axis=1) + 1, 0)
    return clicks, stop_rank


class _Tally:
    """Sums and sums of squares of each session statistic, accumulated chunk by chunk."""

    def __init__(self, width: int) -> None:
        self.sessions = 0
        self.clicked = 0  # sessions with a click
        self.clicked_1 = 0
        self.per_rank = np.zeros(width, dtype=np.int64)
        self.clicks = self.clicks_sq = 0
        self.first = self.first_sq = 0
        self.reciprocal = self.reciprocal_sq = 0.0

    def add(self, clicks: np.ndarray, stop_rank: np.ndarray) -> None:
        self.sessions += clicks.shape[0]
        counts = clicks.sum(axis=1, dtype=np.int64)
        any_click = counts > 0
        first = clicks.argmax(axis=1)[any_click] + 1
        self.clicked += int(any_click.sum())
        self.clicked_1 += int(clicks[:, 0].sum())
        self.per_rank += clicks.sum(axis=0, dtype=np.int64)
        self.clicks += int(counts.sum())
        self.clicks_sq += int((counts * counts).sum())
        self.first += int(first.sum())
        self.first_sq += int((first * first).sum())
        reciprocal = np.where(stop_rank > 0, 1.0 / np.maximum(stop_rank, 1), 0.0)
        self.reciprocal += float(reciprocal.sum())
        self.reciprocal_sq += float((reciprocal * reciprocal).sum())

    def result(self, n: int, seed: int) -> Simulated:
        sessions = self.sessions
        ctr = self.clicked / sessions
        per_rank = np.zeros(n)
        per_rank[: self.per_rank.shape[0]] = self.per_rank / sessions
        first_rank = self.first / self.clicked if self.clicked else None
        signals = Signals(
            click_probability=per_rank,
            ctr=ctr,
            ctr_1=self.clicked_1 / sessions,
            abandonment=1.0 - ctr,
            first_click_rank=first_rank,
            clicks=self.clicks / sessions,
            stop_reciprocal_rank=self.reciprocal / sessions,
        )
        error = {
            "ctr": _proportion_error(ctr, sessions),
            "ctr_1": _proportion_error(signals.ctr_1, sessions),
            "abandonment": _proportion_error(ctr, sessions),
            "first_click_rank": _mean_error(self.first, self.first_sq, self.clicked) if self.clicked else None,
            "clicks": _mean_error(self.clicks, self.clicks_sq, sessions),
            "stop_reciprocal_rank": _mean_error(self.reciprocal, self.reciprocal_sq, sessions),
        }
        rank_error = np.sqrt(per_rank * (1.0 - per_rank) / sessions)
        return Simulated(signals, error, rank_error, sessions, seed)


def _proportion_error(p: float, n: int) -> float:
    return math.sqrt(max(p * (1.0 - p), 0.0) / n)


def _mean_error(total: float, total_sq: float, n: int) -> float:
    """Standard error of a mean from the sum and the sum of squares (sample variance, n - 1)."""
    if n < 2:
        return 0.0
    variance = max((total_sq - total * total / n) / (n - 1), 0.0)
    return math.sqrt(variance / n)


__all__ = ["CHUNK_CELLS", "MAX_DRAWS", "MAX_SESSIONS", "Simulated", "check_seed", "check_sessions", "clickable_length",
           "draw_sessions", "simulate_signals"]
