"""Explore a query: edit a ranked list and its judgments, and watch every metric respond.

The page is cut into panels (ui.common.panels): each reruns only when what it shows changed, so a change of k
redraws the cards, the explanations, the what-if chart and the link, and leaves the list's grids, the move controls
and the closed sections as they are; a grade typed in the list keeps the grid it was typed in.
"""

from __future__ import annotations

import streamlit as st

from metrics.explain import Explanation, explain, missed_relevant_note
from ui.common import classroom, panels, state, two_lists
from ui.common.query_state import PANELS, QueryState
from ui.common.text import literal

from . import controls, data_io, disagree, editor, holes, list_status, online, scores, ties, whatif

#: The page's one statement of how it scores (the list status box says when the scores disagree with it).
SCORING_MODEL = (
    "The list shown is the ranking scored: every number, chart and download uses this order. A list that arrives "
    "with scores is ordered by them, ties by the tie-order convention, exactly as trec_eval orders a run. "
    "Measures and conventions are trec_eval's unless you change one in the sidebar."
)


def page() -> None:
    state.follow_url()  # Back and Forward: the address bar may hold an earlier state
    view = classroom.apply(PANELS)
    panels.forget_drawn()  # a whole-page run: every panel below records its view again
    with st.sidebar:
        # Filled by the sidebar panel, which follows the list (a sample edited is "your own list") and the
        # conventions; the real-query picker between them depends on neither.
        sample_slot = st.container()
        controls.real_query_picker()
        conventions_slot = st.container() if view.shows("conventions") else None

    # Styles sent once per page, not with every edit.
    st.html(scores.CARD_STYLES + whatif.STEADY_SWAP_CHART + whatif.CONFIRMATION_IN_SIGHT)
    with st.container(key=data_io.TOP_ANCHOR):
        st.title("Explore a query")
        data_io.scroll_to_top_once()
    if not view.classroom:  # in class the list and the cards come first
        st.caption(SCORING_MODEL)

    sidebar_panel(sample_slot, conventions_slot)
    cards_panel()
    if not view.classroom:
        baseline_panel()
    # At 1280 px the list's six columns need 5/8 of the width; the formulas fit in the rest.
    list_side, explain_side = st.columns([5, 3], gap="medium")
    with list_side:
        list_heading_panel()
        if not view.classroom:
            status_panel()
        list_panel()
        if view.classroom:  # the list first; its status and the baseline right under it
            status_panel()
            baseline_panel()
        move_panel()
        st.markdown("**Judged but not retrieved**")
        judgments_panel()
    with explain_side:
        st.subheader("How each number is computed")
        explain_panel()
        scores.metric_guide(online_shown=view.shows("online"))

    pairs_panel()
    whatif_panel()
    if view.shows("online"):
        online_panel()
    else:
        state.keep_values(online.kept_widgets())
    # Loading data depends on no edit; the downloads and the link under it follow the list.
    data_io.data_in()
    downloads_panel()
    link_panel()


# ---- what each panel shows, from the session state -------------------------------------------------------------


def _explanations(query: QueryState) -> list[Explanation]:
    """Every card's explanation of ``query``, computed once per state (several panels show them)."""
    memo = st.session_state.get(_EXPLANATIONS)
    if memo is None or memo[0] != query:
        memo = (query, explain(query.ranking, dict(query.judgments), query.k, query.conventions))
        st.session_state[_EXPLANATIONS] = memo
    return memo[1]


_EXPLANATIONS = "explore_explanations"


def _baseline() -> dict | None:
    return st.session_state.get(state.BASELINE)


def _everything() -> tuple:
    """The view of a panel that shows every part of the state: the list, its judgments, k, the conventions, the
    baseline and the page's view (classroom mode)."""
    return state.current(), _baseline(), state.view()


def _sidebar_view() -> tuple:
    query = state.current()
    return (state.shown_sample(query), st.session_state.get(state.SAMPLE), query.conventions,
            st.session_state.get(controls.CONVENTIONS_OPEN, False), state.view())


def _baseline_view() -> tuple:
    return _baseline() is not None, state.can_undo()


def _heading_view() -> tuple:
    query = state.current()
    return query.query, state.link_note(query)


def _status_view() -> tuple:
    return state.current(), st.session_state.get(state.MESSAGE), state.view()


def _list_view() -> tuple:
    return editor.ranking_rows(state.current()), state.view().shows("holes")


def _move_view() -> tuple:
    return tuple(state.current().ranking)


def _judgments_view() -> tuple:
    query = state.current()
    return (editor.judgments_rows(query), query.conventions.relevance_level, missed_relevant_note(query.conventions),
            st.session_state.get(editor.SHOW_NOT_RELEVANT, False))


def _pairs_view() -> tuple:
    if not (st.session_state.get(two_lists.SECTION) or st.session_state.get(disagree.EXPANDER)):
        return ()  # both closed: each draws its title alone
    return (*_everything(), two_lists.get_pair(two_lists.EXPLORER_PREFIX))


def _online_view() -> tuple:
    return _everything() if st.session_state.get(online.OPEN) else ()  # closed: its title alone


def _downloads_view() -> tuple:
    return _everything() if st.session_state.get(data_io.DOWNLOADS) else ()  # closed: its title alone


def _link_view() -> tuple:
    return state.current(), state.view()


# ---- the panels --------------------------------------------------------------------------------------------------


@panels.panel("explore_sidebar", _sidebar_view)
def sidebar_panel(sample_slot, conventions_slot) -> None:
    """The sidebar's sample picker (``sample_slot``) and conventions panel (``conventions_slot``, None in class
    unless shown)."""
    query = state.current()
    with sample_slot:
        controls.sample_picker(query)
    if conventions_slot is not None:
        with conventions_slot:
            controls.conventions_panel(query)


@panels.panel("explore_cards", _everything)
def cards_panel() -> None:
    """k and the threshold, the cards with their holes and ties, and the conventions that produced them."""
    query = state.current()
    view = state.view()
    explanations = _explanations(query)
    controls.k_and_level(query)
    card_holes = None
    if view.shows("holes"):
        card_holes = holes.card_holes(list(query.ranking), dict(query.judgments), explanations, query.conventions)
    baseline_values = scores.baseline_values(_baseline(), [item.parsed for item in explanations], query.conventions)
    # The tie interval belongs to the tie-order convention: classroom mode shows it with the conventions.
    card_ties = ties.card_ties(query, explanations) if view.shows("conventions") else None
    scores.metric_cards(explanations, baseline_values, card_holes, card_ties)
    if card_holes is not None:
        holes.judged_caption(card_holes, query.k, len(query.ranking[: query.conventions.depth or None]))
    if view.shows("conventions") or query.conventions.differences():  # a number never hides its conventions
        st.caption("Conventions: " + query.conventions.describe())


@panels.panel("explore_baseline", _baseline_view)
def baseline_panel() -> None:
    scores.baseline_controls()


@panels.panel("explore_list_heading", _heading_view)
def list_heading_panel() -> None:
    query = state.current()
    st.subheader(f"Ranked list · {literal(query.query)}")
    too_long = state.link_note(query)
    if too_long:
        st.caption(too_long)


@panels.panel("explore_status", _status_view)
def status_panel() -> None:
    query = state.current()
    explanations = _explanations(query)
    list_status.status_box(query, explanations, {item.parsed.key: item.label for item in explanations})


@panels.panel(editor.RANKING_PANEL, _list_view)
def list_panel() -> None:
    editor.ranking_editor(state.current(), judged_column=state.view().shows("holes"))


@panels.panel("explore_move", _move_view)
def move_panel() -> None:
    editor.move_controls(state.current())


@panels.panel("explore_judgments", _judgments_view)
def judgments_panel() -> None:
    query = state.current()
    editor.judgments_editor(query, missed_relevant_note(query.conventions))


@panels.panel("explore_explain", _everything)
def explain_panel() -> None:
    query = state.current()
    explanations = _explanations(query)
    scores.explanations_panel(explanations)
    scores.cards_slide(explanations, query.query, query.k, query.conventions)


@panels.panel("explore_pairs", _pairs_view)
def pairs_panel() -> None:
    """The two-list view and the disagreement lab, which reads its pair: one panel, so an edit of the pair redraws
    both."""
    query = state.current()
    two_lists.section(query)
    disagree.section(query)


@panels.panel(whatif.PANEL, _everything)
def whatif_panel() -> None:
    whatif.whatif_section(state.current(), _baseline())


@panels.panel("explore_online", _online_view)
def online_panel() -> None:
    online.online_section(state.current(), _baseline())


@panels.panel("explore_downloads", _downloads_view)
def downloads_panel() -> None:
    """The downloads, drawn only while their expander is open."""
    query = state.current()
    data_io.data_out(query, [(e.label, e.measure, e.value) for e in _explanations(query)])


@panels.panel("explore_link", _link_view)
def link_panel() -> None:
    """The address bar's link, which follows every change of the list, k, the conventions and the view (it draws
    nothing)."""
    state.sync_url(state.current())
