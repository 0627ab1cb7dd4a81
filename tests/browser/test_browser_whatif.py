"""The "What if…" charts in a real browser: a person hovers and clicks the charts and reads what changed.

Clicking a swap-heatmap cell swaps those two ranks, clicking a removal bar removes that item, and Undo takes either
back; typing another k moves the k chart's marked cut-off. Two walks, the heatmaps and then the bars and the k chart,
try them one after another as a person would, each click undone before the next: a page loaded once per walk, not
once per check. Expected numbers are written as the fractions they come from; the starting list is the "sweet
pastry" sample (donut, bagel, muffin, croissant; donut, muffin and scone relevant; k = 4). With
BROWSER_SCREENSHOTS=1, screenshots of each step land in tests/artifacts/.
"""

from __future__ import annotations

from math import log2

import pytest
from playwright.sync_api import expect

from tests.browser.support import ExplorerPage
from tests.browser.test_browser import PASTRY

pytestmark = [
    pytest.mark.browser,
]

PASTRY_ORDER = ["donut", "bagel", "muffin", "croissant"]
IDEAL_DCG = 1 + 1 / log2(3) + 1 / log2(4)  # three relevant documents, one grade each


def test_the_swap_heatmaps_hover_click_and_undo_under_the_clicked_chart(explorer: ExplorerPage) -> None:
    explorer.open()
    explorer.open_whatif_tab("Swapping two ranks")
    resting_the_mouse_on_a_swap_cell_names_both_documents_and_the_change(explorer)
    clicking_the_ap_cell_for_ranks_2_and_3_swaps_bagel_and_muffin_until_undo(explorer)
    the_confirmation_and_its_undo_appear_under_the_clicked_heatmap_in_sight(explorer)
    explorer.expect_no_traceback()


LAPTOP = {"width": 1280, "height": 900}


def test_a_swap_clicked_with_the_chart_at_the_foot_of_a_1280_by_900_view_has_its_undo_in_sight(
        explorer: ExplorerPage) -> None:
    explorer.page.set_viewport_size(LAPTOP)
    explorer.open()
    explorer.open_whatif_tab("Swapping two ranks")
    heatmaps = explorer.swap_heatmaps()
    # The reader scrolls until the whole chart shows, its foot at the foot of the view, and clicks a cell of its
    # lower row where it is: what is under the chart (its downloads, the confirmation) is then below the fold.
    heatmaps.graph.evaluate("chart => chart.scrollIntoView({block: 'end', behavior: 'instant'})")
    heatmaps.click("AP@4", i=2, j=3, tooltip_says="Swap rank 2 (bagel) and rank 3 (muffin)", where_it_is=True)
    explorer.wait_for_url_ranking(["donut", "muffin", "bagel", "croissant"])
    confirmation = explorer.whatif_confirmation()
    expect(confirmation).to_contain_text("Swapping ranks 2 and 3 (bagel and muffin): applied")
    undo = explorer.page.locator(".st-key-whatif_undo button:visible")
    explorer.wait_until_idle()
    box = undo.bounding_box()
    assert box is not None and 0 <= box["y"] and box["y"] + box["height"] <= LAPTOP["height"], box
    explorer.screenshot("undo-in-sight-1280x900")
    explorer.press_whatif_undo()  # a click Playwright makes only where the button is the element hit
    explorer.wait_for_url_ranking(PASTRY_ORDER)
    expect(confirmation).to_contain_text("Undid the last change")
    expect(confirmation).to_be_in_viewport()
    explorer.expect_no_traceback()


def test_the_removal_bars_and_the_k_chart(explorer: ExplorerPage) -> None:
    explorer.open()
    explorer.open_whatif_tab("Removing a document")
    clicking_donuts_removal_bar_removes_it_until_undo(explorer)
    removing_an_item_from_its_bar_confirms_under_the_bars(explorer)
    typing_k_3_moves_the_k_charts_marked_cut_off_to_3(explorer)
    explorer.expect_no_traceback()


# ---- the steps, each from the sweet pastry list as it opens (or as Undo gives it back) ------------------------


def resting_the_mouse_on_a_swap_cell_names_both_documents_and_the_change(explorer: ExplorerPage) -> None:
    # Swapping donut (rank 1) and croissant (rank 4): the relevant documents sit at ranks 3 and 4.
    after = (1 / log2(4) + 1 / log2(5)) / IDEAL_DCG
    tooltip = explorer.swap_heatmaps().hover("nDCG@4", i=1, j=4)
    expect(tooltip).to_contain_text("Swap rank 1 (donut) and rank 4 (croissant)")
    expect(tooltip).to_contain_text(f"nDCG@4: {PASTRY['nDCG@4']:.3f} → {after:.3f} ({after - PASTRY['nDCG@4']:+.3f})")
    explorer.screenshot("tooltip")
    # Hovering changes nothing: the address is still the bare one of the sample as opened.
    explorer.expect_metrics(PASTRY)
    assert explorer.url_parameters() == {}


def clicking_the_ap_cell_for_ranks_2_and_3_swaps_bagel_and_muffin_until_undo(explorer: ExplorerPage) -> None:
    heatmaps = explorer.swap_heatmaps()
    expect(heatmaps.panel_title("AP@4 (now")).to_have_text(f"AP@4 (now {PASTRY['AP@4']:.3f})")
    heatmaps.scroll_into_view()
    explorer.screenshot("heatmaps")

    heatmaps.click("AP@4", i=2, j=3, tooltip_says="Swap rank 2 (bagel) and rank 3 (muffin)")

    # muffin (relevant) now at rank 2: AP gains its precision 2/2 instead of 2/3; P, recall and RR stay.
    explorer.wait_for_url_ranking(["donut", "muffin", "bagel", "croissant"])
    explorer.expect_metrics({
        "P@4": PASTRY["P@4"],
        "Recall@4": PASTRY["Recall@4"],
        "RR": PASTRY["RR"],
        "AP@4": (1 / 1 + 2 / 2) / 3,
        "nDCG@4": (1 + 1 / log2(3)) / IDEAL_DCG,
    })
    explorer.expect_message("Swapping ranks 2 and 3 (bagel and muffin): applied")
    assert explorer.ranked_documents() == ["1. donut", "2. muffin", "3. bagel", "4. croissant"]
    expect(explorer.swap_heatmaps().panel_title("AP@4 (now")).to_have_text(f"AP@4 (now {(1 / 1 + 2 / 2) / 3:.3f})")
    explorer.screenshot("swapped", whole_page=True)

    explorer.press_undo()
    explorer.wait_for_url_ranking(PASTRY_ORDER)
    explorer.expect_metrics(PASTRY)
    explorer.expect_message("Undid the last change")
    assert explorer.ranked_documents() == [f"{rank}. {doc}" for rank, doc in enumerate(PASTRY_ORDER, start=1)]
    explorer.screenshot("undone")


def the_confirmation_and_its_undo_appear_under_the_clicked_heatmap_in_sight(explorer: ExplorerPage) -> None:
    heatmaps = explorer.swap_heatmaps()
    heatmaps.scroll_into_view()
    heatmaps.click("AP@4", i=2, j=3, tooltip_says="Swap rank 2 (bagel) and rank 3 (muffin)")

    explorer.wait_for_url_ranking(["donut", "muffin", "bagel", "croissant"])
    confirmation = explorer.whatif_confirmation()
    expect(confirmation).to_contain_text("Swapping ranks 2 and 3 (bagel and muffin): applied")
    expect(confirmation).to_be_in_viewport()  # where the reader is looking, not at the top of the page
    chart = explorer.swap_heatmaps().graph.bounding_box()
    below = confirmation.bounding_box()
    assert chart is not None and below is not None
    assert chart["y"] + chart["height"] - 5 <= below["y"] <= chart["y"] + chart["height"] + 150, (chart, below)
    # The chart is drawn anew after each edit: its container keeps its height meanwhile (ui/explore/whatif.py
    # STEADY_SWAP_CHART), or the page shrinks under the reader and the confirmation leaves the view.
    floor = explorer.swap_heatmaps().graph.evaluate(
        "chart => parseFloat(getComputedStyle(chart.closest('.st-key-swap_chart')).minHeight)")
    assert chart["height"] - 5 <= floor <= chart["height"], (floor, chart)
    explorer.screenshot("confirmation-under-heatmap")

    explorer.press_whatif_undo()
    explorer.wait_for_url_ranking(PASTRY_ORDER)
    explorer.expect_metrics(PASTRY)
    expect(explorer.whatif_confirmation()).to_contain_text("Undid the last change")
    expect(explorer.whatif_confirmation()).to_be_in_viewport()


def clicking_donuts_removal_bar_removes_it_until_undo(explorer: ExplorerPage) -> None:
    bars = explorer.removal_bars()
    bars.scroll_into_view()
    explorer.screenshot("bars")

    bars.click("Recall@4", x="1. donut", tooltip_says="Remove donut (rank 1)")

    # Left: bagel, muffin, croissant; muffin is the only relevant document retrieved, now at rank 2.
    explorer.wait_for_url_parameter("removed", "1")
    explorer.expect_metrics({"P@4": 1 / 4, "Recall@4": 1 / 3, "RR": 1 / 2, "AP@4": (1 / 2) / 3})
    explorer.expect_message("Removing donut (rank 1): applied")
    explorer.screenshot("donut-removed", whole_page=True)

    explorer.press_undo()
    explorer.wait_for_url_parameter("removed", None)
    explorer.expect_metrics(PASTRY)
    explorer.screenshot("donut-back")


def removing_an_item_from_its_bar_confirms_under_the_bars(explorer: ExplorerPage) -> None:
    bars = explorer.removal_bars()
    bars.scroll_into_view()
    bars.click("Recall@4", x="1. donut", tooltip_says="Remove donut (rank 1)")

    explorer.wait_for_url_parameter("removed", "1")
    confirmation = explorer.whatif_confirmation()
    expect(confirmation).to_contain_text("Removing donut (rank 1): applied")
    expect(confirmation).to_be_in_viewport()
    explorer.press_whatif_undo()
    explorer.wait_for_url_parameter("removed", None)
    explorer.expect_metrics(PASTRY)


def typing_k_3_moves_the_k_charts_marked_cut_off_to_3(explorer: ExplorerPage) -> None:
    explorer.open_whatif_tab("Changing k")
    curves = explorer.k_curves()
    expect(curves.title()).to_be_visible()
    curves.wait_for_marked_k(4, panels=len(PASTRY))  # one dashed line and one ring per metric panel
    expect(curves.hover_ring("P")).to_have_text("current k=4: P@4 = 0.500")
    curves.mark()

    explorer.set_k(3)

    curves.wait_for_marked_k(3, panels=len(PASTRY))
    expect(curves.hover_ring("P")).to_have_text("current k=3: P@3 = 0.667")
    assert curves.is_marked()  # updated in place: the browser did not build the chart again
    # donut and muffin in the top 3: P@3 = 2/3, the ideal DCG@3 is over three relevant documents.
    explorer.expect_metrics({"P@3": 2 / 3, "Recall@3": 2 / 3, "AP@3": (1 / 1 + 2 / 3) / 3,
                             "nDCG@3": (1 + 1 / log2(4)) / IDEAL_DCG})
    curves.scroll_into_view()
    explorer.screenshot("k-3")
