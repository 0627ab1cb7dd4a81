"""The convention finder and its command line: which conventions turn these files into the reported score?"""

from __future__ import annotations

import io
import math
import zlib

import numpy as np
import pytest

import metrics
from metrics.check import find_conventions, parse_reported_value
from metrics.check.__main__ import main

JAM_QRELS = {"jam": {"bagel": 2, "croissant": 2, "roll": 2, "scone": 1, "muffin": 1, "donut": 1}}
JAM_RUN = {"jam": {"pretzel": 0.9, "bagel": 0.85, "muffin": 0.7, "donut": 0.6}}


# ---- reported values ------------------------------------------------------------------------------


def test_a_reported_value_covers_half_a_unit_of_its_last_digit_either_side():
    three = parse_reported_value("0.412")
    assert (three.low, three.high) == pytest.approx((0.4115, 0.4125))
    assert three.contains(0.4115) and three.contains(0.41249) and not three.contains(0.4125)
    two = parse_reported_value("0.41")
    assert (two.low, two.high) == pytest.approx((0.405, 0.415))


def test_trailing_zeros_in_text_narrow_the_interval():
    assert parse_reported_value("0.410").high == pytest.approx(0.4105)


def test_a_value_above_one_for_a_score_is_read_as_a_percentage_and_says_so():
    reported = parse_reported_value("41.2")
    assert reported.percent and reported.value == pytest.approx(0.412)
    assert (reported.low, reported.high) == pytest.approx((0.4115, 0.4125))
    assert "percentage" in reported.note
    assert parse_reported_value("41.2%").value == pytest.approx(0.412)


def test_a_count_is_not_read_as_a_percentage():
    reported = parse_reported_value("12", bounded=False)
    assert not reported.percent and (reported.low, reported.high) == (11.5, 12.5)


@pytest.mark.parametrize("text", ["abc", "-0.2", "412", "nan", "120%"])
def test_an_impossible_reported_value_is_an_input_error_that_quotes_it(text):
    with pytest.raises(metrics.InputError, match="reported value"):
        parse_reported_value(text)


# ---- the worked example -------------------------------------------------------------------


@pytest.mark.parametrize(("reported", "conventions"), [
    ("0.4672", "trec_eval defaults"),
    ("0.4138", "gain=exponential"),
    ("0.7003", "ideal_from=retrieved"),
    ("0.6672", "unjudged=removed"),
])
def test_each_jam_value_of_ndcg_at_4_matches_its_own_convention(reported, conventions):
    finding = find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", reported)
    assert [match.description for match in finding.matches] == [conventions]


def test_the_trec_eval_notation_finds_the_same_conventions():
    finding = find_conventions(JAM_QRELS, JAM_RUN, "ndcg_cut.4", "0.4138")
    assert [match.changes for match in finding.matches] == [{"gain": "exponential"}]


def test_each_match_names_the_tools_that_use_its_conventions():
    def tools(reported):
        return find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", reported).matches[0].tools

    assert {"trec_eval", "pytrec_eval", "ir_measures"} <= set(tools("0.4672"))
    assert "ranx" in tools("0.4138") and "trec_eval" not in tools("0.4138")
    assert set(tools("0.7003")) == {"scikit-learn", "torchmetrics"}
    assert "trec_eval" in tools("0.6672")


def test_a_match_explains_in_plain_words_how_it_differs_from_trec_eval():
    match = find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", "0.6672").matches[0]
    (sentence,) = match.explanation
    assert "dropped" in sentence and "non-relevant" in sentence and "trec_eval 10.0 -J" in sentence
    assert find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", "0.4672").matches[0].explanation == ()


def test_conventions_that_cannot_change_this_data_are_named_not_listed_as_separate_matches():
    match = find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", "0.4672").matches[0]
    # No two scores tie, not even as 32-bit floats, none is <= 0, the query has a relevant document and the run
    # answers it.
    assert set(match.no_difference) == {"tied_gains", "empty_ideal", "tie_order", "score_precision",
                                        "nonpositive_scores", "missing_queries"}
    assert match.equivalent_descriptions == ()


def test_a_coarse_value_matches_several_conventions_most_common_first():
    finding = find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", "0.47")
    assert [m.description for m in finding.matches] == [
        "trec_eval defaults", "relevance_level=2 gain=binary unjudged=removed"]
    assert finding.matches[0].commonness > finding.matches[1].commonness


def test_a_percentage_finds_the_same_match():
    finding = find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", "41.38")
    assert finding.reported.percent and [m.description for m in finding.matches] == ["gain=exponential"]


def test_when_nothing_matches_the_nearest_values_come_with_their_conventions():
    # 0.60: between every value the conventions give (0.5714 with discount=jk_b10, 0.6054 below)
    finding = find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", "0.60")
    assert finding.matches == ()
    nearest = finding.nearest(2)
    assert [round(c.value, 4) for c in nearest] == [0.6054, 0.6096]
    assert [c.description for c in nearest] == ["gain=exponential unjudged=removed", "gain=binary"]


def test_every_candidate_is_a_value_evaluate_gives_under_its_conventions():
    finding = find_conventions(JAM_QRELS, JAM_RUN, "nDCG@4", "0.5")
    for candidate in finding.candidates:
        for conventions in (candidate.conventions, *candidate.equivalents):
            got = metrics.evaluate(JAM_QRELS, JAM_RUN, ["nDCG@4"], conventions=conventions)["jam"]["nDCG@4"]
            assert got == candidate.value


def test_a_value_that_only_doubles_give_is_credited_to_score_precision_float64():
    # Dense-retrieval scores 1e-9 apart are one C float for trec_eval 9 and pytrec_eval, two doubles for trec_eval 10.
    qrels = {"a": {"y": 1, "x": 0}}
    run = {"a": {"x": 0.1 + 1e-9, "y": 0.1}}
    assert find_conventions(qrels, run, "recip_rank", "1.0").matches[0].description == "trec_eval defaults"
    (match,) = find_conventions(qrels, run, "recip_rank", "0.5").matches
    assert "score_precision=float64" in (match.description, *match.equivalent_descriptions)
    assert "trec_eval defaults" not in match.equivalent_descriptions


def test_scikit_learns_and_lightgbms_ndcg_are_found_and_credited_to_them():
    sklearn_metrics = pytest.importorskip("sklearn.metrics")
    # x, relevant but never retrieved, is not among the items scikit-learn scores: its ideal is the retrieved list's.
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "d": 3, "x": 3}, "empty": {"a": 0}}
    run = {"q": {"a": 1.0, "b": 1.0, "c": 0.5, "d": 0.5, "e": 0.1}, "empty": {"a": 0.3, "z": 0.2}}
    reported = (sklearn_metrics.ndcg_score([[2, 0, 1, 3, 0]], [[1.0, 1.0, 0.5, 0.5, 0.1]], k=3) + 0.0) / 2
    match = find_conventions(qrels, run, "ndcg_cut.3", f"{reported:.6f}").matches[0]
    assert match.changes == {"ideal_from": "retrieved", "tied_gains": "averaged"}
    assert "scikit-learn" in match.tools and "trec_eval" not in match.tools
    lightgbm = metrics.evaluate(qrels, run, ["ndcg_cut.3"], gain="exponential", ideal_from="retrieved",
                                empty_ideal="one", tie_order="as_given", score_precision="float64")
    value = sum(v["ndcg_cut_3"] for v in lightgbm.values()) / 2
    found = find_conventions(qrels, run, "ndcg_cut.3", f"{value:.6f}").matches
    assert any("LightGBM" in m.tools and m.conventions.empty_ideal == "one" for m in found)


def test_only_conventions_that_can_change_the_measure_are_searched():
    searched = find_conventions(JAM_QRELS, JAM_RUN, "P@4", "0.5").searched
    assert set(searched) == {"relevance_level", "precision_short_list", "tie_order", "score_precision",
                             "nonpositive_scores", "unjudged", "missing_queries"}
    assert searched["relevance_level"] == (1, 2)
    assert "gain" not in searched and "ap_denominator" not in searched
    assert "ap_denominator" in find_conventions(JAM_QRELS, JAM_RUN, "AP@4", "0.5").searched


def test_parameters_written_in_the_measure_are_fixed_not_searched():
    finding = find_conventions(JAM_QRELS, JAM_RUN, "P(rel=2)@4", "0.25")
    assert finding.fixed == {"relevance_level": 2} and "relevance_level" not in finding.searched
    assert [m.description for m in finding.matches][0] == "trec_eval defaults"


def test_a_measure_with_several_cutoffs_is_refused():
    with pytest.raises(ValueError, match="give one"):
        find_conventions(JAM_QRELS, JAM_RUN, "P.5,10", "0.5")


def test_a_run_without_judged_queries_is_an_input_error():
    with pytest.raises(metrics.InputError, match="same query ids"):
        find_conventions(JAM_QRELS, {"other": {"d": 1.0}}, "P@4", "0.5")


# ---- multi-query data -----------------------------------------------------------------------------

# q1: "b" and "a" tie; trec_eval puts "b" (doc id descending) first, the input order puts "a" first.
# q2: an unjudged document at rank 1. q3: judged but not in the run.
MULTI_QRELS = {
    "q1": {"a": 1, "b": 0, "c": 1},
    "q2": {"x": 1, "y": 0},
    "q3": {"z": 1},
}
MULTI_RUN = {
    "q1": {"a": 0.5, "b": 0.5, "c": 0.1},
    "q2": {"unjudged": 0.9, "x": 0.8},
}


def test_ties_unjudged_documents_and_missing_queries_each_explain_a_different_mrr():
    # trec_eval: q1 RR 1/2 (b first), q2 RR 1/2 -> 0.5. Input order: q1 RR 1 -> 0.75. Judged only: q2 RR 1 ->
    # 0.75; both -> 1.0. Counting the missing q3 as 0 divides the sum by 3: 1/3, 2/3, and 0.5 twice more.
    def matches(reported):
        return [m.description for m in find_conventions(MULTI_QRELS, MULTI_RUN, "recip_rank", reported).matches]

    # Commonness counts the tool profiles using each value: more tools keep ties as given than drop unjudged ones.
    assert matches("0.500") == ["trec_eval defaults", "tie_order=as_given missing_queries=zero",
                                "unjudged=removed missing_queries=zero"]
    assert matches("0.750") == ["tie_order=as_given", "unjudged=removed"]
    assert matches("0.333") == ["missing_queries=zero"]
    assert matches("0.667") == ["tie_order=as_given unjudged=removed missing_queries=zero"]
    assert matches("1.000") == ["tie_order=as_given unjudged=removed"]


def test_tie_orders_that_order_this_run_alike_are_one_outcome():
    # In q1 only "a" and "b" tie, so doc id ascending orders them as the input does.
    finding = find_conventions(MULTI_QRELS, MULTI_RUN, "recip_rank", "0.75")
    as_given = next(match for match in finding.matches if match.description == "tie_order=as_given")
    assert "tie_order=docid_ascending" in as_given.equivalent_descriptions


def test_the_finder_reports_how_many_queries_it_counted():
    finding = find_conventions(MULTI_QRELS, MULTI_RUN, "recip_rank", "0.5")
    assert (finding.num_queries, finding.num_missing_queries) == (2, 1)
    zero = next(c for c in finding.candidates if c.description == "missing_queries=zero")
    assert zero.per_query == {"q1": 0.5, "q2": 0.5, "q3": 0.0}


def _random_data(rng: np.random.Generator) -> tuple[dict, dict]:
    qrels, run = {}, {}
    for q in range(int(rng.integers(1, 5)) + 2):
        docs = [f"d{i}" for i in rng.permutation(12)]
        qrels[f"q{q}"] = {doc: int(rng.integers(-1, 4)) for doc in docs[: rng.integers(1, 9)]}
    for q in range(len(qrels) - 1):
        docs = [f"d{i}" for i in rng.permutation(12)[: rng.integers(0, 10)]]
        run[f"q{q}"] = {doc: float(rng.integers(0, 4)) for doc in docs}  # few distinct scores: many ties
    run["q0"] = run.get("q0") or {"d0": 1.0}
    return qrels, run


@pytest.mark.parametrize("measure", ["P.5", "recall.5", "success.3", "recip_rank", "RR@3", "map", "map_cut.5",
                                     "ndcg", "ndcg_cut.3", "nDCG@20", "Rprec", "bpref", "num_rel_ret",
                                     "nDCG(dcg='exp-log2')@5", "nDCG(judged_only=True)@5", "ndcg.1=3,2=1"])
def test_every_outcome_equals_evaluate_bit_for_bit_on_random_multi_query_data(measure):
    # A seed of the measure's name, the same in every process (``hash`` of a string is not). Four data sets, two of
    # them with a depth; every outcome is evaluated, and two of its equivalents drawn at random (the nDCG family
    # has about 13 equivalents per outcome: evaluating every one took 30 s per measure and proved the same claim).
    rng = np.random.default_rng(zlib.crc32(measure.encode()))
    for trial in range(4):
        qrels, run = _random_data(rng)
        base = metrics.Conventions(depth=4 if trial % 3 == 0 else None)
        finding = find_conventions(qrels, run, measure, "3" if measure.startswith("num") else "0.5", base=base)
        assert finding.candidates
        for candidate in finding.candidates:
            drawn = rng.permutation(len(candidate.equivalents))[:2]
            for conventions in (candidate.conventions, *(candidate.equivalents[i] for i in drawn)):
                per_query = metrics.evaluate(qrels, run, [measure], conventions=conventions)
                key = finding.measure.key
                assert {qid: values[key] for qid, values in per_query.items()} == candidate.per_query
                assert metrics.aggregate(per_query)[key] == candidate.value


# ---- the command line -----------------------------------------------------------------------------


@pytest.fixture
def jam_files(tmp_path):
    qrels = tmp_path / "jam.qrels"
    qrels.write_text("".join(f"jam 0 {doc} {grade}\n" for doc, grade in JAM_QRELS["jam"].items()))
    run = tmp_path / "jam.run"
    run.write_text("".join(f"jam Q0 {doc} {rank} {score} demo\n"
                           for rank, (doc, score) in enumerate(JAM_RUN["jam"].items(), start=1)))
    return str(qrels), str(run)


def _cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_the_command_line_prints_one_line_per_match_and_exits_0(jam_files):
    code, out, _ = _cli(*jam_files, "--measure", "nDCG@4", "--value", "0.4138")
    assert code == 0
    (line,) = out.splitlines()
    assert line.split()[:2] == ["0.413788", "gain=exponential"]


def test_the_command_line_says_trec_eval_defaults_when_nothing_differs(jam_files):
    code, out, _ = _cli(*jam_files, "--measure", "ndcg_cut.4", "--value", "0.4672")
    assert code == 0 and "trec_eval defaults" in out and len(out.splitlines()) == 1


def test_the_command_line_exits_1_and_shows_the_nearest_values_when_nothing_matches(jam_files):
    code, out, _ = _cli(*jam_files, "--measure", "nDCG@4", "--value", "0.60", "--nearest", "2")
    assert "no combination" in out and "gain=exponential unjudged=removed" in out
    lines = out.splitlines()
    assert lines[0].startswith("no combination") and all(line.startswith("  ") for line in lines[1:3])
    # What papers vary besides conventions is tried next: a match there is a match (exit 0), none is exit 1.
    assert code == (0 if any(line.startswith("with ") for line in lines[3:]) else 1)


def test_the_command_line_explains_matches_on_request(jam_files):
    _, out, _ = _cli(*jam_files, "--measure", "nDCG@4", "--value", "0.7003", "--explain")
    assert "retrieved documents only" in out


def test_the_command_line_notes_a_percentage_on_stderr(jam_files):
    code, out, err = _cli(*jam_files, "--measure", "nDCG@4", "--value", "46.72")
    assert code == 0 and "trec_eval defaults" in out and "percentage" in err


@pytest.mark.parametrize(("argv", "message"), [
    (["--measure", "nDCG@4", "--value", "high"], "not a number"),
    (["--measure", "nDCG@", "--value", "0.4"], "unknown measure"),
    (["--measure", "P", "--value", "0.4"], "give one"),
])
def test_the_command_line_reports_bad_input_in_one_line_and_exits_2(jam_files, argv, message):
    code, out, err = _cli(*jam_files, *argv)
    assert code == 2 and out == "" and len(err.splitlines()) == 1 and message in err


def test_the_command_line_names_a_missing_file(jam_files, tmp_path):
    code, _, err = _cli(str(tmp_path / "absent.qrels"), jam_files[1], "-m", "P@4", "-v", "0.5")
    assert code == 2 and "absent.qrels" in err and len(err.splitlines()) == 1


def test_the_command_line_names_the_file_and_line_of_a_malformed_run(jam_files, tmp_path):
    broken = tmp_path / "broken.run"
    broken.write_text("jam Q0 bagel 1 0.9 demo\njam Q0 muffin 2\n")
    code, _, err = _cli(jam_files[0], str(broken), "-m", "P@4", "-v", "0.5")
    assert code == 2 and "line 2" in err and len(err.splitlines()) == 1


def test_a_usage_error_is_one_line_with_exit_2(capsys):
    assert main(["only-one-file"]) == 2
    assert len(capsys.readouterr().err.splitlines()) == 1


def test_a_huge_grade_neither_explodes_the_threshold_search_nor_stops_the_linear_matches():
    # Before: thresholds 1..10^8 were all listed (gigabytes), and exponential gain overflowed to NaN.
    qrels = {"q1": {"d1": 1, "d2": 100_000_000, "d3": 0}}
    run = {"q1": {"d1": 0.9, "d2": 0.8, "d3": 0.7}}
    finding = find_conventions(qrels, run, "ndcg_cut.10", "0.6")
    searched = {c.conventions.relevance_level for c in finding.candidates}
    assert max(searched) <= 10
    assert all(c.conventions.gain != "exponential" for c in finding.candidates)
    assert all(math.isfinite(c.value) for c in finding.candidates)


# ---- memory follows the lines (issue 20) -----------------------------------------------------------------------


def lopsided(short_queries: int = 200, long_length: int = 600) -> tuple[dict, dict]:
    """``short_queries`` one-document queries and one long query with tied scores, a few judged documents each."""
    rng = np.random.default_rng(20)
    qrels = {f"s{i}": {f"d{i}": int(i % 3), f"e{i}": 1} for i in range(short_queries)}
    qrels["long"] = {f"d{i}": int(rng.integers(0, 3)) for i in range(0, long_length, 97)}
    run = {f"s{i}": {f"d{i}" if i % 2 else f"x{i}": 1.0} for i in range(short_queries)}
    run["long"] = {f"d{i}": float(score) for i, score in enumerate(rng.integers(0, long_length // 2, long_length))}
    return qrels, run


@pytest.mark.parametrize("measure", ["nDCG@10", "map", "RR@10"])
def test_a_lopsided_run_is_batched_by_size_and_gives_the_answers_of_one_padded_batch(measure, monkeypatch):
    from metrics.check import finder

    qrels, run = lopsided()
    monkeypatch.setattr(finder, "_PADDING_SLACK", 0)  # group rows at this small size already
    prepared = finder._PreparedRun(qrels, run)
    assert len(prepared.groups) > 1
    batches = prepared.batch(prepared.batch_id(metrics.Conventions()))
    cells = sum(batch.grades.size + batch.judged_grades.size for _, batch in batches)
    lines = sum(map(len, run.values())) + sum(map(len, qrels.values()))
    assert cells <= 2 * lines + 4 * len(run)  # one padded batch: 201 x 600 cells
    grouped = find_conventions(qrels, run, measure, "0.4123")
    monkeypatch.setattr(finder, "_PADDING_SLACK", 1 << 40)  # every row in one batch, as before the groups
    assert finder._PreparedRun(qrels, run).groups == [None]
    padded = find_conventions(qrels, run, measure, "0.4123")
    assert [(c.description, c.value, c.per_query) for c in grouped.candidates] == [
        (c.description, c.value, c.per_query) for c in padded.candidates]
    for candidate in grouped.candidates[:6]:
        per_query = metrics.evaluate(qrels, run, [measure], conventions=candidate.conventions)
        assert metrics.aggregate(per_query)[grouped.measure.key] == candidate.value, candidate.description


def test_judgments_are_ragged_too():
    # One padded matrix would be 51 x 50,000 grades.
    from metrics.check.finder import _PreparedRun

    qrels, run = lopsided(short_queries=50, long_length=200)
    qrels["long"] = {f"j{i}": 1 for i in range(50_000)}  # one query with 50,000 judgments
    prepared = _PreparedRun(qrels, run)
    batch_id = prepared.batch_id(metrics.Conventions())
    widths = [batch.judged_grades.shape for _, batch in prepared.batch(batch_id)]
    assert sum(rows * width for rows, width in widths) < 2 * 50_000 + 4 * 51 * 2
    assert find_conventions(qrels, run, "Rprec", "0.4").candidates


def test_the_finder_takes_what_evaluate_takes_frames_and_the_readers_tables_with_the_same_finding(tmp_path):
    pd = pytest.importorskip("pandas")
    from metrics.io.read import read_qrels, read_run

    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1}}
    run = {"q1": {"d1": 0.5, "d2": 0.5, "d3": 0.25}, "q2": {"d4": 1.0, "d5": 1.0}}  # ties
    frames = (pd.DataFrame([(q, d, g) for q, js in qrels.items() for d, g in js.items()],
                           columns=["query_id", "doc_id", "relevance"]),
              pd.DataFrame([(q, d, s) for q, ss in run.items() for d, s in ss.items()],
                           columns=["query_id", "doc_id", "score"]))
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {g}\n" for q, js in qrels.items() for d, g in js.items()))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} 1 {s} t\n" for q, ss in run.items() for d, s in ss.items()))
    tables = (read_qrels(tmp_path / "qrels"), read_run(tmp_path / "run"))
    expected = repr(find_conventions(qrels, run, "nDCG@2", "0.75"))
    assert repr(find_conventions(*frames, "nDCG@2", "0.75")) == expected
    assert repr(find_conventions(*tables, "nDCG@2", "0.75")) == expected
    per_query = metrics.evaluate(qrels, run, ["ndcg_cut.2", "map"])
    assert metrics.evaluate(*tables, ["ndcg_cut.2", "map"]) == per_query
