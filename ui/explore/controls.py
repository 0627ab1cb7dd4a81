"""Shared controls: the sample picker, k, the relevance threshold and the conventions panel.

Each control shows a value owned by the QueryState and writes changes back through a callback, so the state
stays the one source of truth (and the URL follows it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from metrics import CONVENTION_INFO, DEFAULT_TREC_EVAL, Conventions
from metrics.conventions import URL_PARAMS
from metrics.explain import explain
from metrics.real import DL20
from ui.common import panels, state
from ui.common.conventions import convention_meaning, convention_select
from ui.common.numbers import number_box
from ui.common.query_state import MAX_GRADE, MAX_K, ORDER_CONVENTIONS, QueryState, set_order_convention
from ui.explore.unchanged import unchanged_reason

#: The conventions the explorer offers a select box for: those with a URL parameter (relevance_level has its own
#: number input).
QUERY_CONVENTIONS = tuple(info.name for info in CONVENTION_INFO if info.name in URL_PARAMS)


def bound(widget: Callable[..., Any], key: str, value: Any, on_change: Callable[[Any], None], **kwargs: Any) -> Any:
    """Draw ``widget`` showing ``value``; when the user changes it, ``on_change(new_value)`` runs first, then the
    panels whose view it changed rerun (ui.common.panels)."""
    if st.session_state.get(key) != value:
        st.session_state[key] = value
    return widget(key=key, on_change=panels.follow(lambda: on_change(st.session_state[key])), **kwargs)


#: The picker's option for a list that is no sample as loaded (a None option would show "Choose an option").
OWN_LIST = "your-own-list"


def sample_picker(query: QueryState) -> None:
    """The sample the list is, with its description; a list edited away from its sample is "your own list", and
    the caption says which sample it was edited from (the description no longer describes it)."""
    samples = state.samples()
    shown = state.shown_sample(query, samples)

    def load(slug: str) -> None:
        if slug not in samples:
            return  # choosing "your own list" keeps the list as it is
        state.commit(state.state_from_sample(samples[slug]))
        st.session_state[state.BASELINE] = None
        st.session_state[state.SAMPLE] = slug
        state.say("info", f"Loaded the sample “{samples[slug].title}”.")

    bound(
        st.selectbox, "sample_picker", shown or OWN_LIST, load,
        label="Sample", options=[OWN_LIST, *samples],
        format_func=lambda slug: "— your own list —" if slug == OWN_LIST else samples[slug].title,
        help="Built-in examples; each teaches one difference between metrics.",
    )
    origin = st.session_state.get(state.SAMPLE)
    if shown:
        st.caption(samples[shown].description)
    elif origin in samples:
        st.caption(f"Edited from the sample “{samples[origin].title}”, whose description was written for the list "
                   "as loaded. Choose it again to start over.")


def real_query_picker() -> None:
    """A query of the built-in TREC DL 2020 collection, from one of its five runs, opened with its relevance
    threshold (-l 2), beside the synthetic samples."""
    panel = st.expander("Or a real query: TREC DL 2020", key="dl20_picker", on_change="rerun")
    if not panel.open:  # the collection is read only once someone opens the picker
        return
    with panel:
        st.caption(DL20.description)
        run = st.selectbox("Run", DL20.run_names, key="dl20_run")
        qids = sorted(DL20.qrels().qids, key=lambda qid: (len(qid), qid))
        qid = st.selectbox("Query", qids, key="dl20_query")
        st.button("Open this query", key="dl20_open", on_click=_open_real, args=(run, qid))
        st.caption(DL20.convention_note)
        st.caption(DL20.attribution)


def _open_real(run: str, qid: str) -> None:
    state.open_query(qid, DL20.qrels().query(qid), DL20.run(run).query(qid), k=10,
                     source=f" from TREC DL 2020 ({run})", relevance_level=DL20.conventions.relevance_level)


def _change(**changes: Any) -> None:
    state.commit(state.current().replace(**changes), refresh_editor=False)


#: Width of the k and threshold boxes, in CSS pixels.
BOX_WIDTH = 240


def k_and_level(query: QueryState) -> None:
    # One row of two fixed-width boxes (a quarter of the page each at 1280 px): one element where columns took four.
    with st.container(horizontal=True):
        bound(number_box, "k_input", query.k, lambda k: _change(k=int(k)),
              label="k (cut-off)", name="k", min_value=1, max_value=MAX_K, step=1, width=BOX_WIDTH,
              help="Measures look at the top k. Try k beyond the list length: the missing ranks count as non-relevant.")
        bound(number_box, "level_input", query.conventions.relevance_level,
              lambda level: _change(conventions=state.current().conventions.replace(relevance_level=int(level))),
              label="Relevance threshold", name="the relevance threshold", min_value=0, max_value=MAX_GRADE,
              step=1, width=BOX_WIDTH,
              help="A document is relevant when its grade is at least this (trec_eval -l). "
                   "nDCG uses the grades themselves.")


def _set_convention(name: str, value: Any) -> None:
    before = state.current()
    if name in ORDER_CONVENTIONS:
        # A list that follows its scores is re-sorted, so tied documents visibly take the new order.
        state.commit(set_order_convention(before, name, value), refresh_editor=True)
    else:
        _change(conventions=before.conventions.replace(**{name: value}))
    after = state.current()
    if _card_values(before) == _card_values(after):  # nothing on the page moved: say why, for this list
        label = next(info.label for info in CONVENTION_INFO if info.name == name)
        state.say("info", f"{label}: {value}. No card changed, because "
                          f"{unchanged_reason(name, before, after)}.")


def _card_values(query: QueryState) -> list[float]:
    return [e.value for e in explain(query.ranking, dict(query.judgments), query.k, query.conventions)]


#: Session keys: the conventions panel's expander, and whether the panel is open (the page's own record of it).
CONVENTIONS_PANEL = "conventions_panel"
CONVENTIONS_OPEN = "conventions_panel_open"


def _remember_conventions_panel() -> None:
    st.session_state[CONVENTIONS_OPEN] = st.session_state[CONVENTIONS_PANEL]


def conventions_panel(query: QueryState) -> None:
    """One selectbox per convention, generated from the documented CONVENTION_INFO, drawn only while the panel is
    open (a closed panel's select boxes and captions were sent again on every edit)."""
    # Streamlit's state of an expander belongs to its label too: the page keeps whether the panel is open, so it
    # stays open when the label gains or loses "(changed)".
    st.session_state[CONVENTIONS_PANEL] = st.session_state.get(CONVENTIONS_OPEN, False)
    panel = st.expander("Conventions" + ("" if not query.conventions.differences() else " (changed)"),
                        key=CONVENTIONS_PANEL, on_change=_remember_conventions_panel)
    if not panel.open:
        return
    with panel:
        st.caption(f"Defaults are trec_eval {DEFAULT_TREC_EVAL}'s. Each choice names the tools that use it.")
        for info in CONVENTION_INFO:
            if info.name not in QUERY_CONVENTIONS:
                continue
            chosen = bound(
                st.selectbox, f"convention_{info.name}", getattr(query.conventions, info.name),
                lambda value, name=info.name: _set_convention(name, value),
                **convention_select(info),
            )
            convention_meaning(info, chosen)
        st.button("Reset to trec_eval's conventions", key="reset_conventions",
                  disabled=not query.conventions.differences(),
                  on_click=panels.follow(lambda: _change(
                      conventions=Conventions(relevance_level=state.current().conventions.relevance_level))))
