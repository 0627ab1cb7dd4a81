"""What a newcomer sees in a real browser: nothing on screen is cut off or needs a scroll bar of its own.

Checked at 1280 px, the narrowest of the widths the app is tried at (1280, 1400 and 1920): every column only gets
wider from there.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from tests.browser.support import ExplorerPage, RunsPage

pytestmark = [
    pytest.mark.browser,
]

NARROWEST = {"width": 1280, "height": 1000}
#: The conventions that make the formulas longest: exponential gain, the ideal from the retrieved documents, AP@k's
#: denominator as a sum, P@k over min(k, |L|).
LONGEST_FORMULAS = ("ranking=donut,muffin,bagel,croissant&qrels=donut:1,muffin:1,scone:1&k=4&gain=exponential"
                    "&ideal=retrieved&ap_denominator=retrieved_relevant&p_short=retrieved")


def _overflow(page, locator) -> float:
    """How far the rendered formula reaches past the right edge of its column, in CSS pixels (<= 0: it fits)."""
    return locator.evaluate("""display => {
        const formula = display.querySelector('.katex-html').getBoundingClientRect();
        const column = display.closest('[data-testid=stColumn]').getBoundingClientRect();
        return formula.right - column.right;
    }""")


def test_every_formula_fits_its_panel_at_1280_px(explorer: ExplorerPage) -> None:
    explorer.page.set_viewport_size(NARROWEST)
    explorer.open(LONGEST_FORMULAS)
    page = explorer.page
    explanations = page.get_by_test_id("stTabs").filter(has=page.get_by_role("tab", name="nDCG@4", exact=True))
    labels = [label.strip() for label in explanations.get_by_role("tab").all_inner_texts()]
    assert {"nDCG@4", "RR", "AP@4", "P@4"} <= set(labels)
    for label in labels:
        tab = explorer.page.get_by_role("tab", name=label, exact=True)
        tab.click()
        expect(tab).to_have_attribute("aria-selected", "true")
        formula = explorer.page.locator(".katex-display:visible")
        expect(formula).to_have_count(1)
        assert _overflow(explorer.page, formula) <= 0, f"the {label} formula is cut off"
    explorer.page.get_by_role("tab", name="nDCG@4", exact=True).click()
    explorer.page.get_by_role("heading", name="How each number is computed").scroll_into_view_if_needed()
    explorer.screenshot("ndcg-formula-1280")
    explorer.expect_no_traceback()


#: The longest option of each convention the explorer's URL can set.
LONGEST_OPTIONS = ("ranking=donut,muffin&qrels=donut:1&k=4&gain=exponential&ideal=judgments"
                   "&ap_denominator=retrieved_relevant&ties=docid_ascending&unjudged=nonrelevant&p_short=retrieved")
#: Select boxes whose shown value is wider than the box (an <input> scrolls its text rather than wrap it).
CUT_VALUES = "inputs => inputs.filter(input => input.scrollWidth > input.clientWidth).map(input => input.value)"


def test_the_run_pages_convention_boxes_show_their_whole_value_at_1280_px(runs_page: RunsPage) -> None:
    runs_page.page.set_viewport_size(NARROWEST)
    runs_page.open()
    runs_page.use_built_in_collection()
    boxes = runs_page.page.get_by_test_id("stSidebar").locator("input[role=combobox]")
    expect(boxes.first).to_be_visible()
    assert boxes.evaluate_all(CUT_VALUES) == []
    runs_page.screenshot("sidebar-1280")


def test_the_explorers_convention_boxes_show_their_whole_value_at_1280_px(explorer: ExplorerPage) -> None:
    explorer.page.set_viewport_size(NARROWEST)
    explorer.open(LONGEST_OPTIONS)
    sidebar = explorer.page.get_by_test_id("stSidebar")
    sidebar.get_by_text("Conventions (changed)", exact=True).click()
    boxes = sidebar.locator(".stExpander input[role=combobox]")
    expect(boxes.first).to_be_visible()
    assert boxes.evaluate_all(CUT_VALUES) == []
    explorer.screenshot("conventions-1280")
