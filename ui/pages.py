"""The app's pages, built afresh on every run: an ``st.Page`` holds per-run state, so objects shared by every
session (module level) race when two sessions rerun at once. Pages link to each other by script path."""

from __future__ import annotations

import streamlit as st

EXPLORE = "ui/page_explore.py"
RUNS = "ui/page_runs.py"
ANN = "ui/page_ann.py"


def build() -> list[st.Page]:
    """New page objects for this run (call it from app.py only)."""
    return [
        st.Page(EXPLORE, title="Explore a query", icon=":material/search:", url_path="explore", default=True),
        st.Page(RUNS, title="Evaluate a run", icon=":material/table_chart:", url_path="runs"),
        st.Page(ANN, title="ANN recall", icon=":material/hub:", url_path="ann"),
    ]
