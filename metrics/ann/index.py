"""A real approximate index to measure: faiss HNSW and IVF over vectors that ship with a package or are generated
from a seed, with exact search (a flat index) as the reference.

faiss is imported here only, so the rest of the engine works without it. Searches run on one thread, so that the
queries per second of the exact and the approximate index are comparable on any machine.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np

from ..model import InputError
from ..optional import require

IndexKind = Literal["hnsw", "ivf"]

#: Bounds of the index parameters (the page's sliders use the same ones).
M_RANGE = (4, 64)
EF_SEARCH_RANGE = (1, 512)
NLIST_RANGE = (4, 1024)
MAX_K = 200


@dataclass(frozen=True)
class Collection:
    """Document vectors, query vectors and binary judgments (same label = relevant). The qrels list the relevant
    documents only: every other document is known to be non-relevant (see :meth:`judgments`)."""

    name: str
    description: str
    doc_ids: tuple[str, ...]
    doc_vectors: np.ndarray
    query_ids: tuple[str, ...]
    query_vectors: np.ndarray
    qrels: dict[str, dict[str, int]]

    def judgments(self, qid: str, docs) -> dict[str, int]:
        """Every document is labelled here, so a document of ``docs`` that the qrels do not list as relevant is
        judged non-relevant (grade 0), not unjudged."""
        relevant = self.qrels.get(qid, {})
        return {**{doc: 0 for doc in docs}, **relevant}


def _judgments(query_ids, query_labels, doc_ids, doc_labels) -> dict[str, dict[str, int]]:
    by_label: dict[int, list[str]] = {}
    for doc, label in zip(doc_ids, doc_labels):
        by_label.setdefault(int(label), []).append(doc)
    return {qid: {doc: 1 for doc in by_label.get(int(label), [])} for qid, label in zip(query_ids, query_labels)}


@lru_cache(maxsize=1)
def digits_collection() -> Collection:
    """scikit-learn's handwritten digits (1,797 8x8 images, 64 dimensions, 10 classes; it ships with the package).
    Every ninth image is a query, the rest are documents; a document is relevant when it shows the same digit."""
    datasets = require("sklearn.datasets", needed_by="metrics.ann (the digits collection)")
    digits = datasets.load_digits()
    vectors = np.ascontiguousarray(digits.data, dtype=np.float32)
    is_query = np.arange(len(vectors)) % 9 == 0
    doc_ids = tuple(f"img{i:04d}" for i in np.flatnonzero(~is_query))
    query_ids = tuple(f"q{i:04d}" for i in np.flatnonzero(is_query))
    qrels = _judgments(query_ids, digits.target[is_query], doc_ids, digits.target[~is_query])
    return Collection("digits", "scikit-learn's handwritten digits: 1,597 images as documents, 200 as queries; "
                      "relevant = the same digit (about 160 a query, so recall@k is at most about k/160)",
                      doc_ids, vectors[~is_query], query_ids, vectors[is_query], qrels)


@lru_cache(maxsize=1)
def topics_collection(seed: int = 0) -> Collection:
    """10,000 generated 64-dimensional documents around 1,000 topics (about 10 a topic), 200 queries drawn from the
    same topics; a document is relevant when it shares the query's topic. Topics overlap, so the exact nearest
    neighbours are not always relevant."""
    rng = np.random.default_rng(seed)
    dimensions, topics, n_docs, n_queries = 64, 1_000, 10_000, 200
    centres = rng.standard_normal((topics, dimensions)).astype(np.float32)
    doc_topics = rng.integers(0, topics, n_docs)
    query_topics = rng.integers(0, topics, n_queries)
    spread = np.float32(1.0)
    doc_vectors = centres[doc_topics] + spread * rng.standard_normal((n_docs, dimensions)).astype(np.float32)
    query_vectors = centres[query_topics] + spread * rng.standard_normal((n_queries, dimensions)).astype(np.float32)
    doc_ids = tuple(f"doc{i:05d}" for i in range(n_docs))
    query_ids = tuple(f"q{i:03d}" for i in range(n_queries))
    qrels = _judgments(query_ids, query_topics, doc_ids, doc_topics)
    return Collection("topics", "10,000 generated documents around 1,000 overlapping topics, 200 queries; "
                      "relevant = the same topic", doc_ids, np.ascontiguousarray(doc_vectors), query_ids,
                      np.ascontiguousarray(query_vectors), qrels)


COLLECTIONS = {"topics": topics_collection, "digits": digits_collection}


@dataclass(frozen=True)
class IndexSpec:
    """An approximate index: HNSW (graph degree ``m``) or IVF (``nlist`` clusters), both over exact vectors."""

    kind: IndexKind = "hnsw"
    m: int = 16
    ef_construction: int = 40
    nlist: int = 64

    def __post_init__(self) -> None:
        if self.kind not in ("hnsw", "ivf"):
            raise InputError(f"Argument `kind` has to be 'hnsw' or 'ivf', got {self.kind!r}")
        _check_range("m", self.m, M_RANGE)
        _check_range("ef_construction", self.ef_construction, (1, 1024))
        _check_range("nlist", self.nlist, NLIST_RANGE)

    @property
    def search_parameter(self) -> str:
        return "efSearch" if self.kind == "hnsw" else "nprobe"

    def describe(self) -> str:
        if self.kind == "hnsw":
            return f"HNSW (M={self.m}, efConstruction={self.ef_construction})"
        return f"IVF (nlist={self.nlist})"


def _check_range(name: str, value: object, bounds: tuple[int, int]) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not bounds[0] <= value <= bounds[1]:
        raise InputError(f"Argument `{name}` has to be an integer from {bounds[0]} to {bounds[1]}, got {value!r}")


def _faiss():
    faiss = require("faiss", needed_by="metrics.ann (a real index)")
    faiss.omp_set_num_threads(1)
    return faiss


@dataclass(frozen=True)
class BuiltIndex:
    spec: IndexSpec
    index: object
    build_seconds: float


def build_index(vectors: np.ndarray, spec: IndexSpec) -> BuiltIndex:
    """Build ``spec`` over ``vectors`` (L2 distance) and time it."""
    faiss = _faiss()
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    start = time.perf_counter()
    if spec.kind == "hnsw":
        index = faiss.IndexHNSWFlat(vectors.shape[1], spec.m)
        index.hnsw.efConstruction = spec.ef_construction
    else:
        if spec.nlist > len(vectors):
            raise InputError(f"nlist {spec.nlist} is more than the {len(vectors)} documents; use at most "
                             f"{len(vectors)} lists")
        index = faiss.IndexIVFFlat(faiss.IndexFlatL2(vectors.shape[1]), vectors.shape[1], spec.nlist)
        index.train(vectors)
    index.add(vectors)
    return BuiltIndex(spec, index, time.perf_counter() - start)


@dataclass(frozen=True)
class SearchResult:
    """Row i holds the k nearest document rows found for query i (-1 where fewer were found), their squared L2
    distances, and the best wall time of the search over all queries."""

    rows: np.ndarray
    distances: np.ndarray
    seconds: float

    @property
    def queries_per_second(self) -> float:
        return len(self.rows) / self.seconds if self.seconds > 0 else float("inf")


def exact_search(doc_vectors: np.ndarray, query_vectors: np.ndarray, k: int, *, repeats: int = 3) -> SearchResult:
    """Brute-force search with faiss's flat index: the true nearest neighbours."""
    faiss = _faiss()
    _check_range("k", k, (1, MAX_K))
    index = faiss.IndexFlatL2(doc_vectors.shape[1])
    index.add(np.ascontiguousarray(doc_vectors, dtype=np.float32))
    return _timed(lambda: index.search(np.ascontiguousarray(query_vectors, dtype=np.float32), k), repeats)


def ann_search(built: BuiltIndex, query_vectors: np.ndarray, k: int, search_value: int, *,
               repeats: int = 3) -> SearchResult:
    """Search the approximate index with efSearch (HNSW) or nprobe (IVF) set to ``search_value``. The value is
    passed per call, so sessions sharing a cached index never change each other's setting."""
    faiss = _faiss()
    _check_range("k", k, (1, MAX_K))
    spec = built.spec
    if spec.kind == "hnsw":
        _check_range("efSearch", search_value, EF_SEARCH_RANGE)
        params = faiss.SearchParametersHNSW(efSearch=int(search_value))
    else:
        _check_range("nprobe", search_value, (1, spec.nlist))
        params = faiss.SearchParametersIVF(nprobe=int(search_value))
    queries = np.ascontiguousarray(query_vectors, dtype=np.float32)
    return _timed(lambda: built.index.search(queries, k, params=params), repeats)


def _timed(search, repeats: int) -> SearchResult:
    best = float("inf")
    for _ in range(max(1, repeats)):
        start = time.perf_counter()
        distances, rows = search()
        best = min(best, time.perf_counter() - start)
    return SearchResult(rows, distances, best)


def as_run(result: SearchResult, query_ids, doc_ids) -> dict[str, dict[str, float]]:
    """A run ``{qid: {doc: score}}`` from a search: score = minus the squared distance (higher is nearer)."""
    run = {}
    for qid, rows, distances in zip(query_ids, result.rows, result.distances):
        run[qid] = {doc_ids[row]: -float(distance) for row, distance in zip(rows, distances) if row >= 0}
    return run


def sweep_values(spec: IndexSpec, k: int) -> list[int]:
    """The search-parameter values a curve runs through: powers of two over the parameter's range."""
    top = EF_SEARCH_RANGE[1] if spec.kind == "hnsw" else spec.nlist
    values = [1 << i for i in range(top.bit_length()) if 1 << i <= top]
    return values if values[-1] == top else values + [top]
