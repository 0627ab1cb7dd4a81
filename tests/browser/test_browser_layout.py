"""What a newcomer sees in a real browser: nothing on screen is cut off or needs a scroll bar of its own.

Checked at 1280 px, the narrowest of the widths the app is tried at (1280, 1400 and 1920): every column only gets
wider from there. The last tests visit each page at 1280 x 900, in its default state and in the states where
something was once cut off, and measure in the DOM that no table, button, chart or box is wider (or taller) than
the space it is given.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from metrics.conventions import CONVENTION_INFO
from metrics.explain import explorer_measures
from tests.browser.support import AppPage, ExplorerPage, RunsPage, artifact_prefix
from ui.ann import COLLECTION_NAMES
from ui.common.query_state import MAX_K
from ui.explore.scores import CARDS, EXPLANATION_TAB
from ui.runs.data import CONVENTIONS_LABEL as RUN_CONVENTIONS
from ui.runs.lint import FINDING

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
    choices = page.locator(f".st-key-{EXPLANATION_TAB}").get_by_role("radio")
    labels = [label.strip() for label in choices.all_inner_texts()]
    assert {"nDCG@4", "RR", "AP@4", "P@4"} <= set(labels)
    for label in labels:
        explorer.choose_view(EXPLANATION_TAB, label)
        formula = explorer.page.locator(".katex-display:visible")
        expect(formula).to_have_count(1)
        assert _overflow(explorer.page, formula) <= 0, f"the {label} formula is cut off"
        worked = explorer.page.locator(".st-key-worked_formula [data-testid=stText] span")
        expect(worked).to_contain_text(f"{label} = ")  # the computation with this list's numbers, whole
        assert worked.evaluate("""span => span.getBoundingClientRect().right
            - span.closest('[data-testid=stColumn]').getBoundingClientRect().right""") <= 0, \
            f"the {label} computation is cut off"
    assert "monospace" in worked.evaluate("span => getComputedStyle(span).fontFamily")  # the code font
    explorer.choose_view(EXPLANATION_TAB, "nDCG@4")
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
    sidebar = runs_page.page.get_by_test_id("stSidebar")
    runs_page.rerun_after(lambda: sidebar.get_by_text(RUN_CONVENTIONS, exact=True).click())  # drawn only while open
    boxes = sidebar.locator(".stExpander input[role=combobox]")
    expect(boxes).to_have_count(len(CONVENTION_INFO) + 1)  # the trec_eval build and one box per convention
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


# ---- every page at 1280 x 900 ------------------------------------------------------------------------------------

LAPTOP = {"width": 1280, "height": 900}
#: What on the page is wider than the space it is given, in the words of a bug report ("table [rank, document, …]
#: 522 px in 458 px"); hidden elements (closed tabs and expanders) are skipped. Streamlit's data grid draws in a
#: canvas: its scroller's content width is the width of its columns. A button's label, a multiselect's chips and a
#: fixed-height box cut their content off (an ellipsis, a fade, a scroll bar) rather than grow. Icons are drawn by
#: a font: their names are wide text until it has loaded, hence the wait for the fonts.
OVERFLOWING = """async () => {
    await document.fonts.ready;  // an icon's name is wide text until its font has loaded
    const shown = element => { const box = element.getBoundingClientRect(); return box.width > 0 && box.height > 0; };
    const main = document.querySelector('[data-testid=stMain]');
    const found = [];
    for (const scroller of main.querySelectorAll('[data-testid=stDataFrame] .dvn-scroller')) {
        if (!shown(scroller) || scroller.scrollWidth <= scroller.clientWidth + 1) continue;
        const grid = scroller.closest('[data-testid=stDataFrame]');
        const headers = [...grid.querySelectorAll('table[role=grid] thead th')].map(cell => cell.textContent.trim());
        found.push(`table [${headers.join(', ')}] ${scroller.scrollWidth} px in ${scroller.clientWidth} px`);
    }
    for (const button of main.querySelectorAll('button')) {
        const text = button.querySelector('[data-testid=stMarkdownContainer]');
        if (!shown(button) || !text || !text.textContent.trim()) continue;  // an icon alone has no label to cut
        const label = [...button.querySelectorAll('p, div')].find(part => part.scrollWidth > part.clientWidth + 1);
        if (label)
            found.push(`button "${label.textContent.trim()}" ${label.scrollWidth} px in ${label.clientWidth} px`);
    }
    for (const chart of main.querySelectorAll('[data-testid=stPlotlyChart]')) {
        const drawing = chart.querySelector('svg.main-svg');
        if (!shown(chart) || !drawing || drawing.getBoundingClientRect().width <= chart.clientWidth + 1) continue;
        const title = chart.querySelector('.gtitle');
        found.push(`chart "${title ? title.textContent : ''}" ${drawing.getBoundingClientRect().width} px in `
                   + `${chart.clientWidth} px`);
    }
    for (const box of main.querySelectorAll('[data-testid=stMultiSelect] [data-baseweb=select] div')) {
        if (shown(box) && box.scrollWidth > box.clientWidth + 1)
            found.push(`chips "${box.innerText.trim()}" ${box.scrollWidth} px in ${box.clientWidth} px`);
    }
    for (const block of main.querySelectorAll('[data-testid=stVerticalBlock]')) {
        const scrolls = ['auto', 'scroll'].includes(getComputedStyle(block).overflowY);
        if (shown(block) && scrolls && block.scrollHeight > block.clientHeight + 1)
            found.push(`box "${block.innerText.trim().slice(0, 60)}" ${block.scrollHeight} px high in `
                       + `${block.clientHeight} px`);
    }
    return found;
}"""


def expect_everything_fits(page: AppPage, state: str) -> None:
    page.wait_for_charts()
    assert page.page.evaluate(OVERFLOWING) == [], f"{state} at 1280 x 900: cut off"


def test_the_explorer_fits_1280_by_900_as_it_opens_with_a_contradiction_and_against_a_baseline(
        explorer: ExplorerPage) -> None:
    explorer.page.set_viewport_size(LAPTOP)
    explorer.open()
    expect_everything_fits(explorer, "the explorer as it opens")  # the list's "removed" column among them
    explorer.rerun_after(lambda: explorer.page.locator(".st-key-pin_baseline button:visible").click())
    explorer.rerun_after(lambda: explorer.press_move_button("move_down"))  # donut's 0.95 now below bagel's 0.9
    status = explorer.page.locator(".st-key-list_status")
    expect(status.get_by_text("The scores contradict this order")).to_be_visible()
    for name in ("Sort by score", "Use this order"):
        expect(status.get_by_role("button", name=name)).to_be_in_viewport()
    expect_everything_fits(explorer, "the score contradiction")
    status.scroll_into_view_if_needed()
    explorer.screenshot("contradiction-1280x900")
    explorer.rerun_after(lambda: explorer.page.get_by_text("Simulate the clicks on this list").click())
    explorer.page.get_by_role("heading", name="Against the pinned baseline").scroll_into_view_if_needed()
    expect_everything_fits(explorer, "the A/B test against the pinned baseline")
    explorer.screenshot("against-the-baseline-1280x900")
    explorer.expect_no_traceback()


def test_a_long_lists_swap_heatmaps_number_their_ranks_from_1(explorer: ExplorerPage) -> None:
    explorer.page.set_viewport_size(LAPTOP)
    explorer.open("ranking=" + ",".join(f"d{rank}" for rank in range(1, 61)) + "&qrels=d1:1,d5:2,d30:1&k=10")
    explorer.open_whatif_tab("Swapping two ranks")
    heatmaps = explorer.swap_heatmaps().scroll_into_view()
    ticks = heatmaps.axis_labels()
    # Six heatmaps, two rows of three: a rank i axis left of each row, a rank j axis under each column, each with
    # ranks 1, 5, 10, …, 40 of the top 40.
    assert len(ticks) == 5 * 9
    assert set(ticks) == {"1", "5", "10", "15", "20", "25", "30", "35", "40"}
    expect_everything_fits(explorer, "the swap heatmaps of 60 documents")
    explorer.screenshot("long-list-heatmaps-1280x900")


def test_the_run_page_fits_1280_by_900_on_each_tab_with_the_holes_opt_in(runs_page: RunsPage) -> None:
    runs_page.page.set_viewport_size(LAPTOP)
    runs_page.open()
    runs_page.use_built_in_collection()
    expect(runs_page.page.locator(".st-key-results_holes input")).not_to_be_checked()
    assert list(runs_page.means_table()) == ["P_10", "recall_100", "recip_rank", "map", "ndcg_cut_10", "success_1"]
    expect_everything_fits(runs_page, "the run page's per-query results")
    runs_page.screenshot("per-query-results-1280x900")
    runs_page.open_tab("Compare runs")
    expect(runs_page.page.get_by_text("Every pair (1 pair x 2 measures = 2 tests)")).to_be_visible()
    expect_everything_fits(runs_page, "Compare runs (the report, every pair, the run chips)")
    runs_page.screenshot("compare-runs-1280x900", whole_page=True)
    runs_page.open_tab("Judge the holes")
    grades = [row["your grade"] for row in runs_page.table_rows(runs_page.visible_tables().first)]
    assert grades and set(grades) == {""}, "a grade not yet typed shows as an empty cell"
    runs_page.grade_the_chosen_document(1)
    expect_everything_fits(runs_page, "Judge the holes with one judgment added (banner, table, downloads)")
    runs_page.screenshot("judge-the-holes-1280x900", whole_page=True)
    runs_page.expect_no_traceback()


#: Each piece of a lint finding's block that does not show whole: wider than its box, or reaching past the panel.
CUT_FINDINGS = """blocks => blocks.flatMap(block => {
    const panel = block.closest('[data-testid=stExpander]').getBoundingClientRect();
    return [block, ...block.querySelectorAll('*')].filter(element => {
        const box = element.getBoundingClientRect();
        return box.width > 0 && (element.scrollWidth > element.clientWidth + 1 || box.right > panel.right + 1);
    }).map(element => `${element.tagName} "${element.textContent.trim().slice(0, 60)}" ${element.scrollWidth} px `
                      + `in ${element.clientWidth} px, right edge ${box(element)} px of the panel's ${panel.right}`);
    function box(element) { return Math.round(element.getBoundingClientRect().right); }
})"""


def test_the_lint_panels_findings_show_whole_at_1280_by_900(runs_page: RunsPage) -> None:
    # A data frame cut its "effect" and "what it means" columns ("recip_rank 0.6583 (this run) vs").
    runs_page.page.set_viewport_size(LAPTOP)
    runs_page.open()
    runs_page.use_dl20()
    runs_page.open_lint()
    panel = runs_page.page.locator(".st-key-runs_lint_open")
    findings = panel.locator(f"[class*=st-key-{FINDING}_]")
    expect(findings.first.get_by_text("recip_rank 0.6583 (this run) vs 0.6587 (at most, with a run to depth 1000)",
                                      exact=True)).to_be_visible()
    assert findings.count() == 10  # two in each of the five runs
    assert findings.evaluate_all(CUT_FINDINGS) == []
    expect_everything_fits(runs_page, "the lint panel on TREC DL 2020")
    findings.first.scroll_into_view_if_needed()
    runs_page.screenshot("lint-1280x900")
    runs_page.expect_no_traceback()


def test_the_ann_page_fits_1280_by_900_and_a_difference_too_small_to_show_has_no_sign(tab, app_url, request) -> None:
    page = AppPage(tab, app_url, artifact_prefix=artifact_prefix(request))
    page.page.set_viewport_size(LAPTOP)
    page.page.goto(app_url + "/ann")
    page.page.get_by_test_id("stMetric").first.wait_for()
    expect_everything_fits(page, "the ANN page as it opens")
    # Digits with the default index: nDCG@10 of the ANN list is 0.00003 below the exact list's.
    page.rerun_after(lambda: page._pick("ann_collection", COLLECTION_NAMES["digits"]))
    deltas = page.page.get_by_test_id("stMetricDelta")
    expect(deltas).to_have_text(["0.000 vs exact", "0.000 vs exact"])
    expect_everything_fits(page, "the ANN page on the digits")
    page.screenshot("ann-digits-1280x900")
    page.expect_no_traceback()


# ---- labels whole, at the largest k and on the ANN page -----------------------------------------------------------

#: Each metric card's label that does not show whole: its text wider than its box (cut with an ellipsis), running
#: under its help icon, or past its card's right edge.
CUT_LABELS = """labels => labels.flatMap(label => {
    const text = label.querySelector('[data-testid=stMarkdownContainer]');
    const icon = label.querySelector('[data-testid=stTooltipIcon]');
    const words = text.querySelector('p').getBoundingClientRect();
    const card = label.closest('[data-testid=stColumn]').getBoundingClientRect();
    const cut = text.scrollWidth > text.clientWidth ? [`${text.scrollWidth} px in ${text.clientWidth} px`] : [];
    if (icon && icon.getBoundingClientRect().left < words.right) cut.push('under its help icon');
    if ((icon ? icon.getBoundingClientRect() : words).right > card.right + 1) cut.push('past its card');
    return cut.map(why => `${text.textContent}: ${why}`);
})"""


def test_every_card_label_shows_whole_at_the_largest_k_at_1280_by_900(explorer: ExplorerPage) -> None:
    # Equal columns cut "Recall@10000" to "Recall@100…", which reads as another cut-off.
    explorer.page.set_viewport_size(LAPTOP)
    explorer.open(f"ranking=donut,bagel,muffin&qrels=donut:1,muffin:1,scone:1&k={MAX_K}")
    labels = explorer.page.locator(f".st-key-{CARDS} [data-testid=stMetricLabel]")
    expect(labels.get_by_test_id("stMarkdownContainer")).to_have_text(
        [label for label, _ in explorer_measures(MAX_K)])
    assert labels.evaluate_all(CUT_LABELS) == []
    explorer.screenshot("cards-at-the-largest-k-1280x900")
    explorer.expect_no_traceback()


#: Each number and the unit after it ("0.82 s") that are drawn on two lines, as written.
UNITS_ALONE = """element => {
    const alone = [], walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of node.data.matchAll(/(\\d)\\s(s|ms)\\b/g)) {
            const top = at => { const range = document.createRange(); range.setStart(node, at);
                                range.setEnd(node, at + 1); return range.getBoundingClientRect().top; };
            if (top(match.index) !== top(match.index + 2)) alone.push(match[0]);
        }
    }
    return alone;
}"""


def test_the_ann_pages_vectors_box_and_build_time_show_whole_at_1280_by_900(tab, app_url, request) -> None:
    page = AppPage(tab, app_url, artifact_prefix=artifact_prefix(request))
    page.page.set_viewport_size(LAPTOP)
    page.page.goto(app_url + "/ann")
    page.page.get_by_test_id("stMetric").first.wait_for()
    page.wait_until_idle()
    box = page.page.locator(".st-key-ann_collection input[role=combobox]")
    for name in COLLECTION_NAMES.values():
        if box.input_value() != name:
            page.rerun_after(lambda name=name: page._pick("ann_collection", name))
        expect(box).to_have_value(name)
        assert box.evaluate("input => input.scrollWidth <= input.clientWidth"), f"the Vectors box cuts {name!r}"
        built = page.page.get_by_test_id("stCaptionContainer").filter(has_text="index built in")
        expect(built).to_have_count(1)
        # Playwright reads a no-break space as a space: the DOM's own text tells them apart.
        assert re.search(r"index built in \d+\.\d\d\u00a0s$", built.evaluate("caption => caption.textContent"))
        assert built.evaluate(UNITS_ALONE) == []
        page.screenshot(f"ann-{name}-1280x900")
    page.expect_no_traceback()
