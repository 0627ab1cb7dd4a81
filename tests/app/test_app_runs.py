"""The "Evaluate a run" page through AppTest: uploads, the per-query table, the finder and the comparison."""

from __future__ import annotations

import gzip
import re

import pytest
from streamlit.testing.v1 import AppTest

import metrics
from tests.app.support import assert_no_failure, open_run_conventions, open_runs_page, open_tab
from tests.support.paths import TEST_DATA
from ui.common.text import shown as as_shown  # what the page shows of a literal() message
from ui.runs.data import CONVENTIONS_OPEN as RUN_CONVENTIONS_OPEN

DATA = TEST_DATA / "trec_eval"
JAM_QRELS = b"jam 0 bagel 2\njam 0 croissant 2\njam 0 roll 2\njam 0 scone 1\njam 0 muffin 1\njam 0 donut 1\n"
JAM_RUN = b"jam Q0 pretzel 1 0.9 mine\njam Q0 bagel 2 0.85 mine\njam Q0 muffin 3 0.7 mine\njam Q0 donut 4 0.6 mine\n"


def upload(at: AppTest, qrels: tuple[str, bytes], *runs: tuple[str, bytes]) -> AppTest:
    at.file_uploader(key="runs_qrels").set_value((qrels[0], qrels[1], "text/plain"))
    at.file_uploader(key="runs_runs").set_value([(name, data, "text/plain") for name, data in runs])
    return at.run()


def finder_table(at: AppTest):
    """The finder's table of matching (or nearest) conventions; other tabs draw tables after it."""
    return next(frame.value for frame in at.dataframe if "used by" in frame.value.columns)


def test_the_page_asks_for_files_first():
    at = open_runs_page()
    assert_no_failure(at)
    assert any("Upload qrels" in info.value for info in at.info)


def test_trec_eval_test_files_give_trec_evals_means_and_a_per_query_table():
    at = open_runs_page()
    at = upload(at, ("qrels.test", (DATA / "qrels.test").read_bytes()),
                ("results.test", (DATA / "results.test").read_bytes()))
    assert_no_failure(at)
    means = at.dataframe[0].value.iloc[0]
    assert round(means["map"], 4) == 0.1785  # trec_eval's out.test: map all 0.1785
    assert round(means["recip_rank"], 4) == 0.4064
    per_query = at.dataframe[1].value
    assert list(per_query.index) == ["301", "302", "303"]
    assert any("3 queries evaluated" in c.value for c in at.caption)


def test_gzipped_uploads_and_the_query_filter():
    at = open_runs_page()
    at = upload(at, ("q.gz", gzip.compress((DATA / "qrels.test").read_bytes())),
                ("r.gz", gzip.compress((DATA / "results.test").read_bytes())))
    at.text_input(key="query_filter").input("30?").run()
    assert list(at.dataframe[1].value.index) == ["301", "302", "303"]
    at.text_input(key="query_filter").input("2").run()
    assert list(at.dataframe[1].value.index) == ["302"]
    at.text_input(key="query_filter").input("*3").run()
    assert list(at.dataframe[1].value.index) == ["303"]


def test_a_catastrophic_regular_expression_is_only_text_to_the_filter():
    """``^(a+)+$`` once held the whole server (every session) for 25 s on a 30-character qid. As text it finds the
    qid that holds it literally, and the hostile qid is not searched as a regular expression would search it (about
    2^40 steps on this 41-character qid: far past the page's time limit, where a 10 s limit was a race with the
    machine's load)."""
    hostile_qid, literal_qid = "a" * 40 + "!", "q^(a+)+$"
    qrels = "".join(f"{qid} 0 d 1\n" for qid in (hostile_qid, literal_qid)).encode()
    run = "".join(f"{qid} Q0 d 1 1.0 x\n" for qid in (hostile_qid, literal_qid)).encode()
    at = upload(open_runs_page(), ("qrels", qrels), ("run", run))
    at.text_input(key="query_filter").input("^(a+)+$").run()
    assert_no_failure(at)
    assert list(at.dataframe[1].value.index) == [literal_qid]
    assert any("1 queries shown" in c.value for c in at.caption)


def test_a_run_whose_queries_have_no_judgments_says_so_and_shows_no_means():
    at = open_runs_page()
    at = upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN.replace(b"jam ", b"marmalade ")))
    assert_no_failure(at)
    assert any("nothing to evaluate" in w.value for w in at.warning)
    assert not at.dataframe
    assert not [m.value for m in at.markdown if "Means over" in m.value]


def test_queries_missing_from_either_file_are_named():
    at = open_runs_page()
    at = upload(at, ("qrels", JAM_QRELS + b"other 0 x 1\n"), ("run", JAM_RUN + b"lonely Q0 y 1 1.0 mine\n"))
    assert_no_failure(at)
    notes = " ".join(c.value for c in at.caption)
    assert "1 run queries have no judgments" in notes and "lonely" in notes
    assert "1 judged queries are not in the run" in notes and "other" in notes


@pytest.mark.parametrize(
    "run, fragment",
    [
        (b"jam Q0 bagel 1\n", "line 1"),
        (b"jam Q0 bagel 1 nan mine\n", "line 1"),
        (b"jam Q0 bagel 1 0.5 mine\njam Q0 bagel 2 0.4 mine\n", "bagel"),
        (b"", "empty"),
    ],
)
def test_a_bad_run_gets_a_clear_message(run, fragment):
    at = open_runs_page()
    at = upload(at, ("qrels", JAM_QRELS), ("bad.run", run))
    assert_no_failure(at)
    assert any(fragment in e.value for e in at.error), [e.value for e in at.error]


def test_the_finder_names_exponential_gain_for_0_4138_on_the_jam_query():
    at = open_runs_page()
    at = open_tab(upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN)), "Check a reported score")
    at.text_input(key="check_measure").input("nDCG@4").run()
    at.text_input(key="check_value").input("0.4138").run()
    assert_no_failure(at)
    assert any("reproduce 0.4138" in as_shown(s.value) for s in at.success)
    table = finder_table(at)
    assert table["conventions"].iloc[0] == "gain=exponential"


def test_the_finder_writes_out_how_each_match_differs_from_trec_eval_in_full():
    at = open_runs_page()
    at = open_tab(upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN)), "Check a reported score")
    at.text_input(key="check_measure").input("nDCG@4").run()
    at.text_input(key="check_value").input("0.4138").run()
    assert "how it differs from trec_eval" not in finder_table(at).columns  # a grid cell cut the text off
    (explained,) = [re.sub(r"\\(.)", r"\1", m.value) for m in at.markdown if m.value.startswith("- **gain")]
    # The whole explanation, as text that wraps, down to its last sentence.
    assert explained.startswith("- **gain=exponential** (0.4138): Gain of a graded judgment: gain = 2^grade - 1")
    # The tools come from their profiles (the literal text keeps "@" inert with a word joiner).
    assert explained.replace("\u2060", "").endswith("LightGBM ndcg@k, XGBoost ndcg, XGBoost ndcg@k.")


def test_the_finder_says_which_tool_is_not_named_and_why():
    # The run retrieves a document named as its query: BEIR drops it (ignore_identical_ids); trec_eval prints 4
    # decimals, so a 5-decimal value is not its.
    at = open_runs_page()
    run = JAM_RUN + b"jam Q0 jam 5 0.5 mine\n"
    at = open_tab(upload(at, ("qrels", JAM_QRELS), ("run", run)), "Check a reported score")
    at.text_input(key="check_measure").input("nDCG@10").run()
    at.text_input(key="check_value").input("0.40337").run()
    assert_no_failure(at)
    lines = "\n".join(as_shown(m.value) for m in at.markdown if "not named" in m.value)
    assert "- BEIR EvaluateRetrieval.evaluate: not named: query jam retrieves a document of its own id" in lines
    assert "- trec_eval 10.0: not named: it gives 4 decimals, so 0.4034 here, which 0.40337 is not" in lines


def test_the_finder_shows_the_nearest_values_when_nothing_matches():
    at = open_runs_page()
    at = open_tab(upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN)), "Check a reported score")
    at.text_input(key="check_measure").input("nDCG@4").run()
    at.text_input(key="check_value").input("0.99").run()
    assert any("No combination" in w.value for w in at.warning)
    assert len(finder_table(at)) >= 1


def test_a_bad_measure_or_value_in_the_finder_is_explained():
    at = open_runs_page()
    at = open_tab(upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN)), "Check a reported score")
    at.text_input(key="check_measure").input("nDCG@x").run()
    at.text_input(key="check_value").input("0.4").run()
    assert any("measure" in e.value for e in at.error)
    at.text_input(key="check_measure").input("nDCG@4").run()
    at.text_input(key="check_value").input("abc").run()
    assert any("not a number" in e.value for e in at.error)


def test_comparing_two_runs_reports_wins_and_p_values_like_the_engine():
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    at = open_tab(at, "Compare runs")
    assert_no_failure(at)
    values = {m.label: m.value for m in at.metric}
    assert values["B wins / ties / losses"].count("/") == 2
    assert values["queries compared"] == "8"
    charts = at.get("plotly_chart")
    assert len(charts) == 1  # the sorted differences (the distribution is drawn on the per-query tab)


def test_changing_conventions_in_the_sidebar_re_evaluates():
    at = open_runs_page()
    at = upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN))
    at.multiselect(key="runs_measures").set_value(["ndcg_cut.4"]).run()
    assert round(at.dataframe[0].value.iloc[0]["ndcg_cut_4"], 4) == 0.4672
    assert not at.sidebar.selectbox  # the conventions' boxes are drawn only while their panel is open
    at = open_run_conventions(at)
    at.selectbox(key="runs_convention_gain").select("exponential").run()
    assert round(at.dataframe[0].value.iloc[0]["ndcg_cut_4"], 4) == 0.4138
    assert any("gain=exponential" in m.value for m in at.markdown)
    assert at.sidebar.selectbox(key="runs_convention_gain").value == "exponential"  # the panel stays open
    at.session_state[RUN_CONVENTIONS_OPEN] = False  # closed, the panel's choices still hold, and it says which
    at.run()
    assert not at.sidebar.selectbox
    assert "Changed: gain=exponential" in [as_shown(c.value) for c in at.sidebar.caption]
    assert round(at.dataframe[0].value.iloc[0]["ndcg_cut_4"], 4) == 0.4138
    at = open_run_conventions(at)
    assert at.selectbox(key="runs_convention_gain").value == "exponential"
    # torchmetrics' rule: donut, relevant and scored exactly 0, keeps rank 4 but no longer counts as relevant.
    at = upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN.replace(b"0.6 mine", b"0 mine")))
    at.multiselect(key="runs_measures").set_value(["P.4"]).run()
    assert at.dataframe[0].value.iloc[0]["P_4"] == 0.75
    at.selectbox(key="runs_convention_nonpositive_scores").select("not_relevant").run()
    assert at.dataframe[0].value.iloc[0]["P_4"] == 0.5
    assert any("nonpositive_scores=not_relevant" in m.value for m in at.markdown)


def test_the_trec_eval_build_box_sets_that_builds_conventions_and_the_readout_names_it():
    at = open_runs_page()
    at = upload(at, ("qrels.test", (DATA / "qrels.test").read_bytes()),
                ("results.test", (DATA / "results.test").read_bytes()))
    at.multiselect(key="runs_measures").set_value(["iprec_at_recall.0.1"]).run()
    assert "trec_eval 9.0.8's numbers (the default)." in [c.value for c in at.sidebar.caption]
    assert round(at.dataframe[0].value.iloc[0]["iprec_at_recall_0.10"], 4) == 0.3884  # trec_eval 9.0.8 prints it
    at = open_run_conventions(at)
    at.sidebar.selectbox(key="runs_trec_eval").select("10.0").run()
    assert at.sidebar.selectbox(key="runs_convention_score_precision").value == "float64"
    assert at.sidebar.selectbox(key="runs_convention_recall_cutoff").value == "round"
    assert "trec_eval 10.0's numbers." in [c.value for c in at.sidebar.caption]
    assert round(at.dataframe[0].value.iloc[0]["iprec_at_recall_0.10"], 4) == 0.3885  # out.test of trec_eval 10.0
    at.sidebar.selectbox(key="runs_convention_recall_cutoff").select("plus_0.9").run()
    assert any(c.value.startswith("No trec_eval build gives these numbers") for c in at.sidebar.caption)


def test_convention_options_are_short_names_with_the_chosen_meaning_written_under_the_box():
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    at = open_run_conventions(at)
    gain = at.sidebar.selectbox(key="runs_convention_gain")
    # Short names fit a 240 px sidebar; no "linear — gain = …" cut.
    assert gain.options == ["linear", "exponential", "binary", "thresholded"]
    assert "gain = grade (Järvelin & Kekäläinen)" in [c.value for c in at.sidebar.caption]
    gain.select("exponential").run()
    assert "gain = 2^grade - 1 (Burges et al.)" in [c.value for c in at.sidebar.caption]
    assert "Burges et al." in at.sidebar.selectbox(key="runs_convention_gain").help  # every choice, in the help


def test_opening_a_query_in_the_explorer_switches_page_with_its_list_at_the_run_pages_k():
    at = open_runs_page()
    at = upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN))
    at.button(key="results_open").click().run()
    assert_no_failure(at)
    # The default measures cut at 10 (P.10, ndcg_cut.10): the explorer opens at k = 10, not at its sample's k = 4.
    assert at.number_input(key="k_input").value == 10
    assert [m.label for m in at.metric][:1] == ["P@10"]
    expected = metrics.evaluate({"jam": {"bagel": 2, "croissant": 2, "roll": 2, "scone": 1, "muffin": 1, "donut": 1}},
                                {"jam": {"pretzel": 0.9, "bagel": 0.85, "muffin": 0.7, "donut": 0.6}},
                                ["ndcg_cut.10"])["jam"]["ndcg_cut_10"]
    assert {m.label: m.value for m in at.metric}["nDCG@10"] == f"{expected:.3f}"


def test_a_query_opens_at_the_cut_off_of_the_measures_being_read():
    at = open_runs_page()
    at = upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN))
    at.multiselect(key="runs_measures").set_value(["ndcg_cut.20", "P.20", "map"]).run()
    at.button(key="results_open").click().run()
    assert_no_failure(at)
    assert at.number_input(key="k_input").value == 20


def test_the_comparison_opens_a_query_at_the_compared_measures_cut_off():
    at = open_runs_page()
    at.toggle(key="runs_use_samples").set_value(True).run()
    at = open_tab(at, "Compare runs")
    at.selectbox(key="compare_measure").select("success_1").run()
    qid = at.selectbox(key="compare_qid").value
    at.button(key=f"open_samples_{qid}").click().run()
    assert_no_failure(at)
    assert at.number_input(key="k_input").value == 1


def test_every_run_builds_its_own_page_objects():
    """st.Page objects hold per-run state; objects shared by every session raced when two sessions reran at once."""
    import app
    from ui.common import pages

    first, second = app.build_pages(), app.build_pages()
    assert not {id(page) for page in first} & {id(page) for page in second}
    for module in (app, pages):
        assert not [name for name, value in vars(module).items() if type(value).__name__ in ("Page", "StreamlitPage")]


def test_the_page_states_the_upload_limit_where_the_uploaders_are():
    """A file over the uploader's limit never reaches the app (the uploader says why only in a tooltip)."""
    at = open_runs_page()
    assert any("up to 256 MiB" in c.value and "python -m metrics" in c.value for c in at.caption)


def test_the_finder_says_how_a_name_from_another_tool_was_read():
    at = open_runs_page()
    at = open_tab(upload(at, ("qrels", JAM_QRELS), ("run", JAM_RUN)), "Check a reported score")
    at.text_input(key="check_measure").input("NDCG@4").run()
    at.text_input(key="check_value").input("0.4138").run()
    assert_no_failure(at)
    notes = [as_shown(c.value) for c in at.caption if as_shown(c.value).startswith("NDCG@4: read as")]
    assert notes and "sentence-transformers" in notes[0]
    assert any("reproduce 0.4138" in as_shown(s.value) for s in at.success)  # the finder tried the other gains
