"""The explorer in a real browser: Debian's Chromium, driven by Playwright, against `streamlit run app.py`.

Each test does what a person would do on the page and checks the numbers the metric cards show. The expected
values are the seed's worked examples, written as the fractions they come from. With BROWSER_SCREENSHOTS=1 a
screenshot of every step lands in tests/artifacts/ (git-ignored) for a look by eye.
"""

from __future__ import annotations

from math import log2
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from playwright.sync_api import expect

from metrics.samples import load_samples
from tests.browser.support import ExplorerPage

pytestmark = [
    pytest.mark.browser,
]

#: "sweet pastry": donut .95, bagel .9, muffin .8, croissant .7; donut, muffin and scone relevant; k = 4.
PASTRY = {
    "P@4": 2 / 4,
    "Recall@4": 2 / 3,
    "RR": 1 / 1,
    "AP@4": (1 / 1 + 2 / 3) / 3,
    "nDCG@4": (1 + 1 / log2(4)) / (1 + 1 / log2(3) + 1 / log2(4)),
    "Success@4": 1.0,
}


def test_the_page_opens_on_sweet_pastry_then_judging_bagel_and_removing_muffin_move_its_numbers(
        explorer: ExplorerPage) -> None:
    the_page_opens_on_the_sweet_pastry_sample_with_its_numbers(explorer)
    removing_muffin_drops_recall_and_putting_it_back_restores_it(explorer)
    judging_bagel_relevant_in_the_grid_raises_precision_to_three_of_four(explorer)
    undo_gives_back_sweet_pastry(explorer)


def test_moving_documents_then_choosing_another_sample(explorer: ExplorerPage) -> None:
    explorer.open()
    moving_muffin_up_one_rank_raises_ap_and_ndcg_but_not_precision_recall_or_rr(explorer)
    undo_gives_back_sweet_pastry(explorer)
    typing_rank_one_and_pressing_move_puts_croissant_on_top(explorer)
    undo_gives_back_sweet_pastry(explorer)
    after_choosing_another_sample_the_move_box_names_its_first_document(explorer)


# ---- the steps of those two walks: each starts from sweet pastry as it opens (or as Undo gives it back) -----


def undo_gives_back_sweet_pastry(explorer: ExplorerPage) -> None:
    explorer.rerun_after(explorer.press_undo)
    explorer.wait_for_url_ranking(["donut", "bagel", "muffin", "croissant"])
    explorer.wait_for_url_parameter("qrels", "donut:1,muffin:1,scone:1")
    explorer.expect_metrics(PASTRY)


def the_page_opens_on_the_sweet_pastry_sample_with_its_numbers(explorer: ExplorerPage) -> None:
    explorer.open()
    explorer.expect_heading("Ranked list · sweet pastry")
    explorer.expect_metrics(PASTRY)
    explorer.expect_no_traceback()
    explorer.screenshot("opened", whole_page=True)
    assert explorer.url_parameters() == {}  # the bare address is the sample as opened, until the first edit


def judging_bagel_relevant_in_the_grid_raises_precision_to_three_of_four(explorer: ExplorerPage) -> None:
    explorer.type_in_cell(row=2, column="grade", text="1")
    # bagel joins donut and muffin in the top 4, and there are now four relevant documents (scone unretrieved).
    explorer.expect_metrics({
        "P@4": 3 / 4,
        "Recall@4": 3 / 4,
        "RR": 1.0,
        "AP@4": (1 / 1 + 2 / 2 + 3 / 3) / 4,
        "nDCG@4": (1 + 1 / log2(3) + 1 / log2(4)) / (1 + 1 / log2(3) + 1 / log2(4) + 1 / log2(5)),
        "Success@4": 1.0,
    })
    explorer.screenshot("bagel-judged")
    explorer.wait_for_url_parameter("qrels", "donut:1,muffin:1,scone:1,bagel:1")
    explorer.expect_no_traceback()


def moving_muffin_up_one_rank_raises_ap_and_ndcg_but_not_precision_recall_or_rr(explorer: ExplorerPage) -> None:
    explorer.choose_document_to_move("3. muffin")
    explorer.press_move_button("move_up")
    explorer.expect_metrics({
        "P@4": PASTRY["P@4"],
        "Recall@4": PASTRY["Recall@4"],
        "RR": PASTRY["RR"],
        "AP@4": (1 / 1 + 2 / 2) / 3,
        "nDCG@4": (1 + 1 / log2(3)) / (1 + 1 / log2(3) + 1 / log2(4)),
    })
    explorer.wait_for_url_ranking(["donut", "muffin", "bagel", "croissant"])
    explorer.screenshot("muffin-moved-up")
    explorer.expect_no_traceback()


def typing_rank_one_and_pressing_move_puts_croissant_on_top(explorer: ExplorerPage) -> None:
    explorer.choose_document_to_move("4. croissant")
    explorer.move_to_rank(1)
    explorer.wait_for_url_ranking(["croissant", "donut", "bagel", "muffin"])
    # The first relevant document is now at rank 2; the same two relevant documents stay in the top 4.
    explorer.expect_metrics({
        "P@4": PASTRY["P@4"],
        "RR": 1 / 2,
        "AP@4": (1 / 2 + 2 / 4) / 3,
    })
    explorer.screenshot("croissant-on-top")


def after_choosing_another_sample_the_move_box_names_its_first_document(explorer: ExplorerPage) -> None:
    lunch = next(sample for sample in load_samples() if sample.slug == "suitable-for-lunch")
    explorer.choose_sample(lunch.title)
    explorer.wait_for_url_ranking([doc for doc, _ in lunch.ranking])
    explorer.screenshot("lunch-chosen")
    assert explorer.document_to_move() == f"1. {lunch.ranking[0][0]}"


def removing_muffin_drops_recall_and_putting_it_back_restores_it(explorer: ExplorerPage) -> None:
    explorer.toggle_removed(row=3)
    explorer.expect_metrics({"P@4": 1 / 4, "Recall@4": 1 / 3, "AP@4": 1 / 3})
    explorer.wait_for_url_parameter("removed", "3")
    explorer.screenshot("muffin-removed")
    # A removed document leaves the numbering and waits below the list: muffin is now row 4, without a rank.
    explorer.toggle_removed(row=4)
    explorer.expect_metrics(PASTRY)
    explorer.wait_for_url_parameter("removed", None)
    explorer.screenshot("muffin-back")
    explorer.expect_no_traceback()


@pytest.mark.parametrize("path", ["/", "/explore"], ids=["root", "explore"])
def test_a_link_with_a_ranking_opens_that_ranking(explorer: ExplorerPage, path: str) -> None:
    """``/explore`` (a natural guess, and older links) opens the explorer at ``/`` with the link's query."""
    explorer.open("ranking=donut,muffin,bagel,croissant&qrels=donut:1,muffin:1,scone:1&k=4", path=path)
    explorer.expect_metrics({
        "P@4": 2 / 4,
        "Recall@4": 2 / 3,
        "RR": 1.0,
        "AP@4": (1 / 1 + 2 / 2) / 3,
        "nDCG@4": (1 + 1 / log2(3)) / (1 + 1 / log2(3) + 1 / log2(4)),
    })
    explorer.page.wait_for_url(lambda url: urlsplit(url).path == "/")
    assert explorer.url_parameters()["qrels"] == "donut:1,muffin:1,scone:1"
    expect(explorer.page.get_by_text("Page not found")).to_have_count(0)
    explorer.expect_no_traceback()
    explorer.screenshot("from-link")


@pytest.mark.parametrize(
    ("query_string", "complaint"),
    [
        ("ranking=a,a&qrels=a:x", "grade has to be a whole number"),
        ("ranking=a,a&qrels=a:1", "is at rank 1 and again at rank 2"),
    ],
    ids=["grade-not-a-number", "document-twice"],
)
def test_a_broken_link_explains_itself_and_shows_the_default_sample(
    explorer: ExplorerPage, query_string: str, complaint: str
) -> None:
    explorer.open(query_string)
    message = explorer.expect_error_message("The link could not be opened")
    assert complaint in message.inner_text()
    explorer.expect_heading("Ranked list · sweet pastry")
    explorer.expect_metrics(PASTRY)
    explorer.expect_no_traceback()
    explorer.screenshot("broken-link")


def test_uploading_trec_qrels_and_run_opens_the_chosen_query(explorer: ExplorerPage, tmp_path: Path) -> None:
    qrels = tmp_path / "breakfast.qrels"
    qrels.write_text(
        "breakfast 0 porridge 1\nbreakfast 0 toast 2\n"
        "jam 0 bagel 2\njam 0 croissant 2\njam 0 roll 2\njam 0 scone 1\njam 0 muffin 1\njam 0 donut 1\n"
    )
    run = tmp_path / "mine.run"
    run.write_text(
        "breakfast Q0 toast 1 2.0 mine\nbreakfast Q0 porridge 2 1.0 mine\n"
        "jam Q0 pretzel 1 0.9 mine\njam Q0 bagel 2 0.85 mine\njam Q0 muffin 3 0.7 mine\njam Q0 donut 4 0.6 mine\n"
    )
    explorer.open()
    explorer.load_trec_files(qrels, run, query="jam")
    explorer.expect_heading("Ranked list · jam")
    explorer.wait_for_url_ranking(["pretzel", "bagel", "muffin", "donut"])
    # pretzel is unjudged; bagel (2), muffin (1) and donut (1) are three of six relevant documents; k stays 4.
    explorer.expect_metrics({
        "P@4": 3 / 4,
        "Recall@4": 3 / 6,
        "RR": 1 / 2,
        "AP@4": (1 / 2 + 2 / 3 + 3 / 4) / 6,
        "nDCG@4": (2 / log2(3) + 1 / log2(4) + 1 / log2(5)) / (2 + 2 / log2(3) + 2 / log2(4) + 1 / log2(5)),
        "Success@4": 1.0,
    })
    explorer.expect_no_traceback()
    explorer.screenshot("jam-opened", whole_page=True)
