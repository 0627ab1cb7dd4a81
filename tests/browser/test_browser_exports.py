"""A newcomer's path in a real browser: what the page shows is what its downloads reproduce.

Load the default sample, move muffin to rank 2 (README's own example), download the query, and run the snippet
(in a fresh interpreter) and the TREC files (through pytrec_eval): both print the page's numbers. The same for
the tie sample, where trec_eval's tie rule puts scone first. Also: the list does not move when a message about it
appears, and a value the table cannot read is refused with a message.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import pytrec_eval
from playwright.sync_api import expect

from metrics.export import trec_query_id
from tests.browser.support import ExplorerPage
from tests.support.paths import REPO

pytestmark = [
    pytest.mark.browser,
]

#: The page's card label of each measure the snippet prints.
LABELS = {"P_4": "P@4", "recall_4": "Recall@4", "recip_rank": "RR", "map_cut_4": "AP@4", "map": "AP",
          "ndcg_cut_4": "nDCG@4", "success_4": "Success@4"}


def download(explorer: ExplorerPage, key: str, folder: Path) -> Path:
    """Click the download button ``key`` (ui/explore/data_io.py) and keep the file."""
    expander = explorer.page.get_by_text("Download this query")
    if not explorer.page.locator(f".st-key-{key} button").first.is_visible():
        expander.click()
    button = explorer.page.locator(f".st-key-{key} button").first
    expect(button).to_be_visible()
    with explorer.page.expect_download() as info:
        button.click()
    path = folder / info.value.suggested_filename
    info.value.save_as(path)
    return path


def run_snippet(path: Path) -> dict[str, str]:
    """The snippet in a fresh interpreter: ``{card label: value}`` as it prints them (four decimals)."""
    done = subprocess.run([sys.executable, str(path)], cwd=REPO, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    return {LABELS[name]: value for name, _, value in (line.split("\t") for line in done.stdout.splitlines())}


def trec_files_through_pytrec_eval(qrels: Path, run: Path, qid: str) -> dict[str, float]:
    with qrels.open() as qrels_file, run.open() as run_file:
        judged, ranked = pytrec_eval.parse_qrel(qrels_file), pytrec_eval.parse_run(run_file)
    measures = {"P.4", "recall.4", "recip_rank", "map_cut.4", "map", "ndcg_cut.4", "success.4"}
    values = pytrec_eval.RelevanceEvaluator(judged, measures).evaluate(ranked)[trec_query_id(qid)]
    return {LABELS[name]: value for name, value in values.items()}


def assert_downloads_print_the_page(explorer: ExplorerPage, tmp_path: Path, qid: str) -> None:
    explorer.wait_until_idle()
    page = explorer.shown_metrics()
    snippet = run_snippet(download(explorer, "dl_python", tmp_path))
    assert {label: f"{float(value):.3f}" for label, value in snippet.items()} == page
    files = trec_files_through_pytrec_eval(download(explorer, "dl_qrels", tmp_path),
                                           download(explorer, "dl_run", tmp_path), qid)
    assert {label: f"{value:.3f}" for label, value in files.items()} == page


def _top_in_page(explorer: ExplorerPage) -> float:
    """The ranked list's top below the page title: reaching the move controls may scroll the page, which moves
    both alike."""
    grid = explorer.page.get_by_test_id("stDataFrame").first.bounding_box()
    title = explorer.page.get_by_role("heading", name="Explore a query").bounding_box()
    return grid["y"] - title["y"]


def test_moving_muffin_to_rank_2_then_downloading_reproduces_the_page(explorer: ExplorerPage, tmp_path: Path) -> None:
    explorer.open()
    grid_top = _top_in_page(explorer)
    explorer.choose_document_to_move("3. muffin")
    explorer.press_move_button("move_up")
    explorer.expect_metrics({"AP@4": 2 / 3, "nDCG@4": 0.7654})
    # The scores now contradict the order: the page says so in its status box, and the list has not moved.
    explorer.expect_message("The scores contradict this order")
    assert _top_in_page(explorer) == grid_top
    explorer.screenshot("muffin-second")
    assert_downloads_print_the_page(explorer, tmp_path, "sweet pastry")
    explorer.expect_no_traceback()


def test_the_tie_sample_downloads_reproduce_rr_one_half(explorer: ExplorerPage, tmp_path: Path) -> None:
    explorer.open()
    explorer.choose_sample("something to dunk in coffee (tied scores)")
    explorer.expect_metrics({"RR": 0.5})
    assert explorer.ranked_documents()[:2] == ["1. scone", "2. biscotti"]
    assert_downloads_print_the_page(explorer, tmp_path, "something to dunk in coffee")
    explorer.expect_no_traceback()


def test_a_score_the_table_cannot_read_is_refused_and_the_last_good_value_kept(explorer: ExplorerPage) -> None:
    explorer.open()
    explorer.type_in_cell(row=2, column="score", text="abc")
    explorer.expect_error_message("Edit refused, the last good value is kept")
    explorer.expect_error_message("score has to be a number, got 'abc'")
    assert explorer.url_parameters() == {}  # nothing changed: still the bare address of the sample as opened
    explorer.type_in_cell(row=2, column="grade", text="1.5")
    explorer.expect_error_message("grade has to be a whole number")
    assert explorer.url_parameters() == {}
    # The refused edits are gone from the grid, not pending: the next good edit applies alone.
    explorer.type_in_cell(row=2, column="grade", text="2")
    explorer.wait_for_url_parameter("qrels", "donut:1,muffin:1,scone:1,bagel:2")
    assert "bagel:0.9" in explorer.url_parameters()["ranking"].split(",")
    explorer.expect_no_traceback()


def test_a_download_clicked_as_a_rerun_starts_completes(explorer: ExplorerPage, tmp_path: Path) -> None:
    """Issue 22: a download clicked while an edit's rerun starts used to fail: first ("canceled") about 2 times in
    15, then, with files made on demand, one run in two, because the server forgets a callable's id when the run
    that replaced it ends, while the browser may still hold it. Each button now holds its file, named by its
    content (the run file's link is the same at every k) and kept until the end of the run after the one that
    replaced it, and a click does not rerun the page, so each of these downloads completes."""
    explorer.open()
    download(explorer, "dl_run", tmp_path)  # opens the downloads
    box = explorer.page.get_by_role("spinbutton", name="k (cut-off)")
    for k, key in ((3, "dl_run"), (4, "dl_csv"), (3, "dl_run"), (4, "dl_csv"), (3, "dl_run"), (4, "dl_csv")):
        button = explorer.page.locator(f".st-key-{key} button").first
        explorer.wait_until_idle()
        box.fill(str(k))
        with explorer.page.expect_download(timeout=60_000) as info:  # gives up on a download that never comes
            box.press("Enter")  # the rerun starts…
            button.click()  # …and the download is asked for at once
        assert info.value.failure() is None
        path = tmp_path / f"{key}-{k}.txt"
        info.value.save_as(path)
        lines = path.read_text().splitlines()
        if key == "dl_run":  # the same file at every k
            assert [line.split()[2] for line in lines] == ["donut", "bagel", "muffin", "croissant"]
        else:  # the metrics the page showed when clicked: at the k before, or already at the new one
            assert {line.split(",")[0] for line in lines[1:]} & {"P@3", "P@4"}, lines
        explorer.expect_metrics({f"P@{k}": 2 / k})  # donut and muffin are relevant
    explorer.expect_no_traceback()
