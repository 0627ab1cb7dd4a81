"""Explore a query: edit a ranked list and its judgments, and watch every metric respond."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import parse_measure
from metrics.explain import explain
from metrics.reference import check_against_trec_eval

from . import controls, data_io, editor, metrics_panel, state, whatif_panel
from .text import literal


def show_message() -> None:
    message = state.pop_message()
    if message:
        kind, text = message
        {"error": st.error, "info": st.info, "warning": st.warning}.get(kind, st.info)(literal(text))  # messages quote ids and file names


def page() -> None:
    query = state.current()
    with st.sidebar:
        controls.sample_picker()
        controls.conventions_panel(query)

    st.title("Explore a query")
    st.caption(
        "Edit the ranked list or the judgments: every metric is recomputed at once. "
        "Numbers follow trec_eval unless you change a convention."
    )
    show_message()

    explanations = explain(query.ranking, dict(query.judgments), query.k, query.conventions)
    labels = {parse_measure(item.measure)[0].key: item.label for item in explanations}
    baseline = st.session_state.get(state.BASELINE)

    controls.k_and_level(query)
    metrics_panel.metric_cards(explanations, metrics_panel.baseline_values(
        baseline, [item.measure for item in explanations], query.conventions))
    metrics_panel.baseline_controls()
    if query.conventions.differences():
        st.caption("Conventions changed from trec_eval's: " + query.conventions.describe())
    agreement = check_against_trec_eval(
        query.ranking, [item.score for item in query.items if not item.removed], dict(query.judgments),
        [item.measure for item in explanations], query.conventions,
    )
    metrics_panel.agreement_panel(agreement, labels)

    list_side, explain_side = st.columns([3, 2], gap="large")
    with list_side:
        st.subheader(f"Ranked list · {literal(query.query)}")
        editor.ranking_editor(query)
        editor.move_controls(query)
        controls.sort_by_score_button(query)
        st.markdown("**Judged but not retrieved**")
        st.caption("Relevant documents the list missed still count in recall, AP and the ideal DCG.")
        editor.judgments_editor(query)
    with explain_side:
        st.subheader("How each number is computed")
        metrics_panel.explanations_panel(explanations)
        metrics_panel.metric_guide()

    whatif_panel.whatif_section(query, baseline)

    data_io.data_in()
    values = pd.DataFrame(
        {"metric": [e.label for e in explanations], "measure": [e.measure for e in explanations],
         "value": [e.value for e in explanations], "conventions": query.conventions.describe()}
    )
    data_io.data_out(query, values, [e.measure for e in explanations])
    state.sync_url(query)
