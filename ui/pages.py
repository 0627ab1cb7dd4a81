"""The app's pages, defined once so that pages can link to each other (st.switch_page)."""

from __future__ import annotations

import streamlit as st

EXPLORE = st.Page("ui/page_explore.py", title="Explore a query", icon=":material/search:", url_path="explore",
                  default=True)
RUNS = st.Page("ui/page_runs.py", title="Evaluate a run", icon=":material/table_chart:", url_path="runs")
ALL = [EXPLORE, RUNS]
