"""The ANN page's data: a cached faiss index and its searches, or uploaded runs, as one ``AnnLists``."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd
import streamlit as st

from metrics import TREC_EVAL, InputError
from metrics.ann import Waterfall, compare_ann, pipeline_stages, recall_waterfall
from metrics.ann import index as ann_index
from metrics.ann.compare import ranked
from ui.common.text import literal
from ui.common.uploads import uploaded_table, uploader

#: The page compares runs query by query in memory; whole MS MARCO-size runs belong to ``python -m metrics.ann``.
MAX_LINES = 1_000_000


@dataclass(frozen=True)
class Timing:
    """Seconds to build the index, and queries per second of the exact and the approximate search."""

    build_seconds: float
    exact_qps: float
    ann_qps: float


@dataclass(frozen=True)
class AnnLists:
    """What every view of the page needs: the exact and the ANN run, qrels when there are any, a reranked run when
    uploaded, the cut-off, and the timings when the index was built here."""

    label: str
    exact: dict[str, dict[str, float]]
    ann: dict[str, dict[str, float]]
    qrels: dict[str, dict[str, int]] | None
    k: int
    reranked: dict[str, dict[str, float]] | None = None
    timing: Timing | None = None
    collection: ann_index.Collection | None = None

    def judgments(self, qid: str, docs) -> dict[str, int]:
        """The judgments of ``qid``; in a built-in collection every shown document is judged (0 if not relevant)."""
        if self.collection is not None:
            return self.collection.judgments(qid, docs)
        return dict((self.qrels or {}).get(qid, {}))


@dataclass(frozen=True)
class Setup:
    """The index settings chosen on the page."""

    collection: str
    spec: ann_index.IndexSpec
    search_value: int
    k: int


@st.cache_resource(max_entries=6, show_spinner="Building the index…")
def _built(collection: str, spec: ann_index.IndexSpec) -> ann_index.BuiltIndex:
    return ann_index.build_index(ann_index.COLLECTIONS[collection]().doc_vectors, spec)


@st.cache_data(max_entries=8, show_spinner="Exact search (brute force)…")
def _exact(collection: str, k: int) -> tuple[dict[str, dict[str, float]], float]:
    data = ann_index.COLLECTIONS[collection]()
    result = ann_index.exact_search(data.doc_vectors, data.query_vectors, k)
    return ann_index.as_run(result, data.query_ids, data.doc_ids), result.queries_per_second


@st.cache_data(max_entries=32, show_spinner=False)
def _ann(collection: str, spec: ann_index.IndexSpec, k: int, value: int) -> tuple[dict, float]:
    data = ann_index.COLLECTIONS[collection]()
    result = ann_index.ann_search(_built(collection, spec), data.query_vectors, k, value)
    return ann_index.as_run(result, data.query_ids, data.doc_ids), result.queries_per_second


def deeper_depth(k: int) -> int:
    """How deep the exact list of the recall definitions goes: twice k, at least k + 10, at most the index's
    largest k (200)."""
    return min(ann_index.MAX_K, max(2 * k, k + 10))


def deeper_exact(collection: str, k: int) -> dict[str, dict[str, float]]:
    """The exact run to :func:`deeper_depth` (cached like the others): deep enough to see ids tied with the k-th
    distance past rank k."""
    return _exact(collection, deeper_depth(k))[0]


def search_lists(setup: Setup) -> AnnLists:
    data = ann_index.COLLECTIONS[setup.collection]()
    exact, exact_qps = _exact(setup.collection, setup.k)
    ann, ann_qps = _ann(setup.collection, setup.spec, setup.k, setup.search_value)
    timing = Timing(_built(setup.collection, setup.spec).build_seconds, exact_qps, ann_qps)
    return AnnLists(f"{setup.spec.describe()}, {setup.spec.search_parameter}={setup.search_value}",
                    exact, ann, data.qrels, setup.k, timing=timing, collection=data)


@st.cache_data(max_entries=32, show_spinner=False)
def index_comparison(setup: Setup):
    """:func:`metrics.ann.compare_ann` of the index's lists (cached like the searches: going back to a k or a
    setting seen before computes nothing)."""
    lists = search_lists(setup)
    return compare_ann(lists.exact, lists.ann, lists.qrels, setup.k)


@st.cache_data(max_entries=32, show_spinner=False)
def index_waterfall(setup: Setup, context: int | None) -> Waterfall:
    """:func:`metrics.ann.recall_waterfall` of the index's lists, exact top k, ANN top k and, when given, the
    ``context`` passages of the prompt (cached by the settings, like the comparison: it ranks every query's lists
    again, the page's largest cost on a k change)."""
    lists = search_lists(setup)
    return recall_waterfall(lists.qrels, pipeline_stages(lists.exact, lists.ann, setup.k, context=context))


@dataclass(frozen=True)
class SweepPoint:
    value: int
    ann_recall: float
    recall_ann: float
    ndcg_ann: float
    qps: float


@st.cache_data(max_entries=16, show_spinner="Measuring every setting of the search parameter…")
def sweep(collection: str, spec: ann_index.IndexSpec, k: int) -> tuple[list[SweepPoint], float, float]:
    """The search parameter at every power of two: ANN recall, the ANN list's recall and nDCG, and queries per
    second; with the exact list's recall and nDCG (what the index converges to)."""
    data = ann_index.COLLECTIONS[collection]()
    exact, _ = _exact(collection, k)
    points = []
    exact_recall = exact_ndcg = 0.0
    for value in ann_index.sweep_values(spec, k):
        ann, qps = _ann(collection, spec, k, value)
        means = compare_ann(exact, ann, data.qrels, k).means
        exact_recall, exact_ndcg = means[f"recall_{k}_exact"], means[f"ndcg_cut_{k}_exact"]
        points.append(SweepPoint(value, means[f"ann_recall_{k}"], means[f"recall_{k}_ann"],
                                 means[f"ndcg_cut_{k}_ann"], qps))
    return points, exact_recall, exact_ndcg


def uploaded_runs() -> dict | None:
    """Exact and ANN runs (and optional qrels and reranked run) uploaded by the user, as the keyword arguments of
    ``AnnLists`` bar the label and k; or None with a message."""
    with st.container(border=True):
        left, middle, right = st.columns(3)
        exact_upload = uploader("Exact run (TREC)", key="ann_exact_run", container=left)
        ann_upload = uploader("ANN run (TREC)", key="ann_ann_run", container=middle)
        qrels_upload = uploader("qrels (optional)", key="ann_qrels", container=right)
        reranked_upload = uploader("Reranked run (optional, one more waterfall stage)", key="ann_reranked_run")
    if exact_upload is None or ann_upload is None:
        st.info("Upload the run of an exact (brute-force) search and the run of an approximate index over the same "
                "queries. qrels add retrieval recall and nDCG; a reranked run adds a stage to the waterfall.")
        return None
    try:
        exact, ann = _as_dict("run", exact_upload), _as_dict("run", ann_upload)
        qrels = _as_dict("qrels", qrels_upload) if qrels_upload else None
        reranked = _as_dict("run", reranked_upload) if reranked_upload else None
    except InputError as error:
        st.error(literal(str(error)))
        return None
    return {"exact": exact, "ann": ann, "qrels": qrels, "reranked": reranked}


def _as_dict(kind: str, upload) -> dict:
    table = uploaded_table(kind, upload)
    if len(table) > MAX_LINES:
        raise InputError(f"{upload.name} has {len(table):,} lines; this page reads at most {MAX_LINES:,} per file "
                         "(use python -m metrics.ann for larger runs)")
    return table.to_dict()


def top_k(scores: dict[str, float], k: int) -> list[tuple[str, float]]:
    """The top k documents and scores, in trec_eval's order."""
    return [(doc, scores[doc]) for doc in ranked(scores, TREC_EVAL)[:k]]


def query_table(exact: list[tuple[str, float]], ann: list[tuple[str, float]], judgments: dict[str, int]):
    """One query's exact and ANN top k as one table: every document of either list once (the exact list's order,
    then the ANN list's other documents in its order), its rank and score in each list (empty where a list lacks
    it), its grade, and what the index did with it."""
    exact_at = {doc: (rank, score) for rank, (doc, score) in enumerate(exact, start=1)}
    ann_at = {doc: (rank, score) for rank, (doc, score) in enumerate(ann, start=1)}
    docs = [doc for doc, _ in exact] + [doc for doc, _ in ann if doc not in exact_at]
    status = {doc: ("kept by the index" if doc in ann_at else "lost by the index") if doc in exact_at
              else "not in the exact top k" for doc in docs}

    def column(found: dict, field: int, dtype: str):
        return pd.array([found[doc][field] if doc in found else None for doc in docs], dtype=dtype)

    return pd.DataFrame({
        "document": docs,
        "grade": [str(judgments[doc]) if doc in judgments else "unjudged" for doc in docs],
        "exact rank": column(exact_at, 0, "Int64"),
        "ANN rank": column(ann_at, 0, "Int64"),
        "exact score": column(exact_at, 1, "Float64"),
        "ANN score": column(ann_at, 1, "Float64"),
        "status": [status[doc] for doc in docs],
    })
