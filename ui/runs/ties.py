"""The run page's tie intervals: which queries the order of equally scored documents changes, and by how much."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from metrics import Conventions, InputError
from metrics.ties import TieTable, tie_intervals
from ui.common import tables
from ui.common.text import literal

from . import data

EXPANDER = "results_ties"
TITLE = "Ties: which queries the order of equally scored documents changes"
EXPLAINED = (
    "trec_eval orders documents with the same score by doc id (descending), an order no system chose. For each "
    "measure, low and high are its lowest and highest value over every order of the tied documents, and expected "
    "its mean when each group of tied documents is in a uniformly random order (McSherry & Najork, 2008). All "
    "three are exact: every order is scored when a query has at most 5,040 (and a million ranks in all), "
    "otherwise closed forms and each group sorted by grade; n/a where neither applies (infAP, for one), never an "
    "estimate."
)


def tie_table(collection: data.Collection, run_name: str, measures: list[str], conventions: Conventions) -> TieTable:
    """The tie intervals of one run (metrics.ties), kept for the session like the holes."""
    cache = st.session_state.setdefault("run_ties", {})
    key = (collection.key, run_name, tuple(measures), conventions)
    if key not in cache:
        qrels, run = collection.as_dicts(run_name)
        with st.spinner("Scoring the orders of the tied documents…"):
            cache.clear()  # one run's intervals at a time
            cache[key] = tie_intervals(qrels, run, measures, conventions=conventions)
    return cache[key]


def shown(value: float | None) -> str:
    return "n/a" if value is None or math.isnan(value) else f"{value:.4f}"


def changes(table: TieTable) -> pd.DataFrame:
    """One row per query and measure that the ties change (or might: n/a), largest spread first."""
    rows = []
    for qid, orders in zip(table.qids, table.orders):
        if orders == 1:
            continue
        for key, interval in table.query(qid).items():
            spread = interval.spread
            if spread is not None and spread <= 1e-12:
                continue
            rows.append({"query": qid, "measure": key, "trec_eval's order": interval.value,
                         "low": shown(interval.low), "expected": shown(interval.expected),
                         "high": shown(interval.high), "high - low": shown(spread), "orders": f"{orders:,}"})
    frame = pd.DataFrame(rows, columns=["query", "measure", "trec_eval's order", "low", "expected", "high",
                                        "high - low", "orders"])
    return frame.sort_values("high - low", ascending=False, key=lambda c: c.map(_sort_key), kind="stable")


def _sort_key(text: str) -> float:
    return math.inf if text == "n/a" else float(text)


def ties_section(collection: data.Collection, run_name: str, measures: list[str], conventions: Conventions) -> None:
    """The expander; its content is computed only while it is open."""
    section = st.expander(TITLE, key=EXPANDER, on_change="rerun")
    if not section.open:
        return
    with section:
        st.caption(EXPLAINED)
        try:
            table = tie_table(collection, run_name, measures, conventions)
        except InputError as error:
            st.error(literal(str(error)))
            return
        tied = sum(1 for orders in table.orders if orders > 1)
        means = table.means()
        st.markdown(f"**{tied} of {len(table.qids)} queries** have tied documents whose order changes the ranking "
                    f"of {literal(run_name)}.")
        tables.table(pd.DataFrame([{"measure": key, "trec_eval's order": interval.value, "low": shown(interval.low),
                                    "expected": shown(interval.expected), "high": shown(interval.high)}
                                   for key, interval in means.items()]),
                     hide_index=True, width="stretch", key="ties_means",
                     column_config={"trec_eval's order": st.column_config.NumberColumn(format="%.4f")})
        frame = changes(table)
        if frame.empty:
            st.caption("No tie changes any of these measures: every order of the tied documents gives the same "
                       "values.")
            return
        st.caption(f"{frame['query'].nunique()} queries where a tie moves a measure, largest move first "
                   "(orders: how many distinct rankings the ties allow).")
        tables.table(frame, hide_index=True, width="stretch", height=min(420, 38 + 35 * len(frame)),
                     key="ties_changes",
                     column_config={"trec_eval's order": st.column_config.NumberColumn(format="%.4f")})
