"""Evaluate a run: per-query results for whole runs, a convention finder for a reported score, a comparison of
runs with significance tests, the judgment holes to fill, and online signals.

Only the open tab computes: the tabs rerun the page when one is chosen, and each draws its content only while it
is open (a bootstrap over thousands of queries for a tab nobody opened costs seconds and gigabytes).
"""

from __future__ import annotations

import streamlit as st

from ui.common import pages, state

from . import checks, compare, data, finder, judging, lint, online, results, significance

#: The tabs, in order, with the widgets whose values each keeps while another tab is open.
TABS = {
    "Per-query results": results.WIDGETS,
    "Check a reported score": finder.WIDGETS,
    "Compare runs": significance.WIDGETS + compare.WIDGETS,
    "Judge the holes": judging.WIDGETS,
    "Online signals": online.WIDGETS,
}
TAB = "runs_tab"
POSSIBLE = "runs_possible_open"


def page() -> None:
    if st.session_state.pop(results.SWITCH, False):
        st.switch_page(pages.EXPLORE)
    st.title("Evaluate a run")
    st.caption(
        "Upload qrels and one or more runs. Read every query's numbers, find the conventions behind a reported "
        "score, and compare two runs with significance tests."
    )
    state.show_message()
    collection = data.inputs()
    if collection is None:
        possible = st.expander("Is a reported number possible at all? (no files needed)", key=POSSIBLE,
                               on_change="rerun")
        if possible.open:
            with possible:
                checks.possible_at_all()
        else:
            state.keep_values(checks.GRIM_WIDGETS)
        return
    measures, conventions = data.settings(collection)
    collection = data.with_added_judgments(collection)  # judgments added in "Judge the holes" count everywhere
    judging.added_banner(collection)
    evaluated = data.evaluate_all(collection, measures, conventions)
    data.coverage_notes(collection, evaluated)
    lint.lint_panel(collection, measures, conventions)

    panes = dict(zip(TABS, st.tabs(list(TABS), key=TAB, on_change="rerun")))
    for label, pane in panes.items():
        if not pane.open:
            state.keep_values(TABS[label])
    if panes["Per-query results"].open:
        with panes["Per-query results"]:
            results.results_tab(collection, evaluated, conventions, data.explorer_k(measures), measures)
    if panes["Check a reported score"].open:
        with panes["Check a reported score"]:
            finder.check_tab(collection, conventions)
    if panes["Compare runs"].open:
        with panes["Compare runs"]:
            if len(collection.runs) >= 2:
                significance.significance_section(evaluated, conventions, collection.qrels_name,
                                                  significance.missing_queries(collection))
                st.divider()
            compare.compare_tab(collection, evaluated, conventions, measures)
    if panes["Judge the holes"].open:
        with panes["Judge the holes"]:
            judging.judge_tab(collection, evaluated, measures, conventions)
    if panes["Online signals"].open:
        with panes["Online signals"]:
            online.online_tab(collection)
