"""The run page's comparison of many runs and its checks in a real browser: a person uploads three runs, reads
the report table, downloads it as LaTeX, and asks whether a reported number is possible at all."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from metrics import aggregate, evaluate
from metrics.compare import compare_many, report_table
from metrics.io.trec import read_qrels, read_run
from tests.browser.support import RunsPage
from tests.support.paths import TEST_DATA

pytestmark = [
    pytest.mark.browser,
]

DATA = TEST_DATA / "trec_eval"


def test_three_runs_give_a_report_table_whose_latex_download_is_the_engines(runs_page: RunsPage, tmp_path) -> None:
    third = tmp_path / "every-third.run"
    third.write_text("\n".join(line for i, line in enumerate((DATA / "results.test").read_text().splitlines())
                               if i % 3) + "\n")
    runs_page.open()
    runs_page.upload(DATA / "qrels.test", DATA / "results.test", DATA / "results.trunc", third)
    runs_page.open_tab("Compare runs")
    report = runs_page.page.get_by_test_id("stDataFrame").filter(visible=True).first
    rows = runs_page.table_rows(report)
    assert [row["run"] for row in rows] == ["(a) results.test", "(b) results.trunc", "(c) every-third.run"]
    qrels = read_qrels(DATA / "qrels.test").to_dict()
    runs = {"results.test": read_run(DATA / "results.test").to_dict(),
            "results.trunc": read_run(DATA / "results.trunc").to_dict(), "every-third.run": read_run(third).to_dict()}
    assert [row["judged queries it lacks"] for row in rows] == ["", "302", ""]
    measures = [key for key in rows[0]
                if key not in ("run", "judged queries it lacks") and not key.endswith("interval")]
    # results.trunc lacks query 302: the means are over the two queries every run answers, and the page says so
    common = {qid: run for qid, run in runs["results.test"].items() if qid in runs["results.trunc"]}
    expected = aggregate(evaluate(qrels, common, [measures[0]]))[measures[0]]
    assert rows[0][measures[0]].split(" ")[0] == f"{expected:.4f}"
    runs_page.expect_message("Missing: results.trunc lacks 1 judged query (302)")

    button = runs_page.page.locator(".st-key-many_download_latex button")
    with runs_page.page.expect_download() as info:
        button.click()
    downloaded = Path(info.value.path()).read_text()
    engine = compare_many(qrels, runs, measures, resamples=2000, correction="holm")
    assert downloaded == report_table(engine, fmt="latex", qrels_name="qrels.test")
    runs_page.screenshot("report-table")
    runs_page.expect_no_traceback()


def test_is_a_reported_number_possible_before_any_upload(runs_page: RunsPage) -> None:
    runs_page.open()
    runs_page.page.get_by_text("Is a reported number possible at all?").click()
    box = runs_page.page.locator(".st-key-grim_value input")
    box.fill("0.4123")
    box.press("Enter")
    runs_page.wait_until_idle()
    runs_page.expect_message("Impossible")
    expect(runs_page.page.get_by_test_id("stAlert").filter(has_text="1/430")).to_be_visible()
    runs_page.expect_no_traceback()
