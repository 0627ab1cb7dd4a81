"""The "Compare runs" tab's multiverse panel (metrics.compare.multiverse): each pair's conclusion on one measure
under every plausible convention, where it fails, and how stable the leaderboard is. Computed only while its
expander is open, once per files, measure, correction and conventions."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import InputError
from metrics.compare.many import CORRECTION_NAMES, CORRECTIONS, comparable_measures
from metrics.compare.multiverse import MAX_SETTINGS, Multiverse, multiverse
from metrics.conventions import Conventions
from ui.common import tables
from ui.common.text import literal

from . import data

EXPANDER = "runs_multiverse_open"
#: The panel's widgets (ui.common.state.keep_values keeps what they hold while another tab is open).
WIDGETS = ("multiverse_measure", "multiverse_correction")
RESULT = "runs_multiverse_result"


def multiverse_panel(collection: data.Collection, measures: list[str], conventions: Conventions) -> None:
    panel = st.expander("Do the conclusions survive other conventions? (multiverse)", key=EXPANDER,
                        on_change="rerun")
    if not panel.open:
        return
    with panel:
        scores = [measure for measure in measures if _comparable(measure)]
        if not scores:
            st.info("None of the chosen measures is a score to compare; add one such as P@10 or nDCG@10.")
            return
        cols = st.columns(2)
        measure = cols[0].selectbox("Measure", scores, key="multiverse_measure")
        correction = cols[1].selectbox("Correction", CORRECTIONS, format_func=CORRECTION_NAMES.get,
                                       key="multiverse_correction")
        try:
            with st.spinner("Comparing the runs under every plausible convention…"):
                result = _multiverse(collection, measure, correction, conventions)
        except InputError as error:
            st.error(literal(error))
            return
        heading, default = result.lines()[:2]
        st.caption(literal(f"{heading} {default} At most {MAX_SETTINGS} settings; the default is the page's "
                           "conventions."))
        tables.table(_conclusions(result), hide_index=True, width="stretch", key="multiverse_conclusions")
        st.markdown(literal(result.leaderboard_line()))
        st.markdown(literal(result.tau_line()))
        swaps = result.swaps()
        if not swaps:
            st.caption("No setting reverses any pair of runs.")
            return
        tables.table(pd.DataFrame([{"passes": b, "default winner": a, "settings": f"{len(settings)} of "
                                    f"{len(result.settings)}", "when": condition}
                                   for a, b, settings, condition in swaps]),
                     hide_index=True, width="stretch", key="multiverse_swaps")


def _conclusions(result: Multiverse) -> pd.DataFrame:
    rows = []
    for conclusion in result.conclusions():
        failing = [conclusion.differences[i] for i in conclusion.fails]
        rows.append({"conclusion (default setting)": conclusion.claim,
                     "holds in": f"{len(conclusion.holds)} of {conclusion.settings}",
                     "fails": conclusion.condition or "never",
                     "difference, all settings": _range(conclusion.differences),
                     "difference where it fails": _range(failing) if failing else ""})
    return pd.DataFrame(rows)


def _range(values) -> str:
    """The differences' range as the pairs table writes an interval, ``[-0.0100, +0.3333]`` (one number when the
    ends agree): a cell that starts with a sign and is no number would be a formula to a spreadsheet."""
    low, high = min(values), max(values)
    return f"{low:+.4f}" if f"{low:+.4f}" == f"{high:+.4f}" else f"[{low:+.4f}, {high:+.4f}]"


def _comparable(measure: str) -> bool:
    try:
        comparable_measures([measure])
    except (InputError, ValueError):
        return False
    return True


def _multiverse(collection: data.Collection, measure: str, correction: str, conventions: Conventions) -> Multiverse:
    kept = st.session_state.get(RESULT)
    key = (collection.key, measure, correction, conventions)
    if kept is None or kept[0] != key:
        kept = (key, multiverse(collection.qrels, collection.runs, measure, correction=correction,
                                conventions=conventions))
        st.session_state[RESULT] = kept
    return kept[1]
