"""Many runs compared: every statistic checked against scipy and statsmodels on fixed data."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest

from metrics import InputError
from metrics.compare import (
    adjust_p_values,
    bootstrap_interval,
    compare_many,
    compare_runs,
    compare_values_many,
    report_table,
    risk,
    risk_report,
)
from metrics.compare.__main__ import main as compare_main
from metrics.compare.many import effect_size, tukey_hsd_p_value
from metrics.compare.report import RISK_COLUMNS
from metrics.measures.display import statistic
from tests.support.paths import TEST_DATA

# scipy.stats and statsmodels are imported in the tests that use them, not at collection, where every pytest-xdist
# worker would pay for them (about 2 s of CPU per worker).

DATA = TEST_DATA / "trec_eval"


def per_query(values: dict[str, list[float]]) -> dict[str, dict[str, float]]:
    return {run: {f"q{i:02d}": v for i, v in enumerate(column)} for run, column in values.items()}


@pytest.fixture
def three_runs():
    """30 queries; run c is clearly better than a, b is a little better, with tied and zero deltas."""
    rng = np.random.default_rng(3)
    a = np.round(rng.uniform(0, 1, 30), 2)
    b = np.clip(np.round(a + rng.normal(0.03, 0.1, 30), 2), 0, 1)
    c = np.clip(a + 0.2, 0, 1)
    b[:4] = a[:4]  # ties
    return {"nDCG@10": per_query({"a": a.tolist(), "b": b.tolist(), "c": c.tolist()})}


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("ours, theirs", [("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")])
def test_corrections_equal_statsmodels(seed, ours, theirs):
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 0.2, 12)
    p[3] = p[5]  # a tie
    assert adjust_p_values(p, ours) == pytest.approx(multipletests(p, method=theirs)[1].tolist(), abs=1e-15)


def test_t_and_wilcoxon_p_values_equal_scipy(three_runs):
    import scipy.stats

    arrays = {run: np.array(list(v.values())) for run, v in three_runs["nDCG@10"].items()}
    for test, reference in (("t", lambda x, y: scipy.stats.ttest_rel(y, x).pvalue),
                            ("wilcoxon", lambda x, y: scipy.stats.wilcoxon(y - x).pvalue)):
        result = compare_values_many(three_runs, test=test, correction="none", resamples=200)
        for pair in result.pairs:
            assert pair.p_value == pytest.approx(reference(arrays[pair.run_a], arrays[pair.run_b]), rel=1e-9)
            assert pair.p_adjusted == pair.p_value


def test_holm_makes_the_family_of_pairs_more_conservative(three_runs):
    from statsmodels.stats.multitest import multipletests

    raw = compare_values_many(three_runs, correction="none", resamples=200)
    holm = compare_values_many(three_runs, correction="holm", resamples=200)
    assert [p.p_adjusted for p in holm.pairs] == pytest.approx(
        multipletests([p.p_value for p in raw.pairs], method="holm")[1].tolist())
    assert holm.beaten_by("nDCG@10", "c") == ["a", "b"]


def test_tukey_hsd_with_queries_as_blocks_matches_the_two_way_anova_and_the_studentized_range(three_runs):
    import pandas as pd
    import scipy.stats
    import statsmodels.formula.api as smf

    values = three_runs["nDCG@10"]
    frame = pd.DataFrame([(run, qid, v) for run, column in values.items() for qid, v in column.items()],
                         columns=["run", "query", "score"])
    mse = smf.ols("score ~ C(run) + C(query)", data=frame).fit().mse_resid
    arrays = {run: np.array(list(column.values())) for run, column in values.items()}
    n, k = 30, 3
    q = abs(arrays["c"].mean() - arrays["a"].mean()) / math.sqrt(mse / n)
    expected = scipy.stats.studentized_range.sf(q, k, (k - 1) * (n - 1))
    assert tukey_hsd_p_value(arrays, "a", "c") == pytest.approx(expected, rel=1e-9)
    result = compare_values_many(three_runs, test="tukey", correction="holm", resamples=200)
    assert all(pair.p_adjusted == pair.p_value for pair in result.pairs)  # Tukey needs no further correction


@pytest.mark.parametrize("method, scipy_method", [("percentile", "percentile"), ("bca", "BCa")])
def test_bootstrap_intervals_equal_scipy_with_the_same_seed(method, scipy_method):
    import scipy.stats

    values = np.random.default_rng(1).uniform(0, 1, 40)
    ours = bootstrap_interval(values, method=method, resamples=2000, seed=7)
    theirs = scipy.stats.bootstrap((values,), np.mean, n_resamples=2000, method=scipy_method,
                                   rng=np.random.default_rng(7)).confidence_interval
    assert (ours.low, ours.high) == pytest.approx((theirs.low, theirs.high), rel=1e-12)
    assert ours.low < ours.estimate < ours.high


def test_constant_values_give_a_point_interval_not_a_nan():
    interval = bootstrap_interval([0.5] * 10, method="bca", resamples=200)
    assert (interval.low, interval.high) == (0.5, 0.5)


def test_effect_size_is_cohens_d_z():
    deltas = np.array([0.1, 0.2, 0.3, 0.0])
    assert effect_size(deltas) == pytest.approx(deltas.mean() / deltas.std(ddof=1))
    assert effect_size(np.zeros(5)) == 0.0
    assert effect_size(np.full(5, 0.1)) == math.inf


def test_two_runs_give_the_same_t_test_as_compare_runs(pastry_qrels):
    qrels = {"q1": {"a": 1, "b": 1}, "q2": {"c": 1}, "q3": {"d": 1, "e": 2}, "q4": {"f": 1}}
    run_a = {"q1": {"a": 0.9, "x": 0.8}, "q2": {"x": 1.0, "c": 0.2}, "q3": {"e": 0.3, "d": 0.2}, "q4": {"f": 1.0}}
    run_b = {"q1": {"x": 0.9, "a": 0.8, "b": 0.1}, "q2": {"c": 1.0}, "q3": {"d": 0.9}, "q4": {"y": 1.0, "f": 0.5}}
    many = compare_many(qrels, {"A": run_a, "B": run_b}, ["AP"], correction="none", resamples=200)
    two = compare_runs(qrels, run_a, run_b, "AP")
    assert many.pairs[0].p_value == pytest.approx(two.t_test.p_value, rel=1e-12)
    assert (many.pairs[0].wins, many.pairs[0].ties, many.pairs[0].losses) == (two.wins, two.ties, two.losses)


def test_risk_weighs_losses_by_one_plus_alpha():
    run, base = [0.5, 0.2, 0.4, 0.4], [0.3, 0.4, 0.4, 0.1]  # deltas +0.2 -0.2 0 +0.3
    result = risk(run, base, alpha=1.0)
    x = np.array([0.2, -0.4, 0.0, 0.3])
    assert result.urisk == pytest.approx(x.mean())
    assert result.trisk == pytest.approx(x.mean() / (x.std(ddof=1) / 2))
    assert (result.wins, result.ties, result.losses) == (2, 1, 1)
    assert result.total_loss == pytest.approx(0.2) and result.largest_loss == pytest.approx(0.2)
    assert risk(run, base, alpha=0.0).urisk == pytest.approx(np.mean(np.array(run) - np.array(base)))


def test_the_report_table_names_the_runs_each_one_beats_in_every_format(three_runs):
    result = compare_values_many(three_runs, correction="holm", resamples=200)
    markdown = report_table(result, fmt="markdown", qrels_name="my_qrels")
    row_c = next(line for line in markdown.splitlines() if line.startswith("| \\(c\\)"))
    assert "<sup>ab</sup>" in row_c and "**" in row_c  # beats a and b, and is the best
    assert "my\\_qrels" in markdown and "Holm-Bonferroni" in markdown
    latex = report_table(result, fmt="latex")
    assert r"$^{\mathrm{ab}}$" in latex and r"\begin{tabular}{lr}" in latex
    assert "(c) c" in report_table(result, fmt="text")


def test_run_names_are_escaped_in_markdown_and_latex():
    values = {"P@10": per_query({"a|b_c": [0.1, 0.2, 0.3], "x&y%": [0.2, 0.2, 0.4]})}
    result = compare_values_many(values, resamples=200)
    assert "a\\|b\\_c" in report_table(result, fmt="markdown")
    assert r"x\&y\%" in report_table(result, fmt="latex")


@pytest.mark.parametrize("kwargs, message", [
    (dict(test="anova"), "test"), (dict(correction="sidak"), "correction"), (dict(alpha=1.5), "alpha"),
    (dict(baseline="zzz"), "baseline"),
])
def test_bad_settings_are_refused_with_one_input_error(three_runs, kwargs, message):
    with pytest.raises(InputError, match=message):
        compare_values_many(three_runs, resamples=200, **kwargs)


def test_one_run_is_not_a_comparison():
    with pytest.raises(InputError, match="at least two runs"):
        compare_values_many({"P@10": per_query({"a": [0.1]})})


def unbounded_risk():
    """Against baseline "base", run "up" gains 0.25 on every query (TRisk +inf: no spread), "down" loses 0.25 on
    every one (-inf), and "mixed" gains on some and loses on others (a finite TRisk)."""
    values = {"AP": per_query({"base": [0.5, 0.5, 0.5, 0.5], "up": [0.75] * 4, "down": [0.25] * 4,
                               "mixed": [0.75, 0.25, 0.75, 0.75]})}
    return compare_values_many(values, baseline="base", resamples=200)


def test_an_unbounded_trisk_reads_the_same_in_every_risk_download():
    comparison = unbounded_risk()
    trisk = {run: result.trisk for _, run, result in comparison.risks(1.0)}
    assert trisk["up"] == math.inf and trisk["down"] == -math.inf and math.isfinite(trisk["mixed"])
    finite = f"{trisk['mixed']:.4f}"
    markdown = risk_report(comparison, fmt="markdown").splitlines()
    assert [row.split(" | ")[-1] for row in markdown[2:5]] == ["∞ |", "-∞ |", f"{finite} |"]
    assert "None" not in "".join(markdown) and "∞ or -∞: every query's difference is the same" in markdown[-1]
    latex = risk_report(comparison, fmt="latex").splitlines()
    rows = [line for line in latex if line.startswith("AP &")]
    assert [row.split(" & ")[-1] for row in rows] == [r"$\infty$ \\", r"$-\infty$ \\", finite + r" \\"]
    assert "∞" not in "".join(latex) and r"$\infty$ or $-\infty$: every query's difference" in "".join(latex)
    # The CSV holds the numbers themselves: read back, each is the engine's value.
    frame = pd.read_csv(io.StringIO(risk_report(comparison, fmt="csv")))
    assert dict(zip(frame["run"], frame["TRisk"])) == pytest.approx(trisk)
    assert list(frame.columns) == list(RISK_COLUMNS)


def test_the_risk_table_needs_a_baseline_and_a_known_format(three_runs):
    with pytest.raises(ValueError, match="needs a baseline"):
        risk_report(compare_values_many(three_runs, resamples=200))
    with pytest.raises(ValueError, match="fmt"):
        risk_report(unbounded_risk(), fmt="html")


@pytest.mark.parametrize("value, shown", [(2.03125, "2.0312"), (-0.5, "-0.5000"), (math.inf, "∞"),
                                          (-math.inf, "-∞"), (math.nan, "n/a")])
def test_a_ratio_over_a_spread_is_shown_as_what_it_is(value, shown):
    assert statistic(value) == shown


def test_the_command_line_prints_a_latex_table_and_the_details(tmp_path):
    out, err = io.StringIO(), io.StringIO()
    argv = [str(DATA / "qrels.test"), str(DATA / "results.test"), str(DATA / "results.trunc"), "-m", "P@10",
            "-m", "AP", "-c", "--format", "latex", "--details", "--baseline", "results.test", "--resamples", "500"]
    assert compare_main(argv, out=out, err=err) == 0, err.getvalue()
    text = out.getvalue()
    assert r"\begin{tabular}{lrr}" in text and "P@10 & AP" in text
    assert "(a) results.test & \\textbf{0.3000}" in text  # trec_eval's P_10 for results.test under -c
    assert "Risk against results.test" in text and "URisk" in text


@pytest.mark.parametrize("argv, message", [
    (["{qrels}", "{run}"], "at least two runs"),
    (["{qrels}", "{run}", "{run}", "-m", "nope@3"], "nope"),
    (["{qrels}", "{run}", "missing.txt"], "no such file"),
    (["{qrels}", "{run}", "{run}", "--baseline", "other"], "--baseline other"),
    (["{qrels}", "{run}", "{run}", "--test", "anova"], "invalid choice"),
])
def test_command_line_errors_are_one_line_and_exit_2(argv, message):
    out, err = io.StringIO(), io.StringIO()
    filled = [a.format(qrels=DATA / "qrels.test", run=DATA / "results.test") for a in argv]
    assert compare_main(filled, out=out, err=err) == 2
    assert message in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1


def test_a_run_named_like_a_markdown_link_stays_text_in_the_markdown_table():
    values = {"P@10": per_query({"[sign in](https://evil.example)": [0.1, 0.2, 0.3], "b": [0.2, 0.2, 0.4]})}
    markdown = report_table(compare_values_many(values, resamples=200), fmt="markdown")
    assert "](" not in markdown and "\\[sign in\\]\\(https\\:" in markdown


@pytest.mark.parametrize("fmt", ["markdown", "latex", "text"])
def test_control_and_format_characters_of_a_run_name_are_written_as_code_points_in_every_format(fmt):
    # ESC starts a terminal colour, a BOM or a right-to-left override hides or reverses text, NUL ends a C string:
    # none of them reaches a table, whatever the format; each is named by its code point.
    hidden = "a\x1b[31m\ufeffb\u202ec\x00d\u200b\x7f"
    values = {"P@10": per_query({hidden: [0.1, 0.2, 0.3], "base": [0.2, 0.2, 0.4]})}
    comparison = compare_values_many(values, resamples=200, baseline="base")
    texts = [report_table(comparison, fmt=fmt, qrels_name="q\ufeff.txt")]
    if fmt != "text":
        texts.append(risk_report(comparison, fmt=fmt))
    for text in texts:
        assert all(char.isprintable() for line in text.splitlines() for char in line), ascii(text)
    names = {"markdown": "aU\\+001B\\[31mU\\+FEFFbU\\+202EcU\\+0000dU\\+200BU\\+007F",
             "latex": "aU+001B[31mU+FEFFbU+202EcU+0000dU+200BU+007F",
             "text": "aU+001B[31mU+FEFFbU+202EcU+0000dU+200BU+007F"}
    assert all(names[fmt] in text for text in texts)
    assert ("qU\\+FEFF" if fmt == "markdown" else "qU+FEFF") in texts[0]  # the qrels' name in the notes too


# ---- found in review -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("measure, message", [("gm_map", "geometric mean"), ("unj.10", "unjudged"),
                                              ("rbp_resid", "residual")])
def test_measures_a_results_table_cannot_rank_are_refused(measure, message):
    qrels = {"q": {"a": 1}}
    with pytest.raises(InputError, match=message):
        compare_many(qrels, {"A": {"q": {"a": 1.0}}, "B": {"q": {"b": 1.0}}}, [measure], resamples=200)


@pytest.mark.parametrize("kwargs, message", [(dict(alpha=0.6), "significance level"), (dict(seed=-1), "seed"),
                                             (dict(permutations=10**8, test="randomisation"), "1,000,000")])
def test_settings_out_of_range_are_refused_before_any_work(three_runs, kwargs, message):
    with pytest.raises(InputError, match=message):
        compare_values_many(three_runs, resamples=200, **kwargs)


def test_exact_enumeration_of_sign_flips_is_done_in_bounded_slices():
    from metrics.compare import randomisation_test

    rng = np.random.default_rng(5)
    a, b = rng.uniform(0, 1, 19), rng.uniform(0, 1, 19)
    exact = randomisation_test(a, b, permutations=2**19)
    assert exact.exact and exact.permutations == 2**19
    deltas = b - a
    signs = 1 - 2 * ((np.arange(2**19)[:, None] >> np.arange(19)) & 1)
    expected = np.mean(np.abs(signs @ deltas) >= abs(deltas.sum()) - 1e-9 * np.abs(deltas).sum())
    assert exact.p_value == pytest.approx(expected)


def test_latex_escapes_a_backslash_once():
    values = {"P@10": per_query({"x\\y{z}": [0.1, 0.2, 0.3], "b": [0.2, 0.2, 0.4]})}
    latex = report_table(compare_values_many(values, resamples=200), fmt="latex")
    assert r"x\textbackslash{}y\{z\}" in latex


def test_the_notes_say_how_missing_queries_count_under_c():
    from metrics import Conventions

    result = compare_values_many({"P@10": per_query({"a": [0.1, 0.2], "b": [0.3, 0.1]})}, resamples=200,
                                 conventions=Conventions(missing_queries="zero"))
    assert "a query a run misses scoring 0" in result.describe()


def test_more_runs_than_letters_are_refused():
    values = {"P@10": per_query({f"run{i}": [0.1 * (i % 3), 0.2] for i in range(27)})}
    with pytest.raises(InputError, match="at most 26"):
        compare_values_many(values, resamples=200)


# ---- one incomplete run: the reproduced case (results.test against a copy without query 302) -----------------------

#: trec_eval 9.0.8 and 10.0 on results.test alone (-m P.10 -m ndcg_cut.10): its own means over queries 301-303.
TREC_EVAL_ALONE = {"P_10": "0.3000", "ndcg_cut_10": "0.3016"}


@pytest.fixture
def copy_without_302(tmp_path):
    lines = (DATA / "results.test").read_text().splitlines()
    path = tmp_path / "no302.test"
    path.write_text("\n".join(line for line in lines if line.split()[0] != "302") + "\n")
    return str(path)


def test_a_copy_lacking_302_is_named_in_every_format_and_on_stderr_and_minus_c_gives_trec_evals_numbers(
        copy_without_302):
    argv = [str(DATA / "qrels.test"), str(DATA / "results.test"), copy_without_302, "-m", "P_10", "-m",
            "ndcg_cut.10", "--resamples", "200"]
    out, err = io.StringIO(), io.StringIO()
    assert compare_main(argv, out=out, err=err) == 0
    table = out.getvalue().splitlines()
    # Over 301 and 303 only, which both runs answer: results.test reads 0.1000, not trec_eval's 0.3000.
    assert table[1].split() == ["(a)", "results.test", "0.1000*", "0.0759*"]
    assert ("Queries: the 2 judged queries every run answers (301, 303); every run's mean is over these, so it can "
            "differ from the run's own evaluation.") in table
    assert ("Missing: no302.test lacks 1 judged query (302). Left out of every run's mean; trec_eval's -c "
            "(missing_queries=zero) scores a missing query 0 instead and keeps every judged query.") in table
    assert err.getvalue() == ("python -m metrics.compare: warning: run 'no302.test' lacks 1 judged query (302): every "
                              "run's mean is over the 2 queries all runs answer; -c scores a missing query 0 instead\n")
    for fmt, missing in (("markdown", r"Missing\: no302\.test lacks 1 judged query \(302\)\."),
                         ("latex", r"Missing: no302.test lacks 1 judged query (302). Left out of every run's mean; "
                                   r"trec\_eval's -c (missing\_queries=zero)")):
        out = io.StringIO()
        assert compare_main([*argv, "--format", fmt], out=out, err=io.StringIO()) == 0
        assert missing in out.getvalue()
    out, err = io.StringIO(), io.StringIO()
    assert compare_main([*argv, "-c"], out=out, err=err) == 0
    assert out.getvalue().splitlines()[1].split() == ["(a)", "results.test",
                                                      *(f"{value}*" for value in TREC_EVAL_ALONE.values())]
    assert "Queries: all 3 judged queries (301, 302, 303)" in out.getvalue()
    assert err.getvalue() == ("python -m metrics.compare: warning: run 'no302.test' lacks 1 judged query (302): "
                              "scored 0 there (-c)\n")


def test_the_comparison_lists_what_each_run_lacks_only_where_another_run_answers_it():
    values = {"P@10": {"a": {"q1": 0.5, "q2": 0.1, "q3": 0.2}, "b": {"q1": 0.4, "q3": 0.3},
                       "c": {"q1": 0.1, "q3": 0.2}}}
    result = compare_values_many(values, resamples=200)
    assert result.queries["P@10"] == ("q1", "q3")
    assert result.incomplete_runs() == {"b": ("q2",), "c": ("q2",)}
    # A judged query no run answers changes no mean: it is missing from each run, yet no run is incomplete for it.
    shared_gap = compare_values_many({"P@10": {"a": {"q1": 0.5}, "b": {"q1": 0.4}}}, resamples=200,
                                     missing={"a": ["q9"], "b": ["q9"]})
    assert shared_gap.missing == {"a": ("q9",), "b": ("q9",)} and shared_gap.incomplete_runs() == {}
    assert shared_gap.coverage() == []
