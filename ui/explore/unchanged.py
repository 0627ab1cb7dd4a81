"""Why a change of convention moved no card: one sentence about the list, from facts computed on it.

A newcomer who changes the gain on a list of binary grades sees nothing happen and thinks the control is broken.
After a convention change that leaves every card as it was, the page says why, for this list
(:func:`unchanged_reason`): each reason is a fact checked on the list that makes the two conventions agree on it
(tests/app/test_unchanged.py checks that every fact, where it holds, leaves every card as it was); when no such
fact holds, the sentence says only what was computed: no card of this list depends on it.
"""

from __future__ import annotations

import numpy as np

from metrics import Conventions
from metrics.model import compared_scores
from ui.common.query_state import QueryState


def unchanged_reason(name: str, before: QueryState, after: QueryState) -> str:
    """Why changing convention ``name`` (``before`` the change, ``after`` it) left every card as it was."""
    old, new = getattr(before.conventions, name), getattr(after.conventions, name)
    reason = _REASONS[name](after, old, new, after.conventions) if name in _REASONS else None
    if reason is None and name in ("tie_order", "score_precision") and before.ranking == after.ranking:
        reason = f"{old} and {new} put this list's documents in the same order"
    return reason or f"no card of this list depends on the choice between {old} and {new}"


def _grades(query: QueryState) -> list[int]:
    return sorted({grade for grade in query.judgments.values() if grade >= 0})


def _gain(query: QueryState, old: str, new: str, conventions: Conventions) -> str | None:
    grades = _grades(query)
    if not set(grades) <= {0, 1}:
        return None
    shown = "the only grade here is " + str(grades[0]) if len(grades) == 1 else "the grades here are 0 and 1"
    if not grades:
        shown = "no document here has a grade"
    if {old, new} <= {"linear", "exponential"}:
        return f"{shown}, and 2^g - 1 equals g for 0 and 1: the gains are the same"
    level = conventions.relevance_level
    if level == 1:
        return f"{shown} and the relevance threshold is 1, so a grade's gain is the grade itself under both"
    if {old, new} <= {"binary", "thresholded"}:
        return f"{shown} and none reaches the relevance threshold {level}, so every gain is 0 under both"
    return None


def _no_ties(query: QueryState, conventions: Conventions, precision: str | None = None) -> bool:
    scores = [item.score for item in query.active_items if item.score is not None]
    if not scores:
        return False
    compared = compared_scores(np.asarray(scores, dtype=np.float64), precision or conventions.score_precision)
    return np.unique(compared).shape[0] == len(scores)


def _tie_order(query: QueryState, old: str, new: str, conventions: Conventions) -> str | None:
    if _no_ties(query, conventions):
        return "no two documents of this list share a score, so the tie order cannot change a score"
    return None


def _score_precision(query: QueryState, old: str, new: str, conventions: Conventions) -> str | None:
    if _no_ties(query, conventions, "float32"):  # scores apart as 32-bit floats are apart as 64-bit ones too
        return ("no two scores of this list are equal, as 32-bit or as 64-bit numbers, so their precision cannot "
                "change the order")
    return None


def _relevant(query: QueryState, conventions: Conventions) -> tuple[int, int, int]:
    """(R, relevant documents in the top k, relevant documents anywhere in the list)."""
    level = conventions.relevance_level
    ranking = query.ranking
    relevant = {doc for doc, grade in query.judgments.items() if grade >= level}
    return (len(relevant), sum(doc in relevant for doc in ranking[: query.k]), sum(doc in relevant for doc in ranking))


def _ap_denominator(query: QueryState, old: str, new: str, conventions: Conventions) -> str | None:
    total, in_top, anywhere = _relevant(query, conventions)
    k = query.k
    # What AP@k and the uncut AP divide by under each rule (uncut, a rule's k is the whole list).
    value = {"R": (total, total), "min_R_k": (min(total, k), total), "retrieved_relevant": (in_top, anywhere),
             "min_retrieved_relevant_k": (min(anywhere, k), anywhere)}
    if old in value and new in value and value[old] == value[new]:
        at_k, uncut = value[old]
        return (f"AP@{k} divides by {at_k} and AP by {uncut} under both here (R = {total}, {in_top} relevant "
                f"in the top {k}, {anywhere} in the list)")
    return None


def _ideal_from(query: QueryState, old: str, new: str, conventions: Conventions) -> str | None:
    ranked = set(query.ranking)
    missing = [doc for doc, grade in query.judgments.items() if grade > 0 and doc not in ranked]
    if not missing:
        return ("every judged document with a grade above 0 is in the list, so the ideal ranking built from the "
                "judgments and the one built from the list are the same")
    return None


def _unjudged(query: QueryState, old: str, new: str, conventions: Conventions) -> str | None:
    if all(query.judgments.get(doc, -1) >= 0 for doc in query.ranking):
        return "every document of the list is judged (none has no grade or a negative one), so there is none to drop"
    return None


def _precision_short_list(query: QueryState, old: str, new: str, conventions: Conventions) -> str | None:
    length = len(query.ranking)
    if length >= query.k:
        return f"the list has {length} documents, at least k = {query.k}, so k and min(k, its length) are the same"
    return None


_REASONS = {
    "gain": _gain,
    "tie_order": _tie_order,
    "score_precision": _score_precision,
    "ap_denominator": _ap_denominator,
    "ideal_from": _ideal_from,
    "unjudged": _unjudged,
    "precision_short_list": _precision_short_list,
}
