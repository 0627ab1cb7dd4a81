"""Evaluate a run: per-query results for whole runs, a convention finder for a reported score, and a comparison
of two runs with significance tests."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import InputError, reading_note
from metrics.compare import compare_values
from metrics.model import order_documents
from ui.common import pages, state
from ui.common.text import MAX_FILTER_CHARS, literal, matches_filter

from . import charts, checks, data, holes, judging, online, significance


def page() -> None:
    if st.session_state.pop("switch_to_explorer", False):
        st.switch_page(pages.EXPLORE)
    st.title("Evaluate a run")
    st.caption(
        "Upload qrels and one or more runs. Read every query's numbers, find the conventions behind a reported "
        "score, and compare two runs with significance tests."
    )
    state.show_message()
    collection = data.inputs()
    if collection is None:
        with st.expander("Is a reported number possible at all? (no files needed)"):
            checks.possible_at_all()
        return
    measures, conventions = data.settings()
    collection = data.with_added_judgments(collection)  # judgments added in "Judge the holes" count everywhere
    judging.added_banner(collection)
    results = data.evaluate_all(collection, measures, conventions)
    data.coverage_notes(collection, results)

    results_pane, check_pane, compare_pane, judge_pane, online_pane = st.tabs(
        ["Per-query results", "Check a reported score", "Compare runs", "Judge the holes", "Online signals"])
    with results_pane:
        results_tab(collection, results, conventions, data.explorer_k(measures), measures)
    with check_pane:
        check_tab(collection, conventions)
    with compare_pane:
        if len(collection.runs) >= 2:
            significance.significance_section(results, conventions, collection.qrels_name)
            st.divider()
        compare_tab(collection, results, conventions, measures)
    with judge_pane:
        judging.judge_tab(collection, results, measures, conventions)
    with online_pane:
        online.online_tab(collection)


# ---- per-query results ---------------------------------------------------------------------------------------------


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
    if measures and st.toggle("Judgment holes: Judged≥0@k and each measure's low and high", value=True,
                              key="results_holes"):
        run_holes = holes.hole_table(collection, name, measures, conventions)
        shown_values, shown_means = holes.with_holes(qids, values, means, run_holes)
        st.caption(holes.holes_caption(run_holes))
    st.markdown(f"**Means over {len(qids)} queries** · conventions: {conventions.describe()}")
    st.dataframe(pd.DataFrame([shown_means]), hide_index=True, width="stretch",
                 column_config={key: st.column_config.NumberColumn(key, format="%.4f", help=holes.column_help(key))
                                for key in shown_means})
    frame = pd.DataFrame(shown_values, index=pd.Index(qids, name="query"))
    pattern = st.text_input("Filter queries (text, or a pattern with * and ?)", key="query_filter",
                            max_chars=MAX_FILTER_CHARS, placeholder="e.g. 30 or 30? or *-dev")
    if pattern:
        frame = frame[[matches_filter(str(qid), pattern) for qid in frame.index]]
    st.caption(f"{len(frame)} queries shown. Click a column header to sort.")
    st.dataframe(frame, width="stretch", height=min(420, 38 + 35 * len(frame)),
                 column_config={key: st.column_config.NumberColumn(key, format="%.4f", help=holes.column_help(key))
                                for key in frame.columns})
    scores = {key: column for key, column in values.items() if not key.startswith(("num_", "Num"))}
    if scores and qids:
        st.plotly_chart(charts.distribution_figure(scores, qids), key="distribution_chart")
    if qids:
        open_in_explorer(collection, name, qids, k, key="results")


def open_in_explorer(collection: data.Collection, run_name: str, qids: list[str], k: int, *, key: str) -> None:
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    qid = left.selectbox("Open a query in the explorer", qids, key=f"{key}_open_qid")
    right.button("Open in explorer", key=f"{key}_open", on_click=_open_query, args=(collection, run_name, qid, k),
                 icon=":material/open_in_new:", width="stretch",
                 help=f"Opens the query with k = {k}, the cut-off of the measures on this page.")


def _open_query(collection: data.Collection, run_name: str, qid: str, k: int) -> None:
    state.open_query(qid, collection.qrels.query(qid), collection.runs[run_name].query(qid), k=k,
                     source=f" of {run_name}")
    st.session_state["switch_to_explorer"] = True


# ---- convention finder ---------------------------------------------------------------------------------------------


def check_tab(collection: data.Collection, conventions) -> None:
    finder(collection, conventions)
    st.divider()
    checks.possible_at_all()
    st.divider()
    checks.table_check(collection, conventions)


def finder(collection: data.Collection, conventions) -> None:
    st.markdown("Type a score you read somewhere. Every applicable combination of conventions is tried on these "
                "files; the ones that round to the digits you typed are listed, most common first.")
    names = list(collection.runs)
    left, middle, right = st.columns([2, 2, 2], vertical_alignment="bottom")
    name = left.selectbox("Run", names, key="check_run")
    measure = middle.text_input("Measure", value="nDCG@10", key="check_measure",
                                help="trec_eval (ndcg_cut.10) or ir_measures (nDCG@10) notation")
    value = right.text_input("Reported value", key="check_value", placeholder="e.g. 0.412 or 41.2%")
    if note := reading_note(measure):  # a name from another tool: say how it was read
        st.caption(literal(note))
    if not value.strip():
        return
    try:
        with st.spinner("Trying every combination of conventions…"):
            finding = data.find(collection, name, measure, value, conventions.depth)
    except (InputError, ValueError) as error:
        st.error(literal(error))
        return
    if finding.reported.note:
        st.info(literal(finding.reported.note))
    rows = finding.matches or finding.nearest()
    if finding.matches:
        st.success(f"{len(finding.matches)} combination(s) reproduce {literal(value.strip())} "
                   f"({finding.combinations} tried on {finding.num_queries} queries).")
    else:
        st.warning(f"No combination of conventions gives {literal(value.strip())}. The nearest values:")
    checks.variants(collection, name, measure, value, conventions.depth, matched=bool(finding.matches))
    st.dataframe(pd.DataFrame({
        "value": [c.value for c in rows],
        "conventions": [c.description for c in rows],
        "used by": [", ".join(c.tools) or "—" for c in rows],
    }), hide_index=True, width="stretch", column_config={"value": st.column_config.NumberColumn(format="%.4f")})
    differences(rows)
    st.caption("Searched: " + "; ".join(f"{n} ∈ {{{', '.join(map(str, v))}}}" for n, v in finding.searched.items()))


#: Explanations shown at once under the finder's table; the rest wait in an expander.
SHOWN_EXPLANATIONS = 3


def differences(rows) -> None:
    """How each listed combination differs from trec_eval, as text that wraps (a table cell would cut it off)."""
    st.markdown("**How each differs from trec_eval**")
    items = [f"- **{literal(c.description)}** ({c.value:.4f}): "
             + (literal(" ".join(c.explanation)) if c.explanation else "trec_eval's own result.") for c in rows]
    st.markdown("\n".join(items[:SHOWN_EXPLANATIONS]))
    if len(items) > SHOWN_EXPLANATIONS:
        with st.expander(f"{len(items) - SHOWN_EXPLANATIONS} more"):
            st.markdown("\n".join(items[SHOWN_EXPLANATIONS:]))


# ---- compare two runs ----------------------------------------------------------------------------------------------


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
    metric_cols = st.columns(5)
    metric_cols[0].metric(f"mean {literal(measure)}: B − A", f"{comparison.mean_delta:+.4f}")
    metric_cols[1].metric("B wins / ties / losses", f"{comparison.wins} / {comparison.ties} / {comparison.losses}")
    metric_cols[2].metric("paired t-test p", _p(comparison.t_test.p_value))
    metric_cols[3].metric("randomisation test p", _p(comparison.randomisation.p_value))
    metric_cols[4].metric("queries compared", len(comparison.qids))
    st.caption(f"Two-sided tests on {len(comparison.qids)} paired queries; randomisation: "
               f"{comparison.randomisation.permutations:,} sign flips, seed {comparison.randomisation.seed}"
               + (" (exact)" if comparison.randomisation.exact else "") + ".")
    for label, qids in (("only in A", comparison.only_in_a), ("only in B", comparison.only_in_b)):
        if qids:
            st.caption(f"Not compared, {label}: {len(qids)} queries ({literal(', '.join(map(str, qids[:10])))}"
                       + ("…" if len(qids) > 10 else "") + ")")
    ordered = comparison.sorted_deltas()
    st.plotly_chart(charts.difference_figure([r.qid for r in ordered], [r.delta for r in ordered], measure,
                                                 name_a, name_b), key="difference_chart")
    side_by_side(collection, name_a, name_b, [r.qid for r in ordered], data.explorer_k(measures, measure))


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
            st.dataframe(frame, width="stretch", height=320)
            column.button(f"Open {literal(name)} in explorer", key=f"open_{name}_{qid}", on_click=_open_query,
                          args=(collection, name, qid, k))


def _p(value: float) -> str:
    if value != value:  # NaN: no variation to test
        return "n/a"
    return "< 0.0001" if value < 1e-4 else f"{value:.4f}"
