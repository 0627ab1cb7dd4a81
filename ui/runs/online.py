"""The run page's "Online signals" tab: the zero-result rate and the abandonment rate of a run under a click model
(queries with no retrieved document, and the chance of a session without a click), with every query's signals.

The closed forms of :func:`metrics.online.run_signals`, computed once per run and model and kept for the session.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import InputError
from metrics.measures.display import TABLE_FORMAT, card
from metrics.online import MODEL_HELP, SIGNAL_HELP, run_signals
from ui.common import tables
from ui.common.labels import MODEL_LABELS
from ui.common.text import literal

from . import data

RUN_SIGNAL_LABELS = {"ctr": "CTR", "ctr_1": "CTR@1", "abandonment": "abandonment", "first_click_rank":
                     "first-click rank", "clicks": "clicks"}


#: The tab's widgets (kept while another tab is open, see ui.common.state.keep_values).
WIDGETS = ("runs_online_run", "runs_online_model", "runs_online_eta", "runs_online_continuation")


def online_tab(collection: data.Collection) -> None:
    """Every query of a run under a click model (closed forms): the zero-result rate, the abandonment rate, and the
    signals per query."""
    st.markdown("A click model reads each query's ranked list (its whole depth) with attractiveness "
                "(2^g − 1) / 2^gmax from the judgments, gmax the query's highest grade. A query of the qrels with "
                "no retrieved document is a zero-result query: it is abandoned for certain.")
    names = list(collection.runs)
    left, middle, right = st.columns([2, 3, 2], vertical_alignment="bottom")
    name = left.selectbox("Run", names, key="runs_online_run") if len(names) > 1 else names[0]
    kind = middle.radio("Click model", list(MODEL_LABELS), format_func=MODEL_LABELS.get, horizontal=True,
                        key="runs_online_model")
    eta, continuation = 1.0, 0.9
    if kind == "pbm":
        eta = right.slider("Position bias η", 0.0, 3.0, 1.0, 0.1, key="runs_online_eta",
                           help="Rank r is examined with probability (1/r)^η.")
    elif kind == "dbn":
        continuation = right.slider("Continuation γ", 0.0, 1.0, 0.9, 0.05, key="runs_online_continuation",
                                    help="The chance an unsatisfied user goes on to the next rank.")
    st.caption(f"{MODEL_HELP[kind][:1].upper()}{MODEL_HELP[kind][1:]}.")
    try:
        result = _run_signals(collection, name, kind, float(eta), float(continuation), )
    except InputError as error:
        st.error(literal(error))
        return
    cards = st.columns(4)
    cards[0].metric("Zero-result rate", card(result.zero_result_rate),
                    help="Queries of the qrels with no retrieved document, over the queries of the qrels.")
    cards[1].metric("Abandonment rate", card(result.abandonment_rate),
                    help="P(no click) averaged over every query of the qrels; a zero-result query counts 1.")
    cards[2].metric("Mean CTR", card(result.means["ctr"]), help=SIGNAL_HELP["ctr"])
    cards[3].metric("Mean expected clicks", card(result.means["clicks"]), help=SIGNAL_HELP["clicks"])
    zero = result.zero_result_qids
    st.caption(f"{len(zero)} of {result.judged_queries} queries of the qrels retrieve nothing"
               + (f" ({literal(', '.join(zero[:10]))}{'…' if len(zero) > 10 else ''})." if zero else ".")
               + f" {int((~result.has_click).sum())} of {len(result.qids)} evaluated queries can get no click "
               "(no document with a positive grade in the ranking).")
    if not result.qids:
        return
    frame = pd.DataFrame({RUN_SIGNAL_LABELS[signal]: result.per_query[signal] for signal in RUN_SIGNAL_LABELS},
                         index=pd.Index(result.qids, name="query"))
    frame["first-click rank"] = frame["first-click rank"].where(result.has_click)  # no value without a click
    tables.table(frame, width="stretch", height=min(420, 38 + 35 * len(frame)), key="runs_online_table",
                 column_config={column: st.column_config.NumberColumn(format=TABLE_FORMAT) for column in frame.columns})


def _run_signals(collection: data.Collection, name: str, kind: str, eta: float, continuation: float):
    """run_signals of one run, kept for the session (one result: whole runs are large)."""
    cache = st.session_state.setdefault("runs_online_signals", {})
    key = (collection.key, name, kind, eta, continuation)
    if key not in cache:
        run = collection.runs[name]
        with st.spinner("Computing the online signals…"):
            cache.clear()
            cache[key] = run_signals(collection.qrels, run, kind, eta=eta, continuation=continuation)
    return cache[key]
