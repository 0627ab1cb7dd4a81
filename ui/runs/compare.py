"""The run page's "Compare runs" tab below the significance report: two runs query by query, and one query's two
rankings side by side."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics.compare import compare_values
from metrics.measures.display import card_delta
from metrics.model import order_documents
from ui.common import slides, tables
from ui.common.text import literal

from . import charts, data
from .results import open_query
from .significance import missing_queries, missing_queries_button

#: The comparison's widgets (ui.common.state.keep_values keeps what they hold while another tab is open).
WIDGETS = ("compare_a", "compare_b", "compare_measure", "compare_qid")


def compare_tab(collection: data.Collection, results: dict, conventions, measures: list[str]) -> None:
    names = list(collection.runs)
    if len(names) < 2:
        st.info("Upload a second run to compare them query by query.")
        return
    st.markdown("**Two runs, query by query**")
    scores = [key for key in results[names[0]][1] if not key.startswith(("num_", "Num"))]
    cols = st.columns(3)
    name_a = cols[0].selectbox("Run A", names, index=0, key="compare_a")
    name_b = cols[1].selectbox("Run B", names, index=1, key="compare_b")
    measure = cols[2].selectbox("Measure", scores, key="compare_measure")
    if name_a == name_b:
        st.warning("Pick two different runs.")
        return
    qids_a, values_a, _ = results[name_a]
    qids_b, values_b, _ = results[name_b]
    comparison = compare_values(dict(zip(qids_a, values_a[measure].tolist())),
                                dict(zip(qids_b, values_b[measure].tolist())),
                                measure=measure, conventions=conventions, permutations=10_000, seed=0)
    if comparison.warning is not None:
        st.warning(comparison.warning)
    metric_cols = st.columns(5)
    metric_cols[0].metric(f"mean {literal(measure)}: B − A", card_delta(comparison.mean_delta))
    metric_cols[1].metric("B wins / ties / losses", f"{comparison.wins} / {comparison.ties} / {comparison.losses}")
    metric_cols[2].metric("paired t-test p", _p(comparison.t_test.p_value))
    metric_cols[3].metric("randomisation test p", _p(comparison.randomisation.p_value))
    metric_cols[4].metric("queries compared", len(comparison.qids))
    st.caption(f"Two-sided tests on {len(comparison.qids)} paired queries; randomisation: "
               f"{comparison.randomisation.permutations:,} sign flips, seed {comparison.randomisation.seed}"
               + (" (exact)" if comparison.randomisation.exact else "") + ".")
    lacking(collection, comparison, name_a, name_b)
    ordered = comparison.sorted_deltas()
    difference = charts.difference_figure([r.qid for r in ordered], [r.delta for r in ordered], measure, name_a, name_b)
    st.plotly_chart(difference, key="difference_chart")
    slides.chart_downloads(difference, f"{name_b}-vs-{name_a}-{measure}", key="difference_chart")
    side_by_side(collection, name_a, name_b, [r.qid for r in ordered], data.explorer_k(measures, measure))


def lacking(collection: data.Collection, comparison, name_a: str, name_b: str) -> None:
    """What each run lacks of the judged queries the other answers: left out of both means (trec_eval's rule), or
    scored 0 with -c; and the button that switches."""
    zero = comparison.conventions.missing_queries == "zero"
    if zero:
        missing = missing_queries(collection)
        lacks = {name_a: missing[name_a], name_b: missing[name_b]}
    else:
        lacks = {name_a: comparison.only_in_b, name_b: comparison.only_in_a}
    lacks = {name: qids for name, qids in lacks.items() if qids}
    if not lacks:
        return
    listed = "; ".join(f"{name} lacks {len(qids)} judged {'query' if len(qids) == 1 else 'queries'} "
                       f"({', '.join(map(str, qids[:10]))}{'…' if len(qids) > 10 else ''})"
                       for name, qids in lacks.items())
    st.warning(literal(f"{listed}: {'scored 0 there (trec_eval -c)' if zero else 'left out of both means'}; "
                       f"the {len(comparison.qids)} queries compared are the same for A and B."))
    missing_queries_button(zero, key="compare")


def side_by_side(collection: data.Collection, name_a: str, name_b: str, qids: list[str], k: int) -> None:
    st.subheader("One query, both rankings")
    qid = st.selectbox("Query (sorted by difference)", qids, key="compare_qid")
    judgments = collection.qrels.query(qid)
    cols = st.columns(2)
    for column, name in zip(cols, (name_a, name_b)):
        scores = collection.runs[name].query(qid)
        order = order_documents(scores)
        frame = pd.DataFrame({"doc": order[:100], "score": [scores[d] for d in order[:100]],
                              "grade": pd.array([judgments.get(d) for d in order[:100]], dtype="Int64")},
                             index=pd.RangeIndex(1, min(len(order), 100) + 1, name="rank"))
        with column:
            st.markdown(f"**{literal(name)}**")
            tables.table(frame, width="stretch", height=320)
            column.button(f"Open {literal(name)} in explorer", key=f"open_{name}_{qid}", on_click=open_query,
                          args=(collection, name, qid, k))


def _p(value: float) -> str:
    if value != value:  # NaN: no variation to test
        return "n/a"
    return "< 0.0001" if value < 1e-4 else f"{value:.4f}"
