"""The bulk path (files -> columnar tables -> batch) builds exactly the batch the dict path builds."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics import Conventions, RankingBatch, evaluate
from metrics.bulk import batch_for_run, evaluate_files
from metrics.io.trec import read_qrels, read_run
from metrics.model import rankings_for_run


def random_trec_files(seed: int, long_ids: bool = False) -> tuple[str, str]:
    """qrels and run text with ties, negative grades, unjudged and missing queries, unsorted lines.

    Short doc ids (<= 8 bytes) take the packed-key path; ``long_ids`` (ClueWeb-like) the string path.
    """
    rng = np.random.default_rng(seed)
    qids = [f"q{i}" for i in rng.permutation(12)]
    prefix = "clueweb09-en0000-" if long_ids else "d"
    docs = [prefix + "".join(rng.choice(list("ab9Z_"), size=rng.integers(1, 4))) for _ in range(60)]
    docs = sorted(set(docs))
    qrels_lines, run_lines = [], []
    for qid in qids[:9]:  # q-ids 9..11 are judged nowhere
        for doc in rng.choice(docs, size=rng.integers(0, 12), replace=False):
            qrels_lines.append(f"{qid} 0 {doc} {rng.integers(-1, 4)}")
    for qid in qids[3:]:  # the first three judged queries are missing from the run
        for rank, doc in enumerate(rng.choice(docs, size=rng.integers(1, 25), replace=False), 1):
            # Some scores differ from another only in the 9th digit: they tie as trec_eval 9's C floats.
            score = float(rng.integers(0, 5) / 2 + rng.choice([0.0, 0.0, 1e-9, -3e-8]))
            run_lines.append(f"{qid} Q0 {doc} {rank} {score!r} tag")
    rng.shuffle(run_lines)
    return "\n".join(qrels_lines) + "\n", "\n".join(run_lines) + "\n"


def dict_path_batch(qrels_text: str, run_text: str, conv: Conventions) -> tuple[list[str], RankingBatch]:
    qrels = read_qrels(qrels_text).to_dict()
    run = read_run(run_text).to_dict()
    qids, rankings = rankings_for_run(qrels, run, conv.tie_order, include_missing=conv.missing_queries == "zero",
                                      score_precision=conv.score_precision)
    batch = RankingBatch.from_rankings(rankings, [qrels[q] for q in qids], depth=conv.depth,
                                       judged_only=conv.unjudged == "removed")
    return qids, batch


def assert_same_batch(left: RankingBatch, right: RankingBatch) -> None:
    np.testing.assert_array_equal(left.lengths, right.lengths)
    np.testing.assert_array_equal(left.grades, right.grades)
    np.testing.assert_array_equal(left.judged, right.judged)
    np.testing.assert_array_equal(left.judged_grades, right.judged_grades)


CONVENTIONS = [
    Conventions(),
    Conventions(tie_order="as_given"),
    Conventions(tie_order="docid_ascending"),
    Conventions(depth=5),
    Conventions(unjudged="removed"),
    Conventions(depth=7, unjudged="removed", missing_queries="zero"),
    Conventions(missing_queries="zero", tie_order="as_given"),
    Conventions(score_precision="float64"),
    Conventions(score_precision="float64", tie_order="as_given"),
]


@pytest.mark.parametrize("conv", CONVENTIONS, ids=lambda c: c.describe())
@pytest.mark.parametrize("long_ids", [False, True], ids=["short_ids", "long_ids"])
@pytest.mark.parametrize("seed", range(6))
def test_bulk_batch_equals_dict_path_batch_on_random_runs(seed: int, long_ids: bool, conv: Conventions) -> None:
    qrels_text, run_text = random_trec_files(seed, long_ids)
    expected_qids, expected = dict_path_batch(qrels_text, run_text, conv)
    qids, batch = batch_for_run(read_qrels(qrels_text), read_run(run_text), conv)
    assert qids == expected_qids
    assert_same_batch(batch, expected)


def test_runs_grouped_and_sorted_by_score_take_the_no_sort_path_and_agree() -> None:
    qrels_text, run_text = random_trec_files(3)
    lines = sorted(run_text.splitlines(), key=lambda line: (line.split()[0], -float(line.split()[4])))
    sorted_run = "\n".join(lines) + "\n"
    for conv in CONVENTIONS:
        expected_qids, expected = dict_path_batch(qrels_text, sorted_run, conv)
        qids, batch = batch_for_run(read_qrels(qrels_text), read_run(sorted_run), conv)
        assert qids == expected_qids
        assert_same_batch(batch, expected)


def test_hash_collisions_fall_back_to_exact_string_matching(monkeypatch: pytest.MonkeyPatch) -> None:
    import metrics.bulk as bulk
    import metrics.io.trec as trec_io

    def colliding_keys(docno, **options):
        return np.zeros(len(docno), dtype=np.uint64), False

    qrels_text, run_text = random_trec_files(5)
    expected_qids, expected = dict_path_batch(qrels_text, run_text, Conventions())
    monkeypatch.setattr(bulk, "docno_keys", colliding_keys)
    monkeypatch.setattr(trec_io, "docno_keys", colliding_keys)
    qids, batch = batch_for_run(read_qrels(qrels_text), read_run(run_text))
    assert qids == expected_qids
    assert_same_batch(batch, expected)


def test_ties_are_broken_by_doc_id_descending_in_byte_order_only_among_equal_scores() -> None:
    run = read_run("q Q0 B 1 1.0 t\nq Q0 a 2 1.0 t\nq Q0 Z 3 2.0 t\nq Q0 c 4 0.5 t\n")
    qrels = read_qrels("q 0 a 1\nq 0 B 2\nq 0 Z 3\nq 0 c 0\n")
    _, batch = batch_for_run(qrels, run)
    # Z (2.0) first; then a before B, because 'a' (0x61) > 'B' (0x42); then c (0.5).
    assert batch.grades[0].tolist() == [3.0, 1.0, 2.0, 0.0]


def test_scores_tie_when_they_are_the_same_c_float_as_trec_eval_9_reads_them_with_atof() -> None:
    # 0.1000000001 and 0.1 are different doubles but one float: under float32 the tie goes to the doc id (y first).
    run = read_run("a Q0 x 1 0.1000000001 t\na Q0 y 2 0.1 t\n")
    qrels = read_qrels("a 0 y 1\na 0 x 0\n")
    assert batch_for_run(qrels, run)[1].grades[0].tolist() == [1.0, 0.0]
    assert batch_for_run(qrels, run, Conventions(score_precision="float64"))[1].grades[0].tolist() == [0.0, 1.0]


def test_scores_beyond_the_float_range_tie_as_infinities_under_float32() -> None:
    run = read_run("a Q0 x 1 1e300 t\na Q0 y 2 1e39 t\na Q0 z 3 3.4e38 t\n")
    qrels = read_qrels("a 0 x 1\na 0 y 2\na 0 z 3\n")
    assert batch_for_run(qrels, run)[1].grades[0].tolist() == [2.0, 1.0, 3.0]  # y, x (tied infinities), z
    assert batch_for_run(qrels, run, Conventions(score_precision="float64"))[1].grades[0].tolist() == [1.0, 2.0, 3.0]
    assert metrics.order_documents({"x": 1e300, "y": 1e39, "z": 3.4e38}) == ["y", "x", "z"]


def test_queries_without_judgments_are_left_out_and_missing_ones_count_only_with_zero() -> None:
    run = read_run("q2 Q0 a 1 1 t\nq9 Q0 a 1 1 t\n")
    qrels = read_qrels("q1 0 a 1\nq2 0 a 1\n")
    assert batch_for_run(qrels, run)[0] == ["q2"]
    qids, batch = batch_for_run(qrels, run, Conventions(missing_queries="zero"))
    assert qids == ["q2", "q1"]
    assert batch.lengths.tolist() == [1, 0]


def test_a_negative_grade_is_in_the_pool_but_unjudged_so_minus_J_removes_it() -> None:
    run = read_run("q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n")
    qrels = read_qrels("q 0 a -1\nq 0 c 1\n")
    _, batch = batch_for_run(qrels, run, Conventions(unjudged="removed"))
    assert batch.lengths.tolist() == [1]
    assert batch.judged_grades[0].tolist() == [1.0]


def test_depth_applies_before_removing_unjudged_documents() -> None:
    run = read_run("q Q0 a 1 3 t\nq Q0 b 2 2 t\nq Q0 c 3 1 t\n")
    qrels = read_qrels("q 0 a 0\nq 0 c 1\n")
    _, batch = batch_for_run(qrels, run, Conventions(depth=2, unjudged="removed"))
    assert batch.lengths.tolist() == [1]  # c was cut by -M 2 before -J dropped b


@pytest.mark.parametrize("seed", range(4))
def test_averaged_tied_gains_read_the_same_ties_from_files_as_from_dicts(seed: int) -> None:
    qrels_text, run_text = random_trec_files(seed)
    conv = Conventions(tied_gains="averaged", ideal_from="retrieved", unjudged="removed" if seed % 2 else "nonrelevant",
                       score_precision="float64" if seed > 1 else "float32", depth=7 if seed == 2 else None)
    measures = ["ndcg_cut.3", "ndcg", "ndcg_cut.10"]
    qids, values, _ = evaluate_files(qrels_text, run_text, measures, conv)
    per_query = evaluate(read_qrels(qrels_text).to_dict(), read_run(run_text).to_dict(), measures, conventions=conv)
    plain = evaluate(read_qrels(qrels_text).to_dict(), read_run(run_text).to_dict(), measures,
                     conventions=conv.replace(tied_gains="ordered"))
    for key in values:
        assert values[key].tolist() == [per_query[q][key] for q in qids]
    if seed == 0:
        assert per_query != plain, "the ties must matter on this data, or the test proves nothing"


@pytest.mark.parametrize("seed", range(2))
def test_documents_scored_at_or_below_zero_are_not_relevant_alike_through_every_door(seed: int) -> None:
    # The files score documents 0, -3e-8 and 1e-9; nonpositive_scores="not_relevant" (torchmetrics 1.7.4+) clears
    # the grades of the first two wherever they rank, in the dict path, the bulk path and the convention finder.
    from metrics.check import find_conventions

    qrels_text, run_text = random_trec_files(seed)
    qrels, run = read_qrels(qrels_text).to_dict(), read_run(run_text).to_dict()
    measures = ["P.5", "map_cut.5", "recip_rank", "ndcg_cut.10", "bpref"]
    for conv in (Conventions(nonpositive_scores="not_relevant"),
                 Conventions(nonpositive_scores="not_relevant", unjudged="removed", score_precision="float64",
                             depth=25, missing_queries="zero")):
        qids, values, _ = evaluate_files(qrels_text, run_text, measures, conv)
        per_query = evaluate(qrels, run, measures, conventions=conv)
        plain = evaluate(qrels, run, measures, conventions=conv.replace(nonpositive_scores="retrieved"))
        assert per_query != plain, "scores <= 0 must matter on this data, or the test proves nothing"
        for key in values:
            assert values[key].tolist() == [per_query[q][key] for q in qids]
        _, batch = batch_for_run(read_qrels(qrels_text), read_run(run_text), conv)
        _, retrieved = batch_for_run(read_qrels(qrels_text), read_run(run_text), conv.replace(
            nonpositive_scores="retrieved"))
        np.testing.assert_array_equal(batch.judged, retrieved.judged)  # judged, at the same rank: only graded 0
        assert ((batch.grades == retrieved.grades) | (batch.grades == 0)).all()
    finding = find_conventions(qrels, run, "P@5", f"{metrics.aggregate(per_query)['P_5']:.6f}",
                               base=Conventions(depth=25))
    (outcome,) = [c for c in finding.candidates if conv in (c.conventions, *c.equivalents)]
    assert outcome.matches and outcome.per_query == {q: per_query[q]["P_5"] for q in outcome.per_query}


@pytest.mark.parametrize("seed", range(3))
def test_evaluate_files_gives_the_dict_path_means(seed: int) -> None:
    qrels_text, run_text = random_trec_files(seed)
    measures = ["num_q", "num_ret", "num_rel_ret", "map", "P.5", "ndcg_cut.10", "bpref", "recip_rank", "Rprec"]
    qids, values, means = evaluate_files(qrels_text, run_text, measures)
    per_query = evaluate(read_qrels(qrels_text).to_dict(), read_run(run_text).to_dict(), measures)
    assert qids == list(per_query)
    for key in values:
        assert values[key].tolist() == [per_query[q][key] for q in qids]
    assert means["num_q"] == len(qids)
    assert means == metrics.aggregate(per_query)  # both sum in trec_eval's (sorted) query order
