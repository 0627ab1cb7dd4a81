"""The bulk path finds every judgment, whatever the lengths of the doc ids on either side."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics.bulk import evaluate_tables
from metrics.export import qrels_to_trec, run_to_trec
from metrics.io.trec import read_qrels, read_run


def test_a_judged_document_is_found_when_the_qrels_hold_longer_doc_ids_than_the_run():
    qrels = read_qrels(b"jam 0 bagel 2\njam 0 croissant 2\n")
    run = read_run(b"jam Q0 pretzel 1 0.9 mine\njam Q0 bagel 2 0.85 mine\n")
    _, values, _ = evaluate_tables(qrels, run, ["num_rel_ret", "ndcg_cut.2"])
    assert values["num_rel_ret"][0] == 1.0 and values["ndcg_cut_2"][0] > 0


@pytest.mark.parametrize("seed", range(5))
def test_bulk_path_equals_dict_path_with_doc_ids_of_every_length(seed):
    rng = np.random.default_rng(seed)
    alphabet = list("abcdefghij0123456789-_.")
    docs = ["".join(rng.choice(alphabet, size=int(rng.integers(1, 24)))) for _ in range(300)]
    docs = list(dict.fromkeys(docs))
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, list[tuple[str, float]]] = {}
    for q in range(30):
        qid = f"q{q}"
        judged = rng.choice(docs, size=int(rng.integers(1, 40)), replace=False)
        qrels[qid] = {str(doc): int(rng.integers(-1, 4)) for doc in judged}
        retrieved = rng.choice(docs, size=int(rng.integers(0, 60)), replace=False)
        run[qid] = [(str(doc), float(rng.choice([0.1, 0.5, rng.random()]))) for doc in retrieved]
    run = {qid: ranking for qid, ranking in run.items() if ranking}
    measures = ["num_rel_ret", "map", "ndcg", "P.10", "bpref"]
    qids, values, _ = evaluate_tables(read_qrels(qrels_to_trec(qrels).encode()),
                                      read_run(run_to_trec(run).encode()), measures)
    expected = metrics.evaluate(qrels, {qid: dict(ranking) for qid, ranking in run.items()}, measures)
    for i, qid in enumerate(qids):
        for key in ("num_rel_ret", "map", "ndcg", "P_10", "bpref"):
            assert values[key][i] == expected[qid][key], (qid, key)
