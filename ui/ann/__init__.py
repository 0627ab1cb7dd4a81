"""ANN recall vs retrieval recall: a real faiss index (or your own runs), and where relevant documents are lost."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import InputError
from metrics.ann import Waterfall, compare_ann, definition_costs, pipeline_stages, recall_definitions, recall_waterfall
from metrics.ann import index as ann_index
from metrics.ann.definitions import ANN_BENCHMARKS_EPSILON
from metrics.measures.display import TABLE_FORMAT, card
from ui.common import classroom, pages, slides, state, tables
from ui.common.numbers import number_box
from ui.common.text import literal

from . import charts, data

INTRO = (
    "**ANN recall** measures how many of the true nearest neighbours, found by exact search, an approximate index "
    "returns: it tests the index. **Retrieval recall** measures how many relevant documents a search returns: it "
    "tests the whole system, embedding included. An index can reach perfect ANN recall and still return "
    "irrelevant documents, and a lower ANN recall may or may not cost relevant ones."
)
SWITCH = "ann_switch_to_explorer"
K_CHOICES = [1, 3, 5, 10, 20, 50, 100, 200]
#: The state of the "Every query" expander (open or closed).
EVERY_QUERY = "ann_every_query_open"


def page() -> None:
    if st.session_state.pop(SWITCH, False):
        st.switch_page(pages.EXPLORE)
    classroom.apply()
    st.title("ANN recall vs retrieval recall")
    st.markdown(INTRO)
    state.show_message()  # a link's view that could not be opened (a bad mode=) says so, as on every page
    source = st.segmented_control("Lists from", ["A faiss index built here", "Your own runs"], key="ann_source",
                                  default="A faiss index built here")
    if source == "Your own runs":
        uploaded = data.uploaded_runs()
        if uploaded is None:
            state.keep_values(("ann_k",))  # not drawn until the runs are there: k stays as chosen
        else:
            panels(None, uploaded)
    else:
        panels(index_settings(), None)


@st.fragment
def panels(index: tuple[str, ann_index.IndexSpec, int] | None, uploaded: dict | None) -> None:
    """k and every view of the lists (the index built with the settings above, or the uploaded runs): each view
    depends on k, and nothing above does, so a k change, or any change made in a view, reruns this part alone."""
    k = st.select_slider("k (the cut-off of every measure)", K_CHOICES, value=10, key="ann_k")
    if index is None:
        setup, lists = None, data.AnnLists("your runs", k=k, **uploaded)
        comparison = compare_ann(lists.exact, lists.ann, lists.qrels, k)
    else:
        setup = data.Setup(*index, k)
        lists, comparison = data.search_lists(setup), data.index_comparison(setup)
    summary(comparison, lists)
    definitions_section(lists, setup, comparison)
    views(lists, setup, comparison)


#: The views of the lists below the cards, one open at a time: a lazy tab is drawn only while open (each view's
#: chart or table went to the browser again on every k change). The waterfall first: the page's lesson.
WATERFALL, SWEEP, ONE_QUERY = "Where relevant documents are lost", "Recall against the search setting", "One query"
VIEW = "ann_view"
#: The waterfall's context cut-off (a toggle and a slider, kept while its tab is closed) and the slider's default.
USE_CONTEXT, CONTEXT = CONTEXT_WIDGETS = ("ann_use_context", "ann_context")
DEFAULT_CONTEXT = 5


def views(lists: data.AnnLists, setup: data.Setup | None, comparison) -> None:
    """The waterfall (with judgments), the sweep of the index's search setting (an index built here) and one query's
    two lists, as tabs of which only the open one is computed and drawn."""
    names = ([WATERFALL] if lists.qrels is not None else []) + ([SWEEP] if setup is not None else []) + [ONE_QUERY]
    tabs = dict(zip(names, st.tabs(names, key=VIEW, on_change="rerun")))
    if WATERFALL not in tabs or not tabs[WATERFALL].open:
        state.keep_values(CONTEXT_WIDGETS)
    for name, tab in tabs.items():
        if not tab.open:
            continue
        with tab:
            if name == WATERFALL:
                waterfall_section(lists, setup)
            elif name == SWEEP:
                sweep_chart(setup)
            else:
                one_query(lists, comparison, None if lists.qrels is None else waterfall_of(lists, setup,
                                                                                          held_context(lists.k)))


#: The collections as the Vectors box names them.
COLLECTION_NAMES = {"topics": "Generated topics", "digits": "Handwritten digits"}


def index_settings() -> tuple[str, ann_index.IndexSpec, int]:
    """The collection, the index and its search parameter (efSearch or nprobe), as chosen."""
    with st.container(border=True):
        left, middle, right = st.columns(3)
        # Names short enough to show whole in a third of the row at 1280 px; the caption below says what the
        # chosen collection holds (its size and source).
        collection = left.selectbox("Vectors", list(ann_index.COLLECTIONS), key="ann_collection",
                                    format_func=COLLECTION_NAMES.__getitem__)
        kind = middle.selectbox("Index", ["hnsw", "ivf"], key="ann_kind",
                                format_func=lambda name: {"hnsw": "HNSW (graph)", "ivf": "IVF (clusters)"}[name])
        powers = [1 << i for i in range(11)]
        if kind == "hnsw":
            m = right.select_slider("M (graph degree)", [4, 8, 16, 32, 64], value=16, key="ann_m")
            spec = ann_index.IndexSpec("hnsw", m=m)
            value = st.select_slider("efSearch (candidates kept while walking the graph)",
                                     [v for v in powers if v <= ann_index.EF_SEARCH_RANGE[1]], value=16,
                                     key="ann_ef_search")
        else:
            nlist = right.select_slider("nlist (clusters)", [16, 32, 64, 128, 256, 512, 1024], value=64,
                                        key="ann_nlist")
            spec = ann_index.IndexSpec("ivf", nlist=nlist)
            choices = [v for v in powers if v <= nlist]
            value = st.select_slider("nprobe (clusters searched)", choices, value=min(4, nlist), key="ann_nprobe")
        st.caption(ann_index.COLLECTIONS[collection]().description + ". Distances are L2; searches run on one "
                   "thread and are timed on this machine (best of three).")
    return collection, spec, value


def summary(comparison, lists: data.AnnLists) -> None:
    k, means = lists.k, comparison.means
    st.subheader(f"Over {len(comparison.per_query)} queries · {literal(lists.label)}")
    columns = st.columns(4)
    columns[0].metric(f"ANN recall@{k}", f"{means[f'ann_recall_{k}']:.3f}",
                      help="Share of the exact top k that the ANN top k contains (mean over queries).")
    if lists.qrels is not None:
        columns[1].metric(f"Recall@{k}: ANN list", f"{means[f'recall_{k}_ann']:.3f}",
                          **versus_exact(means[f"recall_{k}_ann"], means[f"recall_{k}_exact"]),
                          help="Share of the judged relevant documents in the top k (trec_eval recall.k).")
        columns[2].metric(f"nDCG@{k}: ANN list", f"{means[f'ndcg_cut_{k}_ann']:.3f}",
                          **versus_exact(means[f"ndcg_cut_{k}_ann"], means[f"ndcg_cut_{k}_exact"]))
        columns[1].caption(f"exact list: {means[f'recall_{k}_exact']:.3f}")
        columns[2].caption(f"exact list: {means[f'ndcg_cut_{k}_exact']:.3f}")
        st.caption(comparison.exact_list_note(k))
    if lists.timing is not None:
        timing = lists.timing
        columns[3].metric("Queries per second: ANN", f"{timing.ann_qps:,.0f}",
                          help="One thread, best of three searches of every query.")
        # A no-break space keeps the unit with its number: the narrow column wrapped "0.82 s" before its "s".
        columns[3].caption(f"exact: {timing.exact_qps:,.0f} · index built in {timing.build_seconds:.2f}\u00a0s")
    for note in comparison.notes:
        st.caption(literal(note))
    # Built only while open: the table and its CSV go to the browser on every rerun of the page.
    every_query = st.expander("Every query (download as CSV)", key=EVERY_QUERY, on_change="rerun")
    if not every_query.open:
        return
    table = comparison.frame()
    with every_query:
        tables.table(table, hide_index=True, width="stretch",
                     column_config={name: st.column_config.NumberColumn(name, format=TABLE_FORMAT)
                                    for name in comparison.names})
        st.download_button("Download the table (CSV)", comparison.csv().encode(), "ann_recall.csv",
                           "text/csv", key="ann_download_csv", on_click="ignore")


DEFINITIONS_OPEN = "ann_definitions"
DEFINITIONS_TEXT = (
    "**ids**: the share of the exact top k's ids the ANN top k holds (the recall above). **epsilon** "
    "(ann-benchmarks): every returned item within epsilon of the k-th true distance counts, each copy again, so "
    "returning the nearest neighbour k times scores 1 (their issue 519). **ties** (big-ann-benchmarks): the true "
    "set is widened to the ids of the exact list's first k groups of equal distances (within 1e-6), so an id tied "
    "with the k-th distance counts. The distances are the lists' own: minus the score."
)


def definitions_section(lists: data.AnnLists, setup: data.Setup | None, comparison) -> None:
    """Recall as each benchmark defines it, computed only while its expander is open."""
    section = st.expander("Recall@k as each benchmark defines it", key=DEFINITIONS_OPEN, on_change="rerun")
    if not section.open:
        return
    with section:
        st.markdown(DEFINITIONS_TEXT)
        distances = "negated-score"
        if setup is None:
            distances = st.radio("The score column holds", ["negated-score", "score"], horizontal=True,
                                 key="ann_distances", format_func=lambda v: {"negated-score": "minus the distance "
                                                                             "(higher is nearer)",
                                                                             "score": "the distance"}[v])
            exact = lists.exact
        else:
            # A deeper exact list, so that ties with the k-th distance past rank k are seen.
            exact = data.deeper_exact(setup.collection, lists.k)
        epsilon = number_box("epsilon (ann-benchmarks)", key="ann_epsilon", min_value=0.0, max_value=1e6,
                             name="epsilon", value=ANN_BENCHMARKS_EPSILON, format="%g")
        try:
            found = recall_definitions(exact, lists.ann, lists.k, distances=distances, epsilon=epsilon)
            costs = [] if lists.qrels is None else definition_costs(found, lists.qrels, exact, lists.ann,
                                                                     distances=distances)[1]
        except InputError as error:
            st.error(literal(str(error)))
            return
        means = found.means(lists.k)
        columns = st.columns(3)
        by_name = {cost.definition: cost for cost in costs}
        for column, name in zip(columns, ("ids", "epsilon", "ties")):
            column.metric(f"recall@{lists.k}: {name}", f"{means[name]:.3f}")
            if name in by_name:
                cost = by_name[name]
                column.caption(f"scores {cost.perfect:,} judged queries 1; on them the ANN list's "
                               f"nDCG@{lists.k} minus the exact list's is {cost.ndcg_difference:+.4f} on average"
                               if cost.perfect else "scores no judged query 1")
        disagree = found.disagreements(lists.k)
        st.markdown(f"**The definitions disagree on {len(disagree):,} of {len(found.queries[lists.k]):,} queries.**")
        for row in disagree[:20]:
            st.caption(literal(row.why()))
        if len(disagree) > 20:
            st.caption(f"… and {len(disagree) - 20:,} more (python -m metrics.ann --definitions lists them all).")
        for note in found.notes:
            st.caption(literal(note))
        if setup is not None:
            key = f"ann_recall_{lists.k}"
            moved = sum(1 for row in found.queries[lists.k]
                        if row.qid in comparison.per_query and row.ids != comparison.per_query[row.qid][key])
            if moved:
                st.caption(f"ids differs from the ANN recall@{lists.k} above on {moved:,} queries: the exact search "
                           f"cut at {lists.k} keeps whichever ids tied at the {lists.k}th distance faiss returned; "
                           f"the deeper exact list used here ({data.deeper_depth(lists.k)} deep) orders "
                           "equal distances as trec_eval orders equal scores (doc id descending). Which ids are the "
                           "true top k is itself a tie: the ties definition counts them all.")


def versus_exact(ann: float, exact: float) -> dict[str, str]:
    """A card's delta against the exact list, as shown to three decimals: "same as exact" when equal, "0.000 vs
    exact" (no sign, no arrow) when the difference rounds to zero, else the signed difference with its arrow."""
    if ann == exact:
        return {"delta": "same as exact", "delta_color": "off", "delta_arrow": "off"}
    shown = f"{ann - exact:+.3f}"
    if float(shown) == 0:  # "-0.000" or "+0.000": a sign and an arrow for a change too small to show
        return {"delta": "0.000 vs exact", "delta_color": "off", "delta_arrow": "off"}
    return {"delta": f"{shown} vs exact", "delta_color": "normal", "delta_arrow": "auto"}


def sweep_chart(setup: data.Setup) -> None:
    points, recall_exact, ndcg_exact = data.sweep(setup.collection, setup.spec, setup.k)
    figure = charts.sweep_figure(setup.spec.search_parameter, [p.value for p in points],
                                 [p.ann_recall for p in points], [p.recall_ann for p in points],
                                 [p.ndcg_ann for p in points], [p.qps for p in points], recall_exact, ndcg_exact,
                                 setup.k, setup.search_value)
    st.plotly_chart(figure, key="ann_sweep_chart")
    slides.chart_downloads(figure, "ann-sweep", key="ann_sweep_chart")


def held_context(k: int) -> int | None:
    """The context cut-off as the waterfall's toggle and slider last held it (their tab closed), within 1..k."""
    if not st.session_state.get(USE_CONTEXT):
        return None
    return max(1, min(int(st.session_state.get(CONTEXT, DEFAULT_CONTEXT)), k))


def waterfall_of(lists: data.AnnLists, setup: data.Setup | None, context: int | None) -> Waterfall:
    if setup is not None:  # the index's lists: cached by its settings
        return data.index_waterfall(setup, context)
    stages = pipeline_stages(lists.exact, lists.ann, lists.k, reranked_run=lists.reranked, context=context)
    return recall_waterfall(lists.qrels, stages)


def waterfall_section(lists: data.AnnLists, setup: data.Setup | None) -> Waterfall:
    use_context = st.toggle("Add a context cut-off (the passages a RAG prompt holds)", key=USE_CONTEXT)
    context = None
    if use_context:
        context = st.slider("Passages in the prompt", 1, lists.k, min(DEFAULT_CONTEXT, lists.k), key=CONTEXT) \
            if lists.k > 1 else 1
    waterfall = waterfall_of(lists, setup, context)
    stages = charts.waterfall_figure(waterfall.stage_names, waterfall.kept, waterfall.lost, waterfall.gained,
                                     waterfall.relevant)
    # The bars' labels say what a table of the stages would (kept, lost and gained at each): no table repeats them.
    st.plotly_chart(stages, key="ann_waterfall_chart")
    slides.chart_downloads(stages, "ann-waterfall", key="ann_waterfall_chart")
    st.caption(f"The ANN stage loses true neighbours that were relevant, and gains relevant documents from beyond "
               f"the exact top {lists.k}: the exact list is what the index converges to as its search widens, not "
               "a bound on retrieval recall.")
    return waterfall


@st.fragment
def one_query(lists: data.AnnLists, comparison, waterfall: Waterfall | None) -> None:
    """One query's two lists in one table; choosing another query reruns this view alone."""
    qids = list(comparison.per_query)
    if not qids:
        return
    recall = {qid: comparison.per_query[qid][f"ann_recall_{lists.k}"] for qid in qids}
    qid = st.selectbox("Query", qids, key="ann_query", format_func=lambda q: f"{q} (ANN recall {card(recall[q])})")
    exact_list = data.top_k(lists.exact.get(qid, {}), lists.k)
    ann_list = data.top_k(lists.ann.get(qid, {}), lists.k)
    shown = {doc for doc, _ in exact_list} | {doc for doc, _ in ann_list}
    # One table for both lists: each document once, with its rank in each (two tables said the same twice).
    tables.table(data.query_table(exact_list, ann_list, lists.judgments(qid, shown)), hide_index=True,
                 width="stretch", key="ann_query_table")
    buttons = st.container(horizontal=True, key="ann_open_buttons")
    for role, run in (("exact", lists.exact), ("ann", lists.ann)):
        scores = run.get(qid, {})
        buttons.button(f"Open the {role if role == 'exact' else 'ANN'} list in the explorer", key=f"ann_open_{role}",
                       on_click=_open, args=(qid, lists.judgments(qid, scores), scores, lists.k, role),
                       icon=":material/open_in_new:")
    if waterfall is not None:
        lost_relevant(qid, waterfall)


def lost_relevant(qid: str, waterfall: Waterfall) -> None:
    """Every relevant document of the query that the pipeline's last stage lacks, with the stage that lost it."""
    query = next((q for q in waterfall.queries if q.qid == qid), None)
    if query is None:
        st.caption("This query has no relevant document in the qrels.")
        return
    lost = query.lost_at()
    st.markdown(f"**Relevant documents lost: {len(lost)} of {query.relevant}**")
    if lost:
        table = pd.DataFrame({"document": list(lost), "lost at": list(lost.values())})
        tables.table(table.sort_values(["lost at", "document"]), hide_index=True, width="stretch",
                     height=min(300, 38 + 35 * len(table)), key="ann_lost_table")
        st.caption(f"Lost at the {waterfall.stage_names[0]}: the embedding ranks it below the top k, and a wider "
                   "search moves the ANN list toward the exact one, which lacks it. Lost at the ANN stage: a "
                   "relevant true neighbour that the index missed.")


def _open(qid: str, judgments: dict[str, int], scores: dict[str, float], k: int, role: str) -> None:
    state.open_query(qid, judgments, scores, k=k, source=" (exact list)" if role == "exact" else " (ANN list)")
    st.session_state[SWITCH] = True
    st.rerun()  # the whole page, whose first line switches (the button sits in a fragment)
