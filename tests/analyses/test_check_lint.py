"""The preflight lint: each check on a constructed run with a known answer, its effects equal to the engine's
values with and without the quirk, and the command line on the built-in TREC DL 2020 runs."""

from __future__ import annotations

import io

import pytest

import metrics
from metrics import Conventions
from metrics.check.__main__ import main
from metrics.check.lint import RunLines, lint_runs, read_run_lines
from metrics.real import DL20

QRELS = {"q1": {"a": 1, "b": 1, "c": 0}, "q2": {"d": 1, "e": 0}}


def _lint(run_text: str, measures=("P.2", "map"), qrels=QRELS, conventions=None, others=()):
    runs = [read_run_lines(run_text.encode(), name="run.txt"), *others]
    return {check.name: check for check in lint_runs(qrels, runs, measures, conventions)[0].checks}


def _mean(run, measure, qrels=QRELS, **conventions):
    return metrics.aggregate(metrics.evaluate(qrels, run, [measure], **conventions))[
        metrics.parse_measure(measure)[0].key]


def _effect(check, key):
    return dict(next(effect.values for effect in check.effects if effect.measure == key))


CLEAN = "q1 Q0 a 1 3 r\nq1 Q0 c 2 2 r\nq1 Q0 b 3 1 r\nq2 Q0 d 1 1 r\n"


def test_a_clean_run_finds_nothing_and_computes_no_effect():
    checks = _lint(CLEAN)
    assert [name for name, check in checks.items() if check.found] == []
    assert all(check.effects == () for check in checks.values())
    assert len(checks) == 12


def test_a_document_named_like_its_query_is_counted_and_its_removal_is_the_engine_value():
    checks = _lint(CLEAN + "q2 Q0 q2 2 0.5 r\n", qrels={**QRELS, "q2": {"d": 1, "q2": 1}})
    found = checks["identical_ids"]
    assert (found.count, found.queries) == (1, ("q2",))
    qrels = {**QRELS, "q2": {"d": 1, "q2": 1}}
    as_read = {"q1": {"a": 3, "c": 2, "b": 1}, "q2": {"d": 1, "q2": 0.5}}
    removed = {"q1": {"a": 3, "c": 2, "b": 1}, "q2": {"d": 1}}
    assert _effect(found, "P_2") == {"as read": _mean(as_read, "P.2", qrels),
                                     "removed, as BEIR does": _mean(removed, "P.2", qrels)} == {
        "as read": 0.75, "removed, as BEIR does": 0.5}


def test_a_document_retrieved_twice_compares_first_and_last_line():
    checks = _lint(CLEAN + "q2 Q0 e 2 0.5 r\nq2 Q0 e 3 5 r\n")
    found = checks["duplicates"]
    assert (found.count, found.queries) == (1, ("q2",))
    assert _effect(found, "map") == {
        "first line kept": _mean({"q1": {"a": 3, "c": 2, "b": 1}, "q2": {"d": 1, "e": 0.5}}, "map"),
        "last line kept, as a dict reader": _mean({"q1": {"a": 3, "c": 2, "b": 1}, "q2": {"d": 1, "e": 5}}, "map")}


def test_a_rank_column_against_the_scores_is_found_and_both_orders_are_scored():
    checks = _lint("q1 Q0 c 1 1 r\nq1 Q0 a 2 3 r\nq1 Q0 b 3 2 r\nq2 Q0 d 1 1 r\n")
    found = checks["rank_vs_score"]
    assert (found.count, found.queries) == (1, ("q1",))
    by_rank = {"q1": {"c": 3, "a": 2, "b": 1}, "q2": {"d": 1}}
    assert _effect(found, "P_2") == {"by score, as trec_eval": 0.75, "by the rank column": _mean(by_rank, "P.2")}
    assert _effect(found, "P_2")["by the rank column"] == 0.5  # c a: one relevant in the top 2


def test_ties_across_a_cut_off_give_the_lowest_and_highest_over_tie_orders():
    checks = _lint("q1 Q0 a 1 2 r\nq1 Q0 c 2 1 r\nq1 Q0 b 3 1 r\nq2 Q0 d 1 1 r\n")
    found = checks["tied_cutoffs"]
    assert (found.count, found.queries) == (1, ("q1",))  # c and b tie across rank 2
    assert _effect(found, "P_2") == {"lowest over tie orders": 0.5, "trec_eval's tie order": 0.5,
                                     "highest over tie orders": 0.75}  # doc id descending puts c before b
    assert _mean({"q1": {"a": 2, "c": 1, "b": 1}, "q2": {"d": 1}}, "P.2", tie_order="docid_ascending") == 0.75


def test_missing_and_unjudged_queries_and_near_ids():
    checks = _lint("q1 Q0 A 1 3 r\nq1 Q0 b 2 1 r\nq3 Q0 x 1 1 r\n")
    assert (checks["missing_queries"].count, checks["missing_queries"].queries) == (1, ("q2",))
    assert _effect(checks["missing_queries"], "P_2") == {"skipped, trec_eval": 0.5, "scored 0, trec_eval -c": 0.25}
    assert (checks["unjudged_queries"].count, checks["unjudged_queries"].effects) == (1, ())
    near = checks["near_ids"]
    assert (near.count, near.queries) == (1, ("q1",))  # A is a in the qrels
    assert _effect(near, "P_2") == {"as read": 0.5, "ids matched": 1.0}


def test_a_query_id_with_leading_zeros_is_matched():
    checks = _lint("q1 Q0 a 1 3 r\n0002 Q0 d 1 1 r\n", qrels={"q1": {"a": 1}, "2": {"d": 1}}, measures=("P.1",))
    assert (checks["near_ids"].count, _effect(checks["near_ids"], "P_1")) == (1, {"as read": 1.0, "ids matched": 1.0})
    assert checks["missing_queries"].count == 1  # 2 is judged and, as read, not in the run


def test_grades_0_to_3_suggest_level_2_and_the_effect_is_the_engine_at_both_levels():
    qrels = {"q": {"a": 1, "b": 3, "c": 2, "d": 0}}
    checks = _lint("q Q0 a 1 3 r\nq Q0 b 2 2 r\n", qrels=qrels, measures=("P.1",))
    found = checks["grade_levels"]
    assert (found.count, found.queries) == (1, ("q",))
    assert _effect(found, "P_1") == {"-l 1": 1.0, "-l 2": 0.0}


def test_a_shallow_run_gives_the_most_a_deeper_run_could():
    qrels = {**QRELS, "q1": {"a": 1, "b": 1, "c": 0, "z": 1}}  # z was not retrieved
    found = _lint(CLEAN, measures=("P.5",), qrels=qrels)["shallow"]
    assert (found.count, found.queries) == (1, ("q1",))
    assert _effect(found, "P_5") == pytest.approx({"this run": (2 / 5 + 1 / 5) / 2,
                                                   "at most, with a run to depth 5": (3 / 5 + 1 / 5) / 2})
    assert _lint(CLEAN, measures=("P.5",))["shallow"].count == 0  # every relevant document is held


def test_nan_and_infinite_scores_are_counted_and_scored_without_them():
    checks = _lint(CLEAN + "q2 Q0 e 2 nan r\nq2 Q0 x 3 inf r\n", measures=("P.1",))
    found = checks["bad_scores"]
    assert (found.count, found.queries) == (2, ("q2",))
    assert _effect(found, "P_1") == {"non-finite lines dropped": 1.0, "infinite scores kept, NaN dropped": 0.5}


def test_identical_scores_and_identical_runs():
    flat = "q1 Q0 a 1 1 r\nq1 Q0 b 2 1 r\nq1 Q0 c 3 1 r\nq2 Q0 d 1 1 r\n"
    twin = RunLines.from_mapping("twin", {"q1": {"a": 1.0, "b": 1.0, "c": 1.0}, "q2": {"d": 1.0}})
    checks = _lint(flat, measures=("P.1",), others=[twin])
    assert (checks["identical_scores"].count, checks["identical_scores"].queries) == (1, ("q1",))
    assert _effect(checks["identical_scores"], "P_1") == {"lowest over tie orders": 0.5, "trec_eval's tie order": 0.5,
                                                          "highest over tie orders": 1.0}  # c (grade 0) first
    assert checks["identical_runs"].count == 1 and "twin" in checks["identical_runs"].title


def test_a_short_line_is_one_message_naming_it():
    with pytest.raises(metrics.InputError, match="run.txt line 2: expected 6 columns"):
        read_run_lines(b"q1 Q0 a 1 3 r\nq1 Q0 b 2\n", name="run.txt")


def test_the_command_line_lints_the_dl20_runs_at_level_2():
    out = io.StringIO()
    status = main(["--lint", str(DL20.path()), str(DL20.path("BM25")), "-l", "2", "-m", "nDCG@10", "-m", "MAP"],
                  out=out, err=io.StringIO())
    text = out.getvalue()
    assert status == 1 and text.startswith("dl20.BM25.run.gz: 2 of 12 checks found something\n")
    assert "  [ok] document retrieved twice for one query: 0 lines\n" in text
    assert "       AP 0.2685 (this run) vs 0.3620 (at most, with a run to depth 1000)\n" in text
    assert "       AP 0.2685 (-l 2) vs 0.3027 (-l 1)\n" in text  # trec_eval -l 2 and without: 0.2685, 0.3027


def test_the_command_line_refuses_lint_without_runs_in_one_line():
    err = io.StringIO()
    assert main(["--lint", str(DL20.path())], out=io.StringIO(), err=err) == 2
    assert err.getvalue() == "error: with --lint, give QRELS and at least one RUN\n"


def test_conventions_of_the_lint_are_the_ones_given():
    checks = _lint(CLEAN, measures=("P.1",), conventions=Conventions(relevance_level=2))
    assert checks["grade_levels"].count == 0


def test_a_parquet_run_is_linted_row_by_row_as_its_text_would_be(tmp_path):
    # --lint read a Parquet run as TREC ("expected 6 columns"); its rows are its lines, repeats and NaN kept.
    pq = pytest.importorskip("pyarrow.parquet")
    import pyarrow as pa

    text = CLEAN + "q2 Q0 e 2 0.5 r\nq2 Q0 e 3 5 r\nq2 Q0 x 4 nan r\n"
    rows = [line.split() for line in text.splitlines()]
    path = tmp_path / "run.parquet"
    pq.write_table(pa.table({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows],
                             "rank": [int(r[3]) for r in rows], "score": [float(r[4]) for r in rows]}), path)
    parquet, trec = read_run_lines(path), read_run_lines(text.encode(), name="run.parquet")
    assert (parquet.qids, parquet.docs, parquet.ranks) == (trec.qids, trec.docs, trec.ranks)
    assert str(parquet.scores) == str(trec.scores)  # NaN included
    as_parquet = lint_runs(QRELS, [parquet], ("P.2", "map"))[0].checks
    as_text = lint_runs(QRELS, [trec], ("P.2", "map"))[0].checks
    assert [(c.name, c.count, c.queries, c.effects) for c in as_parquet] == [
        (c.name, c.count, c.queries, c.effects) for c in as_text]
    assert {c.name for c in as_parquet if c.found} >= {"duplicates", "bad_scores"}
