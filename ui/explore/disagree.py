"""The explorer's disagreement lab, on the two-list view's lists A and B, or on the pinned baseline (A) and the list
above (B): the smallest single edit of B after which two metrics (or one metric under two conventions) disagree on
which list is better, with a button that applies it (metrics.whatif.find_disagreement). Drawn and computed only
while its expander is open."""

from __future__ import annotations

import dataclasses

import pandas as pd
import streamlit as st

from metrics import CONVENTION_INFO, Conventions, InputError
from metrics.explain import explorer_metrics
from metrics.whatif import Disagreement, Judge, LabEdit, find_disagreement, verdict_words
from ui.common import panels, state, tables, two_lists
from ui.common.query_state import QueryState, remove_active, reorder_active
from ui.common.text import literal

EXPANDER = "disagree_open"
WIDGETS = ("disagree_source", "disagree_first", "disagree_second", "disagree_conventions")
TWO_LISTS = "List A and list B of the two-list view"
BASELINE = "The pinned baseline (A) and the list above (B)"
SAME_CONVENTIONS = "the same conventions"
#: The last pair an applied edit replaced, for Undo, and the sentence said under the button.
UNDO = "disagree_undo"
APPLIED = "disagree_applied"


def convention_options(conventions: Conventions) -> dict[str, Conventions]:
    """The second metric's conventions: the page's, or the page's with one change that means something for an
    explicit list (not how scores order documents or what their values do, nor what a whole run does)."""
    options = {SAME_CONVENTIONS: conventions}
    for info in CONVENTION_INFO:
        if info.scope != "query" or info.orders_only or info.reads_scores:
            continue
        for choice in info.choices:
            if choice.value != getattr(conventions, info.name):
                options[f"{info.label}: {choice.value}"] = dataclasses.replace(conventions, **{info.name: choice.value})
    for level in (1, 2, 3):
        if level != conventions.relevance_level:
            options[f"relevance threshold: {level}"] = dataclasses.replace(conventions, relevance_level=level)
    return options


def section(query: QueryState) -> None:
    expander = st.expander(":material/balance: Disagreement lab: the smallest edit after which two metrics "
                           "disagree on which list is better", key=EXPANDER, on_change="rerun")
    if not expander.open:
        state.keep_values(WIDGETS)
        return
    with expander:
        baseline = st.session_state.get(state.BASELINE)
        source = TWO_LISTS
        if baseline is not None:
            source = st.radio("Compare", (TWO_LISTS, BASELINE), key="disagree_source", horizontal=True)
        if source == BASELINE:
            pair = two_lists.ListPair(tuple(baseline["ranking"]), tuple(query.ranking), dict(query.judgments),
                                      query.k, query.conventions, ("the baseline", "the list above"))
            st.caption("Edits apply to the list above (B), with the page's Undo; both lists are scored with the "
                       "list above's judgments" + (", which differ from those the baseline was pinned with."
                                                   if dict(baseline["judgments"]) != dict(query.judgments) else "."))
        else:
            if two_lists.get_pair(two_lists.EXPLORER_PREFIX) is None:
                two_lists.put_pair(two_lists.EXPLORER_PREFIX, two_lists.pair_from_query(query))
            pair = two_lists.get_pair(two_lists.EXPLORER_PREFIX)
            st.caption("On list A and list B of the two-list view (both start as the list above).")
        st.caption("Metrics answer different questions: one swap, one removal or one grade change can be enough "
                   "for two of them to name different winners.")
        labels = [label for label, _ in explorer_metrics(pair.k)]
        left, middle, right = st.columns(3)
        first = left.selectbox("First metric", labels, index=0, key="disagree_first")
        second = middle.selectbox("Second metric", labels, index=labels.index(f"nDCG@{pair.k}"),
                                  key="disagree_second")
        options = convention_options(pair.conventions)
        chosen = right.selectbox("Second metric's conventions", list(options), key="disagree_conventions")
        judges = (Judge(_measure(first, pair.k), pair.conventions, first),
                  Judge(_measure(second, pair.k), options[chosen],
                        second if chosen == SAME_CONVENTIONS else f"{second} ({chosen})"))
        if judges[0].measure == judges[1].measure and chosen == SAME_CONVENTIONS:
            st.info("Choose two different metrics, or other conventions for the second one.")
            return
        try:
            found = find_disagreement(pair.list_a, pair.list_b, pair.judgments, judges)
        except InputError as error:
            st.error(literal(error))
            return
        show(found, source)


def _measure(label: str, k: int):
    return dict(explorer_metrics(k))[label]


def values_table(found: Disagreement) -> pd.DataFrame:
    rows = []
    for j, judge in enumerate(found.judges):
        row = {"metric": judge.name, "A": found.values_before[j][0], "B": found.values_before[j][1],
               "verdict": verdict_words(found.verdicts_before[j])}
        if found.values_after is not None:
            row |= {"A after": found.values_after[j][0], "B after": found.values_after[j][1],
                    "verdict after": verdict_words(found.verdicts_after[j])}
        rows.append(row)
    return pd.DataFrame(rows)


def show(found: Disagreement, source: str = TWO_LISTS) -> None:
    (st.success if found.edit is not None else st.info)(literal(found.sentence))
    tables.table(values_table(found), hide_index=True, key="disagree_values",
                 column_config={name: st.column_config.NumberColumn(format="%.4f")
                                for name in ("A", "B", "A after", "B after")})
    if found.edit is not None:
        described = found.edit.describe(found.list_b, found.judgments)
        if source == BASELINE:
            st.button("Apply this edit to the list above", key="disagree_apply", icon=":material/touch_app:",
                      on_click=apply_to_list, args=(found.edit, described))
        else:
            st.button("Apply this edit to list B", key="disagree_apply", icon=":material/touch_app:",
                      on_click=apply, args=(found.edit, described))
    applied = st.session_state.get(APPLIED)
    if applied:
        message, undo = st.columns([5, 1], vertical_alignment="center")
        message.caption(literal(applied))
        if source == BASELINE:
            undo.button("Undo", key="disagree_undo_button", on_click=undo_on_page, icon=":material/undo:",
                        disabled=not state.can_undo())
        else:
            undo.button("Undo", key="disagree_undo_button", on_click=undo_last, icon=":material/undo:",
                        disabled=st.session_state.get(UNDO) is None)


def apply(edit: LabEdit, described: str) -> None:
    """Apply the lab's edit to the two-list view's B (and its judgments), keeping the pair before it for Undo."""
    pair = two_lists.get_pair(two_lists.EXPLORER_PREFIX)
    new_b, new_judgments = edit.apply(pair.list_b, pair.judgments)
    st.session_state[UNDO] = pair
    two_lists.put_pair(two_lists.EXPLORER_PREFIX, dataclasses.replace(pair, list_b=tuple(new_b),
                                                                      judgments=new_judgments))
    st.session_state[APPLIED] = f"{described}: applied to the two-list view."


def undo_last() -> None:
    previous = st.session_state.pop(UNDO, None)
    if previous is not None:
        two_lists.put_pair(two_lists.EXPLORER_PREFIX, previous)
        st.session_state[APPLIED] = "Undid the lab's last edit."


@panels.follow
def apply_to_list(edit: LabEdit, described: str) -> None:
    """Apply the lab's edit to the explorer's list (B against the pinned baseline), through the page's Undo."""
    query = state.current()
    try:
        if edit.kind == "swap":
            new_state = reorder_active(query, edit.apply(query.ranking, query.judgments)[0])
        elif edit.kind == "remove":
            new_state = remove_active(query, edit.index)
        else:
            new_state = query.replace(judgments=edit.apply(query.ranking, query.judgments)[1])
    except InputError as error:
        st.session_state[APPLIED] = f"That edit could not be applied: {error}"
        return
    state.commit(new_state)
    st.session_state[APPLIED] = f"{described}: applied to the list above."


@panels.follow
def undo_on_page() -> None:
    state.undo()
    state.pop_message()  # said here instead of at the top of the page
    st.session_state[APPLIED] = "Undid the last change to the list above."
