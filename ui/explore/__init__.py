"""Explore a query: edit a ranked list and its judgments, and watch every metric respond."""

from __future__ import annotations

import streamlit as st

from metrics.explain import explain, missed_relevant_note
from ui.common import state, two_lists
from ui.common.text import literal

from . import controls, data_io, editor, holes, list_status, online, scores, ties, whatif

#: The page's one statement of how it scores (the list status box says when the scores disagree with it).
SCORING_MODEL = (
    "The list shown is the ranking scored: every number, chart and download uses this order. A list that arrives "
    "with scores is ordered by them, ties by the tie-order convention, exactly as trec_eval orders a run. "
    "Measures and conventions are trec_eval's unless you change one in the sidebar."
)


def page() -> None:
    query = state.current()
    with st.sidebar:
        controls.sample_picker(query)
        controls.real_query_picker()
        controls.conventions_panel(query)

    with st.container(key=data_io.TOP_ANCHOR):
        st.title("Explore a query")
        data_io.scroll_to_top_once()
    st.caption(SCORING_MODEL)

    explanations = explain(query.ranking, dict(query.judgments), query.k, query.conventions)
    labels = {item.parsed.key: item.label for item in explanations}
    baseline = st.session_state.get(state.BASELINE)

    controls.k_and_level(query)
    card_holes = holes.card_holes(list(query.ranking), dict(query.judgments), explanations, query.conventions)
    baseline_values = scores.baseline_values(baseline, [item.parsed for item in explanations], query.conventions)
    scores.metric_cards(explanations, baseline_values, card_holes, ties.card_ties(query, explanations))
    holes.judged_caption(card_holes, query.k, len(query.ranking[: query.conventions.depth or None]))
    scores.baseline_controls()
    st.caption("Conventions: " + query.conventions.describe())

    # At 1280 px the list's six columns need 5/8 of the width; the formulas fit in the rest.
    list_side, explain_side = st.columns([5, 3], gap="medium")
    with list_side:
        st.subheader(f"Ranked list · {literal(query.query)}")
        too_long = state.link_note(query)
        if too_long:
            st.caption(too_long)
        list_status.status_box(query, explanations, labels)
        editor.ranking_editor(query)
        editor.move_controls(query)
        st.markdown("**Judged but not retrieved**")
        st.caption(missed_relevant_note(query.conventions))
        editor.judgments_editor(query)
    with explain_side:
        st.subheader("How each number is computed")
        scores.explanations_panel(explanations)
        scores.metric_guide()

    two_lists.section(query)
    whatif.whatif_section(query, baseline)
    online.online_section(query, baseline)

    data_io.data_in()
    data_io.data_out(query, [(e.label, e.measure, e.value) for e in explanations])
    state.sync_url(query)
