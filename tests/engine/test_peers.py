"""Measures beyond trec_eval against the tools that define them, on seeded random queries.

- ranx (installed): its names (precision@k, mrr, map@k, ndcg_burges@k, hit_rate@k, r-precision, f1@k, rbp.p);
- ir_measures (installed): Judged@k, and ERR@k through gdeval.pl (the perl script ir_measures ships);
- sentence-transformers' InformationRetrievalEvaluator, transcribed below (it is not installed here).

Scores are distinct within a query: ranx and ir_measures break ties their own ways, and ties are not what these
tests are about (tests/engine/test_differential.py covers them against trec_eval).
"""

from __future__ import annotations

import math
import shutil

import numpy as np
import pytest

import metrics
from tests.support.ranx_kernels import ranx_evaluate


def _collection(seed: int, n_queries: int = 200, max_docs: int = 30, max_grade: int = 3, negative: bool = False):
    """Numeric query ids (gdeval wants them), grades 0..max_grade (and -1 when ``negative``), distinct scores."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in range(1, n_queries + 1):
        pool = [f"d{i}" for i in range(int(rng.integers(2, max_docs)))]
        judged = rng.choice(pool, size=int(rng.integers(1, len(pool) + 1)), replace=False)
        low = -1 if negative else 0
        grades = {str(doc): int(rng.integers(low, max_grade + 1)) for doc in judged}
        if not any(g > 0 for g in grades.values()):
            grades[str(judged[0])] = 1  # every query has a relevant document (ranx and gdeval skip the others)
        retrieved = rng.choice(pool + [f"u{i}" for i in range(10)], size=int(rng.integers(1, len(pool) + 10)),
                               replace=False)
        scores = rng.permutation(len(retrieved)) + 1.0
        qrels[str(q)] = grades
        run[str(q)] = {str(doc): float(score) for doc, score in zip(retrieved, scores)}
    return qrels, run


RANX_NAMES = {  # our name -> ranx's name
    "precision@5": "precision@5", "recall@10": "recall@10", "mrr": "mrr", "mrr@3": "mrr@3", "map": "map",
    "map@10": "map@10", "ndcg@10": "ndcg@10", "ndcg_burges@10": "ndcg_burges@10", "hit_rate@3": "hit_rate@3",
    "r-precision": "r-precision", "f1@10": "f1@10", "f1@3": "f1@3",
}


def test_ranx_names_give_ranx_values():
    qrels, run = _collection(11)
    reference = ranx_evaluate(qrels, run, list(RANX_NAMES.values()))
    ours = metrics.evaluate(qrels, run, list(RANX_NAMES))
    for name, ranx_name in RANX_NAMES.items():
        key = metrics.parse_measure(name)[0].key
        assert len(reference[ranx_name]) == len(qrels), name
        got = {q: ours[q][key] for q in reference[ranx_name]}
        assert got == pytest.approx(reference[ranx_name], abs=1e-12), name


def test_rbp_gives_ranx_values_on_binary_judgments():
    """ranx's rbp multiplies p^(r-1) by the grade itself; trec_eval scales grades by the largest one. On 0/1
    judgments the two agree, and so do RBP(rel=1) (relevant or not) and trec_eval's rbp.p."""
    qrels, run = _collection(15)
    qrels = {qid: {doc: min(grade, 1) for doc, grade in docs.items()} for qid, docs in qrels.items()}
    reference = ranx_evaluate(qrels, run, [f"rbp.{str(p)[2:]}" for p in (0.5, 0.8, 0.95)])
    for p in (0.5, 0.8, 0.95):
        specs = [f"rbp.p={p}", f"RBP(rel=1,p={p})"]
        ours = metrics.evaluate(qrels, run, specs)
        for key in (metrics.parse_measure(spec)[0].key for spec in specs):
            expected = reference[f"rbp.{str(p)[2:]}"]
            assert len(expected) == len(qrels)
            assert {q: ours[q][key] for q in expected} == pytest.approx(expected, abs=1e-12), (p, key)


def test_judged_at_k_gives_ir_measures_values_negative_grades_included():
    import ir_measures

    qrels, run = _collection(12, negative=True)
    for k in (1, 5, 20, 100):
        reference = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.Judged @ k], qrels, run)}
        ours = metrics.evaluate(qrels, run, [f"Judged@{k}"])
        assert {q: v[f"Judged@{k}"] for q, v in ours.items()} == pytest.approx(reference, abs=1e-15), k


@pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval.pl needs perl")
def test_err_gives_gdeval_values():
    """gdeval.pl (http://trec.nist.gov/data/web/12/gdeval.pl, shipped in ir_measures) prints 5 decimals."""
    import ir_measures

    qrels, run = _collection(13, n_queries=100, max_grade=4, negative=True)
    for k in (1, 5, 20):
        reference = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.ERR @ k], qrels, run)}
        ours = metrics.evaluate(qrels, run, [f"ERR@{k}"])
        assert len(reference) == len(ours)
        assert {q: v[f"ERR@{k}"] for q, v in ours.items()} == pytest.approx(reference, abs=5.0001e-6), k


# ---- sentence-transformers, transcribed ------------------------------------------------------------------------


def _sentence_transformers(relevant: set[str], ranked: list[str], k: int) -> dict[str, float]:
    """InformationRetrievalEvaluator.compute_metrics for one query, line by line (sentence-transformers v3,
    https://github.com/UKPLab/sentence-transformers/blob/master/sentence_transformers/evaluation/
    InformationRetrievalEvaluator.py): binary relevance, MAP@k over min(k, R), NDCG@k with binary gains."""
    top = ranked[:k]
    hits = [doc in relevant for doc in top]
    mrr = next((1.0 / (rank + 1) for rank, hit in enumerate(hits) if hit), 0.0)
    dcg = sum(1 / math.log2(rank + 2) for rank, hit in enumerate(hits) if hit)
    idcg = sum(1 / math.log2(rank + 2) for rank in range(min(len(relevant), k)))
    num_correct, sum_precisions = 0, 0.0
    for rank, hit in enumerate(hits):
        if hit:
            num_correct += 1
            sum_precisions += num_correct / (rank + 1)
    return {
        "accuracy": float(any(hits)), "precision": sum(hits) / k, "recall": sum(hits) / len(relevant),
        "mrr": mrr, "ndcg": dcg / idcg, "map": sum_precisions / min(k, len(relevant)),
    }


def test_sentence_transformers_report_names_give_its_values():
    qrels, run = _collection(14)
    for k in (1, 3, 10):
        names = {metric: f"cosine_{metric}@{k}" for metric in ("accuracy", "precision", "recall", "mrr", "ndcg", "map")}
        ours = metrics.evaluate(qrels, run, list(names.values()))
        for qid, docs in run.items():
            relevant = {doc for doc, grade in qrels[qid].items() if grade > 0}
            ranked = sorted(docs, key=docs.get, reverse=True)
            expected = _sentence_transformers(relevant, ranked, k)
            for metric, name in names.items():
                assert ours[qid][name] == pytest.approx(expected[metric], abs=1e-12), (qid, name)
