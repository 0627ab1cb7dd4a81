"""The run page's first tab: every query's numbers for one run, their means, and a query opened in the explorer."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics.measures.display import TABLE_FORMAT, mean_names
from ui.common import slides, state, tables
from ui.common.text import MAX_FILTER_CHARS, literal, matches_filter

from . import attribution, charts, data, holes, ties

#: The tab's widgets (ui.common.state.keep_values keeps what they hold while another tab is open).
WIDGETS = ("results_run", "results_holes", "query_filter", "results_open_qid", *attribution.WIDGETS)
SWITCH = "switch_to_explorer"


def results_tab(collection: data.Collection, results: dict, conventions, k: int,
                measures: list[str] | None = None) -> None:
    names = list(collection.runs)
    name = st.selectbox("Run", names, key="results_run") if len(names) > 1 else names[0]
    qids, values, means = results[name]
    if not qids:
        st.warning(f"No query of {literal(name)} has judgments in the qrels (no query id is in both files), so "
                   "there is nothing to evaluate. Check that the qrels belong to this run.")
        return
    shown_values, shown_means = values, means
    # Off by default: the holes triple the columns, and at 1280 px they pushed the measures off screen.
    if measures and st.toggle("Judgment holes: Judged≥0@k and each measure's low and high", value=False,
                              key="results_holes"):
        run_holes = holes.hole_table(collection, name, measures, conventions)
        shown_values, shown_means = holes.with_holes(qids, values, means, run_holes)
        st.caption(holes.holes_caption(run_holes))
    st.markdown(f"**Means over {len(qids)} queries** · conventions: {conventions.describe()}")
    named = mean_names(shown_means)
    if named:
        st.caption("As the other pages name these means: "
                   + ", ".join(f"{literal(key)} is {name}" for key, name in named.items()) + ".")
    tables.table(pd.DataFrame([shown_means]), hide_index=True, width="stretch",
                 column_config={key: st.column_config.NumberColumn(key, format=TABLE_FORMAT,
                                                                   help=holes.column_help(key))
                                for key in shown_means})
    frame = pd.DataFrame(shown_values, index=pd.Index(qids, name="query"))
    pattern = st.text_input("Filter queries (text, or a pattern with * and ?)", key="query_filter",
                            max_chars=MAX_FILTER_CHARS, placeholder="e.g. 30 or 30? or *-dev")
    if pattern:
        frame = frame[[matches_filter(str(qid), pattern) for qid in frame.index]]
    st.caption(f"{len(frame)} queries shown. Click a column header to sort.")
    tables.table(frame, width="stretch", height=min(420, 38 + 35 * len(frame)),
                 column_config={key: st.column_config.NumberColumn(key, format=TABLE_FORMAT,
                                                                   help=holes.column_help(key))
                                for key in frame.columns})
    if measures:
        attribution.attribution_section(collection, results, measures, conventions)
    scores = {key: column for key, column in values.items() if not key.startswith(("num_", "Num"))}
    if scores and qids:
        distribution = charts.distribution_figure(scores, qids)
        st.plotly_chart(distribution, key="distribution_chart")
        slides.chart_downloads(distribution, f"{name}-distribution", key="distribution_chart")
    if measures:
        ties.ties_section(collection, name, measures, conventions)
    if qids:
        open_in_explorer(collection, name, qids, k, key="results")


def open_in_explorer(collection: data.Collection, run_name: str, qids: list[str], k: int, *, key: str) -> None:
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    qid = left.selectbox("Open a query in the explorer", qids, key=f"{key}_open_qid")
    right.button("Open in explorer", key=f"{key}_open", on_click=open_query, args=(collection, run_name, qid, k),
                 icon=":material/open_in_new:", width="stretch",
                 help=f"Opens the query with k = {k}, the cut-off of the measures on this page.")


def open_query(collection: data.Collection, run_name: str, qid: str, k: int) -> None:
    state.open_query(qid, collection.qrels.query(qid), collection.runs[run_name].query(qid), k=k,
                     source=f" of {run_name}")
    st.session_state[SWITCH] = True
