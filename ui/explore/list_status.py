"""The list's status box: one fixed place above the ranked list for every message about it.

It always takes the same height, so a message, a conflict between scores and order, or a change of the agreement
with trec_eval never moves the list (a scroll bar appears inside the box if it ever overflows).
"""

from __future__ import annotations

import streamlit as st

from metrics.explain import Explanation
from metrics.export import run_scores, snippet_tool
from metrics.reference import check_against_trec_eval, live_check_skipped
from ui.common import panels, state
from ui.common.query_state import QueryState, score_order, scores_contradict_order, sort_by_score, use_this_order
from ui.common.text import literal

#: Height of the box in CSS pixels: room for a message, and for the conflict notice with its two buttons at 1280 px
#: (where the notice takes four lines).
BOX_HEIGHT = 240


def status_box(query: QueryState, explanations: list[Explanation], labels: dict[str, str]) -> None:
    with st.container(height=BOX_HEIGHT, border=True, key="list_status"):
        state.show_message()
        if scores_contradict_order(query):
            _conflict(query)
        else:
            _agreement(query, explanations, labels)


def _conflict(query: QueryState) -> None:
    order = score_order(query) or []
    first_difference = next(i for i, (a, b) in enumerate(zip(order, query.ranking)) if a != b)
    st.warning(
        f"The scores contradict this order: by score (ties: {query.conventions.tie_order}), rank "
        f"{first_difference + 1} would be {literal(order[first_difference])}, not "
        f"{literal(query.ranking[first_difference])}. The page scores the order shown; sort it by score, or keep "
        "it and rewrite the scores to follow the ranks.",
        icon=":material/swap_vert:",
    )
    with st.container(horizontal=True):
        st.button("Sort by score", key="sort_by_score", on_click=panels.follow(state.try_commit),
                  args=(sort_by_score,),
                  icon=":material/sort:", help="Put the documents in score order, ties by the tie-order convention.")
        st.button("Use this order", key="use_this_order", on_click=panels.follow(state.try_commit),
                  args=(use_this_order,),
                  icon=":material/check:",
                  help="Keep the order shown and give the documents scores n, n-1, …, 1 that follow it.")


def _agreement(query: QueryState, explanations: list[Explanation], labels: dict[str, str]) -> None:
    """pytrec_eval on the run the page exports (the order shown) against the engine, under trec_eval's -l and -J
    (or, where pytrec_eval cannot take them, why the check is skipped)."""
    skipped = live_check_skipped(query.conventions)
    if skipped:
        st.info(f"The live check is skipped: {skipped}. The cards show the engine's numbers, which are trec_eval's "
                f"-l {query.conventions.relevance_level} numbers, and the downloaded TREC files reproduce them "
                "with trec_eval.", icon=":material/info:")
        return
    scores, rewritten = run_scores(query.ranking, [item.score for item in query.active_items])
    agreement = check_against_trec_eval(
        query.ranking, [scores[doc] for doc in query.ranking], dict(query.judgments),
        [item.measure for item in explanations], query.conventions,
    )
    if not (agreement.engine_agrees and agreement.same_numbers):
        st.error("The engine and pytrec_eval disagree on this list. This is a bug: please report it. "
                 + "; ".join(f"{labels.get(m, m)}: engine {agreement.engine_shown[m]:.4f}, pytrec_eval "
                             f"{agreement.pytrec_eval[m]:.4f}" for m in agreement.measures))
        return
    tool, missing = snippet_tool(query.conventions)
    if tool == "pytrec_eval":
        text = "✓ trec_eval (pytrec_eval-terrier) computes the same numbers for this list"
    else:
        text = (f"✓ Under trec_eval's conventions pytrec_eval computes the engine's numbers for this list; the cards "
                f"also use {', '.join(missing)}, which pytrec_eval cannot express")
    if rewritten and query.ranking:
        text += " (the downloadable run gives each rank a score so that trec_eval keeps this order)"
    st.success(text + ".", icon=None)
