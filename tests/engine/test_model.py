"""The data model: ordering documents, input checks, and the padded RankingBatch every kernel reads."""

from __future__ import annotations

import math

import numpy as np
import pytest

import metrics
from metrics import InputError, RankingBatch, order_documents
from metrics.model import NO_JUDGMENT, in_ranking_order, ties_by_keys

# ---- order_documents -------------------------------------------------------------------------------------------------


def test_higher_scores_come_first_whatever_the_tie_order():
    scores = {"low": 0.1, "high": 0.9, "mid": 0.5}
    for tie_order in ("trec_eval", "as_given", "docid_ascending"):
        assert order_documents(scores, tie_order) == ["high", "mid", "low"]


def test_trec_eval_breaks_ties_by_doc_id_descending_in_byte_order():
    scores = {doc: 1.0 for doc in ["9", "10", "Z", "a", "é", "😀"]}
    # Bytes: '1' 0x31 < '9' 0x39 < 'Z' 0x5a < 'a' 0x61 < 'é' 0xc3 0xa9 < '😀' 0xf0 ...; descending is the reverse.
    assert order_documents(scores) == ["😀", "é", "a", "Z", "9", "10"]
    assert order_documents(scores, "docid_ascending") == ["10", "9", "Z", "a", "é", "😀"]
    assert order_documents(scores, "as_given") == ["9", "10", "Z", "a", "é", "😀"]


def test_ties_are_broken_only_among_equal_scores():
    scores = {"b": 1.0, "a": 1.0, "z": 0.5, "c": 2.0, "y": 0.5}
    assert order_documents(scores) == ["c", "b", "a", "z", "y"]
    assert order_documents(scores, "docid_ascending") == ["c", "a", "b", "y", "z"]
    assert order_documents(scores, "as_given") == ["c", "b", "a", "z", "y"]


def test_integer_and_negative_scores_are_ordered_as_numbers():
    scores = {"a": 3, "b": -1.5, "c": 1e300, "d": -1e300, "e": 0}
    assert order_documents(scores) == ["c", "a", "e", "b", "d"]


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf, "0.5", None, True])
def test_a_score_that_is_not_a_number_raises_naming_the_query_and_document(bad):
    with pytest.raises(InputError, match=rf"query 'q7', document 'doc 3': score must be a finite number, got {bad!r}"):
        order_documents({"doc 1": 1.0, "doc 3": bad}, qid="q7")


def test_an_integer_score_beyond_a_double_is_refused_with_a_short_message():
    with pytest.raises(InputError, match=r"score must be a finite number, got 1000000.*0$") as raised:
        order_documents({"a": 10**400})
    assert len(str(raised.value)) < 120


def test_nan_score_in_a_run_raises_from_evaluate():
    with pytest.raises(InputError, match="query 'q1', document 'b': score must be a finite number, got nan"):
        metrics.evaluate({"q1": {"a": 1}}, {"q1": {"a": 1.0, "b": float("nan")}}, ["map"])


def test_an_unknown_tie_order_is_rejected():
    with pytest.raises(ValueError, match="Argument `tie_order` has to be"):
        order_documents({"a": 1.0}, "random")


# ---- input checks ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad", [1.5, math.nan, "2", None, True])
def test_a_non_integer_grade_raises_naming_the_query_and_document(bad):
    with pytest.raises(InputError, match=rf"query 'q1', document 'b': grade must be an integer, got {bad!r}"):
        metrics.evaluate({"q1": {"a": 1, "b": bad}}, {"q1": {"a": 1.0}}, ["map"])


def test_integer_valued_floats_and_numpy_integers_are_accepted_as_grades():
    values = metrics.evaluate({"q": {"a": 2.0, "b": np.int64(1)}}, {"q": {"a": 1.0, "b": 0.5}}, ["P.2", "ndcg"])
    assert values["q"]["P_2"] == 1.0 and values["q"]["ndcg"] == 1.0


def test_a_document_twice_in_a_ranking_raises_naming_it_and_its_second_rank():
    with pytest.raises(InputError, match=r"document 'a' appears twice in the ranking \(again at rank 3\)"):
        metrics.evaluate_rankings([["a", "b", "a"]], [{"a": 1}], ["map"])


def test_a_ranking_without_duplicates_passes_the_check():
    assert metrics.evaluate_rankings([["a", "b", "c"]], [{"a": 1}], ["num_ret"])["num_ret"][0] == 3


def test_rankings_and_judgments_must_pair_up():
    with pytest.raises(ValueError, match="got 2 rankings but 1 judgment sets"):
        RankingBatch.from_rankings([["a"], ["b"]], [{"a": 1}])


# ---- RankingBatch ----------------------------------------------------------------------------------------------------

JUDGMENTS = [{"a": 2, "b": 0, "c": 1, "u": -1}, {"x": 1}]
RANKINGS = [["a", "z", "b", "c", "u"], ["y"]]


@pytest.fixture
def batch() -> RankingBatch:
    return RankingBatch.from_rankings(RANKINGS, JUDGMENTS)


def test_batch_holds_grades_judged_flags_lengths_and_sorted_judgments(batch):
    assert batch.size == 2 and batch.width == 5
    # u has grade -1 (in the pool, unjudged) and keeps -1; z and y are not in the qrels: 0.
    np.testing.assert_array_equal(batch.grades, [[2, 0, 0, 1, -1], [0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(batch.judged, [[1, 0, 1, 1, 0], [0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(batch.lengths, [5, 1])
    # Grades >= 0 only (u is -1: unjudged), sorted descending, padded with NO_JUDGMENT.
    np.testing.assert_array_equal(batch.judged_grades, [[2, 1, 0], [1, NO_JUDGMENT, NO_JUDGMENT]])


def test_depth_cuts_before_judged_only_drops_unjudged_documents():
    cut = RankingBatch.from_rankings(RANKINGS, JUDGMENTS, depth=3, judged_only=True)
    # Top 3 of row 0 are a z b; dropping z leaves a b. Row 1 (y, unjudged) becomes empty.
    np.testing.assert_array_equal(cut.lengths, [2, 0])
    np.testing.assert_array_equal(cut.grades[0, :2], [2, 0])
    assert cut.judged[0, :2].all() and not cut.judged[1].any()


def test_an_empty_batch_row_still_has_width_one():
    empty = RankingBatch.from_rankings([[]], [{"a": 1}])
    assert empty.width == 1 and empty.lengths[0] == 0 and not empty.judged.any()


def test_rows_selects_and_repeats_rankings(batch):
    picked = batch.rows([1, 0, 1])
    np.testing.assert_array_equal(picked.lengths, [1, 5, 1])
    np.testing.assert_array_equal(picked.grades[1], batch.grades[0])
    np.testing.assert_array_equal(picked.judged_grades[2], batch.judged_grades[1])
    values = metrics.evaluate_batch(picked, ["map", "num_ret"])
    full = metrics.evaluate_batch(batch, ["map", "num_ret"])
    np.testing.assert_array_equal(values["map"], full["map"][[1, 0, 1]])


def test_reordered_builds_one_ranking_per_row_of_positions(batch):
    positions = np.array([
        [0, 1, 2, 3, 4],     # unchanged
        [3, 1, 2, 0, 4],     # swap ranks 1 and 4: c (grade 1) first, a (grade 2) fourth
        [0, 2, 3, 4, -1],    # remove rank 2 (z)
        [-1, -1, -1, -1, -1],  # remove everything
    ])
    variants = batch.reordered(0, positions)
    np.testing.assert_array_equal(variants.lengths, [5, 5, 4, 0])
    np.testing.assert_array_equal(variants.grades[1], [1, 0, 0, 2, -1])
    np.testing.assert_array_equal(variants.judged[2], [1, 1, 1, 0, 0])
    assert not variants.judged[3].any()
    # Every variant keeps the query's judgments, so R and the ideal DCG do not move.
    np.testing.assert_array_equal(variants.judged_grades, np.repeat(batch.judged_grades[:1], 4, axis=0))


def test_reordered_rankings_score_like_the_same_rankings_built_from_doc_ids(batch):
    positions = np.array([[3, 1, 2, 0, 4], [0, 2, 3, 4, -1], [1, 0, -1, -1, -1]])
    variants = batch.reordered(0, positions)
    ranking = RANKINGS[0]
    as_docs = [[ranking[p] for p in row if p >= 0] for row in positions]
    measures = ["map", "ndcg", "P.2", "recip_rank", "bpref", "Rprec", "num_ret", "num_rel_ret"]
    from_positions = metrics.evaluate_batch(variants, measures)
    from_docs = metrics.evaluate_rankings(as_docs, [JUDGMENTS[0]] * 3, measures)
    for key in from_docs:
        np.testing.assert_array_equal(from_positions[key], from_docs[key], err_msg=key)


def test_reordered_wants_a_two_dimensional_positions_array(batch):
    with pytest.raises(ValueError, match="2-d array of source ranks"):
        batch.reordered(0, np.array([0, 1, 2]))


def test_moving_a_relevant_doc_up_raises_ap_but_not_precision_at_the_full_length(batch):
    # Swap z (rank 2, unjudged) with c (rank 4, grade 1): c rises, P@5 stays.
    variants = batch.reordered(0, np.array([[0, 1, 2, 3, 4], [0, 3, 2, 1, 4]]))
    values = metrics.evaluate_batch(variants, ["map", "P.5"])
    assert values["map"][1] > values["map"][0]
    assert values["P_5"][1] == values["P_5"][0]


# ---- one tie sort ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tie_order", ["trec_eval", "docid_ascending", "as_given"])
@pytest.mark.parametrize("presorted", [False, True])
def test_in_ranking_order_is_query_then_score_descending_then_the_tie_order(tie_order, presorted):
    rng = np.random.default_rng(7)
    n = 400
    groups = np.sort(rng.integers(0, 30, size=n)) if presorted else rng.integers(0, 30, size=n)
    scores = rng.choice([0.0, 0.5, 1.0, 2.0], size=n)
    docs = [f"d{i}" for i in rng.permutation(n)]
    if presorted:  # a run file written in rank order: within each query, scores never rise
        order = np.lexsort((-scores, groups))
        groups, scores, docs = groups[order], scores[order], [docs[i] for i in order]
    code_of = {doc: code for code, doc in enumerate(sorted(docs))}
    codes = np.array([code_of[doc] for doc in docs])
    tie_key = {"trec_eval": lambda i: -codes[i], "docid_ascending": lambda i: codes[i], "as_given": lambda i: i}
    expected = sorted(range(n), key=lambda i: (groups[i], -scores[i], tie_key[tie_order](i)))
    (order,) = in_ranking_order(groups, scores, tie_order, ties_by_keys(codes.__getitem__), np.arange(n))
    assert order.tolist() == expected
    one_query = {docs[i]: float(scores[i]) for i in range(n) if groups[i] == groups[0]}
    alone = [docs[i] for i in expected if groups[i] == groups[0]]
    assert order_documents(one_query, tie_order, score_precision="float64") == alone


def test_numba_quicksort_is_numbas_argsort():
    """The transcription gives numba's own np.argsort on tie groups of every length, and differs from a stable sort
    beyond 15 keys (the tie order ranx, metrics.model.numba_quicksort)."""
    numba = pytest.importorskip("numba")
    from metrics.model import numba_quicksort

    argsort = numba.njit(lambda keys: np.argsort(keys))
    rng = np.random.default_rng(41)
    unstable = 0
    for size in [*range(0, 40), *rng.integers(40, 1500, 60).tolist()]:
        keys = -rng.integers(0, max(1, size // int(rng.integers(1, 40))), size).astype(np.float64) / 4
        mine = numba_quicksort(keys.tolist())
        assert mine == argsort(keys).tolist(), size
        unstable += mine != np.argsort(keys, kind="stable").tolist()
        if size <= 15:
            assert mine == np.argsort(keys, kind="stable").tolist()
    assert unstable > 50
