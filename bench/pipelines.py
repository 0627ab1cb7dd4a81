"""The two end-to-end pipelines the benchmark times, each run as ``python bench/pipelines.py NAME QRELS RUN``.

Each prints one JSON line: the ``all`` values of every measure, computed the tool's own way. ``ours`` runs the
command line (``python -m metrics``) when it exists, otherwise ``metrics.bulk.evaluate_files``; ``pytrec_eval``
parses with its own ``parse_qrel``/``parse_run``, evaluates with ``RelevanceEvaluator`` and averages with
``compute_aggregated_measure``.
"""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path

#: trec_eval's default measures that we support, plus nDCG@10 and R@1000: the same set for both tools.
MEASURES = ("num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P",
            "ndcg_cut.10", "recall.1000")


def run_pytrec_eval(qrels_path: str, run_path: str) -> dict[str, float]:
    import pytrec_eval

    with open(qrels_path) as file:
        qrels = pytrec_eval.parse_qrel(file)
    with (gzip.open(run_path, "rt") if run_path.endswith(".gz") else open(run_path)) as file:
        run = pytrec_eval.parse_run(file)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(MEASURES)).evaluate(run)
    keys = next(iter(per_query.values())).keys()
    return {key: pytrec_eval.compute_aggregated_measure(key, [values[key] for values in per_query.values()])
            for key in keys}


def run_ours(qrels_path: str, run_path: str) -> dict[str, float]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from metrics.bulk import evaluate_files

    _, _, means = evaluate_files(qrels_path, run_path, MEASURES)
    return means


if __name__ == "__main__":
    name, qrels_path, run_path = sys.argv[1:4]
    means = run_pytrec_eval(qrels_path, run_path) if name == "pytrec_eval" else run_ours(qrels_path, run_path)
    print(json.dumps(means))
