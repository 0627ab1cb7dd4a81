"""ANN recall against retrieval recall: the engine (metrics.ann), checked against brute force and pytrec_eval."""

from __future__ import annotations

import io
import random

import numpy as np
import pytest
import pytrec_eval

from metrics import InputError
from metrics.ann import compare_ann, pipeline_stages, recall_waterfall
from metrics.ann import index as ann_index
from metrics.ann.__main__ import main as ann_main


def brute_force_top_k(scores: dict[str, float], k: int) -> set[str]:
    """trec_eval's top k written out: score descending, then doc id descending."""
    return {doc for doc, _ in sorted(scores.items(), key=lambda item: (item[1], item[0]), reverse=True)[:k]}


def random_case(rng: random.Random, n_queries: int = 20):
    """Exact and ANN runs that share most documents, with tied scores, plus graded qrels with unjudged docs."""
    exact, ann, qrels = {}, {}, {}
    for q in range(n_queries):
        qid = f"q{q}"
        docs = [f"d{i}" for i in range(rng.randint(1, 30))]
        exact[qid] = {doc: float(rng.choice([0.1, 0.2, 0.3, 0.5, 0.8, 0.9])) for doc in docs}
        ann_docs = rng.sample(docs, rng.randint(0, len(docs))) + [f"x{i}" for i in range(rng.randint(0, 5))]
        ann[qid] = {doc: float(rng.choice([0.1, 0.2, 0.5, 0.8])) for doc in ann_docs}
        if rng.random() < 0.8:
            pool = docs + [f"x{i}" for i in range(5)] + [f"r{i}" for i in range(3)]
            qrels[qid] = {doc: rng.choice([-1, 0, 0, 1, 2]) for doc in rng.sample(pool, rng.randint(1, len(pool)))}
    return exact, ann, qrels


@pytest.mark.parametrize("seed", range(5))
def test_ann_recall_is_the_share_of_the_exact_top_k_in_the_ann_top_k_with_ties(seed):
    rng = random.Random(seed)
    exact, ann, qrels = random_case(rng)
    result = compare_ann(exact, ann, None, [1, 5, 10])
    for qid, values in result.per_query.items():
        for k in (1, 5, 10):
            truth = brute_force_top_k(exact[qid], k)
            assert values[f"ann_recall_{k}"] == len(truth & brute_force_top_k(ann.get(qid, {}), k)) / len(truth)
    for k in (1, 5, 10):
        column = [values[f"ann_recall_{k}"] for values in result.per_query.values()]
        assert result.means[f"ann_recall_{k}"] == pytest.approx(sum(column) / len(column))


@pytest.mark.parametrize("seed", range(5))
def test_retrieval_side_equals_pytrec_eval_for_both_lists(seed):
    rng = random.Random(100 + seed)
    exact, ann, qrels = random_case(rng)
    result = compare_ann(exact, ann, qrels, [3, 10])
    for side, run in (("exact", exact), ("ann", ann)):
        judged_run = {qid: run[qid] for qid in run if qid in qrels and run[qid]}
        reference = pytrec_eval.RelevanceEvaluator(qrels, {"recall.3,10", "ndcg_cut.3,10"}).evaluate(judged_run)
        for qid, values in reference.items():
            for k in (3, 10):
                assert result.per_query[qid][f"recall_{k}_{side}"] == values[f"recall_{k}"]
                assert result.per_query[qid][f"ndcg_cut_{k}_{side}"] == values[f"ndcg_cut_{k}"]


def test_lost_and_gained_relevant_documents_are_counted_per_cut_off():
    exact = {"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6}}
    ann = {"q": {"a": 0.9, "c": 0.7, "e": 0.65, "f": 0.1}}
    qrels = {"q": {"a": 1, "b": 1, "e": 2, "f": 0, "g": 1}}
    values = compare_ann(exact, ann, qrels, 3).per_query["q"]
    # exact top 3: a b c; ANN top 3: a c e. Relevant: a b e g.
    assert values["ann_recall_3"] == pytest.approx(2 / 3)
    assert values["lost_relevant_3"] == 1  # b
    assert values["gained_relevant_3"] == 1  # e
    assert values["recall_3_exact"] == 0.5 and values["recall_3_ann"] == 0.5


def test_a_query_missing_from_the_ann_run_scores_zero_and_is_named_in_the_notes():
    result = compare_ann({"q1": {"a": 1.0}, "q2": {"b": 1.0}}, {"q1": {"a": 1.0}}, None, 1)
    assert result.per_query["q2"]["ann_recall_1"] == 0.0
    assert result.means["ann_recall_1"] == 0.5
    assert any("not in the ANN run" in note for note in result.notes)


def test_perfect_ann_recall_can_still_return_irrelevant_documents():
    """The article's point: the index is perfect, the system is not."""
    exact = ann = {"q": {"near1": 0.9, "near2": 0.8}}
    result = compare_ann(exact, ann, {"q": {"near1": 0, "far": 1}}, 2)
    assert result.means["ann_recall_2"] == 1.0
    assert result.means["recall_2_ann"] == 0.0


@pytest.mark.parametrize("bad", [0, -1, 1.5, "10", True, []])
def test_bad_cut_offs_are_refused_with_one_input_error(bad):
    with pytest.raises(InputError, match="k"):
        compare_ann({"q": {"a": 1.0}}, {"q": {"a": 1.0}}, None, bad)


def test_runs_of_the_wrong_shape_are_refused_with_one_input_error():
    with pytest.raises(InputError):
        compare_ann([("q", "a")], {"q": {"a": 1.0}})


# ---- waterfall -----------------------------------------------------------------------------------------------------


def test_the_waterfall_attributes_every_lost_relevant_document_to_one_stage():
    qrels = {"q": {"a": 1, "b": 1, "c": 1, "d": 1, "z": 1, "n": 0}}
    exact = {"q": {"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.6, "n": 0.5}}   # top 4: a b c d (z never reached)
    ann = {"q": {"a": 0.9, "c": 0.7, "d": 0.6, "n": 0.5, "z": 0.4}}     # top 4: a c d n (b lost)
    reranked = {"q": {"d": 0.99, "n": 0.9, "a": 0.5, "c": 0.1}}         # top 4: d n a c
    stages = pipeline_stages(exact, ann, 4, reranked_run=reranked, context=2)  # context top 2: d n
    waterfall = recall_waterfall(qrels, stages)
    query = waterfall.queries[0]
    assert query.relevant == 5
    assert waterfall.stage_names == ("exact top 4", "ANN top 4", "reranked top 4", "context top 2")
    assert query.kept == (4, 3, 3, 1)
    assert query.lost_at() == {"z": "exact top 4", "b": "ANN top 4", "a": "context top 2", "c": "context top 2"}
    assert waterfall.rows()[0] == {"stage": "judged relevant", "kept": 5, "lost here": 0, "gained here": 0}


def test_a_document_the_index_gains_is_counted_as_gained_not_lost():
    qrels = {"q": {"a": 1, "far": 1}}
    stages = pipeline_stages({"q": {"a": 0.9, "b": 0.8}}, {"q": {"a": 0.9, "far": 0.1}}, 2)
    query = recall_waterfall(qrels, stages).queries[0]
    assert query.kept == (1, 2)
    assert query.gained == ((), ("far",))
    assert query.lost_at() == {}


@pytest.mark.parametrize("seed", range(3))
def test_waterfall_counts_add_up_on_random_runs(seed):
    exact, ann, qrels = random_case(random.Random(200 + seed))
    waterfall = recall_waterfall(qrels, pipeline_stages(exact, ann, 5, context=2))
    previous = waterfall.relevant
    for kept, lost, gained in zip(waterfall.kept, waterfall.lost, waterfall.gained):
        assert kept == previous - lost + gained
        previous = kept
    for query in waterfall.queries:
        exact_hits = {d for d in brute_force_top_k(exact.get(query.qid, {}), 5) if qrels[query.qid].get(d, -9) >= 1}
        assert query.kept[0] == len(exact_hits)


# ---- the faiss index -----------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def topics():
    return ann_index.topics_collection()


def test_exact_search_returns_the_brute_force_nearest_neighbours(topics):
    queries = topics.query_vectors[:20]
    result = ann_index.exact_search(topics.doc_vectors, queries, 10, repeats=1)
    distances = ((queries[:, None, :] - topics.doc_vectors[None, :, :]) ** 2).sum(axis=2)
    expected = np.sort(distances, axis=1)[:, :10]
    assert np.allclose(result.distances, expected, rtol=1e-4)
    for row, found in zip(distances, result.rows):
        assert set(found) == set(np.argsort(row)[:10])


def test_hnsw_with_a_wide_search_finds_almost_every_true_neighbour_and_a_narrow_one_fewer(topics):
    built = ann_index.build_index(topics.doc_vectors, ann_index.IndexSpec("hnsw", m=16))
    exact = ann_index.as_run(ann_index.exact_search(topics.doc_vectors, topics.query_vectors, 10, repeats=1),
                             topics.query_ids, topics.doc_ids)
    recall = {}
    for ef in (1, 256):
        ann = ann_index.as_run(ann_index.ann_search(built, topics.query_vectors, 10, ef, repeats=1),
                               topics.query_ids, topics.doc_ids)
        recall[ef] = compare_ann(exact, ann, topics.qrels, 10).means
    assert recall[256]["ann_recall_10"] >= 0.99
    assert recall[1]["ann_recall_10"] < recall[256]["ann_recall_10"]
    # the embedding's own misses: the exact list itself lacks relevant documents
    assert recall[256]["recall_10_exact"] < 0.9


def test_ivf_searching_every_list_is_exact(topics):
    spec = ann_index.IndexSpec("ivf", nlist=32)
    built = ann_index.build_index(topics.doc_vectors, spec)
    everything = ann_index.ann_search(built, topics.query_vectors, 10, 32, repeats=1)
    exact = ann_index.exact_search(topics.doc_vectors, topics.query_vectors, 10, repeats=1)
    assert np.allclose(everything.distances, exact.distances, rtol=1e-4)


def test_digits_judge_the_same_digit_relevant():
    digits = ann_index.digits_collection()
    assert len(digits.doc_ids) + len(digits.query_ids) == 1797
    assert len(digits.query_ids) == 200
    assert all(len(judgments) > 100 for judgments in digits.qrels.values())


@pytest.mark.parametrize("spec", [dict(kind="lsh"), dict(m=0), dict(m=1000), dict(nlist=2), dict(m=True)])
def test_index_settings_out_of_range_are_refused(spec):
    with pytest.raises(InputError):
        ann_index.IndexSpec(**spec)


def test_a_search_value_out_of_range_is_refused(topics):
    built = ann_index.build_index(topics.doc_vectors[:500], ann_index.IndexSpec("ivf", nlist=16))
    with pytest.raises(InputError, match="nprobe"):
        ann_index.ann_search(built, topics.query_vectors[:2], 5, 17)


# ---- command line --------------------------------------------------------------------------------------------------


def write_run(path, run):
    path.write_text("".join(f"{qid} Q0 {doc} {rank} {score} tag\n"
                            for qid, scores in run.items()
                            for rank, (doc, score) in enumerate(sorted(scores.items(), key=lambda x: -x[1]), 1)))
    return str(path)


def test_the_command_line_prints_trec_eval_columns_per_query_and_the_waterfall(tmp_path):
    exact = write_run(tmp_path / "exact", {"q": {"a": 0.9, "b": 0.8, "c": 0.7}})
    ann = write_run(tmp_path / "ann", {"q": {"a": 0.9, "c": 0.7, "z": 0.1}})
    qrels = tmp_path / "qrels"
    qrels.write_text("q 0 a 1\nq 0 b 1\nq 0 z 1\nq 0 y 1\n")
    out, err = io.StringIO(), io.StringIO()
    assert ann_main([exact, ann, str(qrels), "-k", "2", "-q", "--context", "1"], out=out, err=err) == 0
    lines = [line.split("\t") for line in out.getvalue().splitlines()]
    table = {(name.strip(), qid): value for name, qid, value in lines}
    assert table[("ann_recall_2", "q")] == "0.5000"  # exact top 2: a b; ANN top 2: a c
    assert table[("recall_2_exact", "all")] == "0.5000"
    assert table[("lost_relevant_2", "q")] == "1"
    assert table[("waterfall_relevant", "all")] == "4"
    assert table[("waterfall_exact_2", "all")] == "2"
    assert table[("waterfall_ann_2", "all")] == "1"
    assert table[("lost_at_context_1", "all")] == "0"
    assert all(len(name) >= 22 for name, _, _ in lines)  # trec_eval's %-22s


@pytest.mark.parametrize("argv, message", [
    (["missing.txt", "missing.txt"], "no such file"),
    (["{exact}", "{exact}", "--context", "3"], "needs QRELS"),
    (["{exact}", "{exact}", "-k", "0"], "from 1 to"),
    (["{exact}"], "required"),
])
def test_command_line_errors_are_one_line_and_exit_2(tmp_path, argv, message):
    exact = write_run(tmp_path / "exact", {"q": {"a": 0.9}})
    out, err = io.StringIO(), io.StringIO()
    assert ann_main([arg.format(exact=exact) for arg in argv], out=out, err=err) == 2
    assert message in err.getvalue()
    assert len(err.getvalue().strip().splitlines()) == 1


def test_top_k_follows_the_score_precision_convention_like_the_recall_it_reports():
    """0.1 and 0.1 + 1e-9 tie as C floats (trec_eval 9, pytrec_eval) and are then ordered by doc id descending."""
    exact = {"q": {"x": 0.1 + 1e-9, "y": 0.1}}
    ann = {"q": {"y": 0.1}}
    qrels = {"q": {"y": 1, "x": 0}}
    as_floats = compare_ann(exact, ann, qrels, 1).per_query["q"]
    assert as_floats["ann_recall_1"] == 1.0 and as_floats["lost_relevant_1"] == 0  # top 1 is y in both lists
    assert as_floats["recall_1_exact"] == 1.0
    as_doubles = compare_ann(exact, ann, qrels, 1, score_precision="float64").per_query["q"]
    assert as_doubles["ann_recall_1"] == 0.0 and as_doubles["recall_1_exact"] == 0.0
