"""State that a link keeps, and a page that stays where the person is: a copied link in a new tab, the conventions
panel through its changes, and the list after opening an uploaded query: one walk, one page load. Each step waits
for the page's state."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.browser.support import ExplorerPage, chromium_missing_reason

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(chromium_missing_reason() is not None, reason=str(chromium_missing_reason())),
]

#: sweet pastry with muffin moved above bagel: AP@4 = (1/1 + 2/2) / 3; sorted by score again it would be 0.556.
MUFFIN_UP_AP = (1 / 1 + 2 / 2) / 3


def test_state_walk_conventions_panel_then_a_copied_link_then_an_uploaded_query(explorer: ExplorerPage,
                                                                                 browser_context, app_url,
                                                                                 tmp_path: Path) -> None:
    """One page load, three claims in turn (each step leaves the page as the next one needs it): the conventions
    panel stays open while its conventions change and reset; a link copied after moving muffin up opens the same
    list in a new tab; opening an uploaded query lands on its numbers and list."""
    explorer.open()
    sidebar = explorer.page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Conventions", exact=True).click()
    gain = explorer.page.locator(".st-key-convention_gain [role=combobox]")
    expect(gain).to_be_visible()
    # The first change adds "(changed)" to the panel's label, the second keeps it, the reset takes it away.
    explorer.rerun_after(lambda: explorer._pick("convention_gain", "exponential"))
    expect(sidebar.get_by_text("Conventions (changed)")).to_be_visible()
    expect(gain).to_be_visible()
    explorer.rerun_after(lambda: explorer._pick("convention_ap_denominator", "min_R_k"))
    expect(explorer.page.locator(".st-key-convention_ap_denominator [role=combobox]")).to_have_value("min_R_k")
    expect(gain).to_be_visible()
    explorer.rerun_after(lambda: explorer.page.locator(".st-key-reset_conventions button:visible").click())
    expect(sidebar.get_by_text("Conventions", exact=True)).to_be_visible()
    expect(gain).to_be_visible()
    expect(gain).to_have_value("linear")
    explorer.expect_no_traceback()

    # A link copied after moving muffin up opens the same list in a new tab.
    explorer.choose_document_to_move("3. muffin")
    explorer.rerun_after(lambda: explorer.press_move_button("move_up"))
    explorer.expect_metrics({"AP@4": MUFFIN_UP_AP})
    explorer.wait_for_url_parameter("order", "shown")
    explorer.wait_for_url_ranking(["donut", "muffin", "bagel", "croissant"])
    copied = explorer.page.url

    tab = ExplorerPage(browser_context.new_page(), app_url, artifact_prefix=explorer.artifact_prefix + "-new-tab")
    try:
        tab.page.goto(copied)
        tab.page.get_by_test_id("stMetric").first.wait_for()
        tab.expect_metrics({"AP@4": MUFFIN_UP_AP, "P@4": 2 / 4})
        assert tab.ranked_documents() == ["1. donut", "2. muffin", "3. bagel", "4. croissant"]
        tab.expect_no_traceback()
    finally:
        tab.page.close()

    # Opening an uploaded query lands on its numbers and list.
    qrels, run = tmp_path / "jam.qrels", tmp_path / "jam.run"
    qrels.write_text("jam 0 bagel 2\njam 0 muffin 1\njam 0 donut 1\n")
    run.write_text("jam Q0 pretzel 1 0.9 mine\njam Q0 bagel 2 0.85 mine\njam Q0 muffin 3 0.7 mine\n")
    explorer.load_trec_files(qrels, run, query="jam")  # far down the page, below the charts
    heading = explorer.page.get_by_role("heading", name="Ranked list · jam")
    expect(heading).to_be_visible()
    expect(heading).to_be_in_viewport()
    expect(explorer.metric_card("P@4")).to_be_in_viewport()
    expect(explorer.page.get_by_text("Open this query in the editor")).not_to_be_in_viewport()
    explorer.screenshot("opened-in-view")
    explorer.expect_no_traceback()


def test_back_and_forward_walk_the_edits(explorer: ExplorerPage) -> None:
    """Every edit is an entry of the browser's history and Back returns to the one before, each press visibly: the
    bare address shows the sample as opened (and gains no entry of its own), a move and a k change are undone one
    press each, Forward redoes them, and a visit to another page comes back to the list as left."""
    explorer.open()
    explorer.expect_metrics({"AP@4": 5 / 9})
    assert explorer.url_parameters() == {}  # the bare address is the sample as opened: no entry until an edit
    explorer.choose_document_to_move("3. muffin")
    explorer.rerun_after(lambda: explorer.press_move_button("move_up"))
    explorer.expect_metrics({"AP@4": MUFFIN_UP_AP})
    explorer.set_k(3)
    explorer.wait_for_url_parameter("k", "3")
    page = explorer.page

    explorer.rerun_after(page.go_back)  # k = 3 undone
    explorer.wait_for_url_parameter("k", "4")
    explorer.expect_metrics({"AP@4": MUFFIN_UP_AP})
    expect(page.get_by_role("spinbutton", name="k (cut-off)")).to_have_value("4")
    explorer.rerun_after(page.go_back)  # the move undone: sweet pastry as it opened
    explorer.expect_metrics({"AP@4": 5 / 9, "nDCG@4": 0.704})
    assert explorer.ranked_documents() == ["1. donut", "2. bagel", "3. muffin", "4. croissant"]
    explorer.rerun_after(page.go_forward)
    explorer.expect_metrics({"AP@4": MUFFIN_UP_AP})
    explorer.rerun_after(page.go_forward)
    explorer.wait_for_url_parameter("k", "3")
    explorer.expect_metrics({"AP@3": MUFFIN_UP_AP})  # donut, muffin in the top 3: (1/1 + 2/2) / 3

    # Another page and Back: the list as it was left.
    explorer.rerun_after(lambda: page.get_by_test_id("stSidebarNav").get_by_text("Evaluate a run").click())
    expect(page.get_by_role("heading", name="Evaluate a run")).to_be_visible()
    explorer.rerun_after(page.go_back)
    explorer.wait_for_url_parameter("k", "3")
    expect(explorer.metric_card("P@3")).to_be_visible()
    explorer.expect_metrics({"AP@3": MUFFIN_UP_AP})
    explorer.expect_no_traceback()


def test_the_readme_tour_with_back_after_each_step(explorer: ExplorerPage) -> None:
    """README's tour at 1280 x 900, Back pressed after each step: every step shows what the tour says, and every
    Back returns to the state before it (a newcomer never presses Back and sees nothing happen)."""
    page = explorer.page
    explorer.open()
    explorer.expect_metrics({"AP@4": 5 / 9, "nDCG@4": 0.704})

    # 1. Move muffin up: AP@4 0.556 -> 0.667, nDCG@4 0.704 -> 0.765; Back: as it opened.
    explorer.choose_document_to_move("3. muffin")
    explorer.rerun_after(lambda: explorer.press_move_button("move_up"))
    explorer.expect_metrics({"AP@4": MUFFIN_UP_AP, "nDCG@4": 0.765})
    explorer.rerun_after(page.go_back)
    explorer.expect_metrics({"AP@4": 5 / 9, "nDCG@4": 0.704})
    explorer.screenshot("tour-1-back")

    # 2. A swap cell of the heatmaps applies that swap; Back undoes it.
    explorer.open_whatif_tab("Swapping two ranks")
    heatmaps = explorer.swap_heatmaps()
    heatmaps.scroll_into_view()
    heatmaps.click("AP@4", i=2, j=3, tooltip_says="Swap rank 2 (bagel) and rank 3 (muffin)")
    explorer.expect_metrics({"AP@4": MUFFIN_UP_AP})
    explorer.rerun_after(page.go_back)
    explorer.expect_metrics({"AP@4": 5 / 9})
    assert explorer.ranked_documents() == ["1. donut", "2. bagel", "3. muffin", "4. croissant"]

    # 3. The gain moves no card on sweet pastry and the page says why; the tie order on the tied sample moves RR.
    page.get_by_test_id("stSidebar").get_by_text("Conventions", exact=True).click()
    explorer.rerun_after(lambda: explorer._pick("convention_gain", "exponential"))
    explorer.expect_message("No card changed, because the only grade here is 1")
    explorer.rerun_after(page.go_back)
    expect(page.locator(".st-key-convention_gain [role=combobox]")).to_have_value("linear")
    explorer.choose_sample("something to dunk in coffee (tied scores)")
    explorer.expect_metrics({"RR": 0.5, "AP@4": 1 / 3})
    explorer.rerun_after(lambda: explorer._pick("convention_tie_order", "docid_ascending"))
    explorer.expect_metrics({"RR": 1.0, "AP@4": 0.5})
    explorer.screenshot("tour-3-tie-order")
    explorer.rerun_after(page.go_back)
    explorer.expect_metrics({"RR": 0.5, "AP@4": 1 / 3})
    explorer.rerun_after(page.go_back)  # and the sample before it
    explorer.expect_metrics({"AP@4": 5 / 9, "nDCG@4": 0.704})

    # 4. The run page, and Back to the explorer as it was left.
    explorer.rerun_after(lambda: page.get_by_test_id("stSidebarNav").get_by_text("Evaluate a run").click())
    expect(page.get_by_role("heading", name="Evaluate a run")).to_be_visible()
    explorer.rerun_after(page.go_back)
    explorer.expect_metrics({"AP@4": 5 / 9, "nDCG@4": 0.704})
    explorer.expect_no_traceback()


def test_a_k_beyond_its_range_is_refused_beside_the_box(explorer: ExplorerPage) -> None:
    """The browser sends the typed k; the page refuses it beside the box, in the words a link gets, and keeps @4."""
    explorer.open()
    box = explorer.page.get_by_role("spinbutton", name="k (cut-off)")
    explorer.wait_until_idle()

    def type_a_million() -> None:
        box.fill("1000000")
        box.press("Enter")

    explorer.rerun_after(type_a_million)
    message = explorer.expect_error_message("k has to be a whole number from 1 to 10000, got 1000000")
    expect(message).to_be_in_viewport()
    expect(box).to_have_value("4")
    expect(explorer.metric_card("P@4")).to_be_visible()
    explorer.screenshot("k-refused")
    explorer.expect_no_traceback()
