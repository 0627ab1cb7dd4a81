"""Explore a query: edit a ranked list and its judgments, and watch every metric respond."""

from __future__ import annotations

import streamlit as st

from metrics.explain import explain, missed_relevant_note
from ui.common import classroom, state, two_lists
from ui.common.query_state import PANELS
from ui.common.text import literal

from . import controls, data_io, disagree, editor, holes, list_status, online, scores, ties, whatif

#: The page's one statement of how it scores (the list status box says when the scores disagree with it).
SCORING_MODEL = (
    "The list shown is the ranking scored: every number, chart and download uses this order. A list that arrives "
    "with scores is ordered by them, ties by the tie-order convention, exactly as trec_eval orders a run. "
    "Measures and conventions are trec_eval's unless you change one in the sidebar."
)


def page() -> None:
    view = classroom.apply(PANELS)
    with st.sidebar:
        # Filled by the query panels (a fragment), which redraw them with every edit: an edit the sidebar shows
        # (the list is no longer its sample, a convention changed) reruns the panels alone, and so does a choice
        # made in them (a sample, a convention), since every panel depends on it.
        sample_slot = st.container()
        controls.real_query_picker()
        conventions_slot = st.container() if view.shows("conventions") else None

    # Outside the query panels: a style sent once per page, not with every edit.
    st.html(scores.ONE_STATE_AT_A_TIME)
    with st.container(key=data_io.TOP_ANCHOR):
        st.title("Explore a query")
        data_io.scroll_to_top_once()
    if not view.classroom:  # in class the list and the cards come first
        st.caption(SCORING_MODEL)

    panels = st.container()
    # Loading data depends on no edit: drawn outside the query panels, so an edit does not send its uploaders and
    # text boxes again. The downloads below it follow the list: the panels fill their slot.
    data_io.data_in()
    downloads_slot = st.container()
    with panels:
        query_panels(view, sample_slot, conventions_slot, downloads_slot)


@st.fragment
def query_panels(view, sample_slot, conventions_slot, downloads_slot) -> None:
    """Everything an edit can change: k, the cards, the list, the explanations, the what-if charts, the downloads
    and the link, and in the sidebar the sample picker and the conventions panel (``sample_slot`` and
    ``conventions_slot``, None in class unless shown; the downloads go to ``downloads_slot``, under the data
    loading, which no edit changes). A fragment, so an edit, a sample or a convention reruns these panels and
    neither the title, the data loading nor the rest of the sidebar."""
    query = state.current()
    with sample_slot:
        controls.sample_picker(query)
    if conventions_slot is not None:
        with conventions_slot:
            controls.conventions_panel(query)
    explanations = explain(query.ranking, dict(query.judgments), query.k, query.conventions)
    labels = {item.parsed.key: item.label for item in explanations}
    baseline = st.session_state.get(state.BASELINE)

    controls.k_and_level(query)
    card_holes = None
    if view.shows("holes"):
        card_holes = holes.card_holes(list(query.ranking), dict(query.judgments), explanations, query.conventions)
    baseline_values = scores.baseline_values(baseline, [item.parsed for item in explanations], query.conventions)
    # The tie interval belongs to the tie-order convention: classroom mode shows it with the conventions.
    card_ties = ties.card_ties(query, explanations) if view.shows("conventions") else None
    scores.metric_cards(explanations, baseline_values, card_holes, card_ties)
    if card_holes is not None:
        holes.judged_caption(card_holes, query.k, len(query.ranking[: query.conventions.depth or None]))
    if not view.classroom:
        scores.baseline_controls()
    if view.shows("conventions") or query.conventions.differences():  # a number never hides its conventions
        st.caption("Conventions: " + query.conventions.describe())

    # At 1280 px the list's six columns need 5/8 of the width; the formulas fit in the rest.
    list_side, explain_side = st.columns([5, 3], gap="medium")
    with list_side:
        st.subheader(f"Ranked list · {literal(query.query)}")
        too_long = state.link_note(query)
        if too_long:
            st.caption(too_long)
        if not view.classroom:
            list_status.status_box(query, explanations, labels)
        editor.ranking_editor(query, judged_column=view.shows("holes"))
        if view.classroom:  # the list first; its status and the baseline right under it
            list_status.status_box(query, explanations, labels)
            scores.baseline_controls()
        editor.move_controls(query)
        st.markdown("**Judged but not retrieved**")
        editor.judgments_editor(query, missed_relevant_note(query.conventions))
    with explain_side:
        st.subheader("How each number is computed")
        scores.explanations_panel(explanations)
        scores.cards_slide(explanations, query.query, query.k, query.conventions)
        scores.metric_guide(online_shown=view.shows("online"))

    two_lists.section(query)
    disagree.section(query)
    whatif.whatif_section(query, baseline)
    if view.shows("online"):
        online.online_section(query, baseline)
    else:
        state.keep_values(online.kept_widgets())

    with downloads_slot:
        data_io.data_out(query, [(e.label, e.measure, e.value) for e in explanations])
    state.sync_url(query)
