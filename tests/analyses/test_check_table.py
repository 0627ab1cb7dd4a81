"""Is a number possible at all (granularity), what papers vary besides conventions (variants), and a whole table
checked at once; with the command line."""

from __future__ import annotations

import io
import itertools
from fractions import Fraction

import pytest

from metrics import InputError, aggregate, evaluate
from metrics.check.__main__ import main as check_main
from metrics.check.granularity import check_granularity
from metrics.check.table import check_table, read_table
from metrics.check.variants import find_with_variants
from tests.support.paths import TEST_DATA
from tests.support.ranx_kernels import ranx_evaluate

DATA = TEST_DATA / "trec_eval"


# ---- granularity ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("measure, value, queries, possible", [
    ("P@10", "0.4123", 43, False),   # multiples of 1/430 near it: 0.411628, 0.413953
    ("P@10", "0.4116", 43, True),    # 177/430
    ("P.10", "41.16%", 43, True),
    ("Success@5", "0.5", 3, False),  # thirds
    ("Success@5", "0.667", 3, True),
    ("RR@10", "0.46", 2, False),     # (a + b) / 2 with a, b in {0, 1, 1/2, ..., 1/10}: 0.4167 and 0.5 nearest
    ("RR@10", "0.4167", 2, True),
    ("MRR@10", "0.95", 1, False),
    ("P@10", "1.2", 5, False),       # 1.2%: between 0 and 1/50
])
def test_values_that_are_and_are_not_achievable(measure, value, queries, possible):
    verdict = check_granularity(measure, value, queries)
    assert verdict.decided and verdict.possible is possible, verdict.explanation


def test_rr_verdicts_agree_with_enumerating_every_combination():
    values = [Fraction(0)] + [Fraction(1, r) for r in range(1, 6)]
    means = {sum(combo) / 3 for combo in itertools.combinations_with_replacement(values, 3)}
    for hundredths in range(0, 101):
        text = f"{hundredths / 100:.2f}"
        low, high = Fraction(hundredths, 100) - Fraction(1, 200), Fraction(hundredths, 100) + Fraction(1, 200)
        expected = any(low <= mean <= high for mean in means)
        assert check_granularity("RR@5", text, 3).possible is expected, text


def test_an_impossible_value_names_the_nearest_achievable_means():
    verdict = check_granularity("P@10", "0.4123", 43)
    assert (verdict.below, verdict.above) == (Fraction(177, 430), Fraction(178, 430))
    assert "1/430" in verdict.explanation


def test_measures_with_too_many_values_are_not_decided():
    verdict = check_granularity("nDCG@10", "0.4123", 43)
    assert not verdict.decided and verdict.possible is None


@pytest.mark.parametrize("queries", [0, -3, 1.5, True, 10**9])
def test_a_bad_number_of_queries_is_refused(queries):
    with pytest.raises(InputError, match="number of queries"):
        check_granularity("P@10", "0.4", queries)


# ---- variants ------------------------------------------------------------------------------------------------------


def test_beir_identical_ids_and_sentence_transformers_dropped_queries_are_found():
    qrels = {"q1": {"d1": 1}, "q2": {"d2": 0}, "q3": {"d3": 1}}
    run = {"q1": {"q1": 0.99, "d1": 0.5}, "q2": {"d2": 0.9}, "q3": {"d3": 0.8}}
    assert aggregate(evaluate(qrels, run, ["P.1"]))["P_1"] == pytest.approx(1 / 3)  # as given
    # q1's own id removed: P@1 = (1 + 0 + 1) / 3
    labels = [v.label for v in find_with_variants(qrels, run, "P@1", "0.667")]
    assert labels[0] == "as given" and any("identical ids removed" in label for label in labels)
    # q2 (no relevant document) dropped: P@1 = (0 + 1) / 2
    labels = [v.label for v in find_with_variants(qrels, run, "P@1", "0.5")]
    assert any("without a relevant document dropped" in label for label in labels)


def test_neighbouring_cut_offs_and_uncut_measures_are_tried():
    qrels = {"q": {"a": 1, "b": 1, "c": 1}}
    run = {"q": {"a": 0.9, "x": 0.8, "b": 0.7, "c": 0.1}}
    p2 = aggregate(evaluate(qrels, run, ["P.2"]))["P_2"]  # 0.5
    assert any(v.label == "cut-off 2 instead of 3" for v in find_with_variants(qrels, run, "P@3", f"{p2:.3f}"))
    ap = aggregate(evaluate(qrels, run, ["map"]))["map"]
    assert any(v.label.startswith("uncut map") for v in find_with_variants(qrels, run, "AP@2", f"{ap:.4f}"))


# ---- a whole table -------------------------------------------------------------------------------------------------


def test_a_table_made_by_ranx_and_ir_measures_under_one_convention_is_explained_by_it():
    import ir_measures

    qrels = {"q1": {"a": 2, "b": 1, "c": 0}, "q2": {"d": 1, "e": 2}, "q3": {"f": 1, "g": 2}}
    runs = {"r1": {"q1": {"a": 0.9, "c": 0.8, "b": 0.7}, "q2": {"x": 0.9, "e": 0.6, "d": 0.5},
                   "q3": {"y": 1.0, "f": 0.2, "g": 0.1}},
            "r2": {"q1": {"c": 0.9, "b": 0.8, "a": 0.7}, "q2": {"d": 0.9, "e": 0.5}, "q3": {"g": 1.0, "f": 0.5}}}
    rows = ["run,measure,value"]
    for name, run in runs.items():  # ranx's ndcg_burges: exponential gain
        value = ranx_evaluate(qrels, run, "ndcg_burges@3", return_mean=True)
        rows.append(f"{name},nDCG@3,{value:.4f}")
    p2 = ir_measures.calc_aggregate([ir_measures.P @ 2], qrels, runs["r1"])[ir_measures.P @ 2]
    rows.append(f"r1,P@2,{p2:.4f}")
    check = check_table(qrels, runs, read_table("\n".join(rows)))
    assert check.explained
    assert check.settings[0]["gain"] == "exponential"


def test_rows_no_single_setting_explains_are_named():
    qrels = {"q1": {"a": 2, "b": 1}, "q2": {"c": 1}}
    run = {"q1": {"b": 0.9, "a": 0.8}, "q2": {"c": 0.9}}
    linear = aggregate(evaluate(qrels, run, ["ndcg_cut.2"]))["ndcg_cut_2"]
    exponential = aggregate(evaluate(qrels, run, ["ndcg_cut.2"], gain="exponential"))["ndcg_cut_2"]
    table = f"run,measure,value\nr,nDCG@2,{linear:.4f}\nr,nDCG@2,{exponential:.4f}\n"
    check = check_table(qrels, {"r": run}, read_table(table))
    assert not check.explained
    assert len(check.unexplained) == 1


@pytest.mark.parametrize("text, message", [
    ("", "empty"), ("run,value\nr,0.4\n", "missing measure"), ("run,measure,value\n", "no rows"),
    ("run,measure,value\nr,P@10\n", "line 2"),
])
def test_bad_tables_are_refused_with_the_line(text, message):
    with pytest.raises(InputError, match=message):
        read_table(text)


# ---- command line --------------------------------------------------------------------------------------------------


def run_check(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    return check_main(list(argv), out=out, err=err), out.getvalue(), err.getvalue()


def test_the_granularity_check_needs_no_files():
    status, out, _ = run_check("--measure", "P@10", "--value", "0.4123", "--queries", "43")
    assert status == 1 and out.startswith("impossible:")
    status, out, _ = run_check("--measure", "P@10", "--value", "0.4116", "--queries", "43")
    assert status == 0 and out.startswith("possible:")


def test_the_table_check_reads_runs_next_to_the_csv(tmp_path):
    for name in ("results.test", "results.trunc"):
        (tmp_path / name).write_bytes((DATA / name).read_bytes())
    (tmp_path / "table.csv").write_text("run,measure,value\nresults.test,map,0.1785\nresults.trunc,P@10,0.2\n")
    status, out, err = run_check("--table", str(tmp_path / "table.csv"), str(DATA / "qrels.test"))
    assert status == 0, err
    assert out.startswith("every row of the table is explained by: missing_queries=zero")


def test_variants_are_tried_when_nothing_matches():
    status, out, _ = run_check(str(DATA / "qrels.test"), str(DATA / "results.test"), "--measure", "map_cut.100",
                               "--value", "0.1785")
    assert status == 0
    assert "with uncut map instead of map_cut@100:" in out


@pytest.mark.parametrize("argv, message", [
    (["--measure", "P@10"], "--value is required"),
    (["--measure", "P@10", "--value", "0.4"], "give QRELS and RUN"),
    (["--table", "missing.csv", "q"], "no such file"),
    (["--measure", "P@10", "--value", "0.4", "--queries", "0"], "number of queries"),
])
def test_command_line_errors_are_one_line(argv, message):
    status, out, err = run_check(*argv)
    assert status == 2 and message in err and len(err.strip().splitlines()) == 1


def test_a_table_mixing_ranx_burges_and_ir_measures_linear_ndcg_names_the_row_that_does_not_fit():
    import ir_measures

    qrels = {"q1": {"a": 3, "b": 1, "c": 0}, "q2": {"d": 1, "e": 2}, "q3": {"f": 1, "g": 3}}
    runs = {"r1": {"q1": {"b": 0.9, "a": 0.8, "c": 0.7}, "q2": {"x": 0.9, "d": 0.6, "e": 0.5},
                   "q3": {"f": 1.0, "g": 0.2}},
            "r2": {"q1": {"c": 0.9, "b": 0.8, "a": 0.7}, "q2": {"e": 0.9, "d": 0.5}, "q3": {"g": 1.0, "f": 0.5}}}
    burges = ranx_evaluate(qrels, runs["r1"], "ndcg_burges@3", return_mean=True)
    linear = ir_measures.calc_aggregate([ir_measures.nDCG @ 3], qrels, runs["r2"])[ir_measures.nDCG @ 3]
    burges_r2 = ranx_evaluate(qrels, runs["r2"], "ndcg_burges@3", return_mean=True)
    table = (f"run,measure,value\nr1,nDCG@3,{burges:.4f}\nr2,nDCG@3,{burges_r2:.4f}\n"
             f"r2,nDCG@3,{linear:.4f}\n")
    check = check_table(qrels, runs, read_table(table))
    assert not check.explained
    assert check.best_partial["gain"] == "exponential"  # two rows of three share it
    assert [row.line for row in check.unexplained] == [4]  # ir_measures' linear-gain row


# ---- found in review: every answer is one line, and bounded ---------------------------------------------------------


@pytest.mark.parametrize("measure, queries", [("RR@43", 3), ("RR@100000", 3), ("RR@4", 1_000_000), ("RR@3", 1_000_000)])
def test_rr_checks_too_large_to_decide_say_so_at_once_instead_of_overflowing(measure, queries):
    verdict = check_granularity(measure, "0.5", queries)
    assert not verdict.decided and "not decided" in verdict.explanation


def test_ms_marcos_mrr_at_10_over_its_dev_queries_is_decided():
    assert check_granularity("MRR@10", "0.31234", 6980).possible is True


def test_a_negative_cut_off_to_try_is_refused():
    with pytest.raises(InputError, match="--cutoff"):
        find_with_variants({"q": {"a": 1}}, {"q": {"a": 1.0}}, "AP", "0.5", cutoff=-3)


def test_a_table_file_that_is_not_utf8_or_too_large_is_named(tmp_path):
    bad = tmp_path / "table.csv"
    bad.write_bytes(b"\xff\xfe run")
    status, _, err = run_check("--table", str(bad), str(DATA / "qrels.test"))
    assert status == 2 and "table.csv: not UTF-8" in err
    bad.write_bytes(b"run,measure,value\n" + b"x,P@10,0.1\n" * 120_000)
    status, _, err = run_check("--table", str(bad), str(DATA / "qrels.test"))
    assert status == 2 and "at most 1 MiB" in err


# ---- huge cut-offs (issue 20): bounded by what can be decided ----------------------------------------------------


def test_rr_at_ten_million_is_not_decided_at_once_naming_the_limit():
    # Listing 10,000,001 values as fractions took 39 s and 2.2 GB to say the same.
    verdict = check_granularity("RR@10000000", "0.41234", 1000)
    assert not verdict.decided and "common denominator above 20,000,000, the limit of this check" in verdict.explanation


def test_p_at_ten_million_is_a_lattice_decided_exactly():
    verdict = check_granularity("P@10000000", "0.41234", 1_000_000)
    assert verdict.possible is True and verdict.step == Fraction(1, 10**13)


def test_impossible_values_print_neighbours_that_differ():
    # Six decimals printed both neighbours as 0.412346; they are one step of 1/10^13 apart.
    verdict = check_granularity("P@10000000", "0.41234567890123", 1_000_000)
    assert verdict.possible is False
    assert (verdict.below, verdict.above) == (Fraction(41234567890120, 10**14), Fraction(41234567890130, 10**14))
    assert "the nearest are 0.412345678901200 and 0.412345678901300" in verdict.explanation


def test_rr_neighbours_are_found_without_listing_every_reachable_sum():
    verdict = check_granularity("RR@10", "0.46", 2)
    assert (verdict.below, verdict.above) == (Fraction(5, 12), Fraction(1, 2))
    assert "the nearest achievable means are 0.416667 and 0.500000" in verdict.explanation


def test_rr_is_decided_exactly_up_to_rr_at_18():
    assert check_granularity("RR@18", "0.5", 1).decided  # lcm(1..18) = 12,252,240
    assert not check_granularity("RR@19", "0.5", 1).decided  # lcm(1..19) = 232,792,560
