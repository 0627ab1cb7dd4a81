"""The run page's many-run comparison, granularity check and table check, through AppTest."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from metrics import aggregate, evaluate
from metrics.compare import compare_many, report_table
from metrics.io.trec import read_qrels, read_run
from tests.app.support import assert_no_failure, open_runs_page, open_tab
from tests.support.paths import TEST_DATA
from ui.common.text import shown as as_shown

DATA = TEST_DATA / "trec_eval"
QRELS = (DATA / "qrels.test").read_bytes()


def upload(at: AppTest, *runs: tuple[str, bytes]) -> AppTest:
    at.file_uploader(key="runs_qrels").set_value(("qrels.test", QRELS, "text/plain"))
    at.file_uploader(key="runs_runs").set_value([(name, data, "text/plain") for name, data in runs])
    return at.run()


def table_with(at: AppTest, column: str):
    """The data frame on the page that has ``column`` (AppTest does not expose data frame keys)."""
    tables = [frame.value for frame in at.dataframe if column in frame.value.columns]
    assert len(tables) == 1, f"{len(tables)} tables have a column {column!r}"
    return tables[0]


def shifted_run(name: str, drop_every: int) -> bytes:
    """results.test with every n-th document of each query removed: a different but related run."""
    lines = (DATA / "results.test").read_text().splitlines()
    return "\n".join(line.replace("tst", name) for i, line in enumerate(lines) if i % drop_every).encode() + b"\n"


@pytest.fixture(scope="module")
def three_runs_page() -> AppTest:
    at = open_runs_page()
    at = upload(at, ("results.test", (DATA / "results.test").read_bytes()),
                ("every-third.txt", shifted_run("third", 3)), ("every-second.txt", shifted_run("second", 2)))
    return open_tab(at, "Compare runs")


def test_the_report_table_shows_every_runs_mean_with_its_interval(three_runs_page):
    at = three_runs_page
    assert_no_failure(at)
    report = table_with(at, "run")
    assert list(report["run"]) == ["(a) results.test", "(b) every-third.txt", "(c) every-second.txt"]
    measures = at.multiselect(key="many_measures").value
    qrels = read_qrels(DATA / "qrels.test").to_dict()
    run = read_run(DATA / "results.test").to_dict()
    measure = measures[0]
    expected = aggregate(evaluate(qrels, run, [measure]))[measure]
    assert report[measure].iloc[0].split(" ")[0] == f"{expected:.4f}"
    assert report[f"{measure} interval"].iloc[0].startswith("[")
    assert any("Holm-Bonferroni" in caption.value for caption in at.caption)


def test_pairs_follow_the_engine_and_the_downloads_hold_the_same_table(three_runs_page):
    at = three_runs_page
    pairs = table_with(at, "p adjusted")
    assert len(pairs) == 3 * len(at.multiselect(key="many_measures").value)
    qrels = read_qrels(DATA / "qrels.test").to_dict()
    runs = {"results.test": read_run(DATA / "results.test").to_dict(),
            "every-third.txt": read_run(shifted_run("third", 3)).to_dict(),
            "every-second.txt": read_run(shifted_run("second", 2)).to_dict()}
    engine = compare_many(qrels, runs, [at.multiselect(key="many_measures").value[0]], resamples=200)
    assert pairs["p"].iloc[0] == pytest.approx(engine.pairs[0].p_value)
    assert pairs["p adjusted"].iloc[0] == pytest.approx(engine.pairs[0].p_adjusted)
    downloads = {button.proto.label: button for button in at.get("download_button")}
    assert "Download the table (LaTeX)" in downloads and "Download the table (Markdown)" in downloads


def expander_labels(at: AppTest) -> list[str]:
    return [as_shown(expander.label) for expander in at.expander]


def test_every_pair_says_how_many_pairs_and_measures_make_its_tests(three_runs_page):
    at = three_runs_page
    assert len(at.multiselect(key="many_measures").value) == 2
    assert "Every pair (3 pairs x 2 measures = 6 tests)" in expander_labels(at)
    at.multiselect(key="many_measures").set_value(at.multiselect(key="many_measures").value[:1]).run()
    assert "Every pair (3 pairs x 1 measure = 3 tests)" in expander_labels(at)
    at.selectbox(key="many_baseline").select("results.test").run()
    assert "Each run against results.test (2 pairs x 1 measure = 2 tests)" in expander_labels(at)
    assert len(table_with(at, "p adjusted")) == 2
    at.selectbox(key="many_baseline").select("(every pair)").run()


def test_a_baseline_adds_the_risk_table_and_tukey_disables_the_correction():
    at = open_runs_page()
    at = upload(at, ("results.test", (DATA / "results.test").read_bytes()),
                ("every-third.txt", shifted_run("third", 3)))
    at = open_tab(at, "Compare runs")
    at.selectbox(key="many_baseline").select("results.test").run()
    assert_no_failure(at)
    risk = table_with(at, "TRisk")
    assert list(risk["run"].unique()) == ["every-third.txt"]
    at.slider(key="many_risk_alpha").set_value(3.0).run()
    assert_no_failure(at)
    at.selectbox(key="many_test").select("tukey").run()
    assert at.selectbox(key="many_correction").disabled
    assert_no_failure(at)


#: Two queries where better.txt ranks the relevant document first and base.txt second: RR gains 0.5 on both, so
#: TRisk and d_z have no spread to divide by and are +inf.
SAME_GAIN_QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 1\nq2 0 d4 0\n"
SAME_GAIN_BASE = b"q1 Q0 d2 1 2.0 base\nq1 Q0 d1 2 1.0 base\nq2 Q0 d4 1 2.0 base\nq2 Q0 d3 2 1.0 base\n"
SAME_GAIN_BETTER = b"q1 Q0 d1 1 2.0 up\nq1 Q0 d2 2 1.0 up\nq2 Q0 d3 1 2.0 up\nq2 Q0 d4 2 1.0 up\n"


def test_an_unbounded_trisk_is_shown_as_infinity_on_the_page_and_in_its_downloads(recorded_downloads):
    at = open_runs_page()
    at.file_uploader(key="runs_qrels").set_value(("two.qrels", SAME_GAIN_QRELS, "text/plain"))
    at.file_uploader(key="runs_runs").set_value([("base.txt", SAME_GAIN_BASE, "text/plain"),
                                                 ("better.txt", SAME_GAIN_BETTER, "text/plain")])
    at = open_tab(at.run(), "Compare runs")
    at.multiselect(key="many_measures").set_value(["recip_rank"]).run()
    at.selectbox(key="many_baseline").select("base.txt").run()
    assert_no_failure(at)
    risk = table_with(at, "TRisk")
    assert list(risk["TRisk"]) == ["∞"] and list(risk["URisk"]) == [0.5]  # was None, an empty-looking cell
    assert list(table_with(at, "effect size d_z")["effect size d_z"]) == ["∞"]
    assert any("no spread to divide by" in caption.value for caption in at.caption)
    markdown = recorded_downloads["Download the risk table (Markdown)"].decode()
    assert "| recip\\_rank | better\\.txt | 2 / 0 / 0 | 1.0000 | 0.0000 | 0.0000 | 0.5000 | ∞ |" in markdown
    assert r"0.5000 & $\infty$ \\" in recorded_downloads["Download the risk table (LaTeX)"].decode()
    assert recorded_downloads["Download the risk table (CSV)"].decode().splitlines()[1].endswith(",0.5,inf")


def test_is_the_number_possible_without_any_file():
    at = open_runs_page()
    at.session_state["runs_possible_open"] = True  # the expander opened, as a click on it does
    at.run()
    at.text_input(key="grim_value").input("0.4123").run()
    assert any(error.value.startswith("Impossible") and "1/430" in as_shown(error.value) for error in at.error)
    at.text_input(key="grim_value").input("0.4116").run()
    assert any(success.value.startswith("Possible") for success in at.success)


def test_a_table_of_reported_scores_is_checked_against_the_uploaded_runs():
    at = open_runs_page()
    at = upload(at, ("results.test", (DATA / "results.test").read_bytes()),
                ("results.trunc", (DATA / "results.trunc").read_bytes()))
    at = open_tab(at, "Check a reported score")
    table = b"run,measure,value\nresults.test,map,0.1785\nresults.trunc,P@10,0.2\n"
    at.file_uploader(key="table_check_csv").set_value(("table.csv", table, "text/csv")).run()
    assert_no_failure(at)
    assert any("missing_queries=zero" in as_shown(success.value) for success in at.success)
    rows = table_with(at, "explained")
    assert rows["explained"].all()


def test_a_broken_table_gets_one_message():
    at = open_runs_page()
    at = open_tab(upload(at, ("results.test", (DATA / "results.test").read_bytes())), "Check a reported score")
    at.file_uploader(key="table_check_csv").set_value(("table.csv", b"run,measure\nx,y\n", "text/csv")).run()
    assert not at.exception
    assert any("missing value" in as_shown(error.value) for error in at.error)


def test_the_finder_tries_the_variants_papers_use_when_nothing_matches():
    at = open_runs_page()
    at = open_tab(upload(at, ("results.test", (DATA / "results.test").read_bytes())), "Check a reported score")
    at.text_input(key="check_measure").input("map_cut.100").run()
    at.text_input(key="check_value").input("0.1785").run()
    assert_no_failure(at)
    assert any("uncut map instead of map_cut@100" in as_shown(s.value) for s in at.success)


def test_a_query_subset_is_tried_as_a_variant():
    qrels = read_qrels(DATA / "qrels.test").to_dict()
    run = read_run(DATA / "results.test").to_dict()
    subset_value = aggregate(evaluate({"301": qrels["301"]}, {"301": run["301"]}, ["P.10"]))["P_10"]
    at = open_runs_page()
    at = open_tab(upload(at, ("results.test", (DATA / "results.test").read_bytes())), "Check a reported score")
    at.text_input(key="check_measure").input("P@10").run()
    at.text_input(key="check_value").input(f"{subset_value:.4f}").run()
    at.file_uploader(key="check_subset").set_value(("subset.txt", b"301\n", "text/plain")).run()
    assert_no_failure(at)
    assert any("mean over the 1 queries of the subset" in as_shown(s.value) for s in at.success)


def test_a_comparison_over_three_queries_warns_beside_its_intervals_and_tests():
    at = open_runs_page()
    at.file_uploader(key="runs_qrels").set_value(("three.qrels", b"q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n", "text/plain"))
    at.file_uploader(key="runs_runs").set_value([
        ("a.txt", b"q1 Q0 d1 1 1 a\nq2 Q0 x 1 1 a\nq3 Q0 x 1 1 a\n", "text/plain"),
        ("b.txt", b"q1 Q0 d1 1 1 b\nq2 Q0 d2 1 1 b\nq3 Q0 d3 1 1 b\n", "text/plain")])
    at = open_tab(at.run(), "Compare runs")
    assert_no_failure(at)
    warnings = [as_shown(warning.value) for warning in at.warning]
    # Once above the many-run report, once above the two-run comparison.
    assert sum(text.startswith("Only 3 queries compared: below 10") for text in warnings) == 2, warnings


def without_query(qid: str) -> bytes:
    """results.test without one query's lines: an incomplete copy of a run."""
    lines = (DATA / "results.test").read_text().splitlines()
    return "\n".join(line for line in lines if line.split()[0] != qid).encode() + b"\n"


@pytest.fixture
def recorded_downloads(monkeypatch) -> dict[str, bytes]:
    """Each download button's label and data, as the page last built it."""
    from streamlit.delta_generator import DeltaGenerator

    downloads: dict[str, bytes] = {}
    original = DeltaGenerator.download_button

    def recording(self, label, data, *args, **kwargs):
        downloads[label] = data.encode() if isinstance(data, str) else data
        return original(self, label, data, *args, **kwargs)

    monkeypatch.setattr(DeltaGenerator, "download_button", recording)
    return downloads


def test_a_run_lacking_a_query_is_named_in_the_table_and_its_downloads_and_minus_c_is_one_click_away(
        recorded_downloads):
    at = open_runs_page()
    at = open_tab(upload(at, ("results.test", (DATA / "results.test").read_bytes()),
                         ("no-302.test", without_query("302"))), "Compare runs")
    at.multiselect(key="many_measures").set_value(["P_10", "ndcg_cut_10"]).run()
    assert_no_failure(at)
    report = table_with(at, "judged queries it lacks")
    assert list(report["judged queries it lacks"]) == ["", "302"]
    # Over the queries both runs answer (301, 303): results.test's P_10 is 0.1000 here, 0.3000 alone (trec_eval).
    assert [cell.split(" ")[0] for cell in report["P_10"]] == ["0.1000", "0.1000"]
    warning = next(as_shown(w.value) for w in at.warning if "lacks" in w.value)
    assert "the 2 judged queries every run answers (301, 303)" in warning
    assert "Missing: no-302.test lacks 1 judged query (302)." in warning
    qrels = read_qrels(DATA / "qrels.test").to_dict()
    runs = {"results.test": read_run(DATA / "results.test").to_dict(), "no-302.test": read_run(without_query("302"))
            .to_dict()}
    engine = compare_many(qrels, runs, ["P_10", "ndcg_cut_10"], resamples=2000)
    assert recorded_downloads["Download the table (Markdown)"].decode() == report_table(
        engine, fmt="markdown", qrels_name="qrels.test")
    assert recorded_downloads["Download the table (LaTeX)"].decode() == report_table(
        engine, fmt="latex", qrels_name="qrels.test")
    assert "Missing: no-302.test lacks 1 judged query (302)." in as_shown(
        recorded_downloads["Download the table (Markdown)"].decode())  # its escapes read as Markdown reads them

    at.button(key="many_zero_missing").click().run()  # trec_eval -c: every judged query, 302 scoring 0
    assert_no_failure(at)
    assert at.session_state["runs_convention_missing_queries"] == "zero"
    report = table_with(at, "judged queries it lacks")
    assert [cell.split(" ")[0] for cell in report["P_10"]] == ["0.3000", "0.0667"]
    assert [cell.split(" ")[0] for cell in report["ndcg_cut_10"]][0] == "0.3016"  # trec_eval's own numbers
    assert any("a query a run lacks scores 0 for it" in as_shown(w.value) for w in at.warning)
    zero = compare_many(qrels, runs, ["P_10", "ndcg_cut_10"], resamples=2000, missing_queries="zero")
    assert recorded_downloads["Download the table (LaTeX)"].decode() == report_table(
        zero, fmt="latex", qrels_name="qrels.test")
    at.button(key="many_skip_missing").click().run()
    assert at.session_state["runs_convention_missing_queries"] == "skip"


def test_the_two_run_comparison_names_the_query_a_run_lacks_and_offers_minus_c():
    at = open_runs_page()
    at = open_tab(upload(at, ("results.test", (DATA / "results.test").read_bytes()),
                         ("no-302.test", without_query("302"))), "Compare runs")
    assert_no_failure(at)
    assert any("no-302.test lacks 1 judged query (302): left out of both means" in as_shown(w.value)
               for w in at.warning)
    at.button(key="compare_zero_missing").click().run()
    assert_no_failure(at)
    assert any("no-302.test lacks 1 judged query (302): scored 0 there (trec_eval -c)" in as_shown(w.value)
               for w in at.warning)
    assert next(m.value for m in at.metric if m.label == "queries compared") == "3"  # every judged query
