"""The ANN page's numbers computed by the engine, for the page tests to compare with."""

from __future__ import annotations

from metrics.ann import AnnComparison, compare_ann
from metrics.ann import index as ann_index


def engine_comparison(collection: str, spec: ann_index.IndexSpec, k: int, value: int) -> AnnComparison:
    """compare_ann for an index over ``collection`` searched with efSearch/nprobe ``value``."""
    data = ann_index.COLLECTIONS[collection]()
    exact = ann_index.as_run(ann_index.exact_search(data.doc_vectors, data.query_vectors, k, repeats=1),
                             data.query_ids, data.doc_ids)
    built = ann_index.build_index(data.doc_vectors, spec)
    ann = ann_index.as_run(ann_index.ann_search(built, data.query_vectors, k, value, repeats=1),
                           data.query_ids, data.doc_ids)
    return compare_ann(exact, ann, data.qrels, k)


def engine_means(collection: str, spec: ann_index.IndexSpec, k: int, value: int) -> dict[str, float]:
    """compare_ann's means for an index over ``collection`` searched with efSearch/nprobe ``value``."""
    return engine_comparison(collection, spec, k, value).means
