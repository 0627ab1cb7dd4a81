"""ANN recall as each benchmark defines it (metrics.ann.definitions), on constructed lists with known answers:
id overlap, ann-benchmarks' distance-epsilon recall and big-ann-benchmarks' tied true set, where they disagree and
why, and what the queries each one scores perfect lose in nDCG@k."""

from __future__ import annotations

import io

import pytest

from metrics.ann.__main__ import main
from metrics.ann.definitions import definition_costs, query_recalls, recall_definitions, tied_true_set
from metrics.model import InputError

EXACT = [("a", 1.0), ("b", 2.0), ("c", 3.0), ("d", 4.0)]


def test_returning_the_nearest_neighbour_k_times_scores_100_percent_under_epsilon_only():
    # ann-benchmarks issue 519: every copy of 'a' is within epsilon of the 3rd true distance.
    found = query_recalls("q", EXACT, [("a", 1.0)] * 3, 3)
    assert (found.ids, found.epsilon, found.ties) == (pytest.approx(1 / 3), 1.0, pytest.approx(1 / 3))
    assert found.repeated == ("a",)
    assert "returns 'a' more than once" in found.why()


def test_a_tie_with_the_kth_distance_counts_for_epsilon_and_ties_but_not_ids():
    # c and d tie at distance 3; the exact top 3 keeps d (trec_eval's order: doc id descending), the index returns c.
    exact = [("a", 1.0), ("b", 2.0), ("d", 3.0), ("c", 3.0), ("e", 5.0)]
    found = query_recalls("q", exact, [("a", 1.0), ("b", 2.0), ("c", 3.0)], 3)
    assert (found.ids, found.epsilon, found.ties) == (pytest.approx(2 / 3), 1.0, 1.0)
    assert found.within_epsilon == ("c",) and found.widened == ("c",)
    assert "'c' ties with the 3rd true distance" in found.why()


def test_a_tie_above_rank_k_lets_big_ann_count_a_farther_document():
    # a and b tie at distance 1: the first 2 groups of distances are {a, b} and {c}, so c joins the true set.
    exact = [("b", 1.0), ("a", 1.0), ("c", 2.0), ("d", 3.0)]
    found = query_recalls("q", exact, [("a", 1.0), ("c", 2.0)], 2)
    assert (found.ids, found.epsilon, found.ties) == (0.5, 0.5, 1.0)
    assert "a tie above rank 2" in found.why() and "'c'" in found.why()


def test_a_near_tie_within_epsilon_counts_a_document_the_exact_list_does_not_hold():
    found = query_recalls("q", [("a", 1.0), ("b", 2.0)], [("a", 1.0), ("x", 2.0005)], 2)
    assert (found.ids, found.epsilon, found.ties) == (0.5, 1.0, 0.5)
    assert query_recalls("q", [("a", 1.0), ("b", 2.0)], [("a", 1.0), ("x", 2.0005)], 2, epsilon=1e-4).epsilon == 0.5


def test_big_ann_groups_distances_within_a_millionth_of_the_group_s_first():
    assert tied_true_set([("a", 1.0), ("b", 2.0), ("c", 2.0 + 5e-7), ("d", 2.1)], 2) == (["a", "b", "c"], False)
    assert tied_true_set([("a", 1.0), ("b", 2.0), ("c", 2.0)], 2) == (["a", "b", "c"], True)  # reaches the end


def test_without_ties_or_repeats_the_definitions_agree():
    found = query_recalls("q", EXACT, [("a", 1.0), ("c", 3.0), ("x", 3.5)], 3)  # x: farther than the 3rd
    assert found.ids == found.epsilon == found.ties == pytest.approx(2 / 3)
    assert found.agree and found.why() == ""


def test_runs_carry_distances_negated_or_as_they_are():
    exact = {"q": {"a": -1.0, "b": -2.0, "c": -3.0}}
    negated = recall_definitions(exact, {"q": {"a": -1.0, "c": -3.0}}, 2)
    plain = recall_definitions({"q": {"a": 1.0, "b": 2.0, "c": 3.0}}, {"q": {"a": 1.0, "c": 3.0}}, 2,
                               distances="score")
    assert negated.queries[2][0].ids == plain.queries[2][0].ids == 0.5
    assert negated.means(2) == plain.means(2)
    assert not negated.notes and recall_definitions(exact, exact, 3).notes  # 3 deep at k = 3: ties past it unseen
    with pytest.raises(InputError, match="distances"):
        recall_definitions(exact, exact, 2, distances="similarity")
    with pytest.raises(InputError, match="epsilon"):
        recall_definitions(exact, exact, 2, epsilon=-1)


def test_the_cost_of_each_definition_in_ndcg():
    # q1: the index's 2nd document is non-relevant but as near as the true 2nd: 'epsilon' and 'ties' score the
    # list 1 while its nDCG@2 is 1 / (1 + 1/log2 3), against the exact list's 1.
    exact = {"q1": {"r1": -1.0, "r2": -2.0, "n1": -2.0, "far": -9.0}, "q2": {"r3": -1.0, "n2": -2.0}}
    ann = {"q1": {"r1": -1.0, "n1": -2.0}, "q2": {"r3": -1.0, "n2": -2.0}}
    qrels = {"q1": {"r1": 1, "r2": 1, "n1": 0}, "q2": {"r3": 1, "n2": 0}}
    found = recall_definitions(exact, ann, 2)
    # q1's exact top 2 is r1 and r2 (r2 > n1 in trec_eval's tie order): ids 1/2, epsilon and ties 1.
    q1 = found.queries[2][0]
    assert (q1.ids, q1.epsilon, q1.ties) == (0.5, 1.0, 1.0)
    differences, costs = definition_costs(found, qrels, exact, ann)
    assert differences[2]["q1"] == pytest.approx(1 / (1 + 1 / 1.5849625007211562) - 1)  # ANN minus exact
    assert differences[2]["q2"] == 0.0
    by_name = {cost.definition: cost for cost in costs}
    assert (by_name["ids"].perfect, by_name["ids"].ndcg_difference) == (1, 0.0)  # only q2
    assert by_name["epsilon"].perfect == 2
    assert by_name["epsilon"].ndcg_difference == pytest.approx(differences[2]["q1"] / 2)
    with pytest.raises(InputError, match="judgments"):
        definition_costs(found, {}, exact, ann)


def _cli(tmp_path, *args):
    (tmp_path / "exact").write_text("q1 Q0 a 1 -1 e\nq1 Q0 b 2 -2 e\nq1 Q0 c 3 -2 e\nq1 Q0 d 4 -3 e\n")
    (tmp_path / "ann").write_text("q1 Q0 a 1 -1 h\nq1 Q0 b 2 -2 h\nq1 Q0 x 3 -2.0005 h\n")
    (tmp_path / "qrels").write_text("q1 0 a 1\nq1 0 c 1\nq1 0 x 0\n")
    out, err = io.StringIO(), io.StringIO()
    status = main([str(tmp_path / "exact"), str(tmp_path / "ann"), *args], out=out, err=err)
    return status, out.getvalue(), err.getvalue()


def test_the_command_line_prints_the_three_definitions_and_why_they_disagree(tmp_path):
    status, out, err = _cli(tmp_path, str(tmp_path / "qrels"), "-k", "3", "-q", "--definitions")
    assert status == 0, err
    lines = out.splitlines()
    # Exact top 3: a, c, b (c > b among the ties at -2); the index returned x, 0.0005 farther than the 3rd.
    assert f"{'recall_ids_3':<22}\tq1\t0.6667" in lines
    assert f"{'recall_epsilon_3':<22}\tq1\t1.0000" in lines
    assert f"{'recall_ties_3':<22}\tq1\t0.6667" in lines
    assert any(line.startswith("#   query q1 at k = 3") and "'x'" in line for line in lines)
    assert any(line.startswith("# epsilon at k = 3: mean 1.0000; scores 1 judged query 1") for line in lines)
    # The index returned x (grade 0) in place of c (grade 1): nDCG@3 is 1 / (1 + 1/log2 3) = 0.6131, not 1.
    assert "ndcg_cut_3_ann_minus_exact\tq1\t-0.3869" in lines
    status, _, err = _cli(tmp_path, "--definitions", "--epsilon", "x")
    assert status == 2 and "--epsilon" in err and "Traceback" not in err
