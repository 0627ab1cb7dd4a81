"""The bulk path's memory follows the number of lines, not queries x the longest ranking."""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from metrics import Conventions
from metrics.bulk import batches_for_run, evaluate_tables
from metrics.io.trec import read_qrels, read_run
from tests.engine.test_bulk import CONVENTIONS, random_trec_files

MEASURES = ["num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P.5", "P.1000",
            "ndcg", "ndcg_cut.10", "recall.1000", "map_cut.100", "success.1"]
PYTREC_MEASURES = {"num_q", "num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank", "P.5,1000",
                   "ndcg", "ndcg_cut.10", "recall.1000", "map_cut.100", "success.1"}


def lopsided_run(short_queries: int = 200, long_length: int = 50_000) -> tuple[str, str]:
    """``short_queries`` one-document queries and one query of ``long_length`` documents, with ties and grades."""
    rng = np.random.default_rng(7)
    qrels = [f"s{i} 0 d{i} {i % 3}" for i in range(short_queries)]
    qrels += [f"long 0 d{i} {rng.integers(-1, 4)}" for i in range(0, long_length * 2, 37)]
    run = [f"s{i} Q0 d{i if i % 2 else i + 1} 1 {rng.integers(0, 9)} tag" for i in range(short_queries)]
    scores = np.sort(rng.integers(0, long_length // 4, size=long_length))[::-1]
    run += [f"long Q0 d{doc} {rank} {score} tag"
            for rank, (doc, score) in enumerate(zip(rng.permutation(long_length * 2)[:long_length], scores), 1)]
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def test_a_lopsided_run_is_batched_in_proportion_to_its_lines_and_keeps_pytrec_evals_means() -> None:
    qrels_text, run_text = lopsided_run()
    qrels, run = read_qrels(qrels_text), read_run(run_text)
    qids, batches = batches_for_run(qrels, run)
    ranking_cells = sum(batch.grades.size for _, batch in batches)
    judgment_cells = sum(batch.judged_grades.size for _, batch in batches)
    # One padded batch would hold 201 x 50,000 cells; grouped by size class, under twice the lines.
    assert ranking_cells <= 2 * len(run)
    assert judgment_cells <= 2 * len(qrels)
    assert sorted(np.concatenate([rows for rows, _ in batches]).tolist()) == list(range(len(qids)))

    per_query_qids, values, means = evaluate_tables(qrels, run, MEASURES)
    reference = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), PYTREC_MEASURES).evaluate(run.to_dict())
    for key, column in values.items():
        expected = [reference[qid][key] for qid in per_query_qids]
        np.testing.assert_allclose(column, expected, rtol=0, atol=1e-12, err_msg=key)
        expected_mean = pytrec_eval.compute_aggregated_measure(key, [reference[q][key] for q in reference])
        assert means[key] == pytest.approx(expected_mean, abs=1e-12), key


def test_a_balanced_run_stays_one_batch() -> None:
    qrels_text, run_text = random_trec_files(2)
    lines = [f"q{i % 50} Q0 d{i} {i} {i % 7} tag" for i in range(5000)]
    qids, batches = batches_for_run(read_qrels(qrels_text), read_run("\n".join(lines) + "\n"))
    assert [rows for rows, _ in batches] == [None]


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe())
@pytest.mark.parametrize("seed", range(4))
def test_grouped_batches_give_the_single_batchs_values(seed: int, conv: Conventions,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import metrics.bulk as bulk

    qrels_text, run_text = random_trec_files(seed)
    qrels, run = read_qrels(qrels_text), read_run(run_text)
    expected_qids, expected, expected_means = evaluate_tables(qrels, run, MEASURES, conv)
    monkeypatch.setattr(bulk, "_PADDING_SLACK", -10**9)  # always group, even small runs
    assert len(batches_for_run(qrels, run, conv)[1]) > 1
    qids, values, means = evaluate_tables(qrels, run, MEASURES, conv)
    assert qids == expected_qids
    for key in expected:
        assert values[key].tolist() == expected[key].tolist(), key
    assert means == expected_means
