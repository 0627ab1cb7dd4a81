"""Online signals over a run (metrics.online.run_signals): each query as the single-list closed forms give it,
rankings in trec_eval's order, means in sorted-qid order, the zero-result and abandonment rates."""

from __future__ import annotations

import numpy as np
import pytest

import metrics
from metrics import InputError
from metrics.engine import aggregate_columns
from metrics.io.trec import read_qrels, read_run
from metrics.online import MODELS, RUN_SIGNALS, ClickModel, expected_signals, run_signals
from tests.support.paths import TEST_DATA

TREC_EVAL_DATA = TEST_DATA / "trec_eval"
PASTRY_QRELS = {"sweet pastry": {"donut": 1, "muffin": 1, "scone": 1}}
PASTRY_RUN = {"sweet pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}


def random_collection(seed: int, queries: int = 60):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for _ in range(queries):
        qid = f"q{rng.integers(0, 10**6)}"
        docs = [f"d{i}" for i in range(int(rng.integers(1, 25)))]
        qrels[qid] = {doc: int(rng.integers(-1, 4)) for doc in docs if rng.random() < 0.6} or {"x": 0}
        if rng.random() < 0.9:
            run[qid] = {doc: float(rng.integers(0, 5)) for doc in docs if rng.random() < 0.8}  # many ties
    run["unjudged query"] = {"d1": 1.0}
    return qrels, run


def test_sweet_pastry_as_a_run_of_one_query():
    signals = run_signals(PASTRY_QRELS, PASTRY_RUN, "cascade")
    assert signals.qids == ["sweet pastry"]
    assert signals.means["ctr_1"] == 0.5 and signals.means["abandonment"] == 0.25
    assert (signals.zero_result_rate, signals.abandonment_rate) == (0.0, 0.25)


@pytest.mark.parametrize("kind", MODELS)
def test_each_query_gets_the_closed_forms_of_its_list_in_trec_eval_order(kind):
    qrels, run = random_collection(1)
    signals = run_signals(qrels, run, kind, eta=1.5, continuation=0.7)
    assert signals.qids == sorted(qid for qid in run if qid in qrels)
    for i, qid in enumerate(signals.qids):
        ranking = metrics.order_documents(run[qid])  # score descending, ties by doc id descending
        grades = [qrels[qid].get(doc) for doc in ranking]
        max_grade = max(g for g in qrels[qid].values())
        model = ClickModel.for_list(kind, grades, max(max_grade, 0), eta=1.5, continuation=0.7)
        expected = expected_signals(model)
        for signal in RUN_SIGNALS:
            value = expected.value(signal) if signal != "stop_reciprocal_rank" else expected.stop_reciprocal_rank
            assert signals.per_query[signal][i] == pytest.approx(0.0 if value is None else value, abs=1e-15), \
                (qid, signal)
        assert signals.has_click[i] == (expected.ctr > 0)


def test_means_are_summed_in_sorted_qid_order_and_first_click_rank_averages_queries_with_a_click():
    qrels, run = random_collection(2)
    signals = run_signals(qrels, run, "pbm")
    for signal in ("ctr", "ctr_1", "abandonment", "clicks"):
        assert signals.means[signal] == aggregate_columns({signal: signals.per_query[signal]})[signal]
    clicked = signals.per_query["first_click_rank"][signals.has_click]
    assert not signals.has_click.all() and signals.has_click.any()
    assert signals.means["first_click_rank"] == pytest.approx(clicked.mean())
    assert (signals.per_query["first_click_rank"][~signals.has_click] == 0).all()


def test_zero_result_rate_and_abandonment_rate_count_every_query_of_the_qrels():
    qrels = {"a": {"d1": 1}, "b": {"d1": 1}, "c": {"d1": 1}, "d": {"d1": 0}, "e": {}}  # e has no judgment line
    run = {"a": {"d1": 1.0}, "b": {}, "d": {"d2": 1.0}, "z": {"d1": 1.0}}
    signals = run_signals(qrels, run, "cascade")
    assert signals.qids == ["a", "b", "d"]  # judged queries the run holds ("b" with no document)
    assert signals.zero_result_qids == ["b", "c"] and signals.judged_queries == 4
    assert signals.zero_result_rate == 2 / 4
    # a: 0.5; b and d: no click possible; c: not in the run, no result, no click
    assert signals.per_query["abandonment"].tolist() == [0.5, 1.0, 1.0]
    assert signals.abandonment_rate == (0.5 + 1 + 1 + 1) / 4
    assert signals.means["abandonment"] == (0.5 + 1 + 1) / 3


def test_files_and_dicts_give_the_same_values_also_when_a_lopsided_run_is_batched_by_size(tmp_path):
    qrels_table = read_qrels(TREC_EVAL_DATA / "qrels.test")
    run_table = read_run(TREC_EVAL_DATA / "results.test")
    for kind in MODELS:
        from_files = run_signals(qrels_table, run_table, kind)
        from_dicts = run_signals(qrels_table.to_dict(), run_table.to_dict(), kind)
        assert from_files.qids == from_dicts.qids
        for signal in RUN_SIGNALS:
            assert from_files.per_query[signal].tolist() == from_dicts.per_query[signal].tolist()
    # 2,000 one-document queries and one of 5,000: bulk groups the queries by size (several batches)
    lines_q = ["big 0 d7 2"] + [f"s{i} 0 d0 1" for i in range(2000)]
    lines_r = [f"big Q0 d{i} {i + 1} {5000 - i} t" for i in range(5000)] + [f"s{i} Q0 d0 1 1 t" for i in range(2000)]
    (tmp_path / "qrels").write_text("\n".join(lines_q) + "\n")
    (tmp_path / "run").write_text("\n".join(lines_r) + "\n")
    lopsided = run_signals(read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run"), "dbn")
    assert lopsided.per_query["ctr_1"][lopsided.qids.index("s7")] == 0.5
    big = lopsided.qids.index("big")
    assert lopsided.per_query["first_click_rank"][big] == 8.0
    assert lopsided.per_query["ctr"][big] == pytest.approx(0.75 * 0.9**7)


@pytest.mark.parametrize("kind", MODELS)
def test_the_simulated_run_agrees_with_the_closed_forms_within_four_standard_errors(kind):
    qrels, run = random_collection(3, queries=20)
    exact = run_signals(qrels, run, kind)
    simulated = run_signals(qrels, run, kind, sessions=20_000, seed=4)
    assert simulated.sessions == 20_000 and simulated.seed == 4 and exact.standard_error is None
    # A proportion's standard error from its true value: a query clicked in all but 1 of 10^7 sessions shows a
    # click in every one of 20,000, and a sample error of 0. Means of counts: the sample's error, and 1e-5 for
    # such a query.
    for signal in ("ctr", "ctr_1", "abandonment"):
        p = exact.per_query[signal]
        gap = np.abs(simulated.per_query[signal] - p)
        assert (gap <= 4 * np.sqrt(p * (1 - p) / 20_000) + 1e-12).all(), signal
    for signal in ("clicks", "stop_reciprocal_rank"):
        gap = np.abs(simulated.per_query[signal] - exact.per_query[signal])
        assert (gap <= 4 * simulated.standard_error[signal] + 1e-5).all(), signal


def test_a_querys_simulated_values_depend_on_the_seed_and_its_id_not_on_the_other_queries():
    qrels, run = random_collection(5, queries=10)
    whole = run_signals(qrels, run, "dbn", sessions=2_000, seed=1)
    qid = whole.qids[3]
    alone = run_signals({qid: qrels[qid]}, {qid: run[qid]}, "dbn", sessions=2_000, seed=1)
    assert alone.per_query["ctr"][0] == whole.per_query["ctr"][3]
    other_seed = run_signals(qrels, run, "dbn", sessions=2_000, seed=2)
    assert other_seed.per_query["ctr"].tolist() != whole.per_query["ctr"].tolist()


@pytest.mark.parametrize("qrels, run", [
    ({"q1": {"d1": 1}}, {"q2": {"d1": 1.0}}),  # no query in common: an abandonment mean over no query
    ({"q1": {"d1": 1}}, {}),
    ({}, {}),
])
def test_a_run_sharing_no_query_with_the_qrels_is_refused_as_by_evaluate(qrels, run):
    with pytest.raises(InputError, match="no query of the run has judgments in the qrels: nothing to evaluate"):
        run_signals(qrels, run, "pbm")
    with pytest.raises(InputError, match="nothing to evaluate"):
        run_signals(qrels, run, "cascade", sessions=10)


def test_a_simulation_beyond_the_work_limit_is_refused_before_any_draw():
    qrels = {f"q{i}": {f"d{j}": 1 for j in range(500)} for i in range(3)}
    run = {qid: {doc: float(-j) for j, doc in enumerate(docs)} for qid, docs in qrels.items()}
    with pytest.raises(InputError, match=r"1,000,000 sessions for each of 3 queries make 1,500,000,000 draws"):
        run_signals(qrels, run, "cascade", sessions=1_000_000)


@pytest.mark.parametrize("call, message", [
    (lambda: run_signals(PASTRY_QRELS, PASTRY_RUN, "ubm"), "Argument `kind` has to be one of cascade, pbm, dbn"),
    (lambda: run_signals([], PASTRY_RUN, "pbm"), "Argument `qrels` has to be a dict"),
    (lambda: run_signals(PASTRY_QRELS, {"q": [1]}, "pbm"), "has to map document ids to scores"),
    (lambda: run_signals(PASTRY_QRELS, {"sweet pastry": {"d": float("nan")}}, "pbm"), "score must be a finite"),
    (lambda: run_signals(PASTRY_QRELS, PASTRY_RUN, "pbm", eta=float("inf")), "Argument `eta`"),
    (lambda: run_signals(PASTRY_QRELS, PASTRY_RUN, "dbn", continuation=-0.1), "Argument `continuation`"),
    (lambda: run_signals(PASTRY_QRELS, PASTRY_RUN, "dbn", sessions=0), "Argument `sessions`"),
])
def test_bad_run_arguments_get_one_clear_input_error(call, message):
    with pytest.raises(InputError) as raised:
        call()
    assert message in str(raised.value)
