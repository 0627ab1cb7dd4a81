"""The judgment hole of each metric card: its [low, high] with a help text, and Judged@k under the cards."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from metrics import TREC_EVAL, Conventions
from metrics.explain import Explanation
from metrics.holes import MOVED_FROM_OUTSIDE, MeasureHole, query_holes, top_grade
from metrics.measures.display import HOLE_JUDGED, card

#: How the ranked list marks a document without a grade >= 0 (ui/explore/editor.py's "judged" column).
UNJUDGED_MARK = "✗"
JUDGED_MARK = "✓"


@dataclass(frozen=True)
class CardHole:
    """What a metric card shows of its hole: the bracket, and the help text saying what low and high are."""

    hole: MeasureHole
    unjudged: int  # unjudged documents in the hole: the top k, or the whole list for an uncut metric
    scope: str  # "the top 4" or "the whole list"
    help: str

    measure: str = ""  # the registry name ("recall"): whether judgments outside the hole can move it

    @property
    def bracket(self) -> str:
        """The label under the card, naming what low and high cover: which unjudged documents, and, for a measure
        whose R grows with any relevant judgment (recall@k), that it holds only while nothing else is judged."""
        interval = f"[{card(self.hole.low)}, {card(self.hole.high)}]"
        owner = f"{self.scope}'s"
        if not self.hole.bounded:
            if self.unjudged == 0:
                return f"range {interval}: no unjudged in {self.scope}"
            if self.unjudged == 1:
                return f"range {interval}: {owner} 1 unjudged non-relevant or relevant"
            return f"range {interval}: {owner} {self.unjudged} unjudged all non-relevant or all relevant"
        if self.measure in MOVED_FROM_OUTSIDE:
            if self.unjudged == 0:
                return f"bounds {interval}: no unjudged in {self.scope}; a relevant one below lowers it"
            return f"bounds {interval} judging only {owner} {self.unjudged} unjudged"
        if self.unjudged == 0:
            return f"bounds {interval}: no unjudged in {self.scope}"
        return f"bounds {interval} whatever {owner} {self.unjudged} unjudged get"


def as_judged(conventions: Conventions) -> str:
    """How the value shown treats unjudged documents (the explorer's metrics all count them non-relevant unless the
    convention removes them)."""
    if conventions.unjudged == "removed":
        return "unjudged documents removed from the list, as the convention chosen says"
    return "unjudged documents count as non-relevant, trec_eval's assumption"


def hole_help(label: str, hole: MeasureHole, unjudged: int, scope: str, grade: int,
              conventions: Conventions = TREC_EVAL, measure: str = "") -> str:
    """What low and high of one card mean, in the words metrics.holes proves (bounds) or only computes (range)."""
    if unjudged == 0 and measure in MOVED_FROM_OUTSIDE:
        return (f"Every document in {scope} is judged: no judgment of them can move {label}; low = high = the value. "
                f"A document below {scope} (or not retrieved) judged relevant would raise R and lower it.")
    if unjudged == 0:
        return f"Every document in {scope} is judged: no judgment can move {label}; low = high = the value."
    documents, those, grades, receive = (("document", "that", "grade", "receives") if unjudged == 1 else
                                         ("documents", "those", "grades", "receive"))
    both = (f"low = {hole.low:.3f} and high = {hole.high:.3f} are the lower and the higher of two values of {label}: "
            f"as judged ({as_judged(conventions)}: {hole.value:.3f}) and with "
            f"the {unjudged} unjudged {documents} in {scope} judged relevant at grade {grade}, the query's largest "
            "grade, at least the relevance threshold (they join the relevant documents, so R grows too).")
    if hole.bounded and measure in MOVED_FROM_OUTSIDE:
        return both + (f" These are bounds only while nothing else is judged: whatever {grades} {those} {documents} "
                       f"{receive}, {label} stays between them, but a document below {scope} (or not retrieved) "
                       "judged relevant raises R and lowers it below the low end.")
    if hole.bounded:
        return both + f" These are bounds: whatever {grades} {those} {documents} {receive}, {label} stays between them."
    return (both + f" This is only the range between the two scenarios, not a bound: other judgments of {those} "
            f"{documents} may give a value outside it.")


def card_holes(ranking: list[str], judgments: dict[str, int], explanations: list[Explanation],
               conventions: Conventions) -> dict[str, CardHole]:
    """Each card's hole (metrics.holes.query_holes), keyed by measure string (``"P.4"``)."""
    found = query_holes(ranking, judgments, [item.parsed for item in explanations], conventions)
    listed = ranking[: conventions.depth] if conventions.depth else ranking
    cards: dict[str, CardHole] = {}
    for item in explanations:
        measure = item.parsed
        hole = found[measure.key]
        window = listed[: hole.k] if hole.k is not None else listed
        unjudged = sum(1 for doc in window if judgments.get(doc, -1) < 0)
        scope = f"the top {hole.k}" if hole.k is not None else "the whole list"
        level = measure.relevance_level if measure.relevance_level is not None else conventions.relevance_level
        cards[item.measure] = CardHole(hole, unjudged, scope,
                                       hole_help(item.label, hole, unjudged, scope, top_grade(judgments, level),
                                                 conventions, measure.name), measure.name)
    return cards


def judged_text(cards: dict[str, CardHole], k: int, length: int) -> str:
    """Judged@k in words (of the min(k, length) documents shown), and the whole list's when it differs (the hole
    of AP and RR)."""
    if length == 0:
        return "The list is empty: no document to judge, and no judgment can move a metric."
    cut = next((card for card in cards.values() if card.hole.k is not None), None)
    whole = next((card for card in cards.values() if card.hole.k is None), None)
    parts = []
    if cut is not None:
        noun = "document" if min(k, length) == 1 else "documents"
        verb = "is" if cut.unjudged == 1 else "are"
        shown = f"the top {k} {noun}" if k <= length else f"the {length} listed {noun} (k = {k} is beyond the list)"
        parts.append(f"{HOLE_JUDGED.one_query.format(k=k)} = {card(cut.hole.judged)}: {cut.unjudged} of {shown} "
                     f"{verb} unjudged "
                     f"(marked {UNJUDGED_MARK} in the list's judged column).")
    if whole is not None and (cut is None or whole.unjudged != cut.unjudged):
        parts.append(f"Whole list (the hole of AP and RR): Judged≥0 {card(whole.hole.judged)}, "
                     f"{whole.unjudged} unjudged.")
    parts.append("Under each value: its bounds or range if the unjudged documents it names were judged "
                 "(hover for what they mean).")
    return " ".join(parts)


def judged_caption(cards: dict[str, CardHole], k: int, length: int) -> None:
    st.caption(judged_text(cards, k, length))
