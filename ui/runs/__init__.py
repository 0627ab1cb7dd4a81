"""Evaluate a run: per-query results for whole runs, a convention finder for a reported score, a comparison of
runs with significance tests, the judgment holes to fill, and online signals.

Only the open tab computes: the tabs rerun the page when one is chosen, and each draws its content only while it
is open (a bootstrap over thousands of queries for a tab nobody opened costs seconds and gigabytes).
"""

from __future__ import annotations

import streamlit as st

from ui.common import classroom, pages, state

from . import checks, compare, data, finder, judging, lint, multiverse, online, results, significance

#: The tabs, in order, with the widgets whose values each keeps while another tab is open.
TABS = {
    "Per-query results": results.WIDGETS,
    "Check a reported score": finder.WIDGETS,
    "Compare runs": significance.WIDGETS + compare.WIDGETS + multiverse.WIDGETS,
    "Judge the holes": judging.WIDGETS,
    "Online signals": online.WIDGETS,
}
TAB = "runs_tab"
#: The tabs classroom mode hides unless their panel is asked for (ui.common.classroom).
PANEL_OF_TAB = {"Judge the holes": "holes", "Online signals": "online"}
POSSIBLE = "runs_possible_open"


def page() -> None:
    if st.session_state.pop(results.SWITCH, False):
        st.switch_page(pages.EXPLORE)
    view = classroom.apply(tuple(PANEL_OF_TAB.values()))
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

    shown = [label for label in TABS if label not in PANEL_OF_TAB or view.shows(PANEL_OF_TAB[label])]
    panes = dict(zip(shown, st.tabs(shown, key=TAB, on_change="rerun")))
    for label in TABS:
        if not _is_open(panes, label):
            state.keep_values(TABS[label])
    if _is_open(panes, "Per-query results"):
        with panes["Per-query results"]:
            results.results_tab(collection, evaluated, conventions, data.explorer_k(measures), measures)
    if _is_open(panes, "Check a reported score"):
        with panes["Check a reported score"]:
            finder.check_tab(collection, conventions)
    if _is_open(panes, "Compare runs"):
        with panes["Compare runs"]:
            if len(collection.runs) >= 2:
                significance.significance_section(evaluated, conventions, collection.qrels_name,
                                                  significance.missing_queries(collection))
                st.divider()
            compare.compare_tab(collection, evaluated, conventions, measures)
            if len(collection.runs) >= 2:
                multiverse.multiverse_panel(collection, measures, conventions)
    if _is_open(panes, "Judge the holes"):
        with panes["Judge the holes"]:
            judging.judge_tab(collection, evaluated, measures, conventions)
    if _is_open(panes, "Online signals"):
        with panes["Online signals"]:
            online.online_tab(collection)


def _is_open(panes: dict, label: str) -> bool:
    """Whether the tab ``label`` is drawn (classroom mode may hide it) and open."""
    return label in panes and panes[label].open
