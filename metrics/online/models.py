r"""Click models over one ranked list, and the closed forms of the online signals they imply.

A click model is a user: it examines the list from the top and clicks a document it examines with the document's
attractiveness a_r. The three models differ in what makes the user examine rank r:

- **cascade** (Craswell et al. 2008): the user goes down until the first click and stops there;
- **dbn**, the dynamic Bayesian network (Chapelle and Zhang 2009): after a click the user is satisfied with
  probability s_r and stops; unsatisfied (or without a click) the user goes on with probability gamma (the
  continuation); cascade is dbn with gamma = 1 and s = 1;
- **pbm**, the position-based model: rank r is examined with probability theta_r (the position bias),
  independently of everything else, so clicks at different ranks are independent.

Every closed form here is computed for a batch of lists at once (rows of a padded matrix, padding with a = 0),
which is how a run's queries are evaluated together (:mod:`metrics.online.run`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np

from ..model import InputError, short_repr

ModelKind = Literal["cascade", "pbm", "dbn"]

MODELS: tuple[str, ...] = ("cascade", "pbm", "dbn")
#: The signals the command line prints, in its order.
SIGNALS: tuple[str, ...] = ("ctr", "ctr_1", "abandonment", "first_click_rank", "clicks")

#: One sentence per model, for --help and the pages.
MODEL_HELP = {
    "cascade": "the user reads down the list and stops at the first click (Craswell et al. 2008)",
    "pbm": "position-based: rank r is examined with probability theta_r = (1/r)^eta, clicks at different ranks are "
           "independent",
    "dbn": "dynamic Bayesian network (Chapelle and Zhang 2009): after a click the user is satisfied with probability "
           "s_r and stops, otherwise goes on with probability gamma; cascade is dbn with gamma = 1 and s = 1",
}
#: One sentence per signal, for --help and the pages.
SIGNAL_HELP = {
    "ctr": "click-through rate of the page: the probability of at least one click",
    "ctr_1": "click-through rate of rank 1: the probability of a click on the first result",
    "abandonment": "the probability of a session without any click (1 - ctr)",
    "first_click_rank": "the expected rank of the first click, given a click (no value when no click is possible)",
    "clicks": "the expected number of clicks in a session",
}

#: The longest list a click model takes (closed forms are linear in it; simulation bounds its own work).
MAX_LIST_LENGTH = 100_000
#: PBM's default position-bias exponent and DBN's default continuation.
DEFAULT_ETA = 1.0
DEFAULT_CONTINUATION = 0.9


def default_attractiveness(grades: Sequence[int | None], max_grade: int) -> np.ndarray:
    r"""a_r = (2^{g_r} - 1) / 2^{g_{max}} for each rank's grade g_r; 0 for an unjudged document (``None``) and for a
    grade <= 0 (non-relevant, or negative: in the pool but unjudged, as trec_eval reads it); all zeros when
    g_max <= 0 (no relevant document, no click).

    g_max is the query's highest grade (over all its judgments, retrieved or not), so the best possible document
    is clicked with probability 1 - 2^{-g_max}: 1/2 for binary judgments. Computed as 2^{g - g_max} - 2^{-g_max},
    which never overflows, also for trec_eval's 64-bit grades.
    """
    gmax = _as_grade(max_grade, "max_grade")
    values = _grade_array(grades)
    if gmax <= 0:
        return np.zeros(values.shape[0])
    _check_max_grade(grades, gmax)
    return _attractiveness_from(values, np.float64(gmax))


def default_satisfaction(grades: Sequence[int | None], max_grade: int) -> np.ndarray:
    r"""s_r = (2^{g_r} - 1) / (2^{g_{max}} - 1), DBN's default chance that a click satisfies: 1 for a document of the
    query's highest grade, less for lower grades, 0 for an unjudged document, a grade <= 0, or g_max <= 0.

    With every relevant document at the highest grade and gamma = 1, DBN is then exactly the cascade model.
    """
    gmax = _as_grade(max_grade, "max_grade")
    values = _grade_array(grades)
    if gmax <= 0:
        return np.zeros(values.shape[0])
    _check_max_grade(grades, gmax)
    return _satisfaction_from(values, np.float64(gmax))


def _check_max_grade(grades: Sequence[int | None], gmax: int) -> None:
    """InputError when a grade of the list exceeds ``gmax`` (compared as integers: 2^63 - 1 is no float)."""
    largest = max((int(grade) for grade in grades if grade is not None), default=None)
    if largest is not None and largest > gmax:
        raise InputError(f"Argument `max_grade` has to be at least every grade of the list, got {gmax} below "
                         f"grade {largest}")


def _attractiveness_from(grades: np.ndarray, gmax: np.ndarray | np.float64) -> np.ndarray:
    """(2^g - 1) / 2^gmax elementwise; NaN (unjudged) and g <= 0 give 0, gmax <= 0 gives 0 (broadcasts)."""
    positive = np.nan_to_num(grades, nan=0.0) > 0
    gmax = np.asarray(gmax, dtype=np.float64)
    safe_g = np.where(positive, grades, 0.0)
    safe_max = np.where(gmax > 0, gmax, 1.0)
    value = np.exp2(safe_g - safe_max) - np.exp2(-safe_max)
    return np.where(positive & (gmax > 0), value, 0.0)


def _satisfaction_from(grades: np.ndarray, gmax: np.ndarray | np.float64) -> np.ndarray:
    """(2^g - 1) / (2^gmax - 1) elementwise, written as (2^(g - gmax) - 2^-gmax) / (1 - 2^-gmax) (no overflow)."""
    positive = np.nan_to_num(grades, nan=0.0) > 0
    gmax = np.asarray(gmax, dtype=np.float64)
    safe_max = np.where(gmax > 0, gmax, 1.0)
    value = _attractiveness_from(grades, gmax) / (1.0 - np.exp2(-safe_max))
    return np.where(positive & (gmax > 0), np.minimum(value, 1.0), 0.0)


def default_position_bias(n: int, eta: float = DEFAULT_ETA) -> np.ndarray:
    r"""theta_r = (1 / r)^\eta for r = 1..n: PBM's chance that rank r is examined. eta = 0 examines every rank
    (no position bias), eta = 1 halves it by rank 2, larger eta makes the top matter more."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_LIST_LENGTH:
        raise InputError(f"Argument `n` has to be a whole number from 0 to {MAX_LIST_LENGTH:,}, got {short_repr(n)}")
    eta = _as_number(eta, "eta", low=0.0, high=None)
    return (1.0 / np.arange(1, n + 1, dtype=np.float64)) ** eta


@dataclass(frozen=True, eq=False)
class ClickModel:
    """A click model over one list: its kind and its per-rank parameters (read-only arrays).

    ``attractiveness`` a_r (every kind); ``position_bias`` theta_r (pbm only, default (1/r)^1); ``satisfaction``
    s_r (dbn only, default 1); ``continuation`` gamma (dbn only, default 0.9; the cascade model is 1 by definition).
    Every probability lies in [0, 1]. :meth:`for_list` derives them from grades.
    """

    kind: str
    attractiveness: np.ndarray
    position_bias: np.ndarray | None = None
    satisfaction: np.ndarray | None = None
    continuation: float = 1.0

    def __post_init__(self) -> None:
        if self.kind not in MODELS:
            raise InputError(f"Argument `kind` has to be one of {', '.join(MODELS)}, got {short_repr(self.kind)}")
        attractiveness = _probabilities(self.attractiveness, "attractiveness")
        n = attractiveness.shape[0]
        position_bias = satisfaction = None
        continuation = 1.0
        if self.kind == "pbm":
            position_bias = default_position_bias(n) if self.position_bias is None else \
                _probabilities(self.position_bias, "position_bias", length=n)
        elif self.kind == "dbn":
            satisfaction = np.ones(n) if self.satisfaction is None else \
                _probabilities(self.satisfaction, "satisfaction", length=n)
            continuation = _as_number(self.continuation, "continuation", low=0.0, high=1.0)
        for name, value in (("attractiveness", attractiveness), ("position_bias", position_bias),
                            ("satisfaction", satisfaction)):
            if value is not None:
                value.flags.writeable = False
            object.__setattr__(self, name, value)
        object.__setattr__(self, "continuation", continuation)

    @property
    def length(self) -> int:
        return int(self.attractiveness.shape[0])

    @classmethod
    def for_list(
        cls, kind: str, grades: Sequence[int | None], max_grade: int, *, eta: float = DEFAULT_ETA,
        continuation: float = DEFAULT_CONTINUATION, attractiveness: Sequence[float] | None = None,
        position_bias: Sequence[float] | None = None, satisfaction: Sequence[float] | None = None,
    ) -> ClickModel:
        """The model of kind ``kind`` for a list whose rank r holds grade ``grades[r-1]`` (``None``: unjudged).

        Defaults: attractiveness (2^g - 1) / 2^max_grade (:func:`default_attractiveness`), position bias (1/r)^eta
        (pbm), satisfaction (2^g - 1) / (2^max_grade - 1) and continuation 0.9 (dbn). Any per-rank curve given
        replaces its default; parameters a kind does not use are ignored (cascade has gamma = 1, s = 1).
        """
        if kind not in MODELS:
            raise InputError(f"Argument `kind` has to be one of {', '.join(MODELS)}, got {short_repr(kind)}")
        n = len(_grade_array(grades))
        a = default_attractiveness(grades, max_grade) if attractiveness is None else \
            _probabilities(attractiveness, "attractiveness", length=n)
        if kind == "pbm":
            theta = default_position_bias(n, eta) if position_bias is None else position_bias
            return cls(kind, a, position_bias=theta)
        if kind == "dbn":
            s = default_satisfaction(grades, max_grade) if satisfaction is None else satisfaction
            return cls(kind, a, satisfaction=s, continuation=continuation)
        return cls(kind, a)


@dataclass(frozen=True, eq=False)
class Signals:
    """The online signals of one list under one click model (closed forms, or the means of a simulation).

    click_probability: P(click at rank r) per rank; ctr: P(at least one click); ctr_1: P(click at rank 1);
    abandonment: P(no click) = 1 - ctr; first_click_rank: E[rank of the first click | a click], None when no click
    is possible (or, simulated, none happened); clicks: E[number of clicks]; stop_reciprocal_rank: E[1 / rank of the
    click that ends the session satisfied], 0 when there is none (ERR under the cascade model; PBM has no
    satisfaction, so there the first click stands for it).
    """

    click_probability: np.ndarray
    ctr: float
    ctr_1: float
    abandonment: float
    first_click_rank: float | None
    clicks: float
    stop_reciprocal_rank: float

    def value(self, signal: str) -> float | None:
        """The value of one of :data:`SIGNALS` (or ``stop_reciprocal_rank``) by name."""
        if signal not in SIGNALS and signal != "stop_reciprocal_rank":
            raise InputError(f"unknown signal {short_repr(signal)}; the signals are {', '.join(SIGNALS)}")
        return getattr(self, signal)

    def as_dict(self) -> dict[str, float | None]:
        """{signal: value} for :data:`SIGNALS`, in their order."""
        return {signal: getattr(self, signal) for signal in SIGNALS}


def expected_signals(model: ClickModel) -> Signals:
    r"""The closed forms of every signal for ``model`` (see :func:`closed_forms` for the formulas).

    An empty list, or one nobody clicks (no relevant document, g_max <= 0), gives ctr = ctr_1 = clicks = 0,
    abandonment = 1, first_click_rank None and stop_reciprocal_rank 0: never NaN.
    """
    if not isinstance(model, ClickModel):
        raise InputError(f"Argument `model` has to be a metrics.online.ClickModel, got {type(model).__name__}")
    n = model.length
    width = max(1, n)
    a = _padded_row(model.attractiveness, width)
    theta = _padded_row(model.position_bias, width) if model.position_bias is not None else None
    s = _padded_row(model.satisfaction, width) if model.satisfaction is not None else None
    forms = closed_forms(model.kind, a, position_bias=theta, satisfaction=s, continuation=model.continuation)
    ctr = float(forms["ctr"][0])
    return Signals(
        click_probability=forms["click_probability"][0, :n].copy(),
        ctr=ctr,
        ctr_1=float(forms["ctr_1"][0]),
        abandonment=float(forms["abandonment"][0]),
        first_click_rank=float(forms["first_click_rank"][0]) if ctr > 0 else None,
        clicks=float(forms["clicks"][0]),
        stop_reciprocal_rank=float(forms["stop_reciprocal_rank"][0]),
    )


def closed_forms(
    kind: str, attractiveness: np.ndarray, *, position_bias: np.ndarray | None = None,
    satisfaction: np.ndarray | None = None, continuation: float | np.ndarray = 1.0,
) -> dict[str, np.ndarray]:
    r"""Every signal for a batch of lists: (n, w) matrices of per-rank parameters, padded with a = 0.

    With e_r the chance that rank r is examined and f_r the chance that the first click is at rank r:

    - cascade and dbn: e_1 = 1, e_{r+1} = e_r \gamma (1 - a_r s_r) (stop when a click satisfies, else go on with
      probability \gamma); f_r = a_r \prod_{i<r} \gamma (1 - a_i) (no click above r: satisfaction plays no part);
    - pbm: e_r = \theta_r, clicks independent, so f_r = \theta_r a_r \prod_{i<r} (1 - \theta_i a_i).

    Then P(click at r) = e_r a_r, CTR = \sum_r f_r, which is 1 - \prod_r (1 - c_r) whenever clicks are missed
    independently (pbm: c_r = \theta_r a_r; cascade and dbn with \gamma = 1: c_r = a_r), computed so (factors in
    ascending order) that the same chances in any order give the same CTR to the last bit, CTR@1 = e_1 a_1 = a_1
    (\theta_1 a_1 in pbm), abandonment = 1 - CTR, E[first click rank | click] = \sum_r r f_r / CTR (0 here when
    CTR = 0; the caller says "no value"), E[clicks] = \sum_r e_r a_r, and the expected reciprocal rank of the
    satisfying click \sum_r (a_r s_r e_r) / r (cascade: s = 1, which is ERR's formula with R_r = a_r); pbm:
    \sum_r f_r / r.

    Returns ``click_probability`` (n, w) and one (n,) array per signal and ``stop_reciprocal_rank``.
    """
    a = np.asarray(attractiveness, dtype=np.float64)
    if a.ndim != 2:
        raise ValueError("Argument `attractiveness` has to be an (n, w) matrix")
    rows, width = a.shape
    if width == 0:
        a = np.zeros((rows, 1))
        width = 1
    ranks = np.arange(1, width + 1, dtype=np.float64)
    ones = np.ones((rows, 1))
    if kind == "pbm":
        theta = np.ones_like(a) if position_bias is None else np.asarray(position_bias, dtype=np.float64)
        click = theta * a
        click_chance = click
        clear_above = np.cumprod(np.concatenate([ones, 1.0 - click[:, :-1]], axis=1), axis=1)
        first = click * clear_above
        stop_rr = np.cumsum(first / ranks, axis=1)[:, -1]
        independent = np.ones(rows, dtype=bool)
    elif kind in ("cascade", "dbn"):
        gamma = np.asarray(1.0 if kind == "cascade" else continuation, dtype=np.float64).reshape(-1, 1)
        s = np.ones_like(a) if kind == "cascade" or satisfaction is None else np.asarray(satisfaction, dtype=np.float64)
        stop = a * s
        examined = np.cumprod(np.concatenate([ones, gamma * (1.0 - stop[:, :-1])], axis=1), axis=1)
        click = examined * a
        no_click_above = np.cumprod(np.concatenate([ones, gamma * (1.0 - a[:, :-1])], axis=1), axis=1)
        first = a * no_click_above
        # Same operations, in the same order, as ERR's kernel (metrics.measures.gain_based): bit-identical to it.
        stop_rr = np.cumsum(stop * examined / ranks, axis=1)[:, -1]
        independent = np.broadcast_to(gamma == 1.0, (rows, 1))[:, 0]  # no leaving before a click
        click_chance = a
    else:
        raise InputError(f"Argument `kind` has to be one of {', '.join(MODELS)}, got {short_repr(kind)}")
    missed_all = np.prod(np.sort(1.0 - click_chance, axis=1), axis=1)
    ctr = np.clip(np.where(independent, 1.0 - missed_all, np.cumsum(first, axis=1)[:, -1]), 0.0, 1.0)
    weighted = np.cumsum(first * ranks, axis=1)[:, -1]
    with np.errstate(divide="ignore", invalid="ignore"):
        first_rank = np.where(ctr > 0, weighted / np.where(ctr > 0, ctr, 1.0), 0.0)
    return {
        "click_probability": click,
        "ctr": ctr,
        "ctr_1": click[:, 0].copy(),
        "abandonment": 1.0 - ctr,
        "first_click_rank": first_rank,
        "clicks": np.cumsum(click, axis=1)[:, -1],
        "stop_reciprocal_rank": stop_rr,
    }


def _padded_row(values: np.ndarray, width: int) -> np.ndarray:
    row = np.zeros((1, width))
    row[0, : values.shape[0]] = values
    return row


def _grade_array(grades: Sequence[int | None]) -> np.ndarray:
    """Grades as float64 with NaN for unjudged (None); refuses text, non-integers and overlong lists."""
    if isinstance(grades, (str, bytes)) or not isinstance(grades, (Sequence, np.ndarray)):
        raise InputError(f"Argument `grades` has to be a list of integer grades (None: unjudged), "
                         f"got {type(grades).__name__}")
    if len(grades) > MAX_LIST_LENGTH:
        raise InputError(f"a list of {len(grades):,} documents is too long for a click model; the limit is "
                         f"{MAX_LIST_LENGTH:,}")
    values = np.empty(len(grades))
    for rank, grade in enumerate(grades, start=1):
        values[rank - 1] = np.nan if grade is None else _as_grade(grade, f"grades (rank {rank})")
    return values


def _as_grade(value: object, name: str) -> int:
    ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
    if not ok and isinstance(value, (float, np.floating)) and np.isfinite(value) and float(value).is_integer():
        ok = True
    if not ok:
        raise InputError(f"Argument `{name}` has to be an integer grade, got {short_repr(value)}")
    if not -(2**63) <= value <= 2**63 - 1:
        raise InputError(f"Argument `{name}` is out of range: grades are whole numbers from -2^63 to 2^63-1")
    return int(value)


def _as_number(value: object, name: str, *, low: float, high: float | None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not np.isfinite(float(value)) or float(value) < low or (high is not None and float(value) > high):
        span = f"from {low:g} to {high:g}" if high is not None else f"at least {low:g}"
        raise InputError(f"Argument `{name}` has to be a finite number {span}, got {short_repr(value)}")
    return float(value)


def _probabilities(values: object, name: str, length: int | None = None) -> np.ndarray:
    """A 1-d float64 copy of ``values``, each a probability in [0, 1]; ``length`` when given must match."""
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, np.ndarray)):
        raise InputError(f"Argument `{name}` has to be a list of probabilities, one per rank, "
                         f"got {type(values).__name__}")
    if len(values) > MAX_LIST_LENGTH:
        raise InputError(f"Argument `{name}` has {len(values):,} ranks; the limit is {MAX_LIST_LENGTH:,}")
    try:
        array = np.array(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"Argument `{name}` has to be a list of numbers from 0 to 1") from None
    if array.ndim != 1:
        raise InputError(f"Argument `{name}` has to be a flat list of probabilities, one per rank")
    if length is not None and array.shape[0] != length:
        raise InputError(f"Argument `{name}` has {array.shape[0]} values for a list of {length}: give one per rank")
    bad = ~(np.isfinite(array) & (array >= 0.0) & (array <= 1.0))
    if bad.any():
        rank = int(np.argmax(bad)) + 1
        raise InputError(f"Argument `{name}` at rank {rank}: a probability has to lie in [0, 1], got "
                         f"{short_repr(values[rank - 1])}")
    return array


__all__ = ["DEFAULT_CONTINUATION", "DEFAULT_ETA", "MAX_LIST_LENGTH", "MODELS", "MODEL_HELP", "SIGNALS", "SIGNAL_HELP",
           "ClickModel", "Signals", "closed_forms", "default_attractiveness", "default_position_bias",
           "default_satisfaction", "expected_signals"]
