"""The "Evaluate a run" page in a real browser: a person uploads TREC files (or switches on the built-in
collection), reads the tables, checks a reported score and compares two runs.

Expected numbers come from trec_eval's own output for its test files (tests/data/trec_eval/out.test) or from the
engine on the same files; nothing is typed in by hand. With BROWSER_SCREENSHOTS=1, screenshots of each step land in
tests/artifacts/.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from metrics.bulk import evaluate_files, evaluate_tables
from metrics.compare import compare_values
from metrics.io.trec import TrecFormatError, read_run
from tests.browser.support import RunsPage, SentMessages
from tests.support.paths import TEST_DATA

pytestmark = [
    pytest.mark.browser,
]

DATA = TEST_DATA / "trec_eval"
QRELS = DATA / "qrels.test"
RESULTS = DATA / "results.test"


#: Streamlit's frontend finds its server by trying the page's own path as the base URL first, then its parent
#: (getPossibleBaseUris in its bundle, two candidates; streamlit/streamlit#7074, "expected behaviour"): a link
#: straight to /runs asks these two, gets 404 and connects at /. No page url_path or server setting changes that.
STREAMLIT_BASE_URL_PROBES = {"/runs/_stcore/health", "/runs/_stcore/host-config"}


def test_a_link_straight_to_the_run_page_opens_it_and_nothing_else_is_missing(runs_page: RunsPage) -> None:
    failed: list[str] = []

    def record(response) -> None:
        if response.status >= 400:
            failed.append(urlsplit(response.url).path)

    runs_page.page.on("response", record)
    try:
        runs_page.open()
        runs_page.expect_no_traceback()
    finally:
        runs_page.page.remove_listener("response", record)
    assert set(failed) <= STREAMLIT_BASE_URL_PROBES, f"missing on a link to /runs: {failed}"


def trec_eval_mean(measure: str) -> str:
    """The ``all`` line of trec_eval's output for its test files, e.g. ``"0.1785"`` for ``map``."""
    for line in (DATA / "out.test").read_text().splitlines():
        name, qid, value = line.split()
        if name == measure and qid == "all":
            return value
    raise LookupError(f"out.test has no 'all' line for {measure}")


def test_uploading_trec_evals_test_files_shows_its_means_and_every_query(runs_page: RunsPage) -> None:
    runs_page.open_from_the_sidebar()
    runs_page.expect_message("Upload qrels and at least one run")
    runs_page.upload(QRELS, RESULTS)

    means = runs_page.means_table()
    assert f"{float(means['map']):.4f}" == trec_eval_mean("map")
    assert f"{float(means['P_10']):.4f}" == trec_eval_mean("P_10")
    qids, values, _ = evaluate_files(QRELS, RESULTS, ["map"])
    rows = runs_page.per_query_table()
    assert [row["query"] for row in rows] == qids == ["301", "302", "303"]
    assert [float(row["map"]) for row in rows] == pytest.approx(values["map"].tolist(), abs=1e-12)
    expect(runs_page.page.get_by_text(f"{RESULTS.name}: {len(qids)} queries evaluated.")).to_be_visible()
    runs_page.chart("Per-query distribution of each measure")
    runs_page.screenshot("uploaded", whole_page=True)
    runs_page.expect_no_traceback()


def test_a_reported_ndcg_at_10_is_reproduced_by_trec_evals_defaults(runs_page: RunsPage) -> None:
    _, _, means = evaluate_files(QRELS, RESULTS, ["ndcg_cut.10"])
    reported = f"{means['ndcg_cut_10']:.4f}"
    runs_page.open()
    runs_page.upload(QRELS, RESULTS)
    runs_page.open_tab("Check a reported score")
    runs_page.check_reported_score("nDCG@10", reported)

    success = runs_page.page.get_by_test_id("stAlert").filter(has_text=re.compile(rf"reproduce {re.escape(reported)}"))
    expect(success).to_be_visible()
    findings = runs_page.table_rows(runs_page.visible_tables().last)
    assert "trec_eval defaults" in [row["conventions"] for row in findings]
    runs_page.screenshot("reproduced", whole_page=True)
    runs_page.expect_no_traceback()


def test_comparing_the_built_in_runs_shows_wins_ties_losses_and_the_differences(runs_page: RunsPage) -> None:
    from ui.runs.data import _built_in  # the collection the toggle loads

    collection = _built_in()
    per_query = {name: evaluate_tables(collection.qrels, run, ["ndcg_cut.10"]) for name, run in collection.runs.items()}
    samples, oracle = ({qid: value for qid, value in zip(qids, values["ndcg_cut_10"].tolist())}
                       for qids, values, _ in (per_query["samples"], per_query["oracle rerank"]))
    expected = compare_values(samples, oracle, measure="ndcg_cut_10")

    runs_page.open()
    runs_page.use_built_in_collection()
    runs_page.open_tab("Compare runs")
    runs_page.choose("compare_measure", "ndcg_cut_10")

    expect(runs_page.metric_card("B wins / ties / losses").get_by_test_id("stMetricValue")).to_have_text(
        f"{expected.wins} / {expected.ties} / {expected.losses}")
    expect(runs_page.metric_card("queries compared").get_by_test_id("stMetricValue")).to_have_text(
        str(len(expected.qids)))
    chart = runs_page.chart("Where oracle rerank beats samples, query by query")
    expect(chart.bars()).to_have_count(len(expected.qids))
    chart.scroll_into_view()
    runs_page.screenshot("compared")
    runs_page.expect_no_traceback()


def test_a_malformed_run_is_refused_with_its_line_and_no_traceback(runs_page: RunsPage, tmp_path: Path) -> None:
    broken = tmp_path / "broken.run"
    broken.write_text("301 Q0 FR940202-2-00124 1 4.2 mine\n301 Q0 FR940203-1-00020 2 3.9\n")
    with pytest.raises(TrecFormatError) as refusal:
        read_run(broken.read_bytes(), name=broken.name)
    assert "line 2" in str(refusal.value)

    runs_page.open()
    runs_page.upload(QRELS, broken)
    runs_page.expect_error_message(str(refusal.value))
    expect(runs_page.page.get_by_test_id("stDataFrame")).to_have_count(0)
    runs_page.screenshot("refused")
    runs_page.expect_no_traceback()


def test_judging_the_most_influential_hole_moves_the_means_the_page_shows(runs_page: RunsPage) -> None:
    from metrics.judging import find_holes, merge_judgments_table
    from ui.runs.data import _built_in

    collection = _built_in()
    (first, *_) = find_holes(collection.qrels, {"samples": collection.runs["samples"]}, "P.10", 10).holes
    judged = merge_judgments_table(collection.qrels, {(first.qid, first.doc): first.relevant_grade})
    _, _, before = evaluate_tables(collection.qrels, collection.runs["samples"], ["P.10"])
    _, _, after = evaluate_tables(judged, collection.runs["samples"], ["P.10"])
    assert after["P_10"] - before["P_10"] == pytest.approx(first.influence)

    runs_page.open()
    runs_page.use_built_in_collection()
    runs_page.open_tab("Judge the holes")
    assert runs_page.chosen_document().startswith(f"{first.qid} · {first.doc} ")
    runs_page.grade_the_chosen_document(first.relevant_grade)
    runs_page.expect_message("1 judgment added on this page")
    # The tab stays open: the next document can be graded straight away.
    expect(runs_page.page.get_by_role("tab", name="Judge the holes", exact=True)).to_have_attribute(
        "aria-selected", "true")
    expect(runs_page.metric_card("judgments added").get_by_test_id("stMetricValue")).to_have_text("1")
    expect(runs_page.page.locator(".st-key-judge_pick [role=combobox]")).not_to_have_value(
        re.compile(re.escape(f"{first.qid} · {first.doc} ")))  # the judged document left the list
    runs_page.screenshot("judged", whole_page=True)

    runs_page.open_tab("Per-query results")
    means = runs_page.means_table(showing={"P_10": float(after["P_10"])})
    assert float(means["P_10"]) == pytest.approx(after["P_10"], abs=1e-12)
    runs_page.expect_no_traceback()


def test_a_new_measure_starts_the_document_box_at_the_head_of_its_table(runs_page: RunsPage) -> None:
    from metrics.judging import find_holes
    from ui.runs.data import _built_in

    collection = _built_in()
    run = {"samples": collection.runs["samples"]}
    under_p10 = find_holes(collection.qrels, run, "P.10", 10).holes
    under_ndcg = find_holes(collection.qrels, run, "ndcg_cut.10", 10).holes
    runs_page.open()
    runs_page.use_built_in_collection()
    runs_page.open_tab("Judge the holes")
    kept = next(h for h in under_p10[1:] if h.qid != under_ndcg[0].qid or h.doc != under_ndcg[0].doc)
    runs_page.choose("judge_pick", f"{kept.qid} · {kept.doc} ({kept.influence:+.5f})")
    runs_page.choose("judge_measure", "ndcg_cut_10")
    # The box shows the document heading nDCG@10's table, with its nDCG@10 influence: never a document kept from
    # P@10 with P@10's influence beside it.
    head = under_ndcg[0]
    expect(runs_page.page.locator(".st-key-judge_pick [role=combobox]")).to_have_value(
        f"{head.qid} · {head.doc} ({head.influence:+.5f})")
    runs_page.expect_no_traceback()


#: What a change of k in "Judge the holes" sends, the tab rerun alone (measured: 31 deltas; 85 when the whole page
#: reran), and a change of the relevance threshold, which changes every number and reruns the whole page
#: (measured: 61 with the sidebar's conventions panel closed, which draws none of its 16 select boxes; 87 before).
MAX_K_CHANGE_DELTAS, MAX_THRESHOLD_CHANGE_DELTAS = 40, 75


def test_with_a_value_in_the_finder_a_k_change_reruns_the_holes_tab_alone(runs_page: RunsPage) -> None:
    with SentMessages(runs_page.page) as sent:
        runs_page.open()
        runs_page.use_built_in_collection()
        runs_page.open_tab("Check a reported score")
        runs_page.check_reported_score("nDCG@10", "0.5")
        runs_page.open_tab("Judge the holes")
        caption = runs_page.page.get_by_text(re.compile(r"unjudged documents? in the top \d+ of"))
        for k, key, most in ((5, "judge_k", MAX_K_CHANGE_DELTAS), (10, "judge_k", MAX_K_CHANGE_DELTAS),
                             (2, "runs_level", MAX_THRESHOLD_CHANGE_DELTAS),
                             (1, "runs_level", MAX_THRESHOLD_CHANGE_DELTAS)):
            sent.clear()
            box = runs_page.page.locator(f".st-key-{key} input")
            runs_page.rerun_after(lambda box=box, k=k: (box.fill(str(k)), box.press("Enter")))
            if key == "judge_k":
                expect(caption).to_contain_text(f"in the top {k} of")
            paths = [list(message.metadata.delta_path) for message in sent.deltas()]
            assert 0 < len(paths) <= most, (key, len(paths))
            if key == "judge_k":  # the sidebar (delta path 1, ...) is not sent again
                assert not [path for path in paths if path[:1] == [1]], paths
    expect(runs_page.page.locator(".st-key-check_value input")).to_have_count(0)  # the finder's tab stays closed
    runs_page.open_tab("Check a reported score")  # and keeps what was typed in it (issue 22: it came back empty)
    expect(runs_page.page.locator(".st-key-check_value input")).to_have_value("0.5")
    runs_page.expect_no_traceback()
