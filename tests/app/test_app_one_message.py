"""One message for one cause on the pages (issue 20): a JSON array in the explorer is JSON of the wrong shape, not a
TREC line; JSON qrels on the run page are read as JSON; a table CSV that is not UTF-8 is named;
a run sharing no query with the qrels gets one warning and no success; a NaN score on the ANN page is not a header."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.support import app_test, assert_no_failure, open_app, open_runs_page, open_tab
from tests.support.paths import TEST_DATA
from ui.common.text import shown

RUN = b"q1 Q0 d1 1 0.9 mine\nq1 Q0 d2 2 0.8 mine\n"


def messages(at: AppTest) -> list[tuple[str, str]]:
    return [(kind, shown(element.value)) for kind in ("error", "warning", "success")
            for element in getattr(at, kind)]


def test_a_json_array_in_the_explorer_is_told_its_shape_not_trec_columns():
    at = open_app()
    at.file_uploader(key="upload_qrels").set_value(("judged.json", b"[1, 2]", "application/json")).run()
    assert_no_failure(at)
    errors = [text for kind, text in messages(at) if kind == "error"]  # the sample list's own notes stay
    assert errors == ["judged.json: JSON qrels has to be an object {qid: {doc: grade}}, got list"]


def test_json_qrels_on_the_run_page_are_read_as_json():
    at = open_runs_page()
    at.file_uploader(key="runs_qrels").set_value(("judged.json", b'{"q1": {"d1": 1}}', "application/json"))
    at.file_uploader(key="runs_runs").set_value([("a.run", RUN, "text/plain")])
    at.run()
    assert_no_failure(at)
    assert messages(at) == []
    assert "a.run: 1 queries evaluated." in [shown(caption.value).replace("**", "") for caption in at.caption]


def test_a_table_csv_that_is_not_utf8_is_named_with_its_byte():
    at = open_runs_page()
    at.file_uploader(key="runs_qrels").set_value(("qrels.test", (TEST_DATA / "trec_eval" / "qrels.test").read_bytes(),
                                                  "text/plain"))
    at.file_uploader(key="runs_runs").set_value(
        [("results.test", (TEST_DATA / "trec_eval" / "results.test").read_bytes(), "text/plain")])
    at = open_tab(at.run(), "Check a reported score")
    at.file_uploader(key="table_check_csv").set_value(("scores.csv", b"run,measure,value\nr\xe9sults,map,0.1\n",
                                                       "text/csv")).run()
    assert_no_failure(at)
    assert ("error", "scores.csv: not UTF-8 text (byte 19); save the table of scores as UTF-8") in messages(at)


def test_a_run_sharing_no_query_with_the_qrels_gets_one_warning_and_no_success():
    at = open_runs_page()
    at.file_uploader(key="runs_qrels").set_value(("q.txt", b"q9 0 d1 1\n", "text/plain"))
    at.file_uploader(key="runs_runs").set_value([("a.run", RUN, "text/plain")])
    at.run()
    assert_no_failure(at)
    (kind, text), = messages(at)
    assert kind == "warning" and text.startswith("No query of a.run has judgments in the qrels")


def test_a_nan_score_on_the_ann_page_is_called_not_finite_not_a_header():
    at = app_test().run().switch_page("ui/ann/entry.py").run()
    at.segmented_control(key="ann_source").set_value("Your own runs").run()
    at.file_uploader(key="ann_exact_run").set_value(("exact.run", b"q1 Q0 d1 1 NaN exact\n", "text/plain"))
    at.file_uploader(key="ann_ann_run").set_value(("ann.run", RUN, "text/plain"))
    at.run()
    assert_no_failure(at)
    errors = [text for kind, text in messages(at) if kind == "error"]
    assert errors == ["exact.run line 1: score 'NaN' is not finite; the 5th column must be a finite decimal number "
                      "such as 12.5 or -3e-2"]
