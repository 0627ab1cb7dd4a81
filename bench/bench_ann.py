"""The ANN page's index against exact search, measured in one run: build time, queries per second (one thread,
best of three searches of every query), ANN recall@10 and the ANN list's recall@10 against the exact list's.

Exact search is faiss's flat index (brute force over every document); both collections are the page's own
(10,000 generated documents around 1,000 topics; scikit-learn's 1,597 digit images). The ratio column is the
ANN index's queries per second over the exact search's, measured in the same process.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.ann import compare_ann  # noqa: E402
from metrics.ann import index as ann_index  # noqa: E402

K = 10
SETTINGS = [
    (ann_index.IndexSpec("hnsw", m=16), [4, 16, 64, 256]),
    (ann_index.IndexSpec("ivf", nlist=64), [1, 4, 16, 64]),
]


def main() -> None:
    print(f"{'collection':<8} {'index':<38} {'build s':>8} {'setting':>12} {'q/s':>9} {'vs exact':>9} "
          f"{'ANN R@10':>9} {'R@10 ANN':>9} {'R@10 exact':>10}")
    for name, make in ann_index.COLLECTIONS.items():
        data = make()
        exact_result = ann_index.exact_search(data.doc_vectors, data.query_vectors, K)
        exact = ann_index.as_run(exact_result, data.query_ids, data.doc_ids)
        print(f"{name:<8} {'exact (flat, brute force)':<38} {'-':>8} {'-':>12} "
              f"{exact_result.queries_per_second:>9,.0f} {'1.00x':>9}")
        for spec, values in SETTINGS:
            built = ann_index.build_index(data.doc_vectors, spec)
            for value in values:
                result = ann_index.ann_search(built, data.query_vectors, K, value)
                means = compare_ann(exact, ann_index.as_run(result, data.query_ids, data.doc_ids), data.qrels, K).means
                ratio = result.queries_per_second / exact_result.queries_per_second
                print(f"{name:<8} {spec.describe():<38} {built.build_seconds:>8.2f} "
                      f"{spec.search_parameter + '=' + str(value):>12} {result.queries_per_second:>9,.0f} "
                      f"{ratio:>8.2f}x {means['ann_recall_10']:>9.3f} {means['recall_10_ann']:>9.3f} "
                      f"{means['recall_10_exact']:>10.3f}")


if __name__ == "__main__":
    main()
