"""The command line on small hand-made files: trec_eval's options, output format, conventions, errors and --help."""

from __future__ import annotations

import io
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

from metrics import CONVENTION_INFO, MEASURES
from metrics.cli import main, select_measures
from tests.support.paths import REPO

# q1 judges d1 (grade 2), d3 and d4 (grade 1) relevant and d2 non-relevant; q2 judges d1 relevant, d5 not;
# q3 is judged but absent from the run; the run's q10 has no judgments. dX is retrieved but never judged.
QRELS = """\
q1 0 d1 2
q1 0 d2 0
q1 0 d3 1
q1 0 d4 1
q2 0 d1 1
q2 0 d5 0
q3 0 d9 1
"""
RUN = """\
q1 Q0 d1 1 0.9 hand
q1 Q0 dX 2 0.8 hand
q1 Q0 d3 3 0.7 hand
q1 Q0 d2 4 0.6 hand
q2 Q0 d5 1 0.5 hand
q2 Q0 d1 2 0.4 hand
q10 Q0 d1 1 1.0 hand
"""

AP_Q1 = (1 / 1 + 2 / 3) / 3  # relevant at ranks 1 and 3 of 3 relevant
AP_Q2 = (1 / 2) / 1  # its one relevant document at rank 2


@pytest.fixture
def files(tmp_path: Path) -> list[str]:
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    return [str(tmp_path / "qrels.txt"), str(tmp_path / "run.txt")]


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = main(list(argv), stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def values(output: str) -> dict[tuple[str, str], str]:
    """{(measure, qid): value text} of trec_eval-format output."""
    rows = [line.split("\t") for line in output.splitlines()]
    return {(name.rstrip(), qid): value for name, qid, value in rows}


def number(output: str, measure: str, qid: str = "all") -> float:
    return float(values(output)[(measure, qid)])


# ---- output format -------------------------------------------------------------------------------------------


def test_lines_are_name_padded_to_22_then_query_then_value_with_4_decimals_or_an_integer_count(files):
    status, output, errors = cli("-m", "map", "-m", "num_ret", *files)
    assert status == 0 and errors == ""
    assert output == (
        f"{'num_ret':<22}\tall\t6\n"
        f"{'map':<22}\tall\t{(AP_Q1 + AP_Q2) / 2:6.4f}\n"
    )


def test_without_m_the_official_measures_we_support_are_printed_in_trec_eval_order(files):
    status, output, _ = cli(*files)
    names = [line.split("\t")[0].rstrip() for line in output.splitlines()]
    recall_levels = [f"iprec_at_recall_{level / 10:.2f}" for level in range(11)]
    assert names == ["runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                     "recip_rank", *recall_levels, "P_5", "P_10", "P_15", "P_20", "P_30", "P_100", "P_200", "P_500",
                     "P_1000"]
    assert values(output)[("runid", "all")] == "hand"


def test_all_line_sums_counts_and_averages_the_rest_over_evaluated_queries(files):
    _, output, _ = cli("-m", "num_q", "-m", "num_rel", "-m", "num_rel_ret", "-m", "recip_rank", *files)
    assert values(output) == {("num_q", "all"): "2", ("num_rel", "all"): "4", ("num_rel_ret", "all"): "3",
                              ("recip_rank", "all"): f"{(1 + 1 / 2) / 2:.4f}"}


def test_q_prints_each_query_in_id_order_before_the_all_lines_without_num_q_or_runid(files):
    _, output, _ = cli("-q", "-m", "runid", "-m", "num_q", "-m", "map", *files)
    assert output.splitlines() == [
        f"{'map':<22}\tq1\t{AP_Q1:.4f}",
        f"{'map':<22}\tq2\t{AP_Q2:.4f}",
        f"{'runid':<22}\tall\thand",
        f"{'num_q':<22}\tall\t2",
        f"{'map':<22}\tall\t{(AP_Q1 + AP_Q2) / 2:.4f}",
    ]


def test_queries_without_judgments_are_not_evaluated(files):
    _, output, _ = cli("-q", "-m", "num_ret", *files)
    assert {qid for _, qid in values(output)} == {"q1", "q2", "all"}


def test_n_prints_per_query_lines_only(files):
    _, output, _ = cli("-q", "-n", "-m", "map", *files)
    assert [line.split("\t")[1] for line in output.splitlines()] == ["q1", "q2"]


# ---- trec_eval flags -----------------------------------------------------------------------------------------


def test_c_scores_a_judged_query_missing_from_the_run_as_zero_and_counts_it(files):
    _, output, _ = cli("-c", "-q", "-m", "num_q", "-m", "map", "-m", "num_rel", *files)
    got = values(output)
    assert ("map", "q3") not in got  # trec_eval 9.0.8 counts q3 in the means without printing it
    assert got[("num_q", "all")] == "3"
    assert number(output, "map") == pytest.approx((AP_Q1 + AP_Q2 + 0) / 3, abs=5e-5)
    _, output_10, _ = cli("--trec-eval", "10.0", "-c", "-q", "-m", "num_q", "-m", "map", "-m", "num_rel", *files)
    got_10 = values(output_10)  # trec_eval 10 scores q3 and prints it
    assert got_10[("map", "q3")] == "0.0000" and got_10[("num_rel", "q3")] == "1"
    assert {key: value for key, value in got_10.items() if key[1] != "q3"} == got


def test_J_removes_unjudged_documents_before_scoring(files):
    _, plain, _ = cli("-q", "-m", "P.2", "-m", "num_ret", *files)
    _, judged, _ = cli("-J", "-q", "-m", "P.2", "-m", "num_ret", *files)
    assert values(plain)[("P_2", "q1")] == "0.5000" and values(plain)[("num_ret", "q1")] == "4"
    assert values(judged)[("P_2", "q1")] == "1.0000" and values(judged)[("num_ret", "q1")] == "3"


def test_l_raises_the_grade_a_document_needs_to_count_as_relevant(files):
    _, output, _ = cli("-l", "2", "-q", "-m", "num_rel", "-m", "map", *files)
    got = values(output)
    assert got[("num_rel", "q1")] == "1" and got[("num_rel", "q2")] == "0"
    assert got[("map", "q1")] == "1.0000" and got[("map", "q2")] == "0.0000"


def test_l_also_accepts_trec_eval_attached_value(files):
    assert cli("-l2", "-m", "num_rel", *files)[1] == cli("-l", "2", "-m", "num_rel", *files)[1]


def test_M_keeps_only_the_top_documents_of_each_ranking(files):
    _, output, _ = cli("-M1", "-q", "-m", "num_ret", "-m", "map", *files)
    got = values(output)
    assert got[("num_ret", "q1")] == "1" and got[("num_ret", "all")] == "2"
    assert got[("map", "q1")] == f"{1 / 3:.4f}" and got[("map", "q2")] == "0.0000"


# ---- measure selection ---------------------------------------------------------------------------------------


def test_several_m_and_comma_cutoffs_print_each_cutoff_once_in_increasing_order(files):
    _, output, _ = cli("-m", "P.10,2", "-m", "P.1", "-m", "recall.3", "-m", "P.2", *files)
    assert [line.split("\t")[0].rstrip() for line in output.splitlines()] == ["P_1", "P_2", "P_10", "recall_3"]


def test_a_measure_named_without_parameters_uses_the_given_cutoffs_when_another_m_has_them():
    keys = [m.key for m in select_measures(["all_trec", "success.2"]).measures]
    assert [k for k in keys if k.startswith("success")] == ["success_2"]
    assert "P_1000" in keys and "ndcg" in keys


def test_ndcg_gain_parameters_name_the_output_and_set_each_grades_gain(files):
    _, output, _ = cli("-q", "-m", "ndcg.1=3,2=9", *files)
    # q1 ranks d1 (grade 2 -> gain 9), dX, d3 (grade 1 -> 3), d2; the ideal is 9, 3, 3.
    dcg = 9 / math.log2(2) + 3 / math.log2(4)
    ideal = 9 / math.log2(2) + 3 / math.log2(3) + 3 / math.log2(4)
    assert values(output)[("ndcg_1=3,2=9", "q1")] == f"{dcg / ideal:.4f}"


def test_ir_measures_notation_is_accepted_and_printed_as_written(files):
    _, output, _ = cli("-q", "-m", "nDCG@3", "-m", "ndcg_cut.3", "-m", "P(rel=2)@2", "-m", "AP", *files)
    got = values(output)
    assert got[("nDCG@3", "q1")] == got[("ndcg_cut_3", "q1")]
    assert got[("P(rel=2)@2", "q1")] == "0.5000"  # only d1 has grade 2
    assert got[("AP", "q2")] == f"{AP_Q2:.4f}"


def test_a_judged_only_measure_is_scored_on_the_condensed_list_while_others_keep_unjudged_documents(files):
    _, output, _ = cli("-q", "-m", "P(judged_only=True)@2", "-m", "P.2", *files)
    got = values(output)
    assert got[("P(judged_only=True)@2", "q1")] == "1.0000" and got[("P_2", "q1")] == "0.5000"


def test_all_trec_prints_every_trec_eval_measure_we_support_that_the_build_has(files):
    def families(output: str) -> set[str]:
        names = [line.split("\t")[0].rstrip() for line in output.splitlines()]
        return {max((m for m in [*MEASURES, "runid"] if name == m or name.startswith(m + "_")), key=len)
                for name in names}

    every = {name for name, info in MEASURES.items() if info.trec_eval and name != "yaap"} | {"runid"}  # not all_trec
    assert families(cli("--trec-eval", "10.0", "-m", "all_trec", *files)[1]) == every
    assert families(cli("-m", "all_trec", *files)[1]) == every - {"unj", "rbp", "rbp_resid"}  # 9.0.8 lacks them
    _, per_query, _ = cli("-q", "-m", "all_trec", *files)
    assert "relstring" in {line.split("\t")[0].rstrip() for line in per_query.splitlines()}


# ---- conventions ---------------------------------------------------------------------------------------------


def test_gain_exponential_changes_ndcg_and_trec_eval_restores_linear(files):
    _, linear, _ = cli("-q", "-m", "ndcg", *files)
    _, exponential, _ = cli("-q", "--gain", "exponential", "-m", "ndcg", *files)
    _, default, _ = cli("-q", "--gain", "trec_eval", "-m", "ndcg", *files)
    dcg = 3 / math.log2(2) + 1 / math.log2(4)
    ideal = 3 / math.log2(2) + 1 / math.log2(3) + 1 / math.log2(4)
    assert values(exponential)[("ndcg", "q1")] == f"{dcg / ideal:.4f}"
    assert values(linear) == values(default) != values(exponential)


def test_ap_denominator_min_R_k_lets_a_perfect_top_k_score_one(files):
    _, trec, _ = cli("-q", "-m", "map_cut.1", *files)
    _, capped, _ = cli("-q", "--ap-denominator", "min_R_k", "-m", "map_cut.1", *files)
    assert values(trec)[("map_cut_1", "q1")] == f"{1 / 3:.4f}"
    assert values(capped)[("map_cut_1", "q1")] == "1.0000"


def test_trec_eval_style_underscore_option_names_are_accepted(files):
    assert cli("--ap_denominator", "min_R_k", "-m", "map_cut.1", *files)[1] == \
        cli("--ap-denominator", "min_R_k", "-m", "map_cut.1", *files)[1]


def test_tie_order_as_given_keeps_file_order_of_equal_scores(tmp_path):
    (tmp_path / "q").write_text("t 0 a 1\nt 0 b 0\n")
    (tmp_path / "r").write_text("t Q0 a 1 0.5 tie\nt Q0 b 2 0.5 tie\n")
    paths = [str(tmp_path / "q"), str(tmp_path / "r")]
    # trec_eval breaks the tie by doc id descending, so b comes first.
    assert number(cli("-m", "recip_rank", *paths)[1], "recip_rank") == 0.5
    assert number(cli("--tie-order", "as_given", "-m", "recip_rank", *paths)[1], "recip_rank") == 1.0


def test_scores_tie_as_trec_eval_9_floats_unless_score_precision_is_float64(tmp_path):
    (tmp_path / "q").write_text("a 0 y 1\na 0 x 0\n")
    (tmp_path / "r").write_text("a Q0 x 1 0.1000000001 dense\na Q0 y 2 0.1 dense\n")
    paths = [str(tmp_path / "q"), str(tmp_path / "r")]
    # One C float: trec_eval 9.0.8 (and pytrec_eval) break the tie by doc id, y first; trec_eval 10 puts x first.
    assert number(cli("-m", "recip_rank", *paths)[1], "recip_rank") == 1.0
    assert number(cli("--score-precision", "float64", "-m", "recip_rank", *paths)[1], "recip_rank") == 0.5


def test_precision_short_list_retrieved_divides_by_the_documents_retrieved(files):
    _, output, _ = cli("-q", "--precision-short-list", "retrieved", "-m", "P.10", *files)
    assert values(output)[("P_10", "q2")] == "0.5000"  # 1 relevant of 2 retrieved, not of 10


def test_missing_queries_zero_is_the_same_as_c(files):
    assert cli("--missing-queries", "zero", "-q", "-m", "map", *files)[1] == cli("-c", "-q", "-m", "map", *files)[1]


def test_unjudged_removed_is_the_same_as_J(files):
    assert cli("--unjudged", "removed", "-q", "-m", "P.2", *files)[1] == cli("-J", "-q", "-m", "P.2", *files)[1]


# ---- errors: one line on stderr, exit status 2 ---------------------------------------------------------------


def assert_one_line_error(result: tuple[int, str, str], *fragments: str) -> None:
    status, output, errors = result
    assert status == 2 and output == ""
    assert errors.count("\n") == 1 and "Traceback" not in errors
    for fragment in fragments:
        assert fragment in errors


def test_a_missing_file_is_named(files, tmp_path):
    assert_one_line_error(cli(files[0], str(tmp_path / "nowhere.txt")), "nowhere.txt", "no such file")


def test_a_bad_run_line_names_the_file_and_the_line(files, tmp_path):
    (tmp_path / "bad.txt").write_text("q1 Q0 d1 1 0.9 hand\nq1 Q0 d2 2\n")
    assert_one_line_error(cli(files[0], str(tmp_path / "bad.txt")), "bad.txt", "line 2", "6 columns")


def test_a_bad_qrels_grade_names_the_file_and_the_line(files, tmp_path):
    (tmp_path / "bad_qrels.txt").write_text("q1 0 d1 1\nq1 0 d2 high\n")
    assert_one_line_error(cli(str(tmp_path / "bad_qrels.txt"), files[1]), "bad_qrels.txt", "line 2")


def test_an_unknown_measure_is_named(files):
    assert_one_line_error(cli("-m", "precision.5", *files), "precision.5")


def test_a_preference_measure_over_qrels_names_the_judgments_it_reads(files):
    assert_one_line_error(cli("-m", "prefs_simp", *files), "prefs_simp", "-R prefs or -R qrels_prefs")
    assert_one_line_error(cli("-m", "qrels_jg", *files), "qrels_jg", "-R qrels_jg")


def test_an_unknown_option_is_an_error(files):
    assert_one_line_error(cli("--frobnicate", *files), "--frobnicate")


def test_a_bad_convention_value_lists_the_choices(files):
    assert_one_line_error(cli("--gain", "quadratic", *files), "--gain", "linear", "exponential", "binary")


def test_bad_level_and_depth_values_are_errors(files):
    assert_one_line_error(cli("-l", "abc", *files), "-l")
    assert_one_line_error(cli("-M", "0", *files), "-M")


def test_c_conflicting_with_missing_queries_skip_is_an_error(files):
    assert_one_line_error(cli("-c", "--missing-queries", "skip", *files), "-c", "--missing-queries")


def test_a_missing_argument_is_an_error():
    assert_one_line_error(cli("-q"), "QRELS")


def test_no_query_in_common_is_an_error(tmp_path, files):
    (tmp_path / "other.txt").write_text("zz Q0 d1 1 1.0 other\n")
    assert_one_line_error(cli(files[0], str(tmp_path / "other.txt")), "nothing to evaluate")


def test_python_m_metrics_runs_and_exits_2_without_a_traceback(files, tmp_path):
    ok = subprocess.run([sys.executable, "-m", "metrics", "-m", "map", *files], capture_output=True, text=True,
                        cwd=REPO)
    assert ok.returncode == 0 and ok.stdout.startswith("map")
    bad = subprocess.run([sys.executable, "-m", "metrics", files[0], str(tmp_path / "nope")], capture_output=True,
                         text=True, cwd=REPO)
    assert bad.returncode == 2 and bad.stdout == "" and "Traceback" not in bad.stderr and "nope" in bad.stderr


def test_a_run_named_dash_is_read_from_standard_input_as_in_trec_eval(files):
    piped = subprocess.run([sys.executable, "-m", "metrics", "-m", "map", files[0], "-"], input=RUN,
                           capture_output=True, text=True, cwd=REPO)
    assert piped.returncode == 0 and piped.stdout == cli("-m", "map", *files)[1]


# ---- --help is generated from the registries ----------------------------------------------------------------


def test_help_documents_every_measure_from_the_registry():
    status, text, _ = cli("--help")
    assert status == 0
    for info in MEASURES.values():
        assert f"{info.name} / {info.ir_name}  {info.pretty_name}" in text
        assert info.text and info.text[:40] in " ".join(text.split())
        if info.default_cutoffs:
            assert "default cut-offs " + ",".join(f"{c:g}" for c in info.default_cutoffs) in text


def test_help_gives_each_measure_its_own_formula_in_plain_text():
    text = cli("--help")[1]
    blocks = {block.split("\n")[0].split(" / ")[0].strip(): " ".join(block.split())
              for block in re.split(r"\n  (?=\S)", text)}
    assert "1 / rank of the first relevant document; 0 if none" in blocks["recip_rank"]
    assert "<= k" not in blocks["recip_rank"] and "<= k" in blocks["recip_rank_cut"]
    assert "min(R, k)" not in blocks["map"] and "min(R, k)" in blocks["map_cut"]
    formulas = [line for line in text.splitlines() if line.strip().startswith("Formula:")]
    assert len(formulas) == len(MEASURES)
    assert not any("\\" in line or "{" in line for line in formulas)  # no LaTeX on a terminal


def test_help_gives_every_measure_its_reference():
    text = cli("--help")[1]
    blocks = {block.split("\n")[0].split(" / ")[0].strip(): " ".join(block.split())
              for block in re.split(r"\n  (?=\S)", text)}
    for name, info in MEASURES.items():
        assert f"Reference: {info.reference}" in blocks[name], name
        assert f"tested against {info.peer}" in info.reference
    assert "Reference: trec_eval; tested against pytrec_eval" in blocks["map"]
    assert "Clarke, Vtyurina & Smucker 2021" in blocks["compat"] and "Moffat et al. 2015" in blocks["INST"]


def test_help_documents_every_convention_choice_and_the_tools_that_use_it():
    text = " ".join(cli("--help")[1].split())
    for info in CONVENTION_INFO:
        assert "--" + info.name.replace("_", "-") in text
        for choice in info.choices:
            assert f"{choice.value}" in text and choice.meaning in text
            assert ", ".join(choice.used_by) in text
