"""The tie interval of each metric card: when documents of the list share a score, the lowest and highest value
over their orders and the expected value under a uniformly random order (metrics.ties)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.explain import Explanation
from metrics.model import compared_scores
from metrics.ties import TieInterval, ranking_intervals
from ui.common.query_state import QueryState, scores_contradict_order


@dataclass(frozen=True)
class CardTies:
    """What a metric card shows of its ties: the interval and a help text saying what it is."""

    interval: TieInterval
    help: str

    @property
    def bracket(self) -> str:
        low, high, expected = self.interval.low, self.interval.high, self.interval.expected
        span = "n/a" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"
        mean = "n/a" if expected is None else f"{expected:.3f}"
        return f"ties {span}, expected {mean}"


def tied_documents(query: QueryState) -> int:
    """How many documents of the list share their score with a neighbour (0 without full scores, or when the scores
    contradict the order shown: the list is then not a ranking by score)."""
    active = query.active_items
    if len(active) < 2 or any(item.score is None for item in active) or scores_contradict_order(query):
        return 0
    scores = compared_scores(np.array([float(item.score) for item in active]), query.conventions.score_precision)
    tied = np.zeros(len(scores), dtype=bool)
    same = scores[1:] == scores[:-1]
    tied[1:] |= same
    tied[:-1] |= same
    return int(tied.sum())


def card_ties(query: QueryState, explanations: list[Explanation]) -> dict[str, CardTies]:
    """Each card's tie interval, keyed by measure string (``"P.4"``); empty when no two documents tie."""
    tied = tied_documents(query)
    if not tied:
        return {}
    scores = compared_scores(np.array([float(item.score) for item in query.active_items]),
                             query.conventions.score_precision)
    found = ranking_intervals(query.ranking, scores.tolist(), dict(query.judgments),
                              [item.parsed for item in explanations], query.conventions)
    cards = {}
    for item in explanations:
        interval = found[item.parsed.key]
        cards[item.measure] = CardTies(interval, tie_help(item.label, interval, tied))
    return cards


def tie_help(label: str, interval: TieInterval, tied: int) -> str:
    """What the interval of one card means."""
    start = (f"{tied} documents of the list share a score with a neighbour; trec_eval orders them by doc id "
             f"(descending), which gives {interval.value:.3f}. ")
    if interval.low is None or interval.high is None:
        span = (f"The lowest and highest {label} over their orders are not available: too many orders to score "
                "one by one, and sorting each group by grade is not proven to reach them for this measure. ")
    elif interval.low == interval.high:
        span = f"Every order of the tied documents gives the same {label}. "
    else:
        span = f"Over every order of the tied documents, {label} lies between {interval.low:.3f} and " \
               f"{interval.high:.3f}. "
    mean = ("Its expected value under a random order is not available (no closed form, and too many orders)."
            if interval.expected is None else
            f"A uniformly random order of each group of tied documents gives {interval.expected:.3f} on average "
            "(McSherry & Najork, 2008), exactly.")
    return start + span + mean
