"""The run page's delta attribution: for one query and two runs, which document edits make up the difference of a
measure (metrics.whatif.attribute_delta). Computed for the chosen query only, and only while the expander is open."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import Conventions, InputError, parse_measure
from metrics.whatif import DeltaAttribution, attribute_delta
from ui.common import state, tables
from ui.common.text import literal

from . import data

EXPANDER = "results_attribution"
TITLE = "Why one run beats another on a query: the documents behind the difference"
WIDGETS = ("attribution_run_a", "attribution_run_b", "attribution_measure", "attribution_qid")
EXPLAINED = (
    "The difference of the measure between two runs on one query, split over the documents that differ: moved, "
    "entered or left. Each share is exact, and the shares add up to the difference."
)
EDIT_WORDS = {"moved": "moved", "inserted": "only in B", "removed": "only in A"}


def attribution_section(collection: data.Collection, results: dict, measures: list[str],
                        conventions: Conventions) -> None:
    """The expander; nothing is computed while it is closed."""
    section = st.expander(TITLE, key=EXPANDER, on_change="rerun")
    if not section.open:
        state.keep_values(WIDGETS)
        return
    with section:
        names = list(collection.runs)
        if len(names) < 2:
            st.info("Needs two runs: upload another run, or use a built-in collection (it has several).")
            return
        st.caption(EXPLAINED)
        first, second, third = st.columns(3)
        run_a = first.selectbox("Run A", names, index=0, key="attribution_run_a")
        run_b = second.selectbox("Run B", names, index=1, key="attribution_run_b")
        measure = third.selectbox("Measure", measures, key="attribution_measure")
        qids = list(dict.fromkeys([*results[run_a][0], *results[run_b][0]]))
        if run_a == run_b:
            st.info("Choose two different runs.")
            return
        if not qids:
            st.info("Neither run has a judged query.")
            return
        qid = st.selectbox("Query (largest difference first)", by_difference(results, run_a, run_b, measure, qids),
                           key="attribution_qid")
        try:
            delta = attribute(collection, run_a, run_b, qid, measure, conventions)
        except InputError as error:
            st.error(literal(error))
            return
        show(delta, run_a, run_b, qid)


def by_difference(results: dict, run_a: str, run_b: str, measure: str, qids: list[str]) -> list[str]:
    """``qids`` with the largest difference of ``measure`` between the two runs first (the query a reviewer opens
    first), ties in the table's order; queries one run lacks come last."""
    key = parse_measure(measure)[0].key
    values = [dict(zip(results[name][0], results[name][1][key])) for name in (run_a, run_b)]
    both = [qid for qid in qids if qid in values[0] and qid in values[1]]
    both.sort(key=lambda qid: -abs(float(values[1][qid]) - float(values[0][qid])))
    return both + [qid for qid in qids if qid not in values[0] or qid not in values[1]]


def attribute(collection: data.Collection, run_a: str, run_b: str, qid: str, measure: str,
              conventions: Conventions) -> DeltaAttribution:
    """One query's attribution; a run without the query gives None (a missing query, as trec_eval -c sees it)."""
    judgments = collection.qrels.query(qid)
    rankings = [collection.runs[name].query(qid) or None for name in (run_a, run_b)]
    return attribute_delta(judgments, rankings[0], rankings[1], measure, conventions, qid=qid)


def table(delta: DeltaAttribution) -> pd.DataFrame:
    """One row per edit, largest share first."""
    return pd.DataFrame([{"document": c.doc, "edit": EDIT_WORDS[c.kind], "rank in A": _rank(c.rank_before),
                          "rank in B": _rank(c.rank_after), "share": c.value} for c in delta.contributions],
                        columns=["document", "edit", "rank in A", "rank in B", "share"])


def _rank(rank: int | None) -> str:
    """A rank as text, blank where the document is not in that list (an empty cell, not "None")."""
    return "" if rank is None else str(rank)


def show(delta: DeltaAttribution, run_a: str, run_b: str, qid: str) -> None:
    difference = float(delta.difference)
    st.markdown(f"**{delta.measure}** of query {literal(qid)}: {delta.before:.4f} in {literal(run_a)}, "
                f"{delta.after:.4f} in {literal(run_b)}, a difference of **{difference:+.4f}**.")
    st.caption(delta.method_sentence)
    if not delta.contributions:
        return
    top = delta.contributions[0]
    if top.exact:
        st.markdown(f"Largest share: {literal(top.describe(delta.window))} ({top.value:+.4f}).")
    frame = table(delta)
    tables.table(frame, hide_index=True, width="stretch", height=min(420, 38 + 35 * len(frame)),
                 key="attribution_table",
                 column_config={"share": st.column_config.NumberColumn(format="%+.4f"),
                                "rank in A": st.column_config.TextColumn(help="Blank: not in list A"),
                                "rank in B": st.column_config.TextColumn(help="Blank: not in list B")})
