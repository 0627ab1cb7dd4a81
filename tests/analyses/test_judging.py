"""Judge the holes: every influence is the change pytrec_eval sees when that one document is judged.

The candidate lists are checked against their definition (unjudged, in the top k; for two runs, in one top k and not
the other's), and the written qrels against our reader and pytrec_eval.
"""

from __future__ import annotations

import numpy as np
import pytest
import pytrec_eval

from metrics import Conventions, InputError, evaluate
from metrics.io.trec import read_qrels, read_run
from metrics.judging import (
    ADDED_ITERATION,
    MAX_K,
    additions_to_trec,
    find_holes,
    merge_judgments,
    merge_judgments_table,
    merged_trec,
)
from tests.support.strategies import random_collection

PASTRY_QRELS = {"sweet pastry": {"donut": 1, "muffin": 1, "scone": 1}}
PASTRY_RUN = {"sweet pastry": {"donut": 0.95, "bagel": 0.9, "muffin": 0.8, "croissant": 0.7}}


def pytrec_mean(qrels, run, measure: str, key: str, **arguments) -> dict[str, float]:
    """Per-query values of one measure, from pytrec_eval (trec_eval 9's C code)."""
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {measure}, **arguments)
    return {qid: values[key] for qid, values in evaluator.evaluate(run).items()}


def mean_difference(qrels, run_a, run_b, measure: str, key: str, **arguments) -> float:
    a = pytrec_mean(qrels, run_a, measure, key, **arguments)
    b = pytrec_mean(qrels, run_b, measure, key, **arguments)
    paired = sorted(set(a) & set(b))
    return float(np.mean([b[qid] - a[qid] for qid in paired]))


def second_run(rng: np.random.Generator, qrels, run):
    """Another run over the same queries: some documents dropped, some judged ones added, new tied scores."""
    other = {}
    for qid, scores in run.items():
        docs = [doc for doc in scores if rng.random() < 0.7]
        docs += [doc for doc in qrels.get(qid, {}) if rng.random() < 0.3 and doc not in docs]
        if not docs:
            docs = list(scores)[:1]
        other[qid] = {doc: float(rng.integers(0, 6)) for doc in docs}
    return other


def safe_collection(seed: int, n_queries: int = 40):
    """A random collection with ties, pooled (negative) grades and grades up to 3, which pytrec_eval can read."""
    rng = np.random.default_rng(seed)
    qrels, run = random_collection(rng, n_queries, max_docs=25)
    return rng, qrels, run


# ---- one run -----------------------------------------------------------------------------------------------------


def test_judging_bagel_relevant_raises_p4_by_a_quarter() -> None:
    holes = find_holes(PASTRY_QRELS, {"run": PASTRY_RUN}, "P.4", 4)
    assert [(h.doc, h.ranks, h.grade, h.relevant_grade) for h in holes.holes] == [
        ("bagel", (2,), None, 1), ("croissant", (4,), None, 1)]
    assert [h.influence for h in holes.holes] == [0.25, 0.25]  # equal: listed by rank
    assert holes.found == 2 and holes.queries == 1 and not holes.capped


def test_an_unjudged_document_can_lower_ap_when_judged_relevant() -> None:
    # One relevant document at rank 1: AP = 1. Judging d (rank 4) relevant makes it (1 + 2/4) / 2 = 0.75.
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    holes = find_holes(qrels, {"run": run}, "map", 4)
    assert [h.doc for h in holes.holes] == ["d", "c", "b"]
    assert [h.influence for h in holes.holes] == pytest.approx([-0.25, (1 + 2 / 3) / 2 - 1, 0.0])


@pytest.mark.parametrize("measure, key", [
    ("P.5", "P_5"), ("map", "map"), ("ndcg_cut.10", "ndcg_cut_10"), ("recall.10", "recall_10"), ("bpref", "bpref"),
    ("recip_rank", "recip_rank"), ("infAP", "infAP"), ("Rprec", "Rprec"), ("ndcg", "ndcg"),
])
def test_each_influence_is_the_change_pytrec_eval_sees_when_the_document_is_judged(measure: str, key: str) -> None:
    _, qrels, run = safe_collection(7)
    holes = find_holes(qrels, {"run": run}, measure, 10)
    assert holes.holes, "the random collection has unjudged documents in every top 10"
    before = pytrec_mean(qrels, run, measure, key)
    n = len(before)
    for hole in holes.holes[:60]:
        judged = merge_judgments(qrels, {(hole.qid, hole.doc): hole.relevant_grade})
        after = pytrec_mean(judged, run, measure, key)
        change = (sum(after.values()) - sum(before.values())) / n
        assert hole.influence == pytest.approx(change, abs=1e-12), (hole, change)
    influences = [round(abs(h.influence), 12) for h in holes.holes]  # most influential first (rounding ties)
    assert influences == sorted(influences, reverse=True)


@pytest.mark.parametrize("arguments, conventions", [
    ({"relevance_level": 2}, Conventions(relevance_level=2)),
    ({"judged_docs_only_flag": True}, Conventions(unjudged="removed")),
])
def test_influence_follows_the_threshold_and_judged_only(arguments, conventions) -> None:
    _, qrels, run = safe_collection(11)
    for measure, key in (("map", "map"), ("P.5", "P_5"), ("ndcg_cut.10", "ndcg_cut_10")):
        holes = find_holes(qrels, {"run": run}, measure, 10, conventions=conventions)
        before = pytrec_mean(qrels, run, measure, key, **arguments)
        for hole in holes.holes[:25]:
            assert hole.relevant_grade >= conventions.relevance_level
            after = pytrec_mean(merge_judgments(qrels, {(hole.qid, hole.doc): hole.relevant_grade}), run, measure,
                                key, **arguments)
            assert hole.influence == pytest.approx((sum(after.values()) - sum(before.values())) / len(before),
                                                   abs=1e-12)


@pytest.mark.parametrize("conventions", [
    Conventions(depth=8), Conventions(gain="exponential"), Conventions(tied_gains="averaged"),
    Conventions(tie_order="docid_ascending"), Conventions(unjudged="removed", tied_gains="averaged"),
    Conventions(missing_queries="zero"),
])
def test_influence_under_other_conventions_is_the_engines_change(conventions: Conventions) -> None:
    _, qrels, run = safe_collection(13, n_queries=25)
    for measure in ("map", "ndcg_cut.10", "P.5"):
        holes = find_holes(qrels, {"run": run}, measure, 10, conventions=conventions)
        key = holes.measure
        before = evaluate(qrels, run, [measure], conventions=conventions)
        for hole in holes.holes[:20]:
            after = evaluate(merge_judgments(qrels, {(hole.qid, hole.doc): hole.relevant_grade}), run, [measure],
                             conventions=conventions)
            change = (sum(v[key] for v in after.values()) - sum(v[key] for v in before.values())) / len(before)
            assert hole.influence == pytest.approx(change, abs=1e-12)
            assert all(r is None or r <= 10 for r in hole.ranks)
            if conventions.depth is not None:
                assert hole.ranks[0] <= conventions.depth


def test_candidates_are_exactly_the_unjudged_documents_of_the_top_k_of_the_chosen_queries() -> None:
    _, qrels, run = safe_collection(3)
    chosen = sorted(set(run) & set(qrels))[:5]
    holes = find_holes(qrels, {"run": run}, "P.5", 5, qids=chosen)
    expected = set()
    for qid in chosen:
        ranking = sorted(run[qid], key=lambda doc: (-np.float32(run[qid][doc]), [-b for b in doc.encode()]))
        expected |= {(qid, doc) for doc in ranking[:5] if qrels[qid].get(doc, -1) < 0}
    assert {(h.qid, h.doc) for h in holes.holes} == expected
    assert all(h.grade is None or h.grade < 0 for h in holes.holes)
    pooled = [h for h in holes.holes if h.grade is not None]
    assert all(qrels[h.qid][h.doc] == h.grade for h in pooled)


def test_tied_documents_take_trec_evals_order_and_equal_influences_list_by_rank() -> None:
    # b, c and d tie; trec_eval ranks tied documents by doc id descending: d, c, b.
    qrels = {"q": {"a": 1}}
    run = {"q": {"a": 2.0, "b": 1.0, "c": 1.0, "d": 1.0}}
    holes = find_holes(qrels, {"run": run}, "P.4", 4)
    assert [(h.doc, h.ranks) for h in holes.holes] == [("d", (2,)), ("c", (3,)), ("b", (4,))]
    assert len({h.influence for h in holes.holes}) == 1


def test_graded_queries_flip_to_their_highest_grade_and_a_zero_grade_is_a_judgment() -> None:
    qrels = {"q": {"a": 3, "b": 0, "c": -1}}
    run = {"q": {"x": 5.0, "a": 4.0, "b": 3.0, "c": 2.0}}
    holes = find_holes(qrels, {"run": run}, "ndcg_cut.4", 4)
    assert {h.doc: (h.grade, h.relevant_grade) for h in holes.holes} == {"x": (None, 3), "c": (-1, 3)}
    assert "b" not in {h.doc for h in holes.holes}  # judged non-relevant: not a hole
    # Judging x non-relevant (grade 0) leaves nDCG alone but changes bpref's count of judged non-relevant.
    judged = merge_judgments(qrels, {("q", "x"): 0})
    assert pytrec_mean(judged, run, "ndcg_cut.4", "ndcg_cut_4") == pytrec_mean(qrels, run, "ndcg_cut.4", "ndcg_cut_4")
    assert find_holes(judged, {"run": run}, "ndcg_cut.4", 4).holes[0].doc == "c"


def test_a_query_without_relevant_documents_flips_to_the_relevance_threshold() -> None:
    qrels = {"q": {"a": 0}}
    run = {"q": {"a": 2.0, "b": 1.0}}
    (hole,) = find_holes(qrels, {"run": run}, "P.2", 2, conventions=Conventions(relevance_level=2)).holes
    assert (hole.doc, hole.relevant_grade, hole.influence) == ("b", 2, 0.5)


@pytest.mark.parametrize("grade", [2**53 + 1, 2**63 - 1])
def test_the_relevant_grade_is_the_querys_highest_grade_exactly_even_beyond_floats(grade: int) -> None:
    (hole,) = find_holes({"q": {"a": grade}}, {"run": {"q": {"a": 2.0, "b": 1.0}}}, "P.2", 2).holes
    assert (hole.doc, hole.relevant_grade, hole.influence) == ("b", grade, 0.5)


def test_no_unjudged_document_gives_an_empty_list_with_a_message() -> None:
    qrels = {"q": {"a": 1, "b": 0}}
    holes = find_holes(qrels, {"run": {"q": {"a": 2.0, "b": 1.0}}}, "P.2", 2)
    assert holes.holes == [] and holes.found == 0
    assert holes.message == "Every document in the top 2 is judged: there is no hole to fill."
    nothing = find_holes(qrels, {"run": {"other": {"a": 1.0}}}, "P.2", 2)
    assert nothing.message == "No query is evaluated: nothing to judge."


def test_a_filter_that_matches_no_query_says_so_rather_than_that_nothing_is_unjudged() -> None:
    holes = find_holes(PASTRY_QRELS, {"run": PASTRY_RUN}, "P.4", 4, qids=[])
    assert holes.holes == [] and holes.queries == 1
    assert holes.message == "No query matches the filter: nothing to judge."
    elsewhere = find_holes(PASTRY_QRELS, {"run": PASTRY_RUN}, "P.4", 4, qids=["not a query"])
    assert elsewhere.message == "No query matches the filter: nothing to judge."
    assert find_holes(PASTRY_QRELS, {"run": PASTRY_RUN}, "P.4", 4, qids=["sweet pastry"]).message is None


def test_the_cap_keeps_the_highest_ranked_documents_and_says_how_many_were_found() -> None:
    qrels = {f"q{i}": {"rel": 1} for i in range(3)}
    run = {f"q{i}": {f"d{j}": float(10 - j) for j in range(10)} for i in range(3)}
    holes = find_holes(qrels, {"run": run}, "P.10", 10, limit=6)
    assert holes.found == 30 and len(holes.holes) == 6 and holes.capped
    assert sorted(h.ranks[0] for h in holes.holes) == [1, 1, 1, 2, 2, 2]


def test_bad_arguments_get_one_clear_message() -> None:
    with pytest.raises(InputError, match="k"):
        find_holes(PASTRY_QRELS, {"run": PASTRY_RUN}, "P.4", 0)
    with pytest.raises(InputError, match=str(MAX_K)):
        find_holes(PASTRY_QRELS, {"run": PASTRY_RUN}, "P.4", MAX_K + 1)
    with pytest.raises(InputError, match="one measure"):
        find_holes(PASTRY_QRELS, {"run": PASTRY_RUN}, "P.4,5", 4)
    with pytest.raises(InputError, match="geometric"):
        find_holes(PASTRY_QRELS, {"run": PASTRY_RUN}, "gm_map", 4)
    with pytest.raises(InputError, match="one or two"):
        find_holes(PASTRY_QRELS, {"a": PASTRY_RUN, "b": PASTRY_RUN, "c": PASTRY_RUN}, "P.4", 4)


# ---- two runs ----------------------------------------------------------------------------------------------------


def test_two_run_candidates_are_in_one_top_k_and_not_the_others() -> None:
    qrels = {"q": {"a": 1}}
    run_a = {"q": {"a": 4.0, "x": 3.0, "y": 2.0}}
    run_b = {"q": {"a": 4.0, "y": 3.0, "z": 2.0, "x": 1.0}}
    holes = find_holes(qrels, {"A": run_a, "B": run_b}, "P.3", 3)
    # y is in both tops (left out); x is in A's top 3 only (B has it at rank 4); z in B's only.
    assert {h.doc: h.ranks for h in holes.holes} == {"x": (2, 4), "z": (None, 3)}
    by_doc = {h.doc: h.influence for h in holes.holes}
    assert by_doc["x"] == pytest.approx(-1 / 3) and by_doc["z"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("measure, key", [("map", "map"), ("ndcg_cut.10", "ndcg_cut_10"), ("P.10", "P_10"),
                                          ("recall.10", "recall_10")])
def test_two_run_influence_is_the_change_of_the_mean_difference(measure: str, key: str) -> None:
    rng, qrels, run_a = safe_collection(21)
    run_b = second_run(rng, qrels, run_a)
    holes = find_holes(qrels, {"A": run_a, "B": run_b}, measure, 10)
    assert holes.holes
    before = mean_difference(qrels, run_a, run_b, measure, key)
    for hole in holes.holes[:40]:
        after = mean_difference(merge_judgments(qrels, {(hole.qid, hole.doc): hole.relevant_grade}), run_a, run_b,
                                measure, key)
        assert hole.influence == pytest.approx(after - before, abs=1e-12)
        in_top = [r is not None and r <= 10 for r in hole.ranks]
        assert in_top[0] != in_top[1]


def test_influence_is_the_same_from_parsed_files() -> None:
    rng, qrels, run_a = safe_collection(5, n_queries=15)
    run_b = second_run(rng, qrels, run_a)
    from metrics.export import qrels_to_trec, run_to_trec
    tables = {name: read_run(run_to_trec({q: list(s.items()) for q, s in run.items()}, name).encode(), name=name)
              for name, run in (("A", run_a), ("B", run_b))}
    from_files = find_holes(read_qrels(qrels_to_trec(qrels).encode()), tables, "map", 10)
    from_dicts = find_holes(qrels, {"A": run_a, "B": run_b}, "map", 10)
    assert from_files.holes == from_dicts.holes


# ---- added judgments as qrels ------------------------------------------------------------------------------------


def test_merging_leaves_the_original_qrels_untouched() -> None:
    qrels = {"q": {"a": 1, "p": -1}}
    merged = merge_judgments(qrels, {("q", "p"): 2, ("q", "new"): 0})
    assert merged == {"q": {"a": 1, "p": 2, "new": 0}}
    assert qrels == {"q": {"a": 1, "p": -1}}


def test_written_qrels_keep_every_original_line_and_mark_the_additions() -> None:
    original = b"# pooled by hand\nq 0 a 1\nq 0 p -1\nr\t0\tb\t2\n"
    additions = {("q", "p"): 2, ("q", "new"): 1, ("r", "c"): 0}
    written = merged_trec(original, additions)
    assert written == b"# pooled by hand\nq 0 a 1\nq added p 2\nr\t0\tb\t2\nq added new 1\nr added c 0\n"
    assert additions_to_trec(additions) == "q added p 2\nq added new 1\nr added c 0\n"
    assert all(line.split()[1] == ADDED_ITERATION for line in additions_to_trec(additions).splitlines())
    qrels = {"q": {"a": 1, "p": -1}, "r": {"b": 2}}
    assert read_qrels(written).to_dict() == merge_judgments(qrels, additions)
    assert read_qrels(additions_to_trec(additions).encode()).to_dict() == {"q": {"p": 2, "new": 1}, "r": {"c": 0}}
    # A file without a final line break still gets whole lines; a tab-only file gets tab-separated additions.
    assert merged_trec(b"q 0 a 1", {("q", "b"): 1}) == b"q 0 a 1\nq added b 1\n"
    assert merged_trec(b"q\t0\ta\t1\n", {("q", "b"): 1}) == b"q\t0\ta\t1\nq\tadded\tb\t1\n"


def test_written_qrels_give_pytrec_eval_the_scores_of_the_merged_judgments() -> None:
    _, qrels, run = safe_collection(9, n_queries=20)
    holes = find_holes(qrels, {"run": run}, "map", 10).holes[:8]
    additions = {(h.qid, h.doc): (h.relevant_grade if i % 2 else 0) for i, h in enumerate(holes)}
    from metrics.export import qrels_to_trec
    original = qrels_to_trec(qrels).encode()
    merged = merge_judgments(qrels, additions)
    read_back = read_qrels(merged_trec(original, additions)).to_dict()
    assert read_back == merged
    measures = {"map", "ndcg_cut.10", "P.10", "bpref"}
    assert (pytrec_eval.RelevanceEvaluator(read_back, measures).evaluate(run)
            == pytrec_eval.RelevanceEvaluator(merged, measures).evaluate(run))
    table = merge_judgments_table(read_qrels(original), additions)
    assert table.to_dict() == merged


def test_additions_must_be_pairs_with_whole_grades() -> None:
    with pytest.raises(InputError, match="pair"):
        merge_judgments({}, {"q": 1})
    with pytest.raises(InputError):
        merge_judgments({}, {("q", "d"): 1.5})


def test_influences_equal_but_for_rounding_are_ties_listed_by_query() -> None:
    # P@10 over 3 queries: every hole adds 1/10 to its query, but 0.3 - 0.2 is 0.09999999999999998 in floats while
    # 0.1 - 0 is 0.1; the holes still tie, and are listed by query (a, b, c), then rank.
    qrels = {"a": {"r1": 1, "r2": 1}, "b": {"z": 1}, "c": {"r1": 1}}
    run = {qid: {f"d{j}": float(10 - j) for j in range(8)} | {"r1": 0.5, "r2": 0.4} for qid in ("c", "b", "a")}
    holes = find_holes(qrels, {"run": run}, "P.10", 10)
    assert {round(h.influence * 30, 12) for h in holes.holes} == {1.0}
    assert len({h.influence for h in holes.holes}) > 1  # not all bit-identical
    assert [h.qid for h in holes.holes] == sorted(h.qid for h in holes.holes)
    assert [h.ranks[0] for h in holes.holes if h.qid == "b"] == list(range(1, 11))


def test_a_gzipped_qrels_upload_is_written_back_as_plain_text_with_the_additions() -> None:
    import gzip

    original = b"\xef\xbb\xbfq 0 a 1\nq 0 p -1\n"
    written = merged_trec(gzip.compress(original), {("q", "p"): 1})
    assert written == b"q 0 a 1\nq added p 1\n"  # the byte-order mark goes, as the reader drops it
    assert merged_trec(original, {("q", "p"): 1}) == written


def test_written_additions_spell_ids_with_spaces_as_every_trec_writer_does() -> None:
    additions = {("sweet pastry", "plain bagel"): 1, ("sweet pastry", "bagel"): 2}
    written = additions_to_trec(additions)
    assert written == "sweet_pastry added plain_bagel 1\nsweet_pastry added bagel 2\n"
    assert read_qrels(written.encode()).to_dict() == {"sweet_pastry": {"plain_bagel": 1, "bagel": 2}}
    # In a file the query is already sweet_pastry: its pooled line is the one the addition replaces.
    original = b"sweet_pastry 0 donut 1\nsweet_pastry 0 bagel -1\n"
    merged = merged_trec(original, additions)
    assert merged == b"sweet_pastry 0 donut 1\nsweet_pastry added bagel 2\nsweet_pastry added plain_bagel 1\n"
    assert read_qrels(merged).to_dict() == {"sweet_pastry": {"donut": 1, "bagel": 2, "plain_bagel": 1}}
    with pytest.raises(InputError, match="a_b"):  # two ids one TREC id: the file would merge them
        additions_to_trec({("q", "a b"): 1, ("q", "a_b"): 0})


@pytest.mark.parametrize("grade", [0, 1])
def test_an_addition_for_a_judged_document_is_refused_everywhere_so_the_original_judgments_stay(grade) -> None:
    message = f"query 'q', document 'a' already has grade {grade}"
    with pytest.raises(InputError, match=message):
        merge_judgments({"q": {"a": grade}}, {("q", "a"): 2})
    original = f"q 0 a {grade}\nq 0 p -1\n".encode()
    with pytest.raises(InputError, match=message):
        merge_judgments_table(read_qrels(original), {("q", "p"): 1, ("q", "a"): 2})
    with pytest.raises(InputError, match=message):
        merged_trec(original, {("q", "a"): 2})
    # A pooled (negative) line is what an addition may replace.
    assert merge_judgments({"q": {"a": grade, "p": -1}}, {("q", "p"): 1}) == {"q": {"a": grade, "p": 1}}
